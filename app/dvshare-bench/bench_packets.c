/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Section 9: packets. A secondary forwards (io: what it receives on its
 * port it sends back) on one core, the software device's engine runs on
 * the other; 64-byte frames, bursts of 32, 32 bursts in flight (testpmd's
 * "start tx_first 32"). Against, in the same run:
 *   - rte_ring between the same two processes, mbufs recycled: the floor
 *     for passing packets between processes (no descriptors, no copy);
 *   - DPDK's vhost-user + virtio-user pair, Debian's dpdk-testpmd io loop
 *     on each side (net_vhost and net_virtio_user): the software peer
 *     that moves virtio-net packets between two processes of one host;
 *   - DPDK's memif pair (net_memif server and client), the same testpmd;
 *   - the same testpmd over net_dvshare, a primary and a forwarding
 *     secondary: the driver against the loop it replaces (bench_testpmd.c);
 *   - the same forwarding driven by the primary: a secondary must match it;
 *   - kicks forwarded to the primary over rte_mp, as a secondary without
 *     dvshare must (it cannot map the doorbell): when the device asks,
 *     and on every burst;
 *   - the same secondary stream while another queue of the device meets
 *     one bad descriptor per 1,000 of its packets (each time ERR, then
 *     destroyed and made again by the primary).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <linux/virtio_ring.h>
#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_mbuf.h>
#include <rte_ring.h>

#include "app_objects.h"
#include "app_port.h"
#include "bench.h"
#include "dvs_sim.h"

#define PKT_LEN 64u
#define PKT_BURST 32u
#define PKT_INFLIGHT_BURSTS 32u
#define PKT_RING 256u
#define PKT_PORT "bp"
#define PKT_HOSTILE "bh"
#define PKT_KICK_ACTION "dvshare_bench_kick"
#define RING_TX "bench-pkt-tx"
#define RING_RX "bench-pkt-rx"
#define RING_POOL "bench-pkt-pool"

/* Each measurement of a round: two timed loops' worth (1 s; 0.2 s with
 * --quick). The comparisons alternate in rounds, so that the machine's
 * moods (this shared VM's speed moves by 2x within a minute) fall on both
 * sides of each ratio. */
#define PKT_ROUNDS 3
#define PKT_PAIRS 3 /* enum bench_tp_kind */

static double pkt_seconds(const struct bench_opts *o)
{
	return 2 * o->seconds;
}

static double median3(double a, double b, double c)
{
	double v[3] = { a, b, c };

	return bench_median(v, 3);
}

/* This thread on core @cpu (when the machine has it). */
static void pin(int cpu)
{
	cpu_set_t s;

	if (cpu >= CPU_SETSIZE || cpu >= (int)sysconf(_SC_NPROCESSORS_ONLN))
		return;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	pthread_setaffinity_np(pthread_self(), sizeof(s), &s);
}

/* ------------------------------------------------------------ forwarding */

static void fill(struct rte_mbuf *m)
{
	memset(rte_pktmbuf_mtod(m, void *), 0x5a, PKT_LEN);
	m->data_len = PKT_LEN;
	m->pkt_len = PKT_LEN;
}

/* Seed the loop with 32 bursts (waiting for room). */
static void seed(struct app_port *p)
{
	struct rte_mbuf *m[PKT_BURST];
	uint32_t seeded = 0;
	double t0 = bench_now();

	while (seeded < PKT_INFLIGHT_BURSTS * PKT_BURST && bench_now() - t0 < 2) {
		uint16_t room = p->ring[1].num_free < PKT_BURST ? p->ring[1].num_free : PKT_BURST;
		if (room == 0 || rte_pktmbuf_alloc_bulk(p->pool, m, room) != 0) {
			app_port_tx_done(p);
			continue;
		}
		for (uint16_t i = 0; i < room; i++)
			fill(m[i]);
		uint16_t n = app_port_tx_burst(p, m, room);
		if (n < room)
			rte_pktmbuf_free_bulk(m + n, room - n);
		seeded += n;
	}
}

