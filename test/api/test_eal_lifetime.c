/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite api: dvshare around EAL's lifetime, in one primary, as doc/api.md
 * defines it. Before rte_eal_init() nothing can be shared (ENOTCONN, and
 * nothing is written anywhere); after rte_eal_cleanup() what dvshare made
 * is still its own: lookups, destroys and the close work, and a device can
 * still be closed cleanly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "dvs_cunit.h"
#include "dvshare.h"

static char prefix[64];

static void test_before_init(void)
{
	rte_errno = 0;
	CU_ASSERT_PTR_NULL(dvshare_dev_open("sim0", NULL));
	CU_ASSERT_EQUAL(rte_errno, ENOTCONN);
	/* Nothing advertised at the root for lack of a runtime directory. */
	CU_ASSERT_NOT_EQUAL(access("/dvshare_primary", F_OK), 0);
	CU_ASSERT_NOT_EQUAL(access("/dvshare_channel", F_OK), 0);
}

static void test_after_cleanup(void)
{
	char fp[96];
	char *eal[] = { "test_eal_lifetime", "-l", "0", "--no-pci", "--no-huge", "-m", "64", fp,
			"--log-level=lib.eal:error", NULL };
	struct dvshare_dev *dev;
	struct dvshare_var *v;

	snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
	CU_ASSERT_FATAL(rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])) - 1, eal) >= 0);
	dev = dvshare_dev_open("sim0", NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dev);
	v = dvshare_var_alloc(dev, "db0", 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT_PTR_NOT_NULL(dvshare_var_alloc(dev, "db1", 0));
	CU_ASSERT_EQUAL(rte_eal_cleanup(), 0);
	/* DPDK is gone; dvshare's state is not. */
	struct dvshare_var *l = dvshare_var_lookup(dev, "db0");
	CU_ASSERT_PTR_EQUAL(l, v);
	dvshare_var_release(l);
	dvshare_doorbell32(dvshare_var_addr(v), 0, 7);
	dvshare_var_release(v);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "db0", 1000), 0);
	CU_ASSERT_EQUAL(dvshare_dev_close(dev), 0);
	CU_ASSERT_PTR_NULL(dvshare_dev_lookup("sim0"));
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_before_init),
	DVS_TEST(test_after_cleanup),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	snprintf(prefix, sizeof(prefix), "dvs-life-%d", (int)getpid());
	return dvs_cunit_add("eal_lifetime", cases);
}

int main(int argc, char **argv)
{
	int rc;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	if (register_tests(argc, argv) != 0) {
		CU_cleanup_registry();
		return 2;
	}
	rc = dvs_cunit_run("test_eal_lifetime");
	dvs_remove_runtime_dir("test_eal_lifetime", prefix);
	return rc;
}
