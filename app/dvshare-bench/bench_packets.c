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

/* Each measurement: four timed loops' worth (2 s; 0.4 s with --quick). */
static double pkt_seconds(const struct bench_opts *o)
{
	return 4 * o->seconds;
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

/* Seed the loop with 32 bursts (waiting for room), then io-forward for
 * @seconds: packets received per second. */
static double forward(struct app_port *p, double seconds)
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

/* Role "pktfwd" (secondary): a port, forwarding for pkt_seconds() on
 * core 0. --index: 0 dvshare's kicks, 1 kicks over rte_mp when the
 * device asks, 2 over rte_mp on every burst. "result <pps> <kicks>
 * <bursts>". */
int bench_pktfwd_role(const struct bench_opts *o, struct dvshare_dev *dev)
{
	struct app_port *p;
	int rc = app_port_create(dev, PKT_PORT, 0, PKT_RING, &p, NULL, NULL);

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
	double pps = forward(p, pkt_seconds(o));
	printf("result %.0f %llu %llu\n", pps, (unsigned long long)p->st.kicks,
	       (unsigned long long)p->st.tx_bursts);
	fflush(stdout);
	app_port_destroy(p, BENCH_TIMEOUT_MS);
	return 0;
}

/* Role "ringfwd" (secondary): io forwarding between two rte_rings the
 * primary made, on core 0: "result <pps>". */
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

/* A child's "result ready", then its figures: its first number. */
static int child_run(struct bench_ctx *x, const char *dev, const char *role, int index,
		     char *line, size_t len)
{
	struct bench_child c;

	if (bench_spawn(&c, x, dev, role, "lazy", index, 0) != 0)
		return -1;
	if (bench_next_result(&c, line, len, 30) != 0 || strncmp(line, "ready", 5) != 0 ||
	    bench_next_result(&c, line, len, 60) != 0) {
		bench_kill_children();
		return -1;
	}
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

/* ------------------------------------------------- vhost + virtio-user */

struct testpmd {
	pid_t pid;
	int in, out;
};

static int testpmd_start(struct testpmd *t, char *const args[])
{
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
		return -1;
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(out[1], 2);
		execvp(args[0], args);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	t->in = in[1];
	t->out = out[0];
	fcntl(t->out, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Read what @t printed for up to @sec seconds into @buf (appending);
 * stop early once @until appears (if not NULL) in what was read. */
static void testpmd_read(struct testpmd *t, char *buf, size_t len, double sec, const char *until)
{
	double end = bench_now() + sec;
	size_t used = strlen(buf);

	while (bench_now() < end && used + 1 < len) {
		struct pollfd p = { t->out, POLLIN, 0 };
		if (poll(&p, 1, 50) <= 0)
			continue;
		ssize_t n = read(t->out, buf + used, len - used - 1);
		if (n <= 0)
			break;
		used += (size_t)n;
		buf[used] = '\0';
		if (until != NULL && strstr(buf, until) != NULL)
			break;
	}
}

static void testpmd_stop(struct testpmd *t)
{
	if (t->pid <= 0)
		return;
	close(t->in);
	kill(t->pid, SIGINT);
	for (int i = 0; i < 300 && waitpid(t->pid, NULL, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(t->pid, NULL, WNOHANG) == 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
	close(t->out);
	t->pid = 0;
}

static void remove_prefix(const char *prefix)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf /dev/hugepages/%s* /var/run/dpdk/%s", prefix, prefix);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s's files\n", prefix);
}

/* The vhost-user + virtio-user io loop: Rx-pps on the virtio-user side,
 * or -1 with the reason in @why. */
static double vhost_baseline(struct bench_ctx *x, double seconds, char *why, size_t whylen)
{
	char vhp[96], vup[96], vhfp[128], vufp[128], sock[128], vhdev[192], vudev[192];
	static char out[1 << 16];
	struct testpmd vh = { 0 }, vu = { 0 };
	double pps = -1;

	snprintf(vhp, sizeof(vhp), "%s-vh", x->prefix);
	snprintf(vup, sizeof(vup), "%s-vu", x->prefix);
	snprintf(vhfp, sizeof(vhfp), "--file-prefix=%s", vhp);
	snprintf(vufp, sizeof(vufp), "--file-prefix=%s", vup);
	snprintf(sock, sizeof(sock), "/tmp/%s.sock", x->prefix);
	snprintf(vhdev, sizeof(vhdev), "net_vhost0,iface=%s,queues=1", sock);
	snprintf(vudev, sizeof(vudev), "net_virtio_user0,path=%s,queues=1", sock);
	char *const vh_args[] = { "dpdk-testpmd", "-l", "0,1", "--no-pci", vhfp, "--vdev", vhdev,
				  "-m", "128", "--single-file-segments", "--no-telemetry",
				  "--log-level=lib.eal:error", "--", "--nb-cores=1",
				  "--forward-mode=io", "--total-num-mbufs=16384",
				  "--stats-period=1", NULL };
	/* stdbuf: testpmd's printf()s reach a pipe only at exit otherwise. */
	char *const vu_args[] = { "stdbuf", "-oL", "dpdk-testpmd", "-l", "0,1", "--main-lcore", "1", "--no-pci",
				  vufp, "--vdev", vudev, "-m", "128", "--single-file-segments",
				  "--no-telemetry", "--log-level=lib.eal:error", "--", "-i",
				  "--nb-cores=1", "--forward-mode=io", "--total-num-mbufs=16384",
				  NULL };

	unlink(sock);
	out[0] = '\0';
	if (testpmd_start(&vh, vh_args) != 0) {
		snprintf(why, whylen, "cannot start dpdk-testpmd");
		goto done;
	}
	testpmd_read(&vh, out, sizeof(out), 15, "forwards packets");
	if (strstr(out, "forwards packets") == NULL) {
		snprintf(why, whylen, "dpdk-testpmd with net_vhost did not start forwarding%s",
			 strstr(out, "No such file") != NULL || out[0] == '\0'
				 ? " (is dpdk-testpmd installed? buildtools/deps.sh)" : "");
		goto done;
	}
	out[0] = '\0';
	if (testpmd_start(&vu, vu_args) != 0) {
		snprintf(why, whylen, "cannot start dpdk-testpmd (virtio-user)");
		goto done;
	}
	testpmd_read(&vu, out, sizeof(out), 15, "testpmd> ");
	if (strstr(out, "testpmd> ") == NULL || strstr(out, "No probed ethernet devices") != NULL) {
		snprintf(why, whylen, "dpdk-testpmd with net_virtio_user did not start");
		goto done;
	}
	const char cmds[] = "start tx_first 32\n";
	if (write(vu.in, cmds, sizeof(cmds) - 1) < 0)
		goto done;
	testpmd_read(&vu, out, sizeof(out), 0.5, NULL);
	/* The rate is over the time between two shows. */
	const char show[] = "show port stats all\n";
	if (write(vu.in, show, sizeof(show) - 1) < 0)
		goto done;
	testpmd_read(&vu, out, sizeof(out), seconds, NULL);
	out[0] = '\0';
	if (write(vu.in, show, sizeof(show) - 1) < 0)
		goto done;
	testpmd_read(&vu, out, sizeof(out), 5, "Tx-pps");
	const char *r = strstr(out, "Rx-pps:");
	if (getenv("DVS_BENCH_DEBUG") != NULL)
		fprintf(stderr, "virtio-user said:\n%s\n", out);
	if (r == NULL)
		snprintf(why, whylen, "no Rx-pps from dpdk-testpmd");
	else
		pps = atof(r + 7);
done:
	testpmd_stop(&vu);
	testpmd_stop(&vh);
	unlink(sock);
	remove_prefix(vhp);
	remove_prefix(vup);
	return pps;
}

/* ------------------------------------------------------- bad descriptors */

struct hostile {
	struct dvshare_dev *dev;
	struct app_port *p;
	double rate;        /* bad descriptors per second to make */
	volatile int run;
	unsigned int made;  /* bad descriptors the device saw */
	int failed;
};

/* One bad descriptor (INDIRECT, which the device does not take) on the
 * hostile port's TX queue; once in ERR, the queue is destroyed and made
 * again. 0, or -1. */
static int one_bad(struct hostile *h)
{
	struct app_port *p = h->p;
	struct app_vring *r = &p->ring[1];
	char name[DVSHARE_NAME_MAX];
	struct dvshare_prm_virtq q;
	uint16_t d = r->free_head;

	r->desc[d].addr = (uintptr_t)p->mz->addr;
	r->desc[d].len = 64;
	r->desc[d].flags = VRING_DESC_F_INDIRECT;
	r->avail->ring[r->avail_idx & r->mask] = d;
	r->avail_idx++;
	app_vring_publish(r);
	dvshare_doorbell32(p->db, 0, 2u * p->index + 1);
	for (int i = 0; i < 100000; i++) {
		if (app_virtq_query(p->q[1], &q) != 0)
			return -1;
		if (q.state == DVSHARE_PRM_VIRTQ_STATE_ERR)
			break;
	}
	if (q.state != DVSHARE_PRM_VIRTQ_STATE_ERR)
		return -1;
	/* A queue in ERR is made again (DPDK's vdpa driver does the same),
	 * with what it had: its UMEMs, counters, key and rings. */
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
		if (one_bad(h) != 0)
			h->failed = 1;
		else
			h->made++;
	}
	return NULL;
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

static void report(const char *what, double pps, double base)
{
	printf("   %-54s %6.2f Mpps", what, pps / 1e6);
	if (base > 0)
		printf("  (%.2fx)", pps / base);
	printf("\n");
}

int bench_s9_packets(struct bench_ctx *x)
{
	const double sec = pkt_seconds(x->o);
	char dev[32], line[256], why[256] = "";
	struct dvs_sim_engine *e;
	struct dvshare_dev *d;
	struct app_port *p;
	cpu_set_t was;

	printf("\n9. Packets: 64-byte frames, bursts of 32, 32 bursts in flight, %.1f s each; "
	       "forwarding on core 0, the device (or its peer) on core 1\n", sec);
	if (x->cores < 2)
		printf("   (one core: forwarding and the device share it)\n");
	if (bench_dev_name(x, 4, dev, sizeof(dev)) != 0 || (d = bench_dev_open(dev, 0)) == NULL)
		return -1;
	setenv("DVS_BENCH_PKT_DEV", dev, 1);

	/* Baselines without the engine running (it would hold core 1). */
	double ring = ring_baseline(x, dev);
	if (ring < 0)
		return -1;
	double vhost = vhost_baseline(x, sec, why, sizeof(why));

	/* The engine, on core 1: its thread takes this thread's affinity. */
	pthread_getaffinity_np(pthread_self(), sizeof(was), &was);
	pin(1);
	e = dvs_sim_engine_create(dvshare_dev_ctx(d));
	int rc = e != NULL ? dvs_sim_engine_start(e, 0) : -errno;
	pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
	if (rc != 0) {
		bench_fail("engine of %s: %s", dev, strerror(-rc));
		return -1;
	}
	pin(0);
	double prim = -1, sec_pps = -1, mp = -1, mp_always = -1, bad = -1;
	long kicks = 0, bursts = 0;
	struct hostile h = { .dev = d };
	rc = app_port_create(d, PKT_PORT, 0, PKT_RING, &p, NULL, NULL);
	if (rc == 0) {
		prim = forward(p, sec);
		app_port_destroy(p, BENCH_TIMEOUT_MS);
	}
	pthread_setaffinity_np(pthread_self(), sizeof(was), &was);
	if (rte_mp_action_register(PKT_KICK_ACTION, kick_action) != 0 && rte_errno != EEXIST)
		rc = -rte_errno;
	for (int mode = 0; mode < 3 && rc == 0; mode++) {
		if (child_run(x, dev, "pktfwd", mode, line, sizeof(line)) != 0) {
			rc = -EIO;
			break;
		}
		double pps = atof(line);
		if (mode == 0) {
			sec_pps = pps;
			sscanf(line, "%*f %ld %ld", &kicks, &bursts);
		} else
			*(mode == 1 ? &mp : &mp_always) = pps;
	}
	/* The same stream beside a queue meeting bad descriptors. */
	if (rc == 0 && sec_pps > 0)
		rc = app_port_create(d, PKT_HOSTILE, 1, 64, &h.p, NULL, NULL);
	if (rc == 0 && sec_pps > 0) {
		pthread_t t;
		h.rate = sec_pps / 1000;
		h.run = 1;
		if (pthread_create(&t, NULL, hostile_loop, &h) == 0) {
			if (child_run(x, dev, "pktfwd", 0, line, sizeof(line)) == 0)
				bad = atof(line);
			h.run = 0;
			pthread_join(t, NULL);
		}
		app_port_destroy(h.p, BENCH_TIMEOUT_MS);
	}
	struct dvs_sim_engine_stats st;
	dvs_sim_engine_stats(e, &st);
	dvs_sim_engine_destroy(e);
	rte_mp_action_unregister(PKT_KICK_ACTION);
	if (rc != 0 || prim <= 0 || sec_pps <= 0) {
		bench_fail("packets on %s: %s", dev, strerror(rc != 0 ? -rc : EIO));
		bench_dev_close(d);
		return -1;
	}

	report("rte_ring between the two processes, mbufs recycled", ring, 0);
	if (vhost > 0)
		report("vhost-user + virtio-user (dpdk-testpmd io, tx_first 32)", vhost, 0);
	else
		printf("   vhost-user + virtio-user: not measured: %s\n", why);
	report("dvshare, forwarding in the primary", prim, 0);
	report("dvshare, forwarding in a secondary (vs the primary)", sec_pps, prim);
	report("  kicks over rte_mp when the device asks (vs dvshare)", mp, sec_pps);
	report("  kicks over rte_mp on every burst (vs dvshare)", mp_always, sec_pps);
	report("dvshare secondary beside a queue meeting bad descriptors", bad, sec_pps);
	printf("   secondary: %ld kick(s) in %ld bursts; the ring baseline is %.2fx dvshare\n",
	       kicks, bursts, ring / sec_pps);
	/* Each bad descriptor ends its queue (ERR, as on a NIC): the rate is
	 * what re-making a queue (a coordinated destroy) allows. */
	const double per = h.made != 0 ? bad * sec / h.made : 0;
	printf("   bad descriptors made: %u (%.0f/s, 1 per %.0f packets of the stream; asked 1 per "
	       "1,000), queues in ERR seen by the engine: %llu\n",
	       h.made, h.made / sec, per, (unsigned long long)st.errors);
	if (vhost > 0)
		bench_goal(9, "vhost-user loop / secondary", vhost / sec_pps, 1 / 1.2, "x");
	else
		printf("   goal: secondary >= 1.2x vhost-user: unmeasured (%s)\n", why);
	bench_goal(9, "primary / secondary", prim / sec_pps, 1 / 0.95, "x");
	bench_goal(9, "kicks per burst (secondary)", bursts > 0 ? (double)kicks / bursts : 99, 1,
		   "");
	if (bad > 0 && h.made != 0 && per <= 1000)
		bench_goal(9, "throughput lost beside bad descriptors", 1 - bad / sec_pps, 0.05, "");
	else
		printf("   goal: throughput lost with 1 bad descriptor per 1,000 <= 5%%: unmeasured: "
		       "bad descriptors came 1 per %.0f packets (re-making a queue after each takes "
		       "a coordinated destroy); beside them the stream kept %.1f%%\n", per,
		       100 * bad / sec_pps);
	bj_num("ring_pps", ring);
	if (vhost > 0)
		bj_num("vhost_user_pps", vhost);
	else
		bj_str("vhost_user_unmeasured", why);
	bj_num("primary_pps", prim);
	bj_num("secondary_pps", sec_pps);
	bj_num("mp_kick_pps", mp);
	bj_num("mp_kick_every_burst_pps", mp_always);
	bj_num("bad_desc_pps", bad);
	bj_int("kicks", kicks);
	bj_int("bursts", bursts);
	bj_int("bad_descriptors", h.made);
	bj_num("packets_per_bad_descriptor", per);
	bj_num("seconds", sec);
	return bench_dev_close(d);
}
