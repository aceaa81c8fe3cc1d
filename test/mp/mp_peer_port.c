/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mp_peer's packet commands: virtio-net ports (app/common/app_port.h) made
 * and driven by this process, the software device's engine run on a
 * thread of its own, and its steering.
 *
 *   enginerun DEV US [CPU]  run DEV's engine, US microseconds between passes
 *                           (on CPU alone, when given)
 *   engineinfo DEV          what it moved: packets dropped errors unreachable
 *   steer DEV TX RX [CNT]   TX queue index delivers to RX (flow counter CNT)
 *   port create DEV NAME K SIZE    queues 2K, 2K+1; "ok <kicks-to-come>"
 *   port send NAME N LEN SEED      N packets of LEN bytes, packet i's byte j
 *                                  is SEED + i + j
 *   port recv NAME N LEN SEED MS   take N such packets within MS ms:
 *                                  "ok <got> bad=<wrong bytes or length>"
 *   port stream NAME LEN / port streamstop NAME   send without end, on a thread
 *   port stats NAME / port view NAME / port destroy NAME MS
 *   port kick NAME                 ring its TX queue's doorbell
 *   port freemem NAME              free its memory, its objects left (a bug)
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_malloc.h>

#include "app_port.h"
#include "dvs_sim.h"
#include "mp_peer.h"

#define MAX_PORTS 8

static struct {
	struct app_port *p;
	pthread_t thread;
	volatile int streaming;
	uint64_t streamed;
	uint32_t len;
} ports[MAX_PORTS];

static int port_of(const char *name)
{
	for (int i = 0; i < MAX_PORTS; i++)
		if (ports[i].p != NULL && strcmp(ports[i].p->name, name) == 0)
			return i;
	reply("err %d no port %s", ENOENT, name);
	return -1;
}

static uint64_t now_ms(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000 + (uint64_t)t.tv_nsec / 1000000;
}

static void fill(struct rte_mbuf *m, uint32_t len, uint32_t seed)
{
	uint8_t *d = rte_pktmbuf_mtod(m, uint8_t *);

	for (uint32_t j = 0; j < len; j++)
		d[j] = (uint8_t)(seed + j);
	m->data_len = (uint16_t)len;
	m->pkt_len = len;
}

static int check(const struct rte_mbuf *m, uint32_t len, uint32_t seed)
{
	const uint8_t *d = rte_pktmbuf_mtod(m, const uint8_t *);

	if (m->pkt_len != len)
		return 0;
	for (uint32_t j = 0; j < len; j++)
		if (d[j] != (uint8_t)(seed + j))
			return 0;
	return 1;
}

/* Send @n packets, waiting for room (5 s at most): how many went. */
static uint32_t send_n(struct app_port *p, uint32_t n, uint32_t len, uint32_t seed)
{
	struct rte_mbuf *m[32];
	uint32_t sent = 0;
	uint64_t t0 = now_ms();

	while (sent < n && now_ms() - t0 < 5000) {
		uint16_t k = (uint16_t)(n - sent < 32 ? n - sent : 32);
		if (rte_pktmbuf_alloc_bulk(p->pool, m, k) != 0) {
			app_port_tx_done(p);
			continue;
		}
		for (uint16_t i = 0; i < k; i++)
			fill(m[i], len, seed + sent + i);
		uint16_t went = app_port_tx_burst(p, m, k);
		if (went < k)
			rte_pktmbuf_free_bulk(m + went, k - went);
		if (went == 0)
			app_port_tx_done(p);
		sent += went;
	}
	return sent;
}

static void *stream(void *arg)
{
	int i = (int)(intptr_t)arg;
	struct app_port *p = ports[i].p;

	while (ports[i].streaming)
		ports[i].streamed += send_n(p, 32, ports[i].len, (uint32_t)ports[i].streamed);
	return NULL;
}

static void cmd_create(const char *dev, const char *name, unsigned int k, unsigned int size)
{
	struct dvshare_dev *d = dev_of(dev);
	uint8_t status;
	uint32_t synd;
	int slot = -1;

	if (d == NULL)
		return;
	for (int i = 0; i < MAX_PORTS && slot < 0; i++)
		if (ports[i].p == NULL)
			slot = i;
	if (slot < 0)
		return reply("err %d too many ports", ENOSPC);
	int rc = app_port_create(d, name, (uint16_t)k, (uint16_t)size, &ports[slot].p, &status, &synd);
	if (rc != 0)
		return reply("err %d port create: %s (status 0x%02x syndrome 0x%08x)", -rc,
			     strerror(-rc), status, synd);
	reply("ok");
}

