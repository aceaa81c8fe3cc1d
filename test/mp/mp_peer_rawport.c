/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mp_peer's raw ports: a queue pair whose rings this process writes by
 * hand, to be an honest driver whose every byte is checked, or a hostile
 * one (the fault+hostile suite, test/fault/test_dp_hostile.c).
 *
 * A raw port named N on queues 2K (RX) and 2K+1 (TX): one region of DPDK
 * memory (rte_malloc: the same address in every process) holding both
 * rings and 2 * SIZE buffers of RAW_BUF bytes, registered as UMEM N.umem
 * and reached through key N.key, with a canary page on each side that is
 * inside the allocation but outside the UMEM and the key. With "klm" the
 * queues use N.klm instead, an indirect key over two direct ones (N.key
 * on the first half, N.key2 on the second), at the same addresses. Its
 * doorbell is VAR N.db; its queues N.rxq and N.txq (app_objects.h).
 *
 *   rawport create DEV NAME K SIZE [klm]
 *   rawport info NAME          "ok mem=<addr> len=<bytes> rxring=<addr> txring=<addr>"
 *   rawport xfer NAME N LEN SEED MS   send N packets and take them back on
 *                              the RX queue within MS ms: "ok <got> bad=<n>"
 *   rawport fwd NAME LEN       the same without end, on a thread
 *   rawport rate NAME MS       packets the fwd thread moved in MS ms:
 *                              "ok pps=<n> bad=<n> total=<n>"
 *   rawport attack NAME CASE [ADDR]   one hostile act on its own rings (below)
 *   rawport flood NAME CASE    a hostile act without end, on a thread
 *   rawport spin NAME          a thread that only burns CPU (the baseline)
 *   rawport stop NAME          end the port's thread
 *   rawport state NAME         "ok rx=<state>/<error_type> tx=<state>/<error_type>
 *                              oversize=<n> rx_dropped=<n> txused=<n> rxused=<n>"
 *   rawport canary NAME        "ok" when both canaries hold, "err ..." else
 *   rawport ctllat NAME N      N rounds of control calls (QUERY of both
 *                              queues, MODIFY of an INIT queue) 100 us
 *                              apart: "ok query_max_us=.. modify_max_us=..
 *                              query_p99_us=.. fence_max_us=.. turn_max_us=.. fence_waits=.."
 *   rawport destroy NAME MS
 *   rawport destroykey NAME    a destroy of its live key and UMEM:
 *                              "ok key=<rc> umem=<rc>"
 *   rawport badrings DEV NAME K   a queue whose rings lie outside its key:
 *                              "ok <rc of RDY> <status>" (the queue then goes)
 *
 * Attacks (CASE): outside (a buffer past the key's end), other ADDR (a
 * buffer at another process's address), rxother ADDR (an RX buffer
 * there), wrap (an address that wraps 2^64), longlen (a length past the
 * key), loop (a chain that loops), nextpast (next past the ring), txjump
 * and rxjump (an avail index more than a ring ahead; rxjump while TX
 * holds a packet), garbage (random descriptors and avail entries),
 * overlap (TX and RX buffers over the same bytes), kickstorm (doorbells
 * without end, of every index). Floods: giant (chains of SIZE buffers,
 * each the whole region long: a packet of gigabytes), longchain (frames
 * of the largest size in chains of SIZE - 1 buffers), stream (honest
 * packets as fast as it can: to be killed mid-burst), kickstorm.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "app_objects.h"
#include "app_vring.h"
#include "dvs_sim.h"
#include "mp_peer.h"

#define RAW_PORTS 4
#define RAW_BUF 2048u
#define RAW_HDR 12u
#define RAW_CANARY 4096u
#define RAW_CANARY_BYTE 0x5a

struct raw_port {
	char name[32];
	struct dvshare_dev *dev;
	uint16_t k, size;
	uint8_t *alloc;         /* rte_malloc'd: canary, region, canary */
	uint8_t *mem;           /* the region: RX ring, TX ring, buffers */
	size_t len;
	struct app_vring ring[2];
	void *meta;
	struct dvshare_obj *q[2];
	void *db;
	pthread_t thread;
	volatile int running;
	uint64_t moved, bad;    /* fwd thread: packets taken back, wrong ones */
	uint32_t seed;
	char what[16];          /* the thread's job */
	uint32_t len_fwd;
};

static struct raw_port ports[RAW_PORTS];

static uint64_t now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (uint64_t)t.tv_sec * 1000000 + (uint64_t)t.tv_nsec / 1000;
}

