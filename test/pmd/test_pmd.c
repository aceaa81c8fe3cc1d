/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite pmd: dvshare-pmd as a user runs it, primary and secondary, driven
 * through --cmdfile / --cmd / stdin, checking what they print.
 *
 * argv: DVSHARE_PMD
 */
#include "dvs_cunit.h"
#include "pmd_harness.h"

static void test_cmdfile_primary_and_secondary(void)
{
	char prefix[96], file[128];
	struct peer prim, sec;
	const char *l;
	FILE *f;

	CU_ASSERT_FATAL(mp_have_hugepages());
	mp_prefix(prefix, sizeof(prefix), "pmd");
	mp_cleanup(prefix);
	CU_ASSERT_EQUAL_FATAL(start_primary(&prim, prefix, 0), 0);
	snprintf(file, sizeof(file), "/tmp/%s.cmds", prefix);
	f = fopen(file, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("# a comment, then the session\n"
	      "show devices\n"
	      "show objects\n"
	      "ring db0 5 20 200\n"
	      "query q0\n"
	      "modify q0 avail 20\n"
	      "query c0\n"
	      "caps sim0\n"
	      "meta get sim0 q0\n"
	      "stats\n", f);
	fclose(f);
	{
		const char *const opts[] = { "--cmdfile", file, NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_start(&sec, prefix, 0, 0, opts), 0);
	}
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "ready secondary"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "device sim0 role=secondary objects=7"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "object sim0 db0 var id=0 size=4096"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "ring db0: 20 doorbell(s) written, value=5"));
	l = expect_line(&sec, "query q0:");
	CU_ASSERT(l != NULL && strstr(l, "queue_index=3 queue_size=128 state=init") != NULL);
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "modify q0: avail=20"));
	l = expect_line(&sec, "query c0:");
	CU_ASSERT(l != NULL && strstr(l, "packets=0 octets=0") != NULL);
	l = expect_line(&sec, "caps sim0: vhca_id");
	CU_ASSERT(l != NULL && strstr(l, "virtio_net_q=yes") != NULL);
	l = expect_line(&sec, "caps sim0: doorbell_bar_offset");
	CU_ASSERT(l != NULL && strstr(l, "doorbell_bar_offset=0x1800") != NULL);
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "meta q0: queue=3"));
	l = expect_line(&sec, "stats:");
	CU_ASSERT(l != NULL && strstr(l, "attach_status=1 devices=1") != NULL);
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "bye: 0 failed"));
	CU_ASSERT_EQUAL(peer_wait(&sec, MP_TIMEOUT_MS), 0);
	unlink(file);

	/* The primary's device saw the secondary's doorbells and its modify.
	 * Stores between two engine passes may coalesce: at least one kick,
	 * and the last value. */
	send_line(&prim, "show engine");
	l = expect_line(&prim, "engine sim0 db0 page=0 kicks=");
	CU_ASSERT(l != NULL && strstr(l, "last=5") != NULL && strstr(l, "kicks=0 ") == NULL);
	send_line(&prim, "query q0");
	l = expect_line(&prim, "query q0:");
	CU_ASSERT(l != NULL && strstr(l, "hw_available_index=20") != NULL);
	stop(&prim);
	mp_cleanup(prefix);
}

/* One clear error line, the session goes on, the exit status says so. */
static void test_errors_are_one_line(void)
{
	char prefix[96];
	struct peer prim, sec;

	CU_ASSERT_FATAL(mp_have_hugepages());
	mp_prefix(prefix, sizeof(prefix), "pmderr");
	mp_cleanup(prefix);
	CU_ASSERT_EQUAL_FATAL(start_primary(&prim, prefix, 0), 0);
	{
		const char *const opts[] = { "--cmd", "frobnicate", "--cmd", "ring nosuch 1",
					     "--cmd", "var alloc sim0 x", "--cmd", "query q0", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_start(&sec, prefix, 0, 0, opts), 0);
	}
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "error: frobnicate: unknown command"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "error: no such object nosuch"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "error: var alloc x: Operation not permitted"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "query q0:")); /* still going */
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "bye: 3 failed"));
	CU_ASSERT_EQUAL(peer_wait(&sec, MP_TIMEOUT_MS), 1);
	/* The primary: a device error is one line too. */
	send_line(&prim, "obj create sim0 bad 0 100");
	/* The library logs the device's status because the device answered. */
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "dvshare: sim0: DEVX create for bad failed: status BAD_PARAM, syndrome 0x"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "error: obj create bad: Remote I/O error (status BAD_PARAM"));
	send_line(&prim, "destroy sim0 db0 1000");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "destroy db0: done"));
	send_line(&prim, "quit");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "bye: 1 failed"));
	CU_ASSERT_EQUAL(peer_wait(&prim, MP_TIMEOUT_MS), 1);
	mp_cleanup(prefix);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_cmdfile_primary_and_secondary),
	DVS_TEST(test_errors_are_one_line),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s DVSHARE_PMD\n", argv[0]);
		return -1;
	}
	pmd = argv[1];
	signal(SIGPIPE, SIG_IGN);
	return dvs_cunit_add("pmd", cases);
}

DVS_CUNIT_MAIN("test_pmd", register_tests)
