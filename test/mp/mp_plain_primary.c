/* SPDX-License-Identifier: BSD-3-Clause */
/* A DPDK primary that does not use dvshare, for the "no dvshare" case. */
#include <stdio.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf_dyn.h>

/*
 * A secondary needs every tail queue its libraries register to exist in
 * its primary: dvshare-pmd loads librte_mbuf (through cmdline and net), so
 * this primary loads it too, as a DPDK application would (DPDK 24.11 with
 * --as-needed otherwise left it out: "Cannot initialize tailq:
 * RTE_MBUF_DYNFIELD" in the secondary).
 */
int (*volatile keep_mbuf)(const char *, struct rte_mbuf_dynfield *) = rte_mbuf_dynfield_lookup;

int main(int argc, char **argv)
{
	char line[64];

	if (rte_eal_init(argc, argv) < 0) {
		printf("@@ err %d eal init\n", rte_errno);
		return 1;
	}
	printf("@@ ready primary%s\n", keep_mbuf != NULL ? "" : " (no mbuf)");
	fflush(stdout);
	while (fgets(line, sizeof(line), stdin) != NULL)
		;
	rte_eal_cleanup();
	printf("@@ bye\n");
	return 0;
}
