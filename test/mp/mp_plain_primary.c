/* SPDX-License-Identifier: BSD-3-Clause */
/* A DPDK primary that does not use dvshare, for the "no dvshare" case. */
#include <stdio.h>

#include <rte_eal.h>
#include <rte_errno.h>

int main(int argc, char **argv)
{
	char line[64];

	if (rte_eal_init(argc, argv) < 0) {
		printf("@@ err %d eal init\n", rte_errno);
		return 1;
	}
	printf("@@ ready primary\n");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL)
		;
	rte_eal_cleanup();
	printf("@@ bye\n");
	return 0;
}