static void name_of(char *buf, const struct raw_port *p, const char *suffix)
{
	snprintf(buf, DVSHARE_NAME_MAX, "%s.%s", p->name, suffix);
}

static struct raw_port *port_of(const char *name)
{
	for (int i = 0; i < RAW_PORTS; i++)
		if (ports[i].dev != NULL && strcmp(ports[i].name, name) == 0)
			return &ports[i];
	reply("err %d no raw port %s", ENOENT, name);
	return NULL;
}

static size_t rings_len(uint16_t size)
{
	return app_vring_bytes(size);
}

static uint8_t *buf_of(struct raw_port *p, int tx, uint32_t n)
{
	return p->mem + 2 * rings_len(p->size) + ((size_t)tx * p->size + n % p->size) * RAW_BUF;
}

static void kick(struct raw_port *p, int tx)
{
	if (app_vring_want_kick(&p->ring[tx]))
		dvshare_doorbell32(p->db, 0, 2u * p->k + (uint32_t)tx);
}

/* ------------------------------------------------------------ create */

static void unmake(struct raw_port *p)
{
	char n[DVSHARE_NAME_MAX];
	static const char *const names[] = { "txq", "rxq", "klm", "key2", "key", "umem", "db" };

	for (int i = 0; i < 2; i++)
		if (p->q[i] != NULL)
			dvshare_obj_release(p->q[i]);
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		name_of(n, p, names[i]);
		if (i < 2)
			app_virtq_destroy(p->dev, n, 2000);
		else
			dvshare_destroy(p->dev, n, 2000);
	}
	rte_free(p->alloc);
	free(p->meta);
	memset(p, 0, sizeof(*p));
}

/* An indirect key over two direct ones on the halves of the region. */
static int make_klm(struct raw_port *p, uint32_t umem_id, uint32_t *mkey)
{
	char n[DVSHARE_NAME_MAX];
	uint8_t in[DVSHARE_PRM_MKEY_KLM_SIZE(2)], out[DVSHARE_PRM_HDR_SIZE];
	uint32_t key[2], pd;
	size_t half = p->len / 2;
	int rc = app_pd(p->dev, &pd);

	for (int i = 0; i < 2 && rc == 0; i++) {
		struct dvshare_prm_mkey m;
		memset(&m, 0, sizeof(m));
		m.lr = m.lw = 1;
		m.qpn = DVSHARE_PRM_MKEY_NO_QPN;
		m.pd = pd;
		m.start_addr = (uintptr_t)p->mem + i * half;
		m.len = half;
		m.umem_id = umem_id;
		m.umem_offset = i * half;
		name_of(n, p, i == 0 ? "key" : "key2");
		struct dvshare_obj *o = dvshare_obj_create(p->dev, n, in,
							   dvshare_prm_mkey_create_direct(in, &m), out,
							   sizeof(out));
		if (o == NULL)
			return -rte_errno;
		key[i] = dvshare_prm_mkey_created(in, out);
		dvshare_obj_release(o);
	}
	if (rc != 0)
		return rc;
	struct dvshare_prm_klm klm[2] = {
		{ (uint32_t)half, key[0], (uintptr_t)p->mem },
		{ (uint32_t)half, key[1], (uintptr_t)p->mem + half },
	};
	struct dvshare_prm_mkey m;
	memset(&m, 0, sizeof(m));
	m.lr = m.lw = 1;
	m.qpn = DVSHARE_PRM_MKEY_NO_QPN;
	m.pd = pd;
	m.start_addr = (uintptr_t)p->mem;
	m.len = 2 * half;
	name_of(n, p, "klm");
	struct dvshare_obj *o = dvshare_obj_create(p->dev, n, in,
						   dvshare_prm_mkey_create_klm(in, &m, klm, 2), out,
						   sizeof(out));
	if (o == NULL)
		return -rte_errno;
	*mkey = dvshare_prm_mkey_created(in, out);
	dvshare_obj_release(o);
	return 0;
}

static void post_rx_all(struct raw_port *p)
{
	struct app_vring *r = &p->ring[0];
	static uint32_t n;

	while (r->num_free > 0) {
		uint8_t *b = buf_of(p, 0, n++);
		app_vring_add(r, (uintptr_t)b, RAW_BUF, 1, b);
	}
	app_vring_publish(r);
	kick(p, 0);
}

