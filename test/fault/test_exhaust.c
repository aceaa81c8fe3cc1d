/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite hostile, test exhaust: one peer must not exhaust the primary (its
 * fds, threads, memory, registry room, quota) or pass for a process it is
 * not. Each test is the attack as an attacker writes it (test/fault/exhaust
 * without EAL, or mp_peer as a real secondary), with the primary's
 * resources measured before and after.
 *
 * argv: PEER EXHAUST
 */
#include "dvs_cunit.h"
#include "mp_harness.h"

#define DEV "sim0"

static const char *exhaust_prog;

#define scene mp_scene
#define scene_end mp_scene_end

static void scene_start(struct scene *s, const char *tag)
{
	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(mp_scene_start(s, tag, NULL), 0);
	OK(&s->prim, "open " DEV);
}

/* rte_mp messages under the names dvshare's channel replaced, each with 8
 * real fds: dvshare registers nothing there, so DPDK drops each message
 * and closes its fds (as for any name it has no action for); the primary
 * keeps none. (Protocol 5 registered those names to count forgeries, and
 * the fds stayed open in the primary: +160 for these 20 messages.) */
static void test_rte_mp_fds_not_kept(void)
{
	struct scene s;

	scene_start(&s, "mpfds");
	long fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	long r0 = mp_refused(&s.prim);
	CU_ASSERT_EQUAL(mp_attacker_run(exhaust_prog, &s, "mpfds", "20", NULL), 0);
	long fds = mp_fds_settle(&s.prim, fds0);
	printf("%s: primary fds %ld before, %ld after 20 messages of 8 fds\n", __func__, fds0, fds);
	CU_ASSERT(fds <= fds0);
	CU_ASSERT_EQUAL(mp_refused(&s.prim), r0);
	/* A secondary still attaches. */
	struct peer *p = mp_scene_secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	REPLY_IS(p, "ok 1", "status");
	scene_end(&s);
}

/* A live process says hello, closes its channel, and says hello again,
 * 300 times. One death watch per process: each reconnect hands it to the
 * new channel and frees the old one at once, so the primary's fds and
 * threads stay where they were; past 8 reconnects at once (then one a
 * second) its hellos are refused, each counted. (Before: each cycle left
 * the old channel's pidfd and its DPDK interrupt source in the primary,
 * +1 fd and about 44 kB a cycle, until the process exited; with the usual
 * 1,024-fd limit, about 970 cycles locked every new secondary out.) */
static void test_reconnect_no_leak(void)
{
	struct scene s;

	scene_start(&s, "reconn");
	long fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	long th0 = ok_num(peer_cmd(&s.prim, "threadcount"));
	long r0 = mp_refused(&s.prim);
	struct peer h;
	CU_ASSERT_EQUAL_FATAL(mp_attacker_start(&h, exhaust_prog, &s, "reconnect", "300", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(peer_read(&h, MP_TIMEOUT_MS), 0);
	long n = atol(h.last);
	/* Measured while it lives: what it leaves goes only at its exit. It
	 * holds its last channel (a peer's pidfd and channel: +2 at most). */
	long fds = mp_fds_settle(&s.prim, fds0 + 2), th = ok_num(peer_cmd(&s.prim, "threadcount"));
	printf("%s: primary fds %ld -> %ld, threads %ld -> %ld; %ld of 300 hellos refused\n",
	       __func__, fds0, fds, th0, th, n);
	CU_ASSERT(fds <= fds0 + 2);
	CU_ASSERT(th <= th0);
	CU_ASSERT_EQUAL(peer_send(&h, "go"), 0);
	CU_ASSERT_EQUAL(peer_wait(&h, MP_TIMEOUT_MS), 0);
	CU_ASSERT(mp_fds_settle(&s.prim, fds0) <= fds0);
	/* At least 8 welcomed (the burst), most refused, each counted. */
	CU_ASSERT(n >= 200 && n <= 300 - 8);
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "refused", r0 + n), r0 + n);
	struct peer *p = mp_scene_secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	REPLY_IS(p, "ok 1", "status");
	scene_end(&s);
}

/* A process that maps a file whose path, 512 bytes into its maps line,
 * reads as the config's inode and path: protocol 5 read /proc/<pid>/maps
 * by 512-byte lines and took it for a DPDK process of the prefix
 * (welcomed, attached, allowed to create). The primary now decides by the
 * mapped files' device and inode (/proc/<pid>/map_files/; whole maps
 * lines where it may not look there): refused, counted. */
static void test_long_path_no_dpdk_process(void)
{
	struct scene s;

	scene_start(&s, "longpath");
	long r0 = mp_refused(&s.prim);
	CU_ASSERT_EQUAL(mp_attacker_run(exhaust_prog, &s, "longpath", NULL, NULL), 1);
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "refused", r0 + 1), r0 + 1);
	REPLY_IS(&s.prim, "ok 0", "peers");
	scene_end(&s);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_rte_mp_fds_not_kept),
	DVS_TEST(test_reconnect_no_leak),
	DVS_TEST(test_long_path_no_dpdk_process),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s PEER EXHAUST\n", argv[0]);
		return -1;
	}
	mp_peer_prog = argv[1];
	exhaust_prog = argv[2];
	return dvs_cunit_add("hostile", cases);
}

DVS_CUNIT_MAIN("test_exhaust", register_tests)
