/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suites fault and hostile (fault+hostile): hostile drivers on the data
 * path. A secondary drives a queue pair of its own (mp_peer's raw ports:
 * rings written by hand, its own key over DPDK memory with a canary page
 * on each side) and attacks the software device's engine, which runs in
 * the primary beside an honest pair whose every byte is checked.
 *
 * Each attack ends in the state a NIC would give it (the queue in ERR
 * with its error type, or the packet taken and dropped) and then: the
 * primary lives and its honest pair moves packets, byte for byte; no
 * canary of either key was written; the attacker's own objects go when
 * it does. Through direct keys and through KLM keys.
 *
 * Then the engine's fairness: the honest pair's rate beside a flood of
 * giant chains against its rate beside a busy loop of the same CPU, and
 * how long control calls wait for the engine meanwhile (the goals of
 * issue 39: >= 0.5x, <= 1 ms; asserted here only loosely, as a machine
 * under load moves the figures; doc/benchmarks.md has the measured ones).
 *
 * argv: PEER
 */
#include "dvs_cunit.h"
#include "mp_harness.h"

#define XFER "rawport xfer h 64 200 %u 10000"

static unsigned int seed = 1;

struct world {
	struct mp_scene s;
	struct peer *atk;
	unsigned long long h_rxring, h_buf; /* the honest port's addresses */
};

/* Field @key=<number> of @r, or -1. */
static long long field(const char *r, const char *key)
{
	char pat[64];
	const char *p;

	snprintf(pat, sizeof(pat), " %s=", key);
	p = strstr(r, pat);
	return p != NULL ? atoll(p + strlen(pat)) : -1;
}

/* Does @r hold every "|"-separated part of @want? */
static int holds(const char *r, const char *want)
{
	char w[256], *save = NULL;

	snprintf(w, sizeof(w), "%s", want);
	for (char *t = strtok_r(w, "|", &save); t != NULL; t = strtok_r(NULL, "|", &save))
		if (strstr(r, t) == NULL)
			return 0;
	return 1;
}

/* Poll @p with "rawport state @port" until the reply holds @want (10 s
 * at most): 1 if it did. */
static int wait_state(struct peer *p, const char *port, const char *want)
{
	const char *r = "";

	for (int i = 0; i < 1000; i++) {
		r = peer_cmd(p, "rawport state %s", port);
		if (holds(r, want))
			return 1;
		usleep(10000);
	}
	fprintf(stderr, "state of %s: wanted %s, still %s\n", port, want, r);
	return 0;
}

/* The honest pair moves 64 packets, every byte right. */
static void honest_ok(struct world *w)
{
	const char *r = peer_cmd(&w->s.prim, XFER, seed);

	seed += 64;
	if (r == NULL || strcmp(r, "ok 64 bad=0") != 0)
		fprintf(stderr, "honest pair: %s\n", r != NULL ? r : "(no reply)");
	CU_ASSERT_STRING_EQUAL(r, "ok 64 bad=0");
}

/* Primary, engine, honest pair h (queues 0, 1), one secondary. */
static int world_start(struct world *w, const char *tag, const char *engine_args)
{
	memset(w, 0, sizeof(*w));
	if (!mp_have_hugepages() || mp_scene_start(&w->s, tag, NULL) != 0)
		return -1;
	const char *r = peer_cmd(&w->s.prim, "open sim0");
	if (!is_ok(r))
		return -1;
	if (!is_ok(peer_cmd(&w->s.prim, "enginerun sim0 %s", engine_args)) ||
	    !is_ok(peer_cmd(&w->s.prim, "rawport create sim0 h 0 256")))
		return -1;
	r = peer_cmd(&w->s.prim, "rawport info h");
	const char *m = strstr(r, "mem="), *x = strstr(r, "rxring=");
	if (m == NULL || x == NULL)
		return -1;
	w->h_buf = strtoull(m + 4, NULL, 10) + 16384; /* into its buffers */
	w->h_rxring = strtoull(x + 7, NULL, 10);
	honest_ok(w);
	return (w->atk = mp_scene_secondary(&w->s, NULL)) != NULL ? 0 : -1;
}

static void canaries_ok(struct world *w, const char *atk_port)
{
	REPLY_IS(&w->s.prim, "ok", "rawport canary h");
	if (atk_port != NULL && w->atk->pid > 0)
		REPLY_IS(w->atk, "ok", "rawport canary %s", atk_port);
}

/* One attack on a fresh attacker port: its state once the engine has
 * seen it holds @want; with @dropped, packets were dropped as longer than
 * the largest frame (the device's counts of an index outlive its
 * queues: compared with before); the honest pair flows; no canary is
 * touched. */