static int make(struct raw_port *p, int klm)
{
	char n[DVSHARE_NAME_MAX];
	const size_t rings = rings_len(p->size);
	uint32_t mkey, id;
	uint8_t status = 0;
	uint32_t synd = 0;
	int rc;

	p->len = (2 * rings + 2 * (size_t)p->size * RAW_BUF + 4095) & ~(size_t)4095;
	p->alloc = rte_zmalloc("rawport", p->len + 2 * RAW_CANARY, 4096);
	p->meta = calloc(2, app_vring_meta_bytes(p->size));
	if (p->alloc == NULL || p->meta == NULL)
		return -ENOMEM;
	memset(p->alloc, RAW_CANARY_BYTE, RAW_CANARY);
	memset(p->alloc + RAW_CANARY + p->len, RAW_CANARY_BYTE, RAW_CANARY);
	p->mem = p->alloc + RAW_CANARY;
	name_of(n, p, "umem");
	struct dvshare_umem *u = dvshare_umem_reg(p->dev, n, p->mem, p->len, IBV_ACCESS_LOCAL_WRITE);
	if (u == NULL)
		return -rte_errno;
	uint32_t umem_id = dvshare_umem_id(u);
	dvshare_umem_release(u);
	if (klm) {
		rc = make_klm(p, umem_id, &mkey);
	} else {
		name_of(n, p, "key");
		rc = app_mkey_create(p->dev, n, umem_id, p->mem, p->len, &mkey);
	}
	if (rc != 0)
		return rc;
	name_of(n, p, "db");
	struct dvshare_var *v = dvshare_var_alloc(p->dev, n, 0);
	if (v == NULL)
		return -rte_errno;
	p->db = dvshare_var_doorbell(v);
	dvshare_var_release(v);
	for (int i = 0; i < 2; i++) {
		struct app_virtq_rings r;
		uint8_t *base = p->mem + i * rings;
		app_vring_init(&p->ring[i], base, p->size,
			       (uint8_t *)p->meta + i * app_vring_meta_bytes(p->size));
		r.mkey = mkey;
		r.desc = (uintptr_t)p->ring[i].desc;
		r.avail = (uintptr_t)p->ring[i].avail;
		r.used = (uintptr_t)p->ring[i].used;
		name_of(n, p, i == 0 ? "rxq" : "txq");
		rc = app_virtq_create_rings(p->dev, n, (uint16_t)(2 * p->k + i), p->size, &r, &id,
					    &status, &synd);
		if (rc != 0)
			return rc;
		if ((p->q[i] = dvshare_obj_lookup(p->dev, n)) == NULL)
			return -rte_errno;
	}
	for (int i = 0; i < 2; i++) {
		struct dvshare_prm_virtq w;
		memset(&w, 0, sizeof(w));
		w.state = DVSHARE_PRM_VIRTQ_STATE_RDY;
		rc = app_virtq_modify(p->q[i], DVSHARE_PRM_VIRTQ_MODIFY_STATE, &w, &status, &synd);
		if (rc != 0)
			return rc;
	}
	post_rx_all(p);
	return 0;
}

static void cmd_create(const char *dev, const char *name, unsigned int k, unsigned int size,
		       int klm)
{
	struct dvshare_dev *d = dev_of(dev);
	struct raw_port *p = NULL;

	if (d == NULL)
		return;
	if (strlen(name) >= 16 || size < 2 || size > 4096 || (size & (size - 1)) != 0)
		return reply("err %d bad name or size", EINVAL);
	for (int i = 0; i < RAW_PORTS && p == NULL; i++)
		if (ports[i].dev == NULL)
			p = &ports[i];
	if (p == NULL)
		return reply("err %d too many raw ports", ENOSPC);
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->dev = d;
	p->k = (uint16_t)k;
	p->size = (uint16_t)size;
	int rc = make(p, klm);
	if (rc != 0) {
		unmake(p);
		return reply("err %d raw port create: %s", -rc, strerror(-rc));
	}
	reply("ok");
}

/* ------------------------------------------------------------ honest */

static void fill(uint8_t *b, uint32_t len, uint32_t seed)
{
	memset(b, 0, RAW_HDR);
	for (uint32_t j = 0; j < len; j++)
		b[RAW_HDR + j] = (uint8_t)(seed + j);
}

static int check(const uint8_t *b, uint32_t got, uint32_t len, uint32_t seed)
{
	static const uint8_t hdr[RAW_HDR] = { [10] = 1 };

	if (got != RAW_HDR + len || memcmp(b, hdr, RAW_HDR) != 0)
		return 0;
	for (uint32_t j = 0; j < len; j++)
		if (b[RAW_HDR + j] != (uint8_t)(seed + j))
			return 0;
	return 1;
}

