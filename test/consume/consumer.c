/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An application outside dvshare's tree, as a user writes one. Opens the
 * software device, publishes a VAR page and a protection domain, finds
 * them again, rings the page's doorbell, closes. Built with
 * ALLOW_EXPERIMENTAL_API it also asks the device's name (dvshare_dev_name()
 * is experimental); without, it uses the stable API only. Prints
 * "consumer: ok" and exits 0 on success.
 *
 *   dvshare-consumer [EAL options]
 */
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <dvshare.h>
#include <dvshare_prm.h>

static int fail(const char *what)
{
	fprintf(stderr, "consumer: %s: %s\n", what, rte_strerror(rte_errno));
	return 1;
}

static int count(struct dvshare_dev *dev, const struct dvshare_info *info, void *arg)
{
	(void)dev;
	(void)info;
	++*(int *)arg;
	return 0;
}

int main(int argc, char **argv)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	int objects = 0;

	if (rte_eal_init(argc, argv) < 0)
		return fail("EAL init");
	struct dvshare_dev *dev = dvshare_dev_open("sim0", NULL);
	if (dev == NULL)
		return fail("open sim0");
	struct dvshare_var *var = dvshare_var_alloc(dev, "db", 0);
	struct dvshare_obj *pd = dvshare_obj_create(dev, "pd", in, dvshare_prm_alloc_pd(in), out,
						    sizeof(out));
	if (var == NULL || pd == NULL)
		return fail("publish");
	struct dvshare_var *again = dvshare_var_lookup(dev, "db");
	if (again != var || dvshare_foreach(dev, count, &objects) != 0 || objects != 2)
		return fail("lookup");
	dvshare_doorbell32(dvshare_var_doorbell(var), 0, 0);
#ifdef ALLOW_EXPERIMENTAL_API
	if (strcmp(dvshare_dev_name(dev), "sim0") != 0)
		return fail("device name");
#endif
	dvshare_var_release(again);
	dvshare_var_release(var);
	dvshare_obj_release(pd);
	if (dvshare_dev_close(dev) != 0)
		return fail("close");
	printf("consumer: ok (dvshare %d.%d.%d, %d objects)\n", DVSHARE_VERSION_MAJOR,
	       DVSHARE_VERSION_MINOR, DVSHARE_VERSION_PATCH, objects);
	rte_eal_cleanup();
	return 0;
}