static void cmd_recv(struct app_port *p, uint32_t n, uint32_t len, uint32_t seed, uint32_t ms)
{
	struct rte_mbuf *m[32];
	uint32_t got = 0, bad = 0;
	uint64_t t0 = now_ms();

	while (got < n && now_ms() - t0 < ms) {
		uint16_t r = app_port_rx_burst(p, m, (uint16_t)(n - got < 32 ? n - got : 32));
		for (uint16_t i = 0; i < r; i++, got++)
			bad += !check(m[i], len, seed + got);
		rte_pktmbuf_free_bulk(m, r);
		if (r == 0)
			usleep(100);
	}
	reply("ok %u bad=%u", got, bad);
}

static void cmd_view(struct app_port *p)
{
	struct app_port_device_view v;
	int rc = app_port_device_view(p, &v);

	if (rc != 0)
		return reply("err %d view: %s", -rc, strerror(-rc));
	reply("ok txstate=%s txerr=%u txavail=%u txused=%u rxstate=%s rxavail=%u rxused=%u "
	      "txrecv=%llu txcomp=%llu rxrecv=%llu rxcomp=%llu errors=%u",
	      dvshare_prm_virtq_state_str(v.q[1].state), v.q[1].error_type, v.q[1].hw_available_index,
	      v.q[1].hw_used_index, dvshare_prm_virtq_state_str(v.q[0].state),
	      v.q[0].hw_available_index, v.q[0].hw_used_index,
	      (unsigned long long)v.c[1].received_desc, (unsigned long long)v.c[1].completed_desc,
	      (unsigned long long)v.c[0].received_desc, (unsigned long long)v.c[0].completed_desc,
	      v.c[0].bad_desc_errors + v.c[0].exceed_max_chain + v.c[0].invalid_buffer +
		      v.c[1].bad_desc_errors + v.c[1].exceed_max_chain + v.c[1].invalid_buffer);
}

static void stop_stream(int i)
{
	if (!ports[i].streaming)
		return;
	ports[i].streaming = 0;
	pthread_join(ports[i].thread, NULL);
}

static void cmd_port(const char *line)
{
	char a[256], b[256];
	unsigned int w = 0, x = 0, y = 0, z = 0;
	int i;

	if (sscanf(line, "port create %255s %255s %u %u", a, b, &x, &y) == 4)
		return cmd_create(a, b, x, y);
	if (sscanf(line, "port streamstop %255s", a) == 1) {
		if ((i = port_of(a)) < 0)
			return;
		stop_stream(i);
		return reply("ok %llu", (unsigned long long)ports[i].streamed);
	}
	if (sscanf(line, "port stream %255s %u", a, &x) == 2) {
		if ((i = port_of(a)) < 0)
			return;
		stop_stream(i);
		ports[i].len = x;
		ports[i].streamed = 0;
		ports[i].streaming = 1;
		if (pthread_create(&ports[i].thread, NULL, stream, (void *)(intptr_t)i) != 0) {
			ports[i].streaming = 0;
			return reply("err %d stream", EAGAIN);
		}
		return reply("ok");
	}
	if (sscanf(line, "port send %255s %u %u %u", a, &x, &y, &z) == 4) {
		if ((i = port_of(a)) < 0)
			return;
		uint32_t sent = send_n(ports[i].p, x, y, z);
		return reply("ok %u kicks=%llu bursts=%llu", sent,
			     (unsigned long long)ports[i].p->st.tx_kicks,
			     (unsigned long long)ports[i].p->st.tx_bursts);
	}
	if (sscanf(line, "port recv %255s %u %u %u %u", a, &x, &y, &z, &w) == 5) {
		if ((i = port_of(a)) < 0)
			return;
		return cmd_recv(ports[i].p, x, y, z, w);
	}
	if (sscanf(line, "port stats %255s", a) == 1) {
		if ((i = port_of(a)) < 0)
			return;
		const struct app_port_stats *s = &ports[i].p->st;
		return reply("ok rx=%llu tx=%llu kicks=%llu bursts=%llu full=%llu",
			     (unsigned long long)s->rx_packets, (unsigned long long)s->tx_packets,
			     (unsigned long long)s->tx_kicks, (unsigned long long)s->tx_bursts,
			     (unsigned long long)s->tx_full);
	}
	if (sscanf(line, "port view %255s", a) == 1) {
		if ((i = port_of(a)) < 0)
			return;
		return cmd_view(ports[i].p);
	}
	if (sscanf(line, "port freemem %255s", a) == 1) {
		/* A driver's bug, or a hostile one: the memory under the
		 * port's UMEM goes back to DPDK while its queues are RDY. */
		if ((i = port_of(a)) < 0)
			return;
		stop_stream(i);
		rte_mempool_free(ports[i].p->pool);
		ports[i].p->pool = NULL;
		rte_free(ports[i].p->mem); /* dvshare's to free: the bug */
		return reply("ok");
	}
	if (sscanf(line, "port kick %255s", a) == 1) {
		/* The TX queue's doorbell, whatever the device says. */
		if ((i = port_of(a)) < 0)
			return;
		dvshare_doorbell32(ports[i].p->db, 0, 2u * ports[i].p->index + 1);
		return reply("ok");
	}
	if (sscanf(line, "port destroy %255s %u", a, &x) == 2) {
		if ((i = port_of(a)) < 0)
			return;
		stop_stream(i);
		app_port_destroy(ports[i].p, x);
		ports[i].p = NULL;
		return reply("ok");
	}
	reply("err %d unknown port command: %s", EINVAL, line);
}