/* Post up to @n packets of @len bytes, seeds from *@seed. */
static uint32_t send_some(struct raw_port *p, uint32_t n, uint32_t len, uint32_t *seed)
{
	struct app_vring *t = &p->ring[1];
	void *c[64];
	uint32_t k = 0;

	while (app_vring_reap(t, c, NULL, 64) > 0)
		;
	while (k < n && t->num_free > 0) {
		/* A TX buffer per descriptor slot in flight: the slot the free
		 * list hands out next. */
		uint8_t *b = buf_of(p, 1, t->free_head);
		fill(b, len, *seed);
		if (app_vring_add(t, (uintptr_t)b, RAW_HDR + len, 0, b) != 0)
			break;
		(*seed)++;
		k++;
	}
	if (k != 0) {
		app_vring_publish(t);
		kick(p, 1);
	}
	return k;
}

/* Take what came on RX, checking it against the seeds from *@seed. */
static uint32_t take_some(struct raw_port *p, uint32_t len, uint32_t *seed, uint64_t *bad)
{
	struct app_vring *r = &p->ring[0];
	void *c[64];
	uint32_t l[64], got = 0;
	int n;

	while ((n = app_vring_reap(r, c, l, 64)) > 0) {
		for (int i = 0; i < n; i++) {
			if (!check(c[i], l[i], len, *seed))
				(*bad)++;
			(*seed)++;
			app_vring_add(r, (uintptr_t)c[i], RAW_BUF, 1, c[i]);
		}
		got += (uint32_t)n;
	}
	if (got != 0) {
		app_vring_publish(r);
		kick(p, 0);
	}
	return got;
}

static void cmd_xfer(struct raw_port *p, uint32_t n, uint32_t len, uint32_t seed, uint32_t ms)
{
	uint32_t sseed = seed, rseed = seed, sent = 0, got = 0;
	uint64_t bad = 0, t0 = now_us();

	if (len == 0 || len > RAW_BUF - RAW_HDR)
		return reply("err %d bad length", EINVAL);
	while (got < n && now_us() - t0 < (uint64_t)ms * 1000) {
		if (sent < n)
			sent += send_some(p, n - sent, len, &sseed);
		got += take_some(p, len, &rseed, &bad);
	}
	reply("ok %u bad=%llu", got, (unsigned long long)bad);
}

static void *fwd_thread(void *arg)
{
	struct raw_port *p = arg;
	uint32_t sseed = p->seed, rseed = p->seed;
	uint64_t bad = 0;

	while (p->running) {
		/* Never more in flight than the RX ring holds: nothing dropped. */
		uint32_t room = (uint32_t)(p->size - (uint16_t)(sseed - rseed));
		if (room >= 32)
			send_some(p, 32, p->len_fwd, &sseed);
		uint32_t got = take_some(p, p->len_fwd, &rseed, &bad);
		__atomic_store_n(&p->moved, p->moved + got, __ATOMIC_RELAXED);
		__atomic_store_n(&p->bad, bad, __ATOMIC_RELAXED);
	}
	/* Stopped: take back what is still in flight (2 s at most), so that
	 * the next xfer reads its own packets, not these. */
	for (uint64_t t0 = now_us(); (uint16_t)(sseed - rseed) != 0 && now_us() - t0 < 2000000;) {
		uint32_t got = take_some(p, p->len_fwd, &rseed, &bad);
		__atomic_store_n(&p->moved, p->moved + got, __ATOMIC_RELAXED);
		__atomic_store_n(&p->bad, bad, __ATOMIC_RELAXED);
	}
	return NULL;
}

static void *spin_thread(void *arg)
{
	struct raw_port *p = arg;
	volatile uint64_t x = 0;

	while (p->running)
		x++;
	return NULL;
}

static void cmd_rate(struct raw_port *p, uint32_t ms)
{
	uint64_t m0 = __atomic_load_n(&p->moved, __ATOMIC_RELAXED), t0 = now_us();

	/* A measurement window, not a wait for an event. */
	usleep(ms * 1000);
	uint64_t m1 = __atomic_load_n(&p->moved, __ATOMIC_RELAXED), t1 = now_us();
	reply("ok pps=%llu bad=%llu total=%llu",
	      (unsigned long long)((m1 - m0) * 1000000 / (t1 - t0 + 1)),
	      (unsigned long long)__atomic_load_n(&p->bad, __ATOMIC_RELAXED), (unsigned long long)m1);
}

/* ------------------------------------------------------------ hostile */

static void put_desc(struct app_vring *r, uint16_t d, uint64_t addr, uint32_t len, uint16_t flags,
		     uint16_t next)
{
	r->desc[d].addr = addr;
	r->desc[d].len = len;
	r->desc[d].flags = flags;
	r->desc[d].next = next;
}

