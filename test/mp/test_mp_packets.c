/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suites mp and hw: packets through shared queues. Secondaries are the
 * virtio drivers: each makes a port (app/common/app_port.h: an RX and a TX
 * VIRTIO_NET_Q with their rings and mbufs in DPDK memory, a key over it,
 * a VAR to kick), through the primary's creates; the primary runs the
 * software device's engine. Real processes (mp_peer), one attach mode per
 * run (--mode eager|lazy|selective).
 *
 * Checked: secondary A's TX reaches secondary B's RX, every byte; the
 * indexes QUERY reports and the queue counters match what moved, and the
 * flow counter the steering names; at most one kick per burst; A killed
 * (-9) in mid-traffic leaves B's queue usable; a destroy of A's queue
 * during traffic stops the engine before the memory goes (the primary
 * lives on, no queue in ERR).
 *
 * On a NIC (--hw) nothing loops back without steering rules, which
 * dvshare does not make: the test sends from one secondary's port and
 * checks that the device consumed every TX descriptor (hw_used_index,
 * the TX queue's counters) — what DPDK's vdpa/mlx5 reads back after a
 * queue has run (mlx5_vdpa_virtq_query: hw_available_index,
 * hw_used_index) — and that no queue is in ERR. It assumes a ConnectX-6
 * Dx / BlueField with VIRTIO_NET_Q and a PD/TIS a queue may send through
 * (DPDK's mlx5_vdpa_create_dev_resources makes the same).
 *
 * argv: PEER [--mode eager|lazy|selective] [--hw IBDEV]
 */
#include "dvs_cunit.h"
#include "mp_harness.h"

#define N_PACKETS 4000
#define RX_SIZE 4096 /* B's ring holds everything A sends: nothing dropped */

static const char *dev0 = "sim0";
static int hw;
static const char *mode_env;

#define scene mp_scene

static struct peer *secondary(struct scene *s)
{
	return mp_scene_secondary(s, mode_env);
}

#define scene_end mp_scene_end

/* Primary with the device open and (software device) its engine running. */
static int start(struct scene *s, const char *tag)
{
	if (!mp_have_hugepages() || mp_scene_start(s, tag, NULL) != 0)
		return -1;
	OK(&s->prim, "open %s", dev0);
	if (!hw)
		OK(&s->prim, "enginerun %s 20", dev0);
	return 0;
}

/* Field @key=<number> of a reply, or -1. */
static long field(const char *r, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(r, pat);
	return p != NULL ? atol(p + strlen(pat)) : -1;
}

/* The scene most tests play: the primary (engine running), secondary B
 * with port pb (queues 2, 3; RX_SIZE entries) and secondary A with port
 * pa (queues 0, 1; @a_size entries), A's TX queue steered to B's RX
 * queue and counted by flow counter @counter (NULL: none). 0, or -1. */
static int two_ports(struct scene *s, const char *tag, unsigned int a_size, const char *counter,
		     struct peer **a, struct peer **b)
{
	if (start(s, tag) != 0 || (*a = secondary(s)) == NULL || (*b = secondary(s)) == NULL)
		return -1;
	if (!is_ok(peer_cmd(*b, "port create %s pb 1 %d", dev0, RX_SIZE)) ||
	    !is_ok(peer_cmd(*a, "port create %s pa 0 %u", dev0, a_size)))
		return -1;
	if (counter != NULL && ok_num(peer_cmd(&s->prim, "create %s counter %s", dev0, counter)) < 0)
		return -1;
	return is_ok(peer_cmd(&s->prim, "steer %s 1 2 %s", dev0, counter != NULL ? counter : ""))
		       ? 0 : -1;
}

/* A's TX reaches B's RX (steered by the primary, a flow counter on it);
 * every byte checked; both devices' views agree with what moved. */
static void test_secondary_to_secondary(void)
{
	struct scene s;
	struct peer *a, *b;
	char r[MP_REPLY_MAX];

	CU_ASSERT_FATAL(!hw);
	CU_ASSERT_EQUAL_FATAL(two_ports(&s, "pkt", 256, "fc", &a, &b), 0);
	snprintf(r, sizeof(r), "%s", peer_cmd(a, "port send pa %d 64 7", N_PACKETS));
	CU_ASSERT_EQUAL(ok_num(r), N_PACKETS);
	long kicks = field(r, "kicks"), bursts = field(r, "bursts");
	CU_ASSERT(kicks >= 1 && kicks <= bursts);
	fprintf(stderr, "packets: %d sent in %ld bursts with %ld kick(s)\n", N_PACKETS, bursts, kicks);
	snprintf(r, sizeof(r), "%s", peer_cmd(b, "port recv pb %d 64 7 10000", N_PACKETS));
	CU_ASSERT_STRING_EQUAL(r, "ok 4000 bad=0");
	/* The device's view, from each owner's own context. */
	snprintf(r, sizeof(r), "%s", peer_cmd(a, "port view pa"));
	CU_ASSERT(is_ok(r));
	CU_ASSERT_EQUAL(field(r, "txavail"), N_PACKETS);
	CU_ASSERT_EQUAL(field(r, "txused"), N_PACKETS);
	CU_ASSERT_EQUAL(field(r, "txrecv"), N_PACKETS);
	CU_ASSERT_EQUAL(field(r, "txcomp"), N_PACKETS);
	CU_ASSERT_EQUAL(field(r, "rxused"), 0);
	CU_ASSERT_EQUAL(field(r, "errors"), 0);
	snprintf(r, sizeof(r), "%s", peer_cmd(b, "port view pb"));
	CU_ASSERT_EQUAL(field(r, "rxused"), N_PACKETS);
	CU_ASSERT_EQUAL(field(r, "rxrecv"), N_PACKETS);
	CU_ASSERT_EQUAL(field(r, "rxcomp"), N_PACKETS);
	CU_ASSERT(strstr(r, "rxstate=rdy") != NULL);
	REPLY_IS(&s.prim, "ok 4000 256000", "counter %s fc", dev0);
	snprintf(r, sizeof(r), "%s", peer_cmd(&s.prim, "engineinfo %s", dev0));
	CU_ASSERT_EQUAL(field(r, "packets"), N_PACKETS);
	CU_ASSERT_EQUAL(field(r, "dropped"), 0);
	CU_ASSERT_EQUAL(field(r, "errors"), 0);
	CU_ASSERT_EQUAL(field(r, "unreachable"), 0);
	/* Ports go with their owners' destroys; nothing left behind. */
	OK(a, "port destroy pa 2000");
	OK(b, "port destroy pb 2000");
	scene_end(&s);
}

/* A, streaming to B, is killed: B's queue stays RDY and takes packets
 * from the next sender on A's queue index (A's objects reclaimed). */
static void test_sender_killed_mid_traffic(void)
{
	struct scene s;
	struct peer *a, *b, *c;
	char r[MP_REPLY_MAX];

	CU_ASSERT_FATAL(!hw);
	CU_ASSERT_EQUAL_FATAL(two_ports(&s, "pktkill", 256, NULL, &a, &b), 0);
	OK(a, "port stream pa 64");
	/* Some arrive (whatever they are: a stream's seeds run on). */
	snprintf(r, sizeof(r), "%s", peer_cmd(b, "port recv pb 100 64 0 5000"));
	CU_ASSERT_EQUAL(ok_num(r), 100);
	kill(a->pid, SIGKILL);
	CU_ASSERT_EQUAL(peer_wait(a, MP_TIMEOUT_MS), 128 + SIGKILL);
	/* Its objects are reclaimed: its port's name is free again. */
	const char *got = "";
	for (int i = 0; i < 500; i++, usleep(10000))
		if (strncmp(got = peer_cmd(&s.prim, "owner %s pa.txq", dev0), "err 2", 5) == 0)
			break;
	CU_ASSERT_EQUAL(strncmp(got, "err 2", 5), 0);
	/* Drain what A left in B's ring. */
	peer_cmd(b, "port recv pb %d 64 0 300", RX_SIZE);
	c = secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	OK(c, "port create %s pc 0 256", dev0);
	snprintf(r, sizeof(r), "%s", peer_cmd(c, "port send pc 500 100 3"));
	CU_ASSERT_EQUAL(ok_num(r), 500);
	REPLY_IS(b, "ok 500 bad=0", "port recv pb 500 100 3 10000");
	snprintf(r, sizeof(r), "%s", peer_cmd(b, "port view pb"));
	CU_ASSERT(strstr(r, "rxstate=rdy") != NULL);
	CU_ASSERT_EQUAL(field(r, "errors"), 0);
	snprintf(r, sizeof(r), "%s", peer_cmd(&s.prim, "engineinfo %s", dev0));
	CU_ASSERT_EQUAL(field(r, "errors"), 0);
	OK(c, "port destroy pc 2000");
	OK(b, "port destroy pb 2000");
	scene_end(&s);
}

/* The primary destroys A's TX queue while A streams into it: the
 * destroy waits for the engine's pass, so the engine never touches the
 * queue (nor, once A frees it, its memory) again; the primary lives, no
 * queue goes to ERR, and A's own destroy of the rest succeeds. */
static void test_destroy_during_traffic(void)
{
	struct scene s;
	struct peer *a, *b;
	char r[MP_REPLY_MAX];

	CU_ASSERT_FATAL(!hw);
	CU_ASSERT_EQUAL_FATAL(two_ports(&s, "pktdestroy", 256, NULL, &a, &b), 0);
	OK(a, "port stream pa 64");
	CU_ASSERT_EQUAL(ok_num(peer_cmd(b, "port recv pb 100 64 0 5000")), 100);
	OK(&s.prim, "destroy %s pa.txq 5000", dev0);
	CU_ASSERT(ok_num(peer_cmd(a, "port streamstop pa")) > 0);
	OK(a, "port destroy pa 2000"); /* the rest, and the memory */
	snprintf(r, sizeof(r), "%s", peer_cmd(&s.prim, "engineinfo %s", dev0));
	CU_ASSERT_EQUAL(field(r, "errors"), 0);
	/* B goes on, fed by a new port on the same index. */
	peer_cmd(b, "port recv pb %d 64 0 300", RX_SIZE);
	OK(a, "port create %s pa2 0 256", dev0);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "port send pa2 50 64 9")), 50);
	REPLY_IS(b, "ok 50 bad=0", "port recv pb 50 64 9 10000");
	OK(a, "port destroy pa2 2000");
	OK(b, "port destroy pb 2000");
	scene_end(&s);
}