static void cmd_steer(const char *dev, unsigned int tx, unsigned int rx, const char *counter)
{
	struct dvshare_dev *d = dev_of(dev);
	uint32_t id = 0;

	if (d == NULL)
		return;
	if (counter[0] != '\0') {
		struct dvshare_obj *o = dvshare_obj_lookup(d, counter);
		if (o == NULL)
			return reply_err("steer counter");
		id = dvshare_obj_id(o);
		dvshare_obj_release(o);
	}
	int rc = dvs_sim_steer(dvshare_dev_ctx(d), (uint16_t)tx, (uint16_t)rx, id);
	if (rc != 0)
		return reply("err %d steer: %s", -rc, strerror(-rc));
	reply("ok");
}

struct engine_start {
	struct dvs_sim_engine *e;
	unsigned int interval_us;
	int rc;
};

static void *start_pinned(void *arg)
{
	struct engine_start *s = arg;

	s->rc = dvs_sim_engine_start(s->e, s->interval_us);
	return NULL;
}

/* Start @e's thread on CPU @cpu alone: it inherits the CPU set of the
 * thread that starts it, here one pinned to @cpu. */
static int engine_start_on(struct dvs_sim_engine *e, unsigned int interval_us, unsigned int cpu)
{
	struct engine_start s = { e, interval_us, 0 };
	pthread_attr_t attr;
	pthread_t t;
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (pthread_attr_init(&attr) != 0)
		return -ENOMEM;
	int rc = pthread_attr_setaffinity_np(&attr, sizeof(set), &set);
	if (rc == 0)
		rc = pthread_create(&t, &attr, start_pinned, &s);
	pthread_attr_destroy(&attr);
	if (rc != 0)
		return -rc;
	pthread_join(t, NULL);
	return s.rc;
}

int mp_port_run(const char *line)
{
	char a[256], c[256] = "";
	unsigned int x = 0, y = 0;
	struct dvs_sim_engine *e;

	if (strncmp(line, "port ", 5) == 0) {
		cmd_port(line);
		return 1;
	}
	int nargs = sscanf(line, "enginerun %255s %u %u", a, &x, &y);
	if (nargs >= 2) {
		if ((e = mp_engine(a)) == NULL)
			return reply("err %d engine", errno), 1;
		int rc = nargs == 3 ? engine_start_on(e, x, y) : dvs_sim_engine_start(e, x);
		if (rc == 0 || rc == -EALREADY)
			reply("ok");
		else
			reply("err %d engine start", -rc);
		return 1;
	}
	if (sscanf(line, "engineinfo %255s", a) == 1) {
		struct dvs_sim_engine_stats st;
		if ((e = mp_engine(a)) == NULL)
			return reply("err %d engine", errno), 1;
		dvs_sim_engine_stats(e, &st);
		reply("ok packets=%llu dropped=%llu errors=%llu unreachable=%llu",
		      (unsigned long long)st.packets, (unsigned long long)st.dropped,
		      (unsigned long long)st.errors, (unsigned long long)st.unreachable);
		return 1;
	}
	if (sscanf(line, "steer %255s %u %u %255s", a, &x, &y, c) >= 3) {
		cmd_steer(a, x, y, c);
		return 1;
	}
	return 0;
}

void mp_port_cleanup(void)
{
	for (int i = 0; i < MAX_PORTS; i++)
		if (ports[i].p != NULL)
			stop_stream(i);
}