static void post_head(struct app_vring *r, uint16_t head)
{
	r->avail->ring[r->avail_idx & r->mask] = head;
	r->avail_idx++;
	app_vring_publish(r);
}

static void ring_tx(struct raw_port *p)
{
	dvshare_doorbell32(p->db, 0, 2u * p->k + 1);
}

static uint64_t rnd(void)
{
	static uint64_t s = 0x9e3779b97f4a7c15ull;

	s ^= s << 13;
	s ^= s >> 7;
	s ^= s << 17;
	return s;
}

/* A hand-made TX chain at descriptor 0: @n buffers of @len bytes, each
 * at @addr. */
static void lay_chain(struct app_vring *r, uint16_t n, uint64_t addr, uint32_t len)
{
	for (uint16_t i = 0; i < n; i++)
		put_desc(r, i, addr, len, i + 1 < n ? VRING_DESC_F_NEXT : 0, (uint16_t)(i + 1));
}

static int attack(struct raw_port *p, const char *how, uint64_t addr)
{
	struct app_vring *tx = &p->ring[1], *rx = &p->ring[0];
	uint8_t *b = buf_of(p, 1, 0);

	fill(b, 64, 1);
	if (strcmp(how, "outside") == 0) {
		put_desc(tx, 0, (uintptr_t)p->mem + p->len - 8, 64, 0, 0);
		post_head(tx, 0);
	} else if (strcmp(how, "other") == 0) {
		put_desc(tx, 0, addr, 64, 0, 0);
		post_head(tx, 0);
	} else if (strcmp(how, "rxother") == 0) {
		/* Its RX ring's buffers all at @addr: the packet would land there. */
		for (uint16_t i = 0; i < p->size; i++)
			put_desc(rx, i, addr, RAW_BUF, VRING_DESC_F_WRITE, 0);
		put_desc(tx, 0, (uintptr_t)b, RAW_HDR + 64, 0, 0);
		post_head(tx, 0);
	} else if (strcmp(how, "wrap") == 0) {
		put_desc(tx, 0, UINT64_MAX - 15, 64, 0, 0);
		post_head(tx, 0);
	} else if (strcmp(how, "longlen") == 0) {
		put_desc(tx, 0, (uintptr_t)p->mem, UINT32_MAX, 0, 0);
		post_head(tx, 0);
	} else if (strcmp(how, "loop") == 0) {
		/* Short buffers: the ring's worth of them stays below the
		 * largest frame, so the loop is what ends the walk. */
		put_desc(tx, 0, (uintptr_t)b, RAW_HDR, VRING_DESC_F_NEXT, 1);
		put_desc(tx, 1, (uintptr_t)b, 8, VRING_DESC_F_NEXT, 0);
		post_head(tx, 0);
	} else if (strcmp(how, "nextpast") == 0) {
		put_desc(tx, 0, (uintptr_t)b, 64, VRING_DESC_F_NEXT, (uint16_t)(p->size + 5));
		post_head(tx, 0);
	} else if (strcmp(how, "txjump") == 0) {
		put_desc(tx, 0, (uintptr_t)b, 64, 0, 0);
		tx->avail_idx = (uint16_t)(tx->avail_idx + p->size + 1);
		app_vring_publish(tx);
	} else if (strcmp(how, "rxjump") == 0) {
		put_desc(tx, 0, (uintptr_t)b, RAW_HDR + 64, 0, 0);
		post_head(tx, 0);
		rx->avail_idx = (uint16_t)(rx->avail_idx + p->size + 1);
		app_vring_publish(rx);
	} else if (strcmp(how, "garbage") == 0) {
		for (uint16_t i = 0; i < p->size; i++) {
			uint64_t r = rnd();
			/* Half of them in the key, so that some walks go far. */
			uint64_t a = (r & 1) ? (uintptr_t)p->mem + (rnd() % p->len) : rnd();
			put_desc(tx, i, a, (uint32_t)(rnd() % 4096), (uint16_t)rnd(), (uint16_t)rnd());
			tx->avail->ring[i] = (uint16_t)rnd();
		}
		tx->avail_idx = (uint16_t)(tx->avail_idx + 1 + rnd() % p->size);
		app_vring_publish(tx);
	} else if (strcmp(how, "overlap") == 0) {
		/* The RX buffer the device fills next starts 4 bytes into the TX
		 * buffer it copies from. */
		uint8_t *rb = buf_of(p, 0, 0);
		fill(rb, 300, 9);
		uint16_t d = rx->avail->ring[rx->used_idx & rx->mask];
		put_desc(rx, d, (uintptr_t)rb + 4, RAW_BUF - 8, VRING_DESC_F_WRITE, 0);
		put_desc(tx, 0, (uintptr_t)rb, RAW_HDR + 300, 0, 0);
		post_head(tx, 0);
	} else {
		return -EINVAL;
	}
	ring_tx(p);
	return 0;
}