/* A's memory goes back to DPDK while its queues are RDY (a driver's bug,
 * or a hostile one): rte_free() zeroes it, and its port is large enough
 * that DPDK unmaps the pages past the primary's -m in every process. The
 * software device cannot pin them as a NIC does: the primary fences A's
 * UMEM first (DPDK's memory event, before the pages go), so A's queue
 * goes to ERR as invalid_buffer at its next kick, the engine reading
 * none of the memory; the primary and B's queue go on. (Unfenced, the
 * engine would read the zeroed ring, or fault on an unmapped buffer.) */
static void test_memory_freed_under_queue(void)
{
	struct scene s;
	struct peer *a, *b;
	char r[MP_REPLY_MAX];

	CU_ASSERT_FATAL(!hw);
	/* A's port ~80 MB: past the primary's -m 64. */
	CU_ASSERT_EQUAL_FATAL(two_ports(&s, "pktfree", 16384, NULL, &a, &b), 0);
	OK(a, "port stream pa 64");
	usleep(100000);
	CU_ASSERT(ok_num(peer_cmd(a, "port streamstop pa")) > 0);
	usleep(300000); /* the engine idles the queue (it reads it no more) */
	OK(a, "port freemem pa");
	/* A kick: the engine looks at the queue again. */
	OK(a, "port kick pa");
	for (int i = 0; i < 500; i++, usleep(10000)) {
		snprintf(r, sizeof(r), "%s", peer_cmd(&s.prim, "engineinfo %s", dev0));
		if (field(r, "errors") >= 1)
			break;
	}
	CU_ASSERT(field(r, "errors") >= 1);
	snprintf(r, sizeof(r), "%s", peer_cmd(a, "port view pa"));
	CU_ASSERT(strstr(r, "txstate=err txerr=3 ") != NULL); /* invalid_buffer: the fence */
	/* B still takes packets, from a new port of A on another index. */
	OK(&s.prim, "steer %s 5 2", dev0);
	OK(a, "port create %s pa2 2 256", dev0);
	peer_cmd(b, "port recv pb %d 64 0 300", RX_SIZE); /* what A streamed */
	CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "port send pa2 50 64 4")), 50);
	REPLY_IS(b, "ok 50 bad=0", "port recv pb 50 64 4 10000");
	OK(a, "port destroy pa2 2000");
	OK(a, "port destroy pa 2000");
	OK(b, "port destroy pb 2000");
	scene_end(&s); /* the primary exits 0: it never faulted */
}