static void one_attack(struct world *w, int klm, const char *how, unsigned long long addr,
		       const char *want, int dropped)
{
	fprintf(stderr, "attack %s%s\n", how, klm ? " (KLM key)" : "");
	OK(w->atk, "rawport create sim0 a 1 64%s", klm ? " klm" : "");
	long long over = field(peer_cmd(w->atk, "rawport state a"), "oversize");
	OK(w->atk, "rawport attack a %s %llu", how, addr);
	if (want != NULL)
		CU_ASSERT(wait_state(w->atk, "a", want));
	CU_ASSERT_EQUAL(field(peer_cmd(w->atk, "rawport state a"), "oversize") > over, dropped);
	honest_ok(w);
	if (want == NULL) /* any outcome but a crash: say which */
		fprintf(stderr, "  %s\n", peer_cmd(w->atk, "rawport state a"));
	canaries_ok(w, "a");
	OK(w->atk, "rawport destroy a");
}

/* A flood on a thread of the attacker while the honest pair moves
 * packets through it. */
static void one_flood(struct world *w, int klm, const char *how, const char *want)
{
	fprintf(stderr, "flood %s%s\n", how, klm ? " (KLM key)" : "");
	OK(w->atk, "rawport create sim0 a 1 256%s", klm ? " klm" : "");
	OK(w->atk, "rawport flood a %s", how);
	for (int i = 0; i < 4; i++)
		honest_ok(w);
	if (want != NULL)
		CU_ASSERT(wait_state(w->atk, "a", want));
	OK(w->atk, "rawport stop a");
	canaries_ok(w, "a");
	OK(w->atk, "rawport destroy a");
}

/* error_type values: dvs_sim.h (1 bad_desc, 2 exceed_max_chain, 3
 * invalid_buffer). */
static void attacks(int klm)
{
	struct world w;

	if (world_start(&w, klm ? "dph-klm" : "dph", "0") != 0) {
		CU_FAIL("scene");
		mp_scene_end(&w.s);
		return;
	}
	one_attack(&w, klm, "outside", 0, "rx=rdy/0 tx=err/3", 0);
	one_attack(&w, klm, "wrap", 0, "rx=rdy/0 tx=err/3", 0);
	one_attack(&w, klm, "loop", 0, "rx=rdy/0 tx=err/2", 0);
	one_attack(&w, klm, "rxjump", 0, "rx=err/1 tx=rdy/0|txused=1", 0);
	if (!klm) {
		/* Into the honest queue's ring and buffers, outside this key. */
		one_attack(&w, 0, "other", w.h_rxring, "rx=rdy/0 tx=err/3", 0);
		one_attack(&w, 0, "rxother", w.h_buf, "rx=err/3 tx=rdy/0|txused=1", 0);
		/* Longer than any frame: dropped before a byte is read. */
		one_attack(&w, 0, "longlen", 0, "rx=rdy/0 tx=rdy/0|txused=1", 1);
		one_attack(&w, 0, "nextpast", 0, "rx=rdy/0 tx=err/1", 0);
		one_attack(&w, 0, "txjump", 0, "rx=rdy/0 tx=err/1", 0);
		one_attack(&w, 0, "overlap", 0, "rx=rdy/0 tx=rdy/0|txused=1 rxused=1", 0);
		for (int i = 0; i < 4; i++)
			one_attack(&w, 0, "garbage", 0, NULL, 0);
	}
	one_flood(&w, klm, "giant", "tx=rdy/0");
	one_flood(&w, klm, "longchain", "rx=rdy/0 tx=rdy/0");
	if (!klm)
		one_flood(&w, 0, "kickstorm", "rx=rdy/0 tx=rdy/0");
	mp_scene_end(&w.s);
}

static void test_attacks_direct_key(void)
{
	attacks(0);
}

static void test_attacks_klm_key(void)
{
	attacks(1);
}

/* The attacker's own refusals: a destroy of its live key and UMEM is
 * EBUSY and loses nothing (its queues still move packets), and RDY over
 * rings its key does not cover is refused. */
static void test_refused_by_the_device(void)
{
	struct world w;

	if (world_start(&w, "dph-ref", "0") != 0) {
		CU_FAIL("scene");
		mp_scene_end(&w.s);
		return;
	}
	OK(w.atk, "rawport create sim0 a 1 64");
	REPLY_IS(w.atk, "ok key=-16 umem=-16", "rawport destroykey a");
	REPLY_IS(w.atk, "ok 16 bad=0", "rawport xfer a 16 100 7 10000");
	const char *r = peer_cmd(w.atk, "rawport badrings sim0 bad 3");
	CU_ASSERT(strncmp(r, "ok -", 4) == 0);
	fprintf(stderr, "RDY over uncovered rings: %s\n", r);
	honest_ok(&w);
	canaries_ok(&w, "a");
	OK(w.atk, "rawport destroy a");
	mp_scene_end(&w.s);
}

/* A secondary SIGKILLed mid-burst: the primary lives, the honest pair
 * flows, the dead one's objects go, and a new driver makes the same port
 * again and forwards on it. */