/* io-forward for @seconds: packets received per second. */
static double forward(struct app_port *p, double seconds)
{
	struct rte_mbuf *m[PKT_BURST];
	uint64_t rx0 = p->st.rx_packets;
	double start = bench_now(), end = start + seconds, now;
	do {
		for (int k = 0; k < 64; k++) {
			uint16_t n = app_port_rx_burst(p, m, PKT_BURST);
			if (n == 0)
				continue;
			uint16_t sent = app_port_tx_burst(p, m, n);
			if (sent < n)
				rte_pktmbuf_free_bulk(m + sent, n - sent);
		}
		now = bench_now();
	} while (now < end);
	return (double)(p->st.rx_packets - rx0) / (now - start);
}

/* Kicks a secondary without dvshare's doorbells would send: a request to
 * the primary, which writes the doorbell (the queue index in the param). */
static void kick_over_mp(struct app_port *p, uint32_t qidx)
{
	struct rte_mp_msg req;
	struct rte_mp_reply rep;
	struct timespec ts = { 5, 0 };

	memset(&req, 0, sizeof(req));
	snprintf(req.name, sizeof(req.name), "%s", PKT_KICK_ACTION);
	snprintf((char *)req.param, sizeof(req.param), "%s.db %u", p->name, qidx);
	req.len_param = (int)strlen((char *)req.param) + 1;
	if (rte_mp_request_sync(&req, &rep, &ts) == 0)
		free(rep.msgs);
}

/* Role "pktfwd" (secondary): a port (queues 2, 3), seeded, then at each
 * "go" on stdin forwarding for pkt_seconds() on core 0: "result <pps>
 * <kicks> <bursts>" (counts since the start). --index: 0 dvshare's kicks,
 * 1 kicks over rte_mp when the device asks, 2 over rte_mp every burst. */
int bench_pktfwd_role(const struct bench_opts *o, struct dvshare_dev *dev)
{
	struct app_port *p;
	char line[64];
	int rc = app_port_create(dev, PKT_PORT, 1, PKT_RING, &p, NULL, NULL);

	if (rc != 0) {
		fprintf(stderr, "secondary: port: %s\n", strerror(-rc));
		return 1;
	}
	if (o->index != 0)
		p->kick = kick_over_mp;
	p->kick_always = o->index == 2;
	pin(0);
	printf("result ready\n");
	fflush(stdout);
	for (int first = 1; fgets(line, sizeof(line), stdin) != NULL; first = 0) {
		if (first)
			seed(p);
		double pps = forward(p, pkt_seconds(o));
		printf("result %.0f %llu %llu\n", pps, (unsigned long long)p->st.tx_kicks,
		       (unsigned long long)p->st.tx_bursts);
		fflush(stdout);
	}
	app_port_destroy(p, BENCH_TIMEOUT_MS);
	return 0;
}

/* Role "ringfwd" (secondary): io forwarding between two rte_rings the
 * primary made, on core 0, at "go": "result <pps>". */