/* A NIC: what a TX queue of a secondary's port consumed (no loopback
 * without steering rules). */
static void test_hw_tx_consumed(void)
{
	struct scene s;
	struct peer *a;
	char r[MP_REPLY_MAX];

	CU_ASSERT_FATAL(hw);
	CU_ASSERT_EQUAL_FATAL(start(&s, "pkthw"), 0);
	a = secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	OK(a, "port create %s pa 0 256", dev0);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "port send pa 200 64 1")), 200);
	for (int i = 0; i < 500; i++, usleep(10000)) {
		snprintf(r, sizeof(r), "%s", peer_cmd(a, "port view pa"));
		if (field(r, "txused") == 200)
			break;
	}
	CU_ASSERT_EQUAL(field(r, "txavail"), 200);
	CU_ASSERT_EQUAL(field(r, "txused"), 200);
	CU_ASSERT(strstr(r, "txstate=rdy") != NULL && strstr(r, "rxstate=rdy") != NULL);
	OK(a, "port destroy pa 2000");
	scene_end(&s);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_secondary_to_secondary),
	DVS_TEST(test_sender_killed_mid_traffic),
	DVS_TEST(test_destroy_during_traffic),
	DVS_TEST(test_memory_freed_under_queue),
	DVS_TEST_END,
};

static const struct dvs_test_case hw_cases[] = {
	DVS_TEST(test_hw_tx_consumed),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	static char suite[32];

	/* Selective: B's own, none of A's. */
	if (mp_mode_args(argc, argv, "packets", "pb*", &mode_env, &dev0, &hw, suite,
			 sizeof(suite)) != 0)
		return -1;
	return dvs_cunit_add(suite, hw ? hw_cases : cases);
}

DVS_CUNIT_MAIN("test_mp_packets", register_tests)