static void test_killed_mid_burst(void)
{
	struct world w;

	if (world_start(&w, "dph-kill", "0") != 0) {
		CU_FAIL("scene");
		mp_scene_end(&w.s);
		return;
	}
	long before = ok_num(peer_cmd(&w.s.prim, "count sim0"));
	OK(w.atk, "rawport create sim0 a 1 256");
	OK(w.atk, "rawport flood a stream");
	honest_ok(&w);
	CU_ASSERT_EQUAL(kill(w.atk->pid, SIGKILL), 0);
	peer_wait(w.atk, MP_TIMEOUT_MS);
	/* The primary reclaims what the dead one owned. */
	long left = -1;
	for (int i = 0; i < 1000 && (left = ok_num(peer_cmd(&w.s.prim, "count sim0"))) != before; i++)
		usleep(10000);
	CU_ASSERT_EQUAL(left, before);
	honest_ok(&w);
	canaries_ok(&w, NULL);
	struct peer *b = mp_scene_secondary(&w.s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	OK(b, "rawport create sim0 a 1 256");
	REPLY_IS(b, "ok 64 bad=0", "rawport xfer a 64 300 5 10000");
	REPLY_IS(b, "ok", "rawport canary a");
	OK(b, "rawport destroy a");
	mp_scene_end(&w.s);
}

static int cmp_ll(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

#define ROUNDS 3

/* The honest pair forwarding beside a busy loop, then beside a flood of
 * giant chains, alternately; and control calls beside each. */
static void test_giant_beside_honest(void)
{
	struct world w;
	long long busy[ROUNDS], giant[ROUNDS], fence = 0, turn = 0, qmax = 0, qp99 = 0;
	char eng[16] = "0";

	/* The engine on a CPU of its own when there are two, as on a service
	 * core; everything else shares CPU 0. */
	if (sysconf(_SC_NPROCESSORS_ONLN) >= 2)
		snprintf(eng, sizeof(eng), "0 1");
	if (world_start(&w, "dph-fair", eng) != 0) {
		CU_FAIL("scene");
		mp_scene_end(&w.s);
		return;
	}
	OK(w.atk, "rawport create sim0 a 1 256");
	OK(&w.s.prim, "rawport fwd h 64");
	for (int i = 0; i < ROUNDS; i++) {
		OK(w.atk, "rawport spin a");
		busy[i] = field(peer_cmd(&w.s.prim, "rawport rate h 1000"), "pps");
		OK(w.atk, "rawport stop a");
		OK(w.atk, "rawport flood a giant");
		giant[i] = field(peer_cmd(&w.s.prim, "rawport rate h 1000"), "pps");
		const char *r = peer_cmd(&w.s.prim, "rawport ctllat h 1000");
		fprintf(stderr, "beside giant chains: %s\n", r);
		qmax = field(r, "query_max_us") > qmax ? field(r, "query_max_us") : qmax;
		qp99 = field(r, "query_p99_us") > qp99 ? field(r, "query_p99_us") : qp99;
		fence = field(r, "fence_max_us");
		turn = field(r, "turn_max_us");
		OK(w.atk, "rawport stop a");
		fprintf(stderr, "round %d: %lld pps beside a busy loop, %lld beside giant chains\n", i,
			busy[i], giant[i]);
	}
	const char *st = peer_cmd(w.atk, "rawport state a");
	fprintf(stderr, "attacker: %s\n", st);
	CU_ASSERT(field(st, "oversize") > 0);
	const char *r = peer_cmd(&w.s.prim, "rawport rate h 100");
	CU_ASSERT_EQUAL(field(r, "bad"), 0);
	OK(&w.s.prim, "rawport stop h");
	qsort(busy, ROUNDS, sizeof(busy[0]), cmp_ll);
	qsort(giant, ROUNDS, sizeof(giant[0]), cmp_ll);
	double ratio = busy[ROUNDS / 2] > 0 ? (double)giant[ROUNDS / 2] / (double)busy[ROUNDS / 2] : 0;
	fprintf(stderr,
		"honest pair: %.2f Mpps beside a busy loop, %.2f beside giant chains: %.2fx (goal >= 0.5)\n"
		"control calls beside giant chains: longest turn waited for %lld us (goal <= 1000), "
		"longest wait for the engine %lld us, QUERY longest %lld us, p99 %lld us\n",
		busy[ROUNDS / 2] / 1e6, giant[ROUNDS / 2] / 1e6, ratio, turn, fence, qmax, qp99);
	/* Loose: the goals hold on a quiet machine; these catch a stall (a
	 * pass unbounded by bytes held the engine 699 ms). Both are wall
	 * time: a turn whose thread is preempted (three busy threads on two
	 * cores; a turn of 100 ms and a wait of 46 ms seen on a slow VM, with
	 * QUERY's own longest 337 us) counts its time off the CPU. */
	CU_ASSERT(ratio >= 0.25);
	CU_ASSERT(turn >= 0 && turn <= 250000);
	CU_ASSERT(fence >= 0 && fence <= 250000);
	honest_ok(&w);
	canaries_ok(&w, "a");
	OK(w.atk, "rawport destroy a");
	mp_scene_end(&w.s);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_attacks_direct_key),
	DVS_TEST(test_attacks_klm_key),
	DVS_TEST(test_refused_by_the_device),
	DVS_TEST(test_killed_mid_burst),
	DVS_TEST(test_giant_beside_honest),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s PEER\n", argv[0]);
		return -1;
	}
	mp_peer_prog = argv[1];
	return dvs_cunit_add("dp_hostile", cases);
}

DVS_CUNIT_MAIN("test_dp_hostile", register_tests)