/* Floods: reposted without end. The TX ring is reset by hand each round
 * (everything the device took is taken back). */
static void *flood_thread(void *arg)
{
	struct raw_port *p = arg;
	struct app_vring *tx = &p->ring[1];
	uint8_t *b = buf_of(p, 1, 0);
	const uint32_t frame = DVS_SIM_DEFAULT_MTU + DVS_SIM_FRAME_OVERHEAD;
	uint32_t seed = 0;
	uint64_t bad = 0;
	int laid = 0;

	fill(b, frame, 3);
	while (p->running) {
		if (strcmp(p->what, "kickstorm") == 0) {
			for (int i = 0; i < 1000; i++)
				dvshare_doorbell32(p->db, 0, (uint32_t)rnd() % (DVS_SIM_MAX_VIRTQ + 8));
			ring_tx(p);
			continue;
		}
		if (strcmp(p->what, "stream") == 0) {
			send_some(p, 32, 64, &seed);
			take_some(p, 64, &p->seed, &bad);
			continue;
		}
		/* giant or longchain: one chain, laid out once, posted again
		 * in every free avail slot as the device takes it. */
		uint16_t in_flight = (uint16_t)(tx->avail_idx - tx->used->idx);
		if (in_flight == p->size) {
			ring_tx(p);
			continue;
		}
		if (!laid) {
			if (strcmp(p->what, "giant") == 0) {
				lay_chain(tx, p->size, (uintptr_t)p->mem, (uint32_t)p->len);
			} else {
				/* The largest frame in SIZE - 1 pieces. */
				uint16_t n = (uint16_t)(p->size - 1);
				uint32_t piece = (RAW_HDR + frame) / n;
				for (uint16_t i = 0; i < n; i++) {
					uint32_t l = i + 1 < n ? piece : RAW_HDR + frame - piece * (n - 1u);
					put_desc(tx, i, (uintptr_t)b + i * piece, l,
						 i + 1 < n ? VRING_DESC_F_NEXT : 0, (uint16_t)(i + 1));
				}
			}
			laid = 1;
		}
		for (; in_flight < p->size; in_flight++) {
			tx->avail->ring[tx->avail_idx & tx->mask] = 0;
			tx->avail_idx++;
		}
		app_vring_publish(tx);
		if (strcmp(p->what, "longchain") == 0)
			take_some(p, frame, &seed, &bad); /* its own RX fills: keep it posted */
		ring_tx(p);
	}
	return NULL;
}

static void cmd_state(struct raw_port *p)
{
	struct dvshare_prm_virtq v[2];
	struct dvs_sim_vq_counts c[2];
	struct ibv_context *ctx = dvshare_dev_ctx(p->dev);

	for (int i = 0; i < 2; i++) {
		int rc = app_virtq_query(p->q[i], &v[i]);
		if (rc != 0)
			return reply("err %d query: %s", -rc, strerror(-rc));
		if (dvs_sim_vq_stats(ctx, (uint16_t)(2 * p->k + i), &c[i]) != 0)
			memset(&c[i], 0, sizeof(c[i]));
	}
	reply("ok rx=%s/%u tx=%s/%u oversize=%llu rx_dropped=%llu txused=%u rxused=%u",
	      dvshare_prm_virtq_state_str(v[0].state), v[0].error_type,
	      dvshare_prm_virtq_state_str(v[1].state), v[1].error_type,
	      (unsigned long long)c[1].tx_oversize, (unsigned long long)c[0].rx_dropped,
	      v[1].hw_used_index, v[0].hw_used_index);
}