int bench_ringfwd_role(const struct bench_opts *o)
{
	struct rte_ring *tx = rte_ring_lookup(RING_TX), *rx = rte_ring_lookup(RING_RX);
	void *m[PKT_BURST];
	uint64_t n = 0;

	if (tx == NULL || rx == NULL) {
		fprintf(stderr, "secondary: no rings: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	pin(0);
	printf("result ready\n");
	fflush(stdout);
	char line[64];
	if (fgets(line, sizeof(line), stdin) == NULL)
		return 1;
	double start = bench_now(), end = start + pkt_seconds(o), now;
	do {
		for (int k = 0; k < 64; k++) {
			unsigned int got = rte_ring_dequeue_burst(rx, m, PKT_BURST, NULL);
			n += got;
			while (got != 0)
				got -= rte_ring_enqueue_burst(tx, m, got, NULL);
		}
		now = bench_now();
	} while (now < end);
	printf("result %.0f\n", (double)n / (now - start));
	fflush(stdout);
	return 0;
}

/* ------------------------------------------------------------- primary */

struct ring_dev {
	struct rte_ring *tx, *rx;
	volatile int run;
};

/* The rte_ring baseline's "device": TX ring to RX ring, on core 1. */
static void *ring_device(void *arg)
{
	struct ring_dev *d = arg;
	void *m[PKT_BURST];

	pin(1);
	while (d->run) {
		unsigned int got = rte_ring_dequeue_burst(d->tx, m, PKT_BURST, NULL);
		while (got != 0 && d->run)
			got -= rte_ring_enqueue_burst(d->rx, m, got, NULL);
	}
	return NULL;
}

/* A child in @role, once it said "result ready". 0, or -1. */
static int child_start(struct bench_child *c, struct bench_ctx *x, const char *dev,
		       const char *role, int index)
{
	char line[64];

	if (bench_spawn(c, x, dev, role, "lazy", index, 0) != 0)
		return -1;
	if (bench_next_result(c, line, sizeof(line), 30) != 0 || strncmp(line, "ready", 5) != 0) {
		bench_kill_children();
		return -1;
	}
	return 0;
}

/* One measurement of a started child: "go", then its result line. */
static int child_round(struct bench_child *c, char *line, size_t len)
{
	if (bench_tell(c, "go\n") != 0 || bench_next_result(c, line, len, 60) != 0) {
		bench_kill_children();
		return -1;
	}
	return 0;
}

/* A child measured once. */
static int child_run(struct bench_ctx *x, const char *dev, const char *role, int index,
		     char *line, size_t len)
{
	struct bench_child c;

	if (child_start(&c, x, dev, role, index) != 0 || child_round(&c, line, len) != 0)
		return -1;
	return bench_collect(&c, NULL, 0);
}

static double ring_baseline(struct bench_ctx *x, const char *dev)
{
	struct ring_dev d = { rte_ring_create(RING_TX, 2048, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ),
			      rte_ring_create(RING_RX, 2048, SOCKET_ID_ANY, RING_F_SP_ENQ | RING_F_SC_DEQ),
			      1 };
	struct rte_mempool *pool = rte_pktmbuf_pool_create(RING_POOL, 4096, 0, 0,
							   RTE_MBUF_DEFAULT_BUF_SIZE, SOCKET_ID_ANY);
	struct rte_mbuf *m[PKT_INFLIGHT_BURSTS * PKT_BURST];
	char line[256];
	pthread_t t;
	double pps = -1;

	if (d.tx == NULL || d.rx == NULL || pool == NULL ||
	    rte_pktmbuf_alloc_bulk(pool, m, RTE_DIM(m)) != 0) {
		bench_fail("rte_ring baseline: rings or mbufs: %s", rte_strerror(rte_errno));
		goto out;
	}
	for (unsigned int i = 0; i < RTE_DIM(m); i++)
		fill(m[i]);
	rte_ring_enqueue_bulk(d.rx, (void **)m, RTE_DIM(m), NULL);
	if (pthread_create(&t, NULL, ring_device, &d) != 0)
		goto out;
	if (child_run(x, dev, "ringfwd", 0, line, sizeof(line)) == 0)
		pps = atof(line);
	d.run = 0;
	pthread_join(t, NULL);
out:
	rte_ring_free(d.tx);
	rte_ring_free(d.rx);
	rte_mempool_free(pool);
	return pps;
}

/* ------------------------------------------------------- bad descriptors */

struct hostile {
	struct dvshare_dev *dev;
	struct dvs_sim_engine *engine;
	struct app_port *p;
	double rate;        /* queues to end per second */
	double seconds;     /* the loop ran */
	int bad;            /* 1: each with a bad descriptor; 0: the control */
	volatile int run;
	unsigned int made;  /* queues ended (and made again) */
	int failed;
};

/* The hostile port's TX queue kicked, with one bad descriptor posted
 * (INDIRECT, which the device does not take) or, the control, nothing:
 * the same doorbell, the same wait for the engine to see it, the same
 * query after. The bad one must have put the queue in ERR. */
static int kick_hostile(struct hostile *h)
{
	struct app_port *p = h->p;
	struct app_vring *r = &p->ring[1];
	struct dvs_sim_engine_stats st;
	struct dvshare_prm_virtq q;

	dvs_sim_engine_stats(h->engine, &st);
	const uint64_t kicks = st.kicks;
	if (h->bad) {
		uint16_t d = r->free_head;
		r->desc[d].addr = (uintptr_t)p->mem;
		r->desc[d].len = 64;
		r->desc[d].flags = VRING_DESC_F_INDIRECT;
		r->avail->ring[r->avail_idx & r->mask] = d;
		r->avail_idx++;
		app_vring_publish(r);
	}
	dvshare_doorbell32(p->db, 0, 2u * p->index + 1);
	for (int i = 0; i < 100000 && st.kicks == kicks; i++) {
		usleep(10); /* the engine shares this core */
		dvs_sim_engine_stats(h->engine, &st);
	}
	for (int i = 0; i < 1000; i++) {
		if (app_virtq_query(p->q[1], &q) != 0)
			return -1;
		if (!h->bad || q.state == DVSHARE_PRM_VIRTQ_STATE_ERR)
			break;
		usleep(10); /* seen, but its pass has not ended */
	}
	return q.state == (h->bad ? DVSHARE_PRM_VIRTQ_STATE_ERR : DVSHARE_PRM_VIRTQ_STATE_RDY)
		       ? 0 : -1;
}

/* The hostile port's TX queue made again (DPDK's vdpa driver re-makes a
 * queue in ERR the same way), with what it had: its UMEMs, counters, key
 * and rings. A coordinated destroy: every process answers. */
static int remake(struct hostile *h)
{
	struct app_port *p = h->p;
	struct app_vring *r = &p->ring[1];
	char name[DVSHARE_NAME_MAX];
	struct dvshare_prm_virtq q;

	if (app_virtq_query(p->q[1], &q) != 0)
		return -1;
	dvshare_obj_release(p->q[1]);
	p->q[1] = NULL;
	snprintf(name, sizeof(name), "%s.txq", p->name);
	if (dvshare_destroy(h->dev, name, BENCH_TIMEOUT_MS) != 0)
		return -1;
	uint8_t cmd[DVSHARE_PRM_VIRTQ_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	q.state = DVSHARE_PRM_VIRTQ_STATE_INIT;
	q.hw_available_index = q.hw_used_index = 0;
	memset(r->used, 0, 4);
	r->avail->idx = 0;
	r->avail_idx = 0;
	r->used_idx = 0;
	p->q[1] = dvshare_obj_create(h->dev, name, cmd, dvshare_prm_virtq_create(cmd, &q), out,
				     sizeof(out));
	if (p->q[1] == NULL)
		return -1;
	struct dvshare_prm_virtq w = { .state = DVSHARE_PRM_VIRTQ_STATE_RDY };
	return app_virtq_modify(p->q[1], DVSHARE_PRM_VIRTQ_MODIFY_STATE, &w, NULL, NULL);
}

static void *hostile_loop(void *arg)
{
	struct hostile *h = arg;
	double t0 = bench_now();

	pin(1);
	while (h->run && !h->failed) {
		double due = t0 + (double)h->made / h->rate;
		if (bench_now() < due) {
			usleep(20);
			continue;
		}
		if (kick_hostile(h) != 0 || remake(h) != 0)
			h->failed = 1;
		else
			h->made++;
	}
	h->seconds = bench_now() - t0;
	return NULL;
}

/* One round of the started "pktfwd" child @c beside the hostile port's
 * queue ended @rate times a second, with a bad descriptor each time
 * (@bad) or re-made only (the control): the stream's pps into *@pps and
 * the rate reached into *@reached. 0, or -1. */
static int hostile_round(struct bench_child *c, struct hostile *h, int bad, double rate,
			 double *pps, double *reached)
{
	char line[256];
	pthread_t t;
	int rc;

	h->bad = bad;
	h->rate = rate;
	h->made = 0;
	h->run = 1;
	if (pthread_create(&t, NULL, hostile_loop, h) != 0)
		return -1;
	rc = child_round(c, line, sizeof(line));
	h->run = 0;
	pthread_join(t, NULL);
	*pps = atof(line);
	*reached = h->seconds > 0 ? h->made / h->seconds : 0;
	return rc != 0 || h->failed ? -1 : 0;
}

/* ---------------------------------------------------------------- section */

static int kick_action(const struct rte_mp_msg *msg, const void *peer)
{
	static struct dvshare_dev *dev;
	char name[DVSHARE_NAME_MAX];
	unsigned int qidx;
	struct rte_mp_msg rep;

	memset(&rep, 0, sizeof(rep));
	snprintf(rep.name, sizeof(rep.name), "%s", msg->name);
	if (sscanf((const char *)msg->param, "%63s %u", name, &qidx) == 2) {
		if (dev == NULL)
			dev = dvshare_dev_lookup(getenv("DVS_BENCH_PKT_DEV"));
		struct dvshare_var *v = dev != NULL ? dvshare_var_lookup(dev, name) : NULL;
		if (v != NULL) {
			dvshare_doorbell32(dvshare_var_doorbell(v), 0, qidx);
			dvshare_var_release(v);
		}
	}
	return rte_mp_reply(&rep, peer);
}

/* A figure (Mpps) and, when measured in rounds, each round's. */
static void report(const char *what, double pps, const double *rounds)
{
	printf("   %-54s %6.2f Mpps", what, pps / 1e6);
	for (int r = 0; rounds != NULL && r < PKT_ROUNDS; r++)
		printf("%s%.2f", r == 0 ? "  " : " ", rounds[r] / 1e6);
	printf("\n");
}

/* Start the engine on core 1 (its thread takes this thread's affinity). */
static int engine_on(struct dvs_sim_engine *e)
{
	cpu_set_t was;

	pthread_getaffinity_np(pthread_self(), sizeof(was), &was);
	pin(1);
	int rc = dvs_sim_engine_start(e, 0);
	pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
	return rc;
}

/* Forwarding in this process, on core 0: packets per second. */
static double primary_forward(struct app_port *p, double sec, int first)
{
	cpu_set_t was;

	pthread_getaffinity_np(pthread_self(), sizeof(was), &was);
	pin(0);
	if (first)
		seed(p);
	double pps = forward(p, sec);
	pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
	return pps;
}

int bench_s9_packets(struct bench_ctx *x)
{
	const double sec = pkt_seconds(x->o);
	char dev[32], line[256];
	double tpr[PKT_PAIRS][PKT_ROUNDS], pr[PKT_ROUNDS], se[PKT_ROUNDS];
	double bad[PKT_ROUNDS], bad_rate[PKT_ROUNDS], ctl[PKT_ROUNDS], ctl_rate[PKT_ROUNDS];
	double mp = -1, mp_always = -1;
	struct dvs_sim_engine *e;
	struct dvshare_dev *d;
	struct app_port *p = NULL;
	struct bench_child fwd;
	struct bench_tp_pair tp[PKT_PAIRS];
	char tpwhy[PKT_PAIRS][256], tpdev[32];
	int have[PKT_PAIRS];
	long kicks = 0, bursts = 0, ended = 0;
	struct hostile h = { .dev = d = NULL };
	int rc;

	printf("\n9. Packets: 64-byte frames, bursts of 32, 32 bursts in flight; forwarding on "
	       "core 0, the device (or its peer) on core 1; %d rounds of %.1f s, each side "
	       "measured in every round\n", PKT_ROUNDS, sec);
	if (x->cores < 2)
		printf("   (one core: forwarding and the device share it)\n");
	if (bench_dev_name(x, 4, dev, sizeof(dev)) != 0 || (d = bench_dev_open(dev, 0)) == NULL)
		return -1;
	h.dev = d;
	setenv("DVS_BENCH_PKT_DEV", dev, 1);
	e = dvs_sim_engine_create(dvshare_dev_ctx(d));
	if (e == NULL) {
		bench_fail("engine of %s: %s", dev, strerror(errno));
		bench_dev_close(d);
		return -1;
	}
	h.engine = e;

	/* The floor: rte_ring, the engine off (it would hold core 1). */
	double ring = ring_baseline(x, dev);
	/* The testpmd pairs: vhost-user and memif up for the whole run;
	 * net_dvshare's started for each round (its primary's engine polls
	 * while it runs), on a software device of its own. */
	if (bench_dev_name(x, 5, tpdev, sizeof(tpdev)) != 0)
		snprintf(tpdev, sizeof(tpdev), "sim5");
	for (int k = 0; k < PKT_PAIRS; k++) {
		tpwhy[k][0] = '\0';
		have[k] = bench_tp_start(&tp[k], (enum bench_tp_kind)k, x, tpdev, tpwhy[k],
					 sizeof(tpwhy[k])) == 0;
		/* net_dvshare's is stopped at once: its engine would poll
		 * beside the others' first round. */
		if (!have[k] || k == BENCH_TP_NET_DVSHARE)
			bench_tp_stop(&tp[k]);
		for (int r = 0; r < PKT_ROUNDS; r++)
			tpr[k][r] = -1;
	}

	/* The rounds: the testpmd pairs (engine off), then the primary's and
	 * the secondary's forwarding (engine on). */
	rc = engine_on(e);
	if (rc == 0)
		rc = app_port_create(d, PKT_PORT "0", 0, PKT_RING, &p, NULL, NULL);
	if (rc == 0)
		rc = child_start(&fwd, x, dev, "pktfwd", 0) == 0 ? 0 : -EIO;
	for (int r = 0; r < PKT_ROUNDS && rc == 0; r++) {
		dvs_sim_engine_stop(e);
		for (int k = 0; k < PKT_PAIRS; k++) {
			const int again = k == BENCH_TP_NET_DVSHARE;
			if (have[k] && again)
				have[k] = bench_tp_start(&tp[k], (enum bench_tp_kind)k, x, tpdev,
							 tpwhy[k], sizeof(tpwhy[k])) == 0;
			if (have[k])
				tpr[k][r] = bench_tp_round(&tp[k], sec, tpwhy[k], sizeof(tpwhy[k]));
			if (have[k] && (tpr[k][r] <= 0 || k == BENCH_TP_NET_DVSHARE))
				bench_tp_stop(&tp[k]);
			have[k] = have[k] && tpr[k][r] > 0;
		}
		rc = engine_on(e);
		pr[r] = primary_forward(p, sec, r == 0);
		if (rc == 0 && child_round(&fwd, line, sizeof(line)) != 0)
			rc = -EIO;
		se[r] = atof(line);
		if (rc == 0 && sscanf(line, "%*f %ld %ld", &kicks, &bursts) != 2)
			rc = -EIO;
	}
	for (int k = 0; k < PKT_PAIRS; k++)
		if (have[k] && k != BENCH_TP_NET_DVSHARE)
			bench_tp_stop(&tp[k]);
	if (p != NULL)
		app_port_destroy(p, BENCH_TIMEOUT_MS);
	/* The same stream beside a queue meeting bad descriptors at the rate
	 * asked (1 per 1,000 of the stream's packets), then, the control,
	 * beside the same queue re-made as often without one. */
	const double alone = se[PKT_ROUNDS - 1];
	if (rc == 0)
		rc = app_port_create(d, PKT_HOSTILE, 2, 64, &h.p, NULL, NULL);
	for (int r = 0; r < PKT_ROUNDS && rc == 0; r++) {
		rc = hostile_round(&fwd, &h, 1, alone / 1000, &bad[r], &bad_rate[r]);
		ended += h.made;
		if (rc == 0)
			rc = hostile_round(&fwd, &h, 0, bad_rate[r], &ctl[r], &ctl_rate[r]);
	}
	if (h.p != NULL)
		app_port_destroy(h.p, BENCH_TIMEOUT_MS);
	if (rc == 0 && bench_collect(&fwd, NULL, 0) != 0)
		rc = -EIO;
	/* Kicks over rte_mp, each mode once. */
	if (rc == 0 && rte_mp_action_register(PKT_KICK_ACTION, kick_action) != 0 &&
	    rte_errno != EEXIST)
		rc = -rte_errno;
	for (int mode = 1; mode < 3 && rc == 0; mode++) {
		if (child_run(x, dev, "pktfwd", mode, line, sizeof(line)) != 0)
			rc = -EIO;
		*(mode == 1 ? &mp : &mp_always) = atof(line);
	}
	rte_mp_action_unregister(PKT_KICK_ACTION);
	struct dvs_sim_engine_stats st;
	dvs_sim_engine_stats(e, &st);
	dvs_sim_engine_destroy(e);
	if (rc != 0 || ring <= 0) {
		bench_fail("packets on %s: %s", dev, strerror(rc != 0 ? -rc : EIO));
		bench_dev_close(d);
		return -1;
	}

	double sec_pps = median3(se[0], se[1], se[2]), prim = median3(pr[0], pr[1], pr[2]);
	double r_prim = median3(pr[0] / se[0], pr[1] / se[1], pr[2] / se[2]);
	const double *vh = tpr[BENCH_TP_VHOST], *mf = tpr[BENCH_TP_MEMIF];
	const double *nd = tpr[BENCH_TP_NET_DVSHARE];
	const int have_vhost = have[BENCH_TP_VHOST], have_memif = have[BENCH_TP_MEMIF];
	const int have_nd = have[BENCH_TP_NET_DVSHARE];
	double r_vhost = have_vhost ? median3(vh[0] / se[0], vh[1] / se[1], vh[2] / se[2]) : -1;
	/* testpmd over net_dvshare against memif, and against the loop it replaces. */
	double r_memif = have_nd && have_memif ? median3(mf[0] / nd[0], mf[1] / nd[1], mf[2] / nd[2]) : -1;
	double r_app = have_nd ? median3(se[0] / nd[0], se[1] / nd[1], se[2] / nd[2]) : -1;
	double r_nd_vhost = have_nd && have_vhost ? median3(vh[0] / nd[0], vh[1] / nd[1], vh[2] / nd[2]) : -1;
	/* Beside bad descriptors: each round against its own control. */
	double bad_pps = median3(bad[0], bad[1], bad[2]), ctl_pps = median3(ctl[0], ctl[1], ctl[2]);
	double lost = median3(1 - bad[0] / ctl[0], 1 - bad[1] / ctl[1], 1 - bad[2] / ctl[2]);
	double per = median3(bad[0] / bad_rate[0], bad[1] / bad_rate[1], bad[2] / bad_rate[2]);
	printf("   %-54s %9s  %s\n", "", "median", "rounds");
	report("rte_ring between the two processes, mbufs recycled", ring, NULL);
	static const char *const tp_what[PKT_PAIRS] = {
		[BENCH_TP_VHOST] = "vhost-user + virtio-user (dpdk-testpmd io, tx_first 32)",
		[BENCH_TP_MEMIF] = "memif server + client (dpdk-testpmd io, tx_first 32)",
		[BENCH_TP_NET_DVSHARE] = "net_dvshare: dpdk-testpmd secondary (io, tx_first 32)",
	};
	for (int k = 0; k < PKT_PAIRS; k++) {
		if (have[k])
			report(tp_what[k], median3(tpr[k][0], tpr[k][1], tpr[k][2]), tpr[k]);
		else
			printf("   %s: not measured: %s\n", bench_tp_name((enum bench_tp_kind)k),
			       tpwhy[k]);
	}
	report("dvshare, forwarding in the primary", prim, pr);
	report("dvshare, forwarding in a secondary", sec_pps, se);
	report("  kicks over rte_mp when the device asks", mp, NULL);
	report("  kicks over rte_mp on every burst", mp_always, NULL);
	report("dvshare secondary beside a queue meeting bad descriptors", bad_pps, bad);
	report("  beside that queue re-made as often, no bad descriptor", ctl_pps, ctl);
	/* Each ratio is the median of the rounds' ratios. */
	printf("   secondary / primary, per round: %.2f %.2f %.2f, median %.2f\n", se[0] / pr[0],
	       se[1] / pr[1], se[2] / pr[2], 1 / r_prim);
	if (have_vhost)
		printf("   secondary / vhost-user, per round: %.2f %.2f %.2f, median %.2f\n",
		       se[0] / vh[0], se[1] / vh[1], se[2] / vh[2], 1 / r_vhost);
	if (have_nd && have_memif)
		printf("   testpmd over net_dvshare / memif, per round: %.2f %.2f %.2f, median %.2f\n",
		       nd[0] / mf[0], nd[1] / mf[1], nd[2] / mf[2], 1 / r_memif);
	if (have_nd && have_vhost)
		printf("   testpmd over net_dvshare / vhost-user, per round: %.2f %.2f %.2f, median "
		       "%.2f\n", nd[0] / vh[0], nd[1] / vh[1], nd[2] / vh[2], 1 / r_nd_vhost);
	if (have_nd)
		printf("   testpmd over net_dvshare / dvshare's secondary loop, per round: %.2f %.2f "
		       "%.2f, median %.2f\n", nd[0] / se[0], nd[1] / se[1], nd[2] / se[2], 1 / r_app);
	printf("   secondary: %ld kick(s) in %ld bursts; kicks over rte_mp %.2fx (when asked), "
	       "%.3fx (every burst) of the last round's dvshare\n",
	       kicks, bursts, mp / alone, mp_always / alone);
	/* Each bad descriptor ends its queue (ERR, as on a NIC), and the
	 * rate is what re-making a queue (a coordinated destroy) allows; the
	 * control re-makes it as often without one. */
	printf("   bad descriptors: %ld, per round %.0f %.0f %.0f/s (1 per %.0f packets of the "
	       "stream, median; asked 1 per 1,000); queues in ERR seen by the engine: %llu; "
	       "control re-makes %.0f %.0f %.0f/s; lost against the control, per round: "
	       "%.1f%% %.1f%% %.1f%%\n", ended, bad_rate[0], bad_rate[1], bad_rate[2], per,
	       (unsigned long long)st.errors, ctl_rate[0], ctl_rate[1], ctl_rate[2],
	       100 * (1 - bad[0] / ctl[0]), 100 * (1 - bad[1] / ctl[1]),
	       100 * (1 - bad[2] / ctl[2]));
	if (have_vhost)
		bench_goal(9, "vhost-user loop / secondary", r_vhost, 1 / 1.2, "x");
	else
		bench_goal_unmeasured(9, "vhost-user loop / secondary <= 1/1.2 x",
				      tpwhy[BENCH_TP_VHOST]);
	if (have_nd && have_memif)
		bench_goal(9, "memif pair / testpmd over net_dvshare", r_memif, 1 / 1.2, "x");
	else
		bench_goal_unmeasured(9, "memif pair / testpmd over net_dvshare <= 1/1.2 x",
				      tpwhy[have_nd ? BENCH_TP_MEMIF : BENCH_TP_NET_DVSHARE]);
	if (have_nd)
		bench_goal(9, "dvshare's secondary loop / testpmd over net_dvshare", r_app, 1 / 0.95,
			   "x");
	else
		bench_goal_unmeasured(9, "dvshare's secondary loop / testpmd over net_dvshare <= "
				      "1/0.95 x", tpwhy[BENCH_TP_NET_DVSHARE]);
	bench_goal(9, "primary / secondary", r_prim, 1 / 0.95, "x");
	bench_goal(9, "kicks per burst (secondary)", bursts > 0 ? (double)kicks / bursts : 99, 1,
		   "");
	if (per <= 1000) {
		bench_goal(9, "throughput lost to 1 bad descriptor per 1,000 (vs the control)", lost,
			   0.05, "");
	} else {
		char w[160];
		snprintf(w, sizeof(w), "they came 1 per %.0f packets (each ends its queue, and making "
			 "it again takes a coordinated destroy); they cost %.1f%% against the control",
			 per, 100 * lost);
		bench_goal_unmeasured(9, "throughput lost to 1 bad descriptor per 1,000 <= 5%", w);
	}
	bj_num("ring_pps", ring);
	static const char *const tp_key[PKT_PAIRS] = {
		[BENCH_TP_VHOST] = "vhost_user", [BENCH_TP_MEMIF] = "memif",
		[BENCH_TP_NET_DVSHARE] = "net_dvshare_testpmd",
	};
	for (int k = 0; k < PKT_PAIRS; k++) {
		char key[64];
		snprintf(key, sizeof(key), "%s_%s", tp_key[k], have[k] ? "pps" : "unmeasured");
		if (have[k])
			bj_num(key, median3(tpr[k][0], tpr[k][1], tpr[k][2]));
		else
			bj_str(key, tpwhy[k]);
	}
	bj_num("primary_pps", prim);
	bj_num("secondary_pps", sec_pps);
	bj_num("ratio_secondary_primary", 1 / r_prim);
	if (have_vhost)
		bj_num("ratio_secondary_vhost_user", 1 / r_vhost);
	if (have_nd && have_memif)
		bj_num("ratio_net_dvshare_memif", 1 / r_memif);
	if (have_nd && have_vhost)
		bj_num("ratio_net_dvshare_vhost_user", 1 / r_nd_vhost);
	if (have_nd)
		bj_num("ratio_net_dvshare_secondary", 1 / r_app);
	bj_num("mp_kick_pps", mp);
	bj_num("mp_kick_every_burst_pps", mp_always);
	bj_num("bad_desc_pps", bad_pps);
	bj_num("remade_control_pps", ctl_pps);
	bj_num("lost_to_bad_descriptors", lost);
	bj_int("kicks", kicks);
	bj_int("bursts", bursts);
	bj_int("bad_descriptors", ended);
	bj_num("packets_per_bad_descriptor", per);
	bj_num("seconds", sec);
	return bench_dev_close(d);
}