static void cmd_canary(struct raw_port *p)
{
	const uint8_t *side[2] = { p->alloc, p->mem + p->len };

	for (int s = 0; s < 2; s++)
		for (size_t j = 0; j < RAW_CANARY; j++)
			if (side[s][j] != RAW_CANARY_BYTE)
				return reply("err %d canary %s byte %zu is 0x%02x", EFAULT,
					     s == 0 ? "before" : "after", j, side[s][j]);
	reply("ok");
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* Control calls beside the engine: QUERY both queues, MODIFY a queue
 * kept in INIT (its version bit, back and forth). */
static void cmd_ctllat(struct raw_port *p, uint32_t n)
{
	char qn[DVSHARE_NAME_MAX];
	uint32_t id;
	uint8_t status;
	uint32_t synd;
	struct dvs_sim_stats st;
	uint64_t *q = calloc(n ? n : 1, sizeof(*q)), qmax = 0, mmax = 0;

	if (q == NULL || n == 0) {
		free(q);
		return reply("err %d bad count", EINVAL);
	}
	name_of(qn, p, "idleq");
	int rc = app_virtq_create(p->dev, qn, (uint16_t)(2 * p->k + 64), p->size, &id, &status,
				  &synd);
	struct dvshare_obj *idle = rc == 0 ? dvshare_obj_lookup(p->dev, qn) : NULL;
	if (idle == NULL) {
		free(q);
		return reply("err %d idle queue: %s", rc != 0 ? -rc : rte_errno, strerror(rc != 0 ? -rc : rte_errno));
	}
	for (uint32_t i = 0; i < n; i++) {
		struct dvshare_prm_virtq v, w;
		uint64_t t0 = now_us();
		app_virtq_query(p->q[0], &v);
		app_virtq_query(p->q[1], &v);
		uint64_t t1 = now_us();
		memset(&w, 0, sizeof(w));
		w.virtio_version_1_0 = (uint8_t)(i & 1);
		app_virtq_modify(idle, DVSHARE_PRM_VIRTQ_MODIFY_VERSION_1_0, &w, &status, &synd);
		uint64_t t2 = now_us();
		q[i] = t1 - t0;
		qmax = q[i] > qmax ? q[i] : qmax;
		mmax = t2 - t1 > mmax ? t2 - t1 : mmax;
		usleep(100);
	}
	dvshare_obj_release(idle);
	app_virtq_destroy(p->dev, qn, 2000);
	qsort(q, n, sizeof(*q), cmp_u64);
	if (dvs_sim_stats(dvshare_dev_ctx(p->dev), &st) != 0)
		memset(&st, 0, sizeof(st));
	reply("ok query_max_us=%llu modify_max_us=%llu query_p99_us=%llu fence_max_us=%llu "
	      "turn_max_us=%llu fence_waits=%llu",
	      (unsigned long long)qmax, (unsigned long long)mmax,
	      (unsigned long long)q[(n * 99) / 100], (unsigned long long)(st.fence_wait_max_ns / 1000),
	      (unsigned long long)(st.fenced_turn_max_ns / 1000), (unsigned long long)st.fence_waits);
	free(q);
}

static void cmd_destroykey(struct raw_port *p)
{
	char n[DVSHARE_NAME_MAX];

	name_of(n, p, "key");
	int k = dvshare_destroy(p->dev, n, 1000);
	name_of(n, p, "umem");
	int u = dvshare_destroy(p->dev, n, 1000);
	reply("ok key=%d umem=%d", k, u);
}

/* A queue whose rings lie past its key's end: RDY must be refused. */
static void cmd_badrings(const char *dev, const char *name, unsigned int k)
{
	struct dvshare_dev *d = dev_of(dev);
	char n[DVSHARE_NAME_MAX];
	uint8_t status = 0;
	uint32_t synd = 0, id, umem_id, mkey;

	if (d == NULL)
		return;
	uint8_t *m = rte_zmalloc("badrings", 8192, 4096);
	if (m == NULL)
		return reply("err %d no memory", ENOMEM);
	snprintf(n, sizeof(n), "%s.umem", name);
	struct dvshare_umem *u = dvshare_umem_reg(d, n, m, 4096, IBV_ACCESS_LOCAL_WRITE);
	int rc = u != NULL ? 0 : -rte_errno;
	if (u != NULL) {
		umem_id = dvshare_umem_id(u);
		dvshare_umem_release(u);
		snprintf(n, sizeof(n), "%s.key", name);
		rc = app_mkey_create(d, n, umem_id, m, 4096, &mkey);
	}
	if (rc == 0) {
		/* The used ring runs into the page after the key's. */
		struct app_virtq_rings r = { mkey, (uintptr_t)m, (uintptr_t)m + 2048,
					     (uintptr_t)m + 4096 - 64 };
		snprintf(n, sizeof(n), "%s.q", name);
		rc = app_virtq_create_rings(d, n, (uint16_t)(2 * k), 64, &r, &id, &status, &synd);
	}
	int rdy = -1;
	if (rc == 0) {
		struct dvshare_obj *o = dvshare_obj_lookup(d, n);
		struct dvshare_prm_virtq w;
		memset(&w, 0, sizeof(w));
		w.state = DVSHARE_PRM_VIRTQ_STATE_RDY;
		rdy = o != NULL ? app_virtq_modify(o, DVSHARE_PRM_VIRTQ_MODIFY_STATE, &w, &status, &synd)
				: -rte_errno;
		if (o != NULL)
			dvshare_obj_release(o);
		app_virtq_destroy(d, n, 2000);
	}
	snprintf(n, sizeof(n), "%s.key", name);
	dvshare_destroy(d, n, 2000);
	snprintf(n, sizeof(n), "%s.umem", name);
	dvshare_destroy(d, n, 2000);
	rte_free(m);
	if (rc != 0)
		return reply("err %d badrings: %s", -rc, strerror(-rc));
	reply("ok %d 0x%02x", rdy, status);
}

static void start_thread(struct raw_port *p, const char *what, void *(*fn)(void *))
{
	if (p->running)
		return reply("err %d the port's thread runs already", EBUSY);
	snprintf(p->what, sizeof(p->what), "%s", what);
	p->running = 1;
	if (pthread_create(&p->thread, NULL, fn, p) != 0) {
		p->running = 0;
		return reply("err %d thread", EAGAIN);
	}
	reply("ok");
}

static void stop_thread(struct raw_port *p)
{
	if (!p->running)
		return;
	p->running = 0;
	pthread_join(p->thread, NULL);
}

int mp_rawport_run(const char *line)
{
	char a[256], b[256] = "", c[256] = "";
	unsigned int x = 0, y = 0, z = 0, w = 0;
	unsigned long long addr = 0;
	struct raw_port *p;

	if (strncmp(line, "rawport ", 8) != 0)
		return 0;
	line += 8;
	if (sscanf(line, "create %255s %255s %u %u %255s", a, b, &x, &y, c) >= 4) {
		cmd_create(a, b, x, y, strcmp(c, "klm") == 0);
	} else if (sscanf(line, "badrings %255s %255s %u", a, b, &x) == 3) {
		cmd_badrings(a, b, x);
	} else if (sscanf(line, "%255s %255s", c, a) != 2 || (p = port_of(a)) == NULL) {
		if (c[0] == '\0')
			reply("err %d rawport what?", EINVAL);
	} else if (strcmp(c, "info") == 0) {
		reply("ok mem=%llu len=%zu rxring=%llu txring=%llu", (unsigned long long)(uintptr_t)p->mem,
		      p->len, (unsigned long long)(uintptr_t)p->ring[0].desc,
		      (unsigned long long)(uintptr_t)p->ring[1].desc);
	} else if (sscanf(line, "xfer %*s %u %u %u %u", &x, &y, &z, &w) == 4) {
		stop_thread(p);
		cmd_xfer(p, x, y, z, w);
	} else if (sscanf(line, "fwd %*s %u", &x) == 1) {
		if (x == 0 || x > RAW_BUF - RAW_HDR)
			return reply("err %d bad length", EINVAL), 1;
		p->len_fwd = x;
		p->seed = (uint32_t)rnd();
		p->moved = p->bad = 0;
		start_thread(p, "fwd", fwd_thread);
	} else if (sscanf(line, "rate %*s %u", &x) == 1) {
		cmd_rate(p, x);
	} else if (sscanf(line, "attack %*s %255s %llu", b, &addr) >= 1) {
		stop_thread(p);
		if (attack(p, b, addr) != 0)
			reply("err %d unknown attack %s", EINVAL, b);
		else
			reply("ok");
	} else if (sscanf(line, "flood %*s %255s", b) == 1) {
		if (strcmp(b, "giant") != 0 && strcmp(b, "longchain") != 0 &&
		    strcmp(b, "stream") != 0 && strcmp(b, "kickstorm") != 0)
			return reply("err %d unknown flood %s", EINVAL, b), 1;
		start_thread(p, b, flood_thread);
	} else if (strcmp(c, "spin") == 0) {
		start_thread(p, "spin", spin_thread);
	} else if (strcmp(c, "stop") == 0) {
		stop_thread(p);
		reply("ok");
	} else if (strcmp(c, "state") == 0) {
		cmd_state(p);
	} else if (strcmp(c, "canary") == 0) {
		cmd_canary(p);
	} else if (sscanf(line, "ctllat %*s %u", &x) == 1) {
		cmd_ctllat(p, x);
	} else if (strcmp(c, "destroykey") == 0) {
		cmd_destroykey(p);
	} else if (strcmp(c, "destroy") == 0) {
		stop_thread(p);
		unmake(p);
		reply("ok");
	} else {
		reply("err %d unknown rawport command: %s", EINVAL, line);
	}
	return 1;
}

void mp_rawport_cleanup(void)
{
	for (int i = 0; i < RAW_PORTS; i++)
		stop_thread(&ports[i]);
}
