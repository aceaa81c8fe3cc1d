/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim: the device's data path (drivers/sim/sim_datapath.cpp). A
 * kick names a queue index; the engine walks that TX queue's split ring
 * through its key and moves each packet into a buffer of the RX queue it
 * is steered to, writing both used rings, the hardware indexes QUERY
 * reports and the counters. Then the rings a driver gets wrong, or lies
 * in: each moves its queue to ERR with its error_type and counter, never
 * reaches memory outside the key, and the other queues keep flowing.
 */
#define SIM_TEST_PAIR
#include "sim_port.h"

#include <pthread.h>

#include <infiniband/verbs.h>

static struct mlx5dv_var *var;
static volatile uint32_t *page;
static struct dvs_sim_engine *eng;

static void start(void)
{
	setup();
	var = G->alloc_var(ctx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(var);
	page = sim_map_var(ctx, var);
	CU_ASSERT_FATAL(page != MAP_FAILED);
	eng = dvs_sim_engine_create(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(eng);
}

static void stop(void)
{
	dvs_sim_engine_destroy(eng);
	munmap((void *)page, var->length);
	G->free_var(var);
	teardown();
}

/* Run the engine until @p's RX ring has @n used entries (or give up). */
static void run_until_rx(struct sim_port *p, uint16_t n)
{
	for (int i = 0; i < 100000 && app_vring_used_ready(&p->ring[0]) < n; i++)
		dvs_sim_engine_poll(eng);
}

static void run(unsigned int passes)
{
	for (unsigned int i = 0; i < passes; i++)
		dvs_sim_engine_poll(eng);
}

/* Take one received packet: 0 when it is @len bytes made with @seed. */
static int take_rx(struct sim_port *p, uint32_t seed, uint32_t len)
{
	void *b;
	uint32_t got;

	if (app_vring_reap(&p->ring[0], &b, &got, 1) != 1)
		return -1;
	if (got != SIM_NET_HDR + len)
		return -2;
	return sim_packet_ok(b, seed, len) ? 0 : -3;
}

static unsigned int reap_tx(struct sim_port *p)
{
	void *b[64];
	unsigned int n = 0;
	int r;

	while ((r = app_vring_reap(&p->ring[1], b, NULL, 64)) > 0)
		n += (unsigned int)r;
	return n;
}

static struct sim_port port, other;

static int use_klm; /* open_port() reaches the region through a KLM key */

static void open_port(struct sim_port *p, uint16_t k, uint16_t size, const struct sim_q *share)
{
	CU_ASSERT_EQUAL_FATAL(sim_port_open(p, ctx, k, size, share, sim_db(page)), 0);
	if (use_klm)
		CU_ASSERT_EQUAL_FATAL(sim_port_use_klm(p), 0);
	CU_ASSERT_EQUAL_FATAL(sim_port_ready(p), 0);
}

/* One packet: bytes, lengths, used rings, QUERY's indexes, both queues'
 * counters, and the flow counter the steering names. */
static void test_one_packet(void)
{
	struct mlx5dv_devx_obj *fc;
	uint32_t fc_id = 0;
	uint8_t in[32], out[32];

	start();
	open_port(&port, 0, 64, NULL);
	fc = sim_counter(ctx, 0, &fc_id);
	CU_ASSERT_PTR_NOT_NULL_FATAL(fc);
	CU_ASSERT_EQUAL(dvs_sim_steer(ctx, 1, UINT16_MAX, fc_id), 0);
	CU_ASSERT_EQUAL(sim_port_post_rx(&port, 4), 0);
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 7, 60), 0);
	app_vring_publish(&port.ring[1]);
	CU_ASSERT_EQUAL(sim_port_kick(&port, 1), 1); /* nobody polls yet: a kick is due */
	run_until_rx(&port, 1);
	CU_ASSERT_EQUAL(take_rx(&port, 7, 60), 0);
	CU_ASSERT_EQUAL(reap_tx(&port), 1u);
	struct dvshare_prm_virtq t = sim_q_query(&port.q[1]), r = sim_q_query(&port.q[0]);
	CU_ASSERT_EQUAL(t.state, DVSHARE_PRM_VIRTQ_STATE_RDY);
	CU_ASSERT_EQUAL(t.hw_available_index, 1);
	CU_ASSERT_EQUAL(t.hw_used_index, 1);
	CU_ASSERT_EQUAL(r.hw_available_index, 1);
	CU_ASSERT_EQUAL(r.hw_used_index, 1);
	struct dvshare_prm_virtq_counters tc = sim_q_counters(&port.q[1]), rc = sim_q_counters(&port.q[0]);
	CU_ASSERT_EQUAL(tc.received_desc, 1u);
	CU_ASSERT_EQUAL(tc.completed_desc, 1u);
	CU_ASSERT_EQUAL(rc.received_desc, 1u);
	CU_ASSERT_EQUAL(rc.completed_desc, 1u);
	CU_ASSERT_EQUAL(tc.bad_desc_errors + tc.exceed_max_chain + tc.invalid_buffer, 0u);
	dvshare_prm_query_flow_counter(in, fc_id, 0);
	CU_ASSERT_EQUAL(G->devx_obj_query(fc, in, sizeof(in), out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(dvshare_prm_flow_counter_packets(out), 1u);
	CU_ASSERT_EQUAL(dvshare_prm_flow_counter_octets(out), 60u);
	/* The device polls the TX ring now: no kick is asked for. */
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 9, 100), 0);
	app_vring_publish(&port.ring[1]);
	CU_ASSERT_EQUAL(sim_port_kick(&port, 1), 0);
	run_until_rx(&port, 1);
	CU_ASSERT_EQUAL(take_rx(&port, 9, 100), 0);
	/* Idle long enough, it asks for kicks again. */
	run(5000);
	CU_ASSERT_FALSE(dvs_sim_engine_active(eng));
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 11, 1), 0);
	app_vring_publish(&port.ring[1]);
	CU_ASSERT_EQUAL(sim_port_kick(&port, 1), 1);
	run_until_rx(&port, 1);
	CU_ASSERT_EQUAL(take_rx(&port, 11, 1), 0);
	/* A destroyed counter leaves the steering. */
	CU_ASSERT_EQUAL(G->devx_obj_destroy(fc), 0);
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 12, 1), 0);
	app_vring_publish(&port.ring[1]);
	sim_port_kick(&port, 1);
	run_until_rx(&port, 1);
	CU_ASSERT_EQUAL(take_rx(&port, 12, 1), 0);
	CU_ASSERT_EQUAL(dvs_sim_steer(ctx, 1, UINT16_MAX, 0), 0);
	struct dvs_sim_engine_stats st;
	dvs_sim_engine_stats(eng, &st);
	CU_ASSERT_EQUAL(st.packets, 4u);
	CU_ASSERT_EQUAL(st.octets, 162u);
	CU_ASSERT_EQUAL(st.errors, 0u);
	sim_port_close(&port);
	stop();
}

/* More packets than the 16-bit indexes count: every byte checked, the
 * indexes wrap (QUERY says the low 16 bits). */
static void test_wrap(void)
{
	const uint32_t total = 70000;
	uint32_t sent = 0, got = 0, bad = 0;

	start();
	open_port(&port, 0, 8, NULL);
	while (got < total) {
		CU_ASSERT_EQUAL_FATAL(sim_port_post_rx(&port, 8 - app_vring_in_flight(&port.ring[0])), 0);
		while (sent < total && app_vring_in_flight(&port.ring[1]) < 8) {
			CU_ASSERT_EQUAL_FATAL(sim_port_post_tx(&port, sent, 1 + sent % 64), 0);
			sent++;
		}
		app_vring_publish(&port.ring[1]);
		sim_port_kick(&port, 1);
		run_until_rx(&port, (uint16_t)app_vring_in_flight(&port.ring[1]));
		while (app_vring_used_ready(&port.ring[0]) > 0) {
			if (take_rx(&port, got, 1 + got % 64) != 0)
				bad++;
			got++;
		}
		reap_tx(&port);
	}
	CU_ASSERT_EQUAL(bad, 0u);
	struct dvshare_prm_virtq t = sim_q_query(&port.q[1]);
	CU_ASSERT_EQUAL(t.hw_available_index, (uint16_t)total);
	CU_ASSERT_EQUAL(t.hw_used_index, (uint16_t)total);
	CU_ASSERT_EQUAL(sim_q_counters(&port.q[1]).completed_desc, total);
	sim_port_close(&port);
	stop();
}

/* Write descriptor @d of ring @r by hand. */
static void put_desc(struct app_vring *r, uint16_t d, const void *addr, uint32_t len, uint16_t flags,
		     uint16_t next)
{
	r->desc[d].addr = (uintptr_t)addr;
	r->desc[d].len = len;
	r->desc[d].flags = flags;
	r->desc[d].next = next;
}

/* Make chain @head the next avail entry and publish it. */
static void post_head(struct app_vring *r, uint16_t head)
{
	r->avail->ring[r->avail_idx & r->mask] = head;
	r->avail_idx++;
	app_vring_publish(r);
}

/* Chains: a TX packet in three descriptors (header alone, data in two)
 * into an RX chain of two (header buffer, data buffer), through an
 * indirect key whose two pieces are not contiguous in memory, one TX
 * buffer straddling them. */
static void test_chains(void)
{
	uint8_t *m, out[DVSHARE_PRM_HDR_SIZE];
	uint32_t kind = 0;
	struct mlx5dv_devx_obj *ind;
	struct dvshare_prm_virtq w;
	const uint64_t base = 0x40000000ull; /* the indirect key's addresses */

	start();
	CU_ASSERT_EQUAL_FATAL(sim_port_open(&port, ctx, 0, 16, NULL, sim_db(page)), 0);
	/* Key space [base, base + len): the port's second half first, then
	 * its first half. */
	size_t half = port.len / 2;
	struct dvshare_prm_klm klm[2] = {
		{ (uint32_t)half, port.mkey, (uintptr_t)port.mem + half },
		{ (uint32_t)half, port.mkey, (uintptr_t)port.mem },
	};
	ind = sim_mkey_klm(ctx, port.q[0].pd_id, base, klm, 2, &kind, out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ind);
#define KA(p) (base + (((uintptr_t)(p) - (uintptr_t)port.mem + half) % port.len))
	for (int i = 0; i < 2; i++) {
		memset(&w, 0, sizeof(w));
		w.mkey = kind;
		w.desc_addr = KA(port.ring[i].desc);
		w.available_addr = KA(port.ring[i].avail);
		w.used_addr = KA(port.ring[i].used);
		uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];
		CU_ASSERT_EQUAL(G->devx_obj_modify(port.q[i].q, in,
						   dvshare_prm_virtq_modify(in, port.q[i].id,
									    DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY |
										    DVSHARE_PRM_VIRTQ_MODIFY_ADDR,
									    &w),
						   out, sizeof(out)), 0);
	}
	/* The rings lie in the port's first half (the key's second piece).
	 * d1, 40 bytes from key address base + half - 20, straddles the two
	 * pieces: its first 20 bytes are the memory's last 20, its next 20
	 * the memory's first (RX descriptors 0 and 1, unused here). */
	CU_ASSERT_EQUAL_FATAL(sim_port_ready(&port), 0);
	uint8_t *hdr = port.buf, *d2 = port.buf + 4096;
	uint8_t *rh = port.buf + 8192, *rd = port.buf + 12288;
	memset(hdr, 0, SIM_NET_HDR);
	m = port.mem + port.len - 20;
	for (int i = 0; i < 100; i++) {
		uint8_t v = (uint8_t)(3 + i);
		if (i < 20)
			m[i] = v;
		else if (i < 40)
			port.mem[i - 20] = v;
		else
			d2[i - 40] = v;
	}
	put_desc(&port.ring[1], 0, (void *)KA(hdr), SIM_NET_HDR, VRING_DESC_F_NEXT, 5);
	put_desc(&port.ring[1], 5, (void *)(uintptr_t)(base + half - 20), 40, VRING_DESC_F_NEXT, 9);
	put_desc(&port.ring[1], 9, (void *)KA(d2), 60, 0, 0);
	put_desc(&port.ring[0], 3, (void *)KA(rh), SIM_NET_HDR, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 4);
	put_desc(&port.ring[0], 4, (void *)KA(rd), 200, VRING_DESC_F_WRITE, 0);
	post_head(&port.ring[0], 3);
	post_head(&port.ring[1], 0);
	*port.db = 1;
	for (int i = 0; i < 100 && port.ring[0].used->idx == 0; i++)
		run(1);
	CU_ASSERT_EQUAL_FATAL(port.ring[0].used->idx, 1);
	CU_ASSERT_EQUAL(port.ring[0].used->ring[0].id, 3u);
	CU_ASSERT_EQUAL(port.ring[0].used->ring[0].len, SIM_NET_HDR + 100u);
	CU_ASSERT_EQUAL(port.ring[1].used->ring[0].id, 0u);
	static const uint8_t h1[SIM_NET_HDR] = { [10] = 1 };
	CU_ASSERT_EQUAL(memcmp(rh, h1, SIM_NET_HDR), 0);
	int same = 1;
	for (int i = 0; i < 100; i++)
		same &= rd[i] == (uint8_t)(3 + i);
	CU_ASSERT_TRUE(same);
	CU_ASSERT_EQUAL(sim_q_counters(&port.q[1]).received_desc, 3u);
	CU_ASSERT_EQUAL(sim_q_counters(&port.q[0]).completed_desc, 2u);
	/* The indirect key is held by both queues and holds the direct one. */
	CU_ASSERT_EQUAL(G->devx_obj_destroy(ind), EBUSY);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(port.key), EBUSY);
	for (int i = 1; i >= 0; i--) {
		CU_ASSERT_EQUAL(G->devx_obj_destroy(port.q[i].q), 0);
		port.q[i].q = NULL;
	}
	CU_ASSERT_EQUAL(G->devx_obj_destroy(ind), 0);
	sim_port_close(&port);
	stop();
#undef KA
}

/* An RX ring with no buffer: the packets are taken from TX and dropped
 * (counted on the RX index); posted buffers are filled again. */
static void test_rx_full(void)
{
	struct dvs_sim_vq_counts vc;

	start();
	open_port(&port, 0, 16, NULL);
	for (int i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(sim_port_post_tx(&port, (uint32_t)i, 64), 0);
	app_vring_publish(&port.ring[1]);
	sim_port_kick(&port, 1);
	for (int i = 0; i < 100 && reap_tx(&port) == 0; i++)
		run(1);
	CU_ASSERT_EQUAL(sim_q_query(&port.q[1]).hw_used_index, 5);
	CU_ASSERT_EQUAL(dvs_sim_vq_stats(ctx, 0, &vc), 0);
	CU_ASSERT_EQUAL(vc.rx_dropped, 5u);
	CU_ASSERT_EQUAL(dvs_sim_vq_stats(ctx, 1, &vc), 0);
	CU_ASSERT_EQUAL(vc.kicks, 1u);
	CU_ASSERT_EQUAL(vc.tx_oversize, 0u);
	CU_ASSERT_EQUAL(app_vring_used_ready(&port.ring[0]), 0);
	CU_ASSERT_EQUAL(sim_port_post_rx(&port, 2), 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(sim_port_post_tx(&port, 50u + (uint32_t)i, 64), 0);
	app_vring_publish(&port.ring[1]);
	sim_port_kick(&port, 1);
	run_until_rx(&port, 2);
	run(10);
	CU_ASSERT_EQUAL(take_rx(&port, 50, 64), 0);
	CU_ASSERT_EQUAL(take_rx(&port, 51, 64), 0);
	CU_ASSERT_EQUAL(dvs_sim_vq_stats(ctx, 0, &vc), 0);
	CU_ASSERT_EQUAL(vc.rx_dropped, 6u);
	/* A buffer too small for the packet: dropped, the buffer kept. */
	CU_ASSERT_EQUAL(app_vring_add(&port.ring[0], (uintptr_t)port.buf, 40, 1, port.buf), 0);
	app_vring_publish(&port.ring[0]);
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 1, 64), 0);
	app_vring_publish(&port.ring[1]);
	sim_port_kick(&port, 1);
	run(50);
	CU_ASSERT_EQUAL(app_vring_used_ready(&port.ring[0]), 0);
	CU_ASSERT_EQUAL(dvs_sim_vq_stats(ctx, 0, &vc), 0);
	CU_ASSERT_EQUAL(vc.rx_dropped, 7u);
	sim_port_close(&port);
	stop();
}

/* SUSPEND waits for the pass and freezes the indexes: what is posted
 * after it is not taken. */
static void test_suspend(void)
{
	uint8_t out[DVSHARE_PRM_HDR_SIZE];

	start();
	open_port(&port, 0, 16, NULL);
	CU_ASSERT_EQUAL(sim_port_post_rx(&port, 16), 0);
	for (int i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(sim_port_post_tx(&port, (uint32_t)i, 30), 0);
	app_vring_publish(&port.ring[1]);
	sim_port_kick(&port, 1);
	run_until_rx(&port, 4);
	CU_ASSERT_EQUAL(sim_q_set_state(&port.q[1], DVSHARE_PRM_VIRTQ_STATE_SUSPEND, out), 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(sim_port_post_tx(&port, (uint32_t)i, 30), 0);
	app_vring_publish(&port.ring[1]);
	*port.db = 1;
	run(100);
	struct dvshare_prm_virtq t = sim_q_query(&port.q[1]);
	CU_ASSERT_EQUAL(t.state, DVSHARE_PRM_VIRTQ_STATE_SUSPEND);
	CU_ASSERT_EQUAL(t.hw_available_index, 4);
	CU_ASSERT_EQUAL(t.hw_used_index, 4);
	CU_ASSERT_EQUAL(port.ring[1].used->idx, 4);
	CU_ASSERT_EQUAL(app_vring_used_ready(&port.ring[0]), 4);
	sim_port_close(&port);
	stop();
}

/* After a hostile ring on @port: its queue @q is in ERR with @type and
 * @counter 1; the other port still moves a packet. */
static void expect_err(struct sim_q *q, uint8_t type, const char *counter)
{
	struct dvshare_prm_virtq v = sim_q_query(q);
	struct dvshare_prm_virtq_counters c = sim_q_counters(q);
	uint32_t n = strcmp(counter, "bad_desc") == 0	     ? c.bad_desc_errors
		     : strcmp(counter, "exceed_max_chain") == 0 ? c.exceed_max_chain
								 : c.invalid_buffer;

	CU_ASSERT_EQUAL(v.state, DVSHARE_PRM_VIRTQ_STATE_ERR);
	CU_ASSERT_EQUAL(v.error_type, type);
	CU_ASSERT_EQUAL(n, 1u);
	CU_ASSERT_EQUAL(c.bad_desc_errors + c.exceed_max_chain + c.invalid_buffer, 1u);
	static uint32_t seed;
	seed++;
	CU_ASSERT_EQUAL(sim_port_post_rx(&other, 1), 0);
	CU_ASSERT_EQUAL(sim_port_post_tx(&other, seed, 33), 0);
	app_vring_publish(&other.ring[1]);
	sim_port_kick(&other, 1);
	run_until_rx(&other, 1);
	CU_ASSERT_EQUAL(take_rx(&other, seed, 33), 0);
	reap_tx(&other);
}

enum hostile { OUTSIDE, HEAD_PAST, LOOP, JUMP, RX_NO_WRITE, INDIRECT, TX_WRITE, SHORT, RX_OUTSIDE };

/* One hostile ring on a fresh port 0, beside a good port 1, through
 * direct keys or (@klm) KLM keys. */
static void hostile_on(enum hostile how, int klm)
{
	use_klm = klm;
	start();
	open_port(&other, 1, 16, NULL);
	open_port(&port, 0, 16, NULL);
	struct app_vring *tx = &port.ring[1], *rx = &port.ring[0];
	uint8_t *b = port.buf;
	memset(b, 0, 64);
	CU_ASSERT_EQUAL(sim_port_post_rx(&port, 1), 0);
	switch (how) {
	case OUTSIDE: /* past the key: the port's memory ends there */
		put_desc(tx, 0, port.mem + port.len - 8, 64, 0, 0);
		post_head(tx, 0);
		break;
	case HEAD_PAST:
		post_head(tx, 16);
		break;
	case LOOP:
		put_desc(tx, 0, b, 64, VRING_DESC_F_NEXT, 1);
		put_desc(tx, 1, b, 64, VRING_DESC_F_NEXT, 0);
		post_head(tx, 0);
		break;
	case JUMP:
		put_desc(tx, 0, b, 64, 0, 0);
		tx->avail_idx += 17; /* claims 17 entries in a ring of 16 */
		app_vring_publish(tx);
		break;
	case INDIRECT:
		put_desc(tx, 0, b, 64, VRING_DESC_F_INDIRECT, 0);
		post_head(tx, 0);
		break;
	case TX_WRITE:
		put_desc(tx, 0, b, 64, VRING_DESC_F_WRITE, 0);
		post_head(tx, 0);
		break;
	case SHORT:
		put_desc(tx, 0, b, SIM_NET_HDR - 1, 0, 0);
		post_head(tx, 0);
		break;
	case RX_NO_WRITE:
	case RX_OUTSIDE:
		/* The RX ring's next buffer: no WRITE, or outside the key. */
		put_desc(rx, 1, how == RX_NO_WRITE ? b : (uint8_t *)1, 2048,
			 how == RX_NO_WRITE ? 0 : VRING_DESC_F_WRITE, 0);
		post_head(rx, 1);
		CU_ASSERT_EQUAL(sim_port_post_tx(&port, 1, 64), 0);
		CU_ASSERT_EQUAL(sim_port_post_tx(&port, 2, 64), 0);
		app_vring_publish(tx);
		break;
	}
	*port.db = 1;
	run(20);
	switch (how) {
	case OUTSIDE:
		expect_err(&port.q[1], DVS_SIM_VQ_ERR_INVALID_BUFFER, "invalid_buffer");
		break;
	case LOOP:
		expect_err(&port.q[1], DVS_SIM_VQ_ERR_EXCEED_MAX_CHAIN, "exceed_max_chain");
		break;
	case RX_NO_WRITE:
		expect_err(&port.q[0], DVS_SIM_VQ_ERR_BAD_DESC, "bad_desc");
		/* The first packet went into the good buffer before it. */
		CU_ASSERT_EQUAL(take_rx(&port, 1, 64), 0);
		CU_ASSERT_EQUAL(sim_q_query(&port.q[1]).state, DVSHARE_PRM_VIRTQ_STATE_RDY);
		break;
	case RX_OUTSIDE:
		expect_err(&port.q[0], DVS_SIM_VQ_ERR_INVALID_BUFFER, "invalid_buffer");
		CU_ASSERT_EQUAL(take_rx(&port, 1, 64), 0);
		break;
	default:
		expect_err(&port.q[1], DVS_SIM_VQ_ERR_BAD_DESC, "bad_desc");
		break;
	}
	/* Nothing more comes from an ERR queue, kicked or not. */
	uint16_t used = tx->used->idx;
	*port.db = 1;
	run(20);
	CU_ASSERT_EQUAL(tx->used->idx, used);
	struct dvs_sim_engine_stats st;
	dvs_sim_engine_stats(eng, &st);
	CU_ASSERT_EQUAL(st.errors, 1u);
	CU_ASSERT_TRUE(sim_port_canaries_ok(&port));
	CU_ASSERT_TRUE(sim_port_canaries_ok(&other));
	sim_port_close(&port);
	sim_port_close(&other);
	stop();
	use_klm = 0;
}

/* Each attack through a direct key, then through a KLM key. */
static void hostile(enum hostile how)
{
	hostile_on(how, 0);
	hostile_on(how, 1);
}

static void test_hostile_buffer_outside_key(void) { hostile(OUTSIDE); }
static void test_hostile_head_past_ring(void) { hostile(HEAD_PAST); }
static void test_hostile_descriptor_loop(void) { hostile(LOOP); }
static void test_hostile_avail_jump(void) { hostile(JUMP); }
static void test_hostile_rx_without_write(void) { hostile(RX_NO_WRITE); }
static void test_hostile_rx_outside_key(void) { hostile(RX_OUTSIDE); }
static void test_hostile_indirect(void) { hostile(INDIRECT); }
static void test_hostile_tx_write(void) { hostile(TX_WRITE); }
static void test_hostile_short_header(void) { hostile(SHORT); }

/* A driver rewriting a descriptor while the engine reads it: each read is
 * one reading or the other (never a mix), so a packet is either moved
 * whole or the queue is in ERR for its bad address; the engine goes on. */
struct flipper {
	struct vring_desc *d;
	uint64_t good, bad;
	volatile int stop;
};

static void *flip(void *arg)
{
	struct flipper *f = arg;

	for (uint64_t i = 0; !f->stop; i++)
		__atomic_store_n(&f->d->addr, i % 2 ? f->bad : f->good, __ATOMIC_RELAXED);
	return NULL;
}

static void test_hostile_rewrite_during_pass(void)
{
	struct flipper f;
	pthread_t t;
	unsigned int moved = 0;

	start();
	open_port(&other, 1, 16, NULL);
	open_port(&port, 0, 16, NULL);
	struct app_vring *tx = &port.ring[1];
	uint8_t *b = port.buf + 4096;
	memset(b, 0, SIM_NET_HDR);
	for (int i = 0; i < 64; i++)
		b[SIM_NET_HDR + i] = (uint8_t)(9 + i);
	f.d = &tx->desc[0];
	f.good = (uintptr_t)b;
	f.bad = 0x10; /* outside the key */
	f.stop = 0;
	put_desc(tx, 0, b, SIM_NET_HDR + 64, 0, 0);
	CU_ASSERT_EQUAL_FATAL(pthread_create(&t, NULL, flip, &f), 0);
	for (int round = 0; round < 2000; round++) {
		if (sim_q_query(&port.q[1]).state != DVSHARE_PRM_VIRTQ_STATE_RDY)
			break;
		if (app_vring_in_flight(&port.ring[0]) == 0)
			sim_port_post_rx(&port, 1);
		post_head(tx, 0);
		*port.db = 1;
		run(3);
		while (app_vring_used_ready(&port.ring[0]) > 0)
			moved += take_rx(&port, 9, 64) == 0;
		/* Take TX back by hand: the descriptor is reposted each round. */
		tx->used_idx = tx->used->idx;
	}
	f.stop = 1;
	pthread_join(t, NULL);
	struct dvshare_prm_virtq v = sim_q_query(&port.q[1]);
	CU_ASSERT(v.state == DVSHARE_PRM_VIRTQ_STATE_RDY ||
		  (v.state == DVSHARE_PRM_VIRTQ_STATE_ERR &&
		   v.error_type == DVS_SIM_VQ_ERR_INVALID_BUFFER));
	fprintf(stderr, "rewrite: %u packet(s) moved whole, queue %s\n", moved,
		dvshare_prm_virtq_state_str(v.state));
	if (v.state == DVSHARE_PRM_VIRTQ_STATE_ERR)
		expect_err(&port.q[1], DVS_SIM_VQ_ERR_INVALID_BUFFER, "invalid_buffer");
	sim_port_close(&port);
	sim_port_close(&other);
	stop();
}

/* Memory that goes away under a UMEM (dvs_sim_umem_fence(), which
 * dvshare calls when DPDK frees pages): the queue goes to ERR instead of
 * the engine touching unmapped memory. */
static void test_fenced_memory(void)
{
	start();
	open_port(&other, 1, 16, NULL);
	open_port(&port, 0, 16, NULL);
	CU_ASSERT_EQUAL(sim_port_post_rx(&port, 1), 0);
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 1, 20), 0);
	app_vring_publish(&port.ring[1]);
	sim_port_kick(&port, 1);
	run_until_rx(&port, 1);
	CU_ASSERT_EQUAL(take_rx(&port, 1, 20), 0);
	CU_ASSERT_EQUAL(dvs_sim_umem_fence(ctx, port.mem + 4096, 4096), 1);
	CU_ASSERT_EQUAL(dvs_sim_umem_fence(ctx, port.mem, 4096), 0); /* once */
	/* Gone for real: a touch would fault. */
	void *keep = port.mem;
	CU_ASSERT_EQUAL(munmap(port.mem, port.len), 0);
	*port.db = 1;
	run(20);
	CU_ASSERT_EQUAL(sim_q_query(&port.q[1]).state, DVSHARE_PRM_VIRTQ_STATE_ERR);
	CU_ASSERT_EQUAL(sim_q_query(&port.q[1]).error_type, DVS_SIM_VQ_ERR_INVALID_BUFFER);
	CU_ASSERT_EQUAL(sim_q_counters(&port.q[1]).invalid_buffer, 1u);
	port.mem = MAP_FAILED; /* unmapped already */
	(void)keep;
	sim_port_close(&port);
	sim_port_close(&other);
	stop();
}

/* Doorbell values: an RX index is taken and dropped (its buffers are
 * read when packets come), one past the queues counts as stray; an
 * unbound index arms nothing that lasts. */
static void test_kick_values(void)
{
	start();
	open_port(&port, 0, 16, NULL);
	*sim_db(page) = 0;
	run(1);
	CU_ASSERT_FALSE(dvs_sim_engine_active(eng));
	CU_ASSERT_EQUAL(port.ring[0].used->flags, VRING_USED_F_NO_NOTIFY);
	*sim_db(page) = 77;
	run(1);
	CU_ASSERT_FALSE(dvs_sim_engine_active(eng));
	*sim_db(page) = 100000;
	run(1);
	struct dvs_sim_vq_counts vc;
	CU_ASSERT_EQUAL(dvs_sim_vq_stats(ctx, 77, &vc), 0);
	CU_ASSERT_EQUAL(vc.kicks, 1u);
	CU_ASSERT_EQUAL(dvs_sim_vq_stats(ctx, 256, &vc), -EINVAL);
	CU_ASSERT_EQUAL(dvs_sim_vq_stats(ctx, 1, NULL), -EINVAL);
	CU_ASSERT_EQUAL(dvs_sim_steer(ctx, 2, UINT16_MAX, 0), -EINVAL); /* not a TX index */
	CU_ASSERT_EQUAL(dvs_sim_steer(ctx, 1, 3, 0), -EINVAL);          /* not an RX index */
	CU_ASSERT_EQUAL(dvs_sim_steer(ctx, 1, 0, 12345), -ENOENT);
	sim_port_close(&port);
	stop();
}

/* Steering TX 1 to RX 2 (another port's): the packets go there. */
static void test_steer(void)
{
	start();
	open_port(&port, 0, 16, NULL);
	open_port(&other, 1, 16, &port.q[0]);
	CU_ASSERT_EQUAL(dvs_sim_steer(ctx, 1, 2, 0), 0);
	CU_ASSERT_EQUAL(sim_port_post_rx(&other, 4), 0);
	CU_ASSERT_EQUAL(sim_port_post_rx(&port, 4), 0);
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 5, 77), 0);
	app_vring_publish(&port.ring[1]);
	sim_port_kick(&port, 1);
	run_until_rx(&other, 1);
	CU_ASSERT_EQUAL(take_rx(&other, 5, 77), 0);
	CU_ASSERT_EQUAL(app_vring_used_ready(&port.ring[0]), 0);
	CU_ASSERT_EQUAL(dvs_sim_steer(ctx, 1, UINT16_MAX, 0), 0);
	sim_port_close(&other);
	sim_port_close(&port);
	stop();
}


/* The RX avail index jumps more than a ring ahead while the TX queue
 * holds packets (the engine once dereferenced the RX queue it had just
 * put in ERR, and died): RX goes to ERR before anything of it is
 * written, the TX packets are taken and dropped, and the engine serves
 * the other port. Then the same through a driver that takes over a live
 * RX ring and posts it full from index 0, far behind the device's. */
static void rx_jump(int klm)
{
	struct dvs_sim_vq_counts vc;

	use_klm = klm;
	start();
	open_port(&other, 1, 16, NULL);
	open_port(&port, 0, 16, NULL);
	struct app_vring *rx = &port.ring[0];
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 1, 64), 0);
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 2, 64), 0);
	app_vring_publish(&port.ring[1]);
	rx->avail_idx = (uint16_t)(rx->avail_idx + 17); /* a ring of 16 */
	app_vring_publish(rx);
	sim_port_kick(&port, 1);
	run(20);
	struct dvshare_prm_virtq r = sim_q_query(&port.q[0]), t = sim_q_query(&port.q[1]);
	CU_ASSERT_EQUAL(r.state, DVSHARE_PRM_VIRTQ_STATE_ERR);
	CU_ASSERT_EQUAL(r.error_type, DVS_SIM_VQ_ERR_BAD_DESC);
	CU_ASSERT_EQUAL(r.hw_used_index, 0);
	CU_ASSERT_EQUAL(rx->used->idx, 0);
	CU_ASSERT_EQUAL(t.state, DVSHARE_PRM_VIRTQ_STATE_RDY);
	CU_ASSERT_EQUAL(t.hw_used_index, 2);
	CU_ASSERT_EQUAL(dvs_sim_vq_stats(ctx, 0, &vc), 0);
	CU_ASSERT_EQUAL(vc.rx_dropped, 2u);
	CU_ASSERT_EQUAL(sim_q_counters(&port.q[0]).bad_desc_errors, 1u);
	CU_ASSERT_EQUAL(sim_q_counters(&port.q[0]).completed_desc, 0u);
	expect_err(&port.q[0], DVS_SIM_VQ_ERR_BAD_DESC, "bad_desc");
	sim_port_close(&port);

	/* Taken over: 40 packets moved, then the ring laid out afresh by a
	 * new driver (its avail index back at 0) and posted full. */
	open_port(&port, 0, 16, NULL);
	for (uint32_t i = 0; i < 40; i++) {
		CU_ASSERT_EQUAL(sim_port_post_rx(&port, 1), 0);
		CU_ASSERT_EQUAL(sim_port_post_tx(&port, i, 32), 0);
		app_vring_publish(&port.ring[1]);
		sim_port_kick(&port, 1);
		run_until_rx(&port, 1);
		CU_ASSERT_EQUAL(take_rx(&port, i, 32), 0);
		reap_tx(&port);
	}
	CU_ASSERT_EQUAL(sim_q_query(&port.q[0]).hw_available_index, 40);
	CU_ASSERT_EQUAL(app_vring_init(rx, rx->desc, 16, port.meta[0]), 0);
	port.rx_posted = 0;
	CU_ASSERT_EQUAL(sim_port_post_rx(&port, 16), 0); /* avail 16: 65512 past the device's 40 */
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 99, 32), 0);
	app_vring_publish(&port.ring[1]);
	sim_port_kick(&port, 1);
	run(20);
	r = sim_q_query(&port.q[0]);
	CU_ASSERT_EQUAL(r.state, DVSHARE_PRM_VIRTQ_STATE_ERR);
	CU_ASSERT_EQUAL(r.hw_used_index, 40);
	CU_ASSERT_EQUAL(rx->used->idx, 0); /* untouched since the new layout */
	CU_ASSERT_EQUAL(sim_q_query(&port.q[1]).state, DVSHARE_PRM_VIRTQ_STATE_RDY);
	CU_ASSERT_TRUE(sim_port_canaries_ok(&port));
	CU_ASSERT_TRUE(sim_port_canaries_ok(&other));
	sim_port_close(&port);
	sim_port_close(&other);
	stop();
	use_klm = 0;
}

static void test_hostile_rx_jump_with_tx_pending(void)
{
	rx_jump(0);
	rx_jump(1);
}

/* A bad TX entry in the middle of a burst: the packets before it are
 * delivered and published (used entries, the indexes QUERY reports, the
 * counters), the queue goes to ERR at the bad one, and nothing of it
 * moves after. */
static void tx_bad_mid_burst(int klm)
{
	use_klm = klm;
	start();
	open_port(&other, 1, 16, NULL);
	open_port(&port, 0, 16, NULL);
	struct app_vring *tx = &port.ring[1];
	CU_ASSERT_EQUAL(sim_port_post_rx(&port, 8), 0);
	for (uint32_t i = 0; i < 5; i++)
		CU_ASSERT_EQUAL(sim_port_post_tx(&port, 10 + i, 50), 0);
	/* The fourth: its one buffer runs past the key's end. */
	tx->desc[3].addr = (uintptr_t)(port.mem + port.len - 20);
	app_vring_publish(tx);
	sim_port_kick(&port, 1);
	run(3);
	struct dvshare_prm_virtq t = sim_q_query(&port.q[1]), r = sim_q_query(&port.q[0]);
	CU_ASSERT_EQUAL(t.state, DVSHARE_PRM_VIRTQ_STATE_ERR);
	CU_ASSERT_EQUAL(t.error_type, DVS_SIM_VQ_ERR_INVALID_BUFFER);
	CU_ASSERT_EQUAL(t.hw_used_index, 3);
	CU_ASSERT_EQUAL(t.hw_available_index, 3);
	CU_ASSERT_EQUAL(tx->used->idx, 3);
	CU_ASSERT_EQUAL(r.state, DVSHARE_PRM_VIRTQ_STATE_RDY);
	CU_ASSERT_EQUAL(r.hw_used_index, 3);
	CU_ASSERT_EQUAL(sim_q_counters(&port.q[1]).completed_desc, 3u);
	CU_ASSERT_EQUAL(sim_q_counters(&port.q[0]).completed_desc, 3u);
	for (uint32_t i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(take_rx(&port, 10 + i, 50), 0);
	*port.db = 1;
	run(20);
	CU_ASSERT_EQUAL(tx->used->idx, 3);
	CU_ASSERT_EQUAL(sim_q_query(&port.q[1]).hw_used_index, 3);
	CU_ASSERT_EQUAL(app_vring_used_ready(&port.ring[0]), 0);
	expect_err(&port.q[1], DVS_SIM_VQ_ERR_INVALID_BUFFER, "invalid_buffer");
	CU_ASSERT_TRUE(sim_port_canaries_ok(&port));
	sim_port_close(&port);
	sim_port_close(&other);
	stop();
	use_klm = 0;
}

static void test_hostile_tx_bad_mid_burst(void)
{
	tx_bad_mid_burst(0);
	tx_bad_mid_burst(1);
}

/* Post one TX chain of @n descriptors, each @len bytes at @addr (the
 * first one's first 12 bytes the header), made by hand. */
static void post_chain(struct app_vring *r, uint16_t first, uint16_t n, const void *addr, uint32_t len)
{
	for (uint16_t i = 0; i < n; i++)
		put_desc(r, (uint16_t)((first + i) & r->mask), addr, len,
			 i + 1 < n ? VRING_DESC_F_NEXT : 0, (uint16_t)((first + i + 1) & r->mask));
	post_head(r, first);
}

/* The port's largest frame is MTU + 18 bytes: one that long goes, one
 * byte more is taken and dropped (counted on the TX queue, the queue
 * still RDY), and so are giant chains of in-key buffers, without the
 * device copying or translating past the limit. A larger MTU lets the
 * longer frame through (into a chain of RX buffers). */
static void oversize(int klm)
{
	struct dvs_sim_vq_counts vc;
	const uint32_t max = DVS_SIM_DEFAULT_MTU + DVS_SIM_FRAME_OVERHEAD;

	use_klm = klm;
	start();
	open_port(&port, 0, 64, NULL);
	CU_ASSERT_EQUAL(dvs_sim_mtu(ctx), DVS_SIM_DEFAULT_MTU);
	CU_ASSERT_EQUAL(sim_port_post_rx(&port, 2), 0);
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 1, max), 0);
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 2, max + 1), 0);
	CU_ASSERT_EQUAL(sim_port_post_tx(&port, 3, 60), 0);
	app_vring_publish(&port.ring[1]);
	sim_port_kick(&port, 1);
	run_until_rx(&port, 2);
	CU_ASSERT_EQUAL(take_rx(&port, 1, max), 0);
	CU_ASSERT_EQUAL(take_rx(&port, 3, 60), 0);
	CU_ASSERT_EQUAL(reap_tx(&port), 3u);
	CU_ASSERT_EQUAL(dvs_sim_vq_stats(ctx, 1, &vc), 0);
	CU_ASSERT_EQUAL(vc.tx_oversize, 1u);
	CU_ASSERT_EQUAL(sim_q_query(&port.q[1]).state, DVSHARE_PRM_VIRTQ_STATE_RDY);

	/* Giant: chains of 16 descriptors, each over most of the key. The
	 * drop comes at the first buffer that passes the limit. */
	struct app_vring *tx = &port.ring[1];
	uint16_t base = (uint16_t)(tx->avail_idx & tx->mask);
	memset(port.buf, 0, SIM_NET_HDR);
	for (int i = 0; i < 3; i++)
		post_chain(tx, (uint16_t)(base + 16 * i), 16, port.mem, (uint32_t)port.len);
	sim_port_kick(&port, 1);
	run(5);
	CU_ASSERT_EQUAL(tx->used->idx, 6);
	CU_ASSERT_EQUAL(dvs_sim_vq_stats(ctx, 1, &vc), 0);
	CU_ASSERT_EQUAL(vc.tx_oversize, 4u);
	CU_ASSERT_EQUAL(sim_q_counters(&port.q[1]).received_desc, 3u + 3u);
	CU_ASSERT_EQUAL(app_vring_used_ready(&port.ring[0]), 0);
	CU_ASSERT_EQUAL(sim_q_query(&port.q[1]).state, DVSHARE_PRM_VIRTQ_STATE_RDY);
	struct dvs_sim_engine_stats st;
	dvs_sim_engine_stats(eng, &st);
	CU_ASSERT_EQUAL(st.oversize, 4u);
	CU_ASSERT_EQUAL(st.errors, 0u);
	tx->used_idx = tx->used->idx; /* the hand-made chains are taken back by hand */
	tx->num_free = tx->size;

	/* MTU 9000: a 9018-byte frame goes, into a chain of RX buffers. */
	CU_ASSERT_EQUAL(dvs_sim_set_mtu(ctx, DVS_SIM_MIN_MTU - 1), -EINVAL);
	CU_ASSERT_EQUAL(dvs_sim_set_mtu(ctx, DVS_SIM_MAX_MTU + 1), -EINVAL);
	CU_ASSERT_EQUAL(dvs_sim_set_mtu(ctx, 9000), 0);
	CU_ASSERT_EQUAL(dvs_sim_mtu(ctx), 9000u);
	const uint32_t big = 9000 + DVS_SIM_FRAME_OVERHEAD;
	uint8_t *tb = port.buf + 8 * SIM_BUF, *rb = port.buf + 16 * SIM_BUF;
	memset(tb, 0, SIM_NET_HDR);
	for (uint32_t i = 0; i < big; i++)
		tb[SIM_NET_HDR + i] = (uint8_t)(5 + i);
	struct app_vring *rx = &port.ring[0];
	uint16_t rh = (uint16_t)(rx->avail_idx & rx->mask);
	for (uint16_t i = 0; i < 5; i++) /* 5 x 2048 >= 12 + 9018 */
		put_desc(rx, (uint16_t)((rh + i) & rx->mask), rb + i * SIM_BUF, SIM_BUF,
			 VRING_DESC_F_WRITE | (i < 4 ? VRING_DESC_F_NEXT : 0),
			 (uint16_t)((rh + i + 1) & rx->mask));
	rx->avail->ring[rx->avail_idx & rx->mask] = rh;
	rx->avail_idx++;
	app_vring_publish(rx);
	uint16_t th = (uint16_t)(tx->avail_idx & tx->mask);
	put_desc(tx, th, tb, SIM_NET_HDR + big, 0, 0);
	post_head(tx, th);
	sim_port_kick(&port, 1);
	for (int i = 0; i < 100 && rx->used->idx == rx->used_idx; i++)
		run(1);
	CU_ASSERT_EQUAL_FATAL((uint16_t)(rx->used->idx - rx->used_idx), 1);
	CU_ASSERT_EQUAL(rx->used->ring[rx->used_idx & rx->mask].len, SIM_NET_HDR + big);
	CU_ASSERT_TRUE(sim_packet_ok(rb, 5, big));
	CU_ASSERT_EQUAL(dvs_sim_set_mtu(ctx, DVS_SIM_DEFAULT_MTU), 0);
	CU_ASSERT_TRUE(sim_port_canaries_ok(&port));
	sim_port_close(&port);
	stop();
	use_klm = 0;
}

static void test_hostile_oversize(void)
{
	oversize(0);
	oversize(1);
}

/* Deficit round robin: a queue of full-size frames gets no more of a
 * turn than its deficit (32 KiB of work), while a queue of small packets
 * beside it moves its whole burst in each turn. */
static void test_fair_turns(void)
{
	const uint32_t frame = DVS_SIM_DEFAULT_MTU + DVS_SIM_FRAME_OVERHEAD;

	start();
	open_port(&port, 0, 256, NULL);
	open_port(&other, 1, 256, NULL);
	CU_ASSERT_EQUAL(sim_port_post_rx(&port, 256), 0);
	CU_ASSERT_EQUAL(sim_port_post_rx(&other, 256), 0);
	for (uint32_t i = 0; i < 256; i++) {
		CU_ASSERT_EQUAL(sim_port_post_tx(&port, i, frame), 0);
		if (i < 100)
			CU_ASSERT_EQUAL(sim_port_post_tx(&other, i, 50), 0);
	}
	app_vring_publish(&port.ring[1]);
	app_vring_publish(&other.ring[1]);
	/* One doorbell page: a kick per pass, or they coalesce. */
	sim_port_kick(&port, 1);
	run(1);
	uint16_t big = port.ring[1].used->idx;
	sim_port_kick(&other, 1);
	run(1);
	uint16_t big2 = port.ring[1].used->idx, small = other.ring[1].used->idx;
	fprintf(stderr, "turns: %u then %u frames of %u bytes, beside %u of 50\n", big,
		(uint16_t)(big2 - big), frame, small);
	/* Each frame costs 64 + 12 + frame + 2 x 32: 20 fit a deficit. */
	CU_ASSERT(big >= 19 && big <= 21);
	CU_ASSERT_EQUAL((uint16_t)(big2 - big), big);
	CU_ASSERT_EQUAL(small, 100);
	/* The rest comes in later turns, every byte. */
	for (int i = 0; i < 1000 && app_vring_used_ready(&port.ring[0]) < 256; i++)
		run(1);
	int bad = 0;
	for (uint32_t i = 0; i < 256; i++)
		bad += take_rx(&port, i, frame) != 0;
	CU_ASSERT_EQUAL(bad, 0);
	sim_port_close(&other);
	sim_port_close(&port);
	stop();
}

/* TX and RX buffers of one key over the same bytes, or partly: the copy
 * is defined (memmove), the frame delivered is the one sent, and the
 * device stays inside the key. */
static void test_hostile_overlapping_buffers(void)
{
	start();
	open_port(&port, 0, 16, NULL);
	struct app_vring *tx = &port.ring[1], *rx = &port.ring[0];
	for (int shift = 0; shift < 3; shift++) {
		uint8_t *b = port.buf + 4 * SIM_BUF;
		uint8_t *rb = b + (shift == 0 ? 0 : shift == 1 ? 4 : 100);
		memset(b, 0, SIM_NET_HDR);
		for (uint32_t i = 0; i < 200; i++)
			b[SIM_NET_HDR + i] = (uint8_t)(40 + i);
		uint16_t d = (uint16_t)(shift * 2);
		put_desc(rx, d, rb, 1024, VRING_DESC_F_WRITE, 0);
		post_head(rx, d);
		put_desc(tx, d, b, SIM_NET_HDR + 200, 0, 0);
		post_head(tx, d);
		*port.db = 1;
		for (int i = 0; i < 100 && rx->used->idx == rx->used_idx; i++)
			run(1);
		CU_ASSERT_EQUAL_FATAL((uint16_t)(rx->used->idx - rx->used_idx), 1);
		CU_ASSERT_TRUE(sim_packet_ok(rb, 40, 200));
		rx->used_idx = rx->used->idx;
		tx->used_idx = tx->used->idx;
	}
	/* A chain of RX buffers over the TX chain's bytes, shifted. */
	uint8_t *b = port.buf + 8 * SIM_BUF;
	memset(b, 0, SIM_NET_HDR);
	for (uint32_t i = 0; i < 600; i++)
		b[SIM_NET_HDR + i] = (uint8_t)i;
	put_desc(tx, 8, b, 300, VRING_DESC_F_NEXT, 9);
	put_desc(tx, 9, b + 300, SIM_NET_HDR + 300, 0, 0);
	put_desc(rx, 8, b + 7, 100, VRING_DESC_F_WRITE | VRING_DESC_F_NEXT, 9);
	put_desc(rx, 9, b + 200, 1000, VRING_DESC_F_WRITE, 0);
	post_head(rx, 8);
	post_head(tx, 8);
	*port.db = 1;
	for (int i = 0; i < 100 && rx->used->idx == rx->used_idx; i++)
		run(1);
	CU_ASSERT_EQUAL((uint16_t)(rx->used->idx - rx->used_idx), 1);
	CU_ASSERT_EQUAL(sim_q_query(&port.q[1]).state, DVSHARE_PRM_VIRTQ_STATE_RDY);
	CU_ASSERT_TRUE(sim_port_canaries_ok(&port));
	sim_port_close(&port);
	stop();
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_one_packet),
	DVS_TEST(test_wrap),
	DVS_TEST(test_chains),
	DVS_TEST(test_rx_full),
	DVS_TEST(test_suspend),
	DVS_TEST(test_steer),
	DVS_TEST(test_kick_values),
	DVS_TEST(test_hostile_buffer_outside_key),
	DVS_TEST(test_hostile_head_past_ring),
	DVS_TEST(test_hostile_descriptor_loop),
	DVS_TEST(test_hostile_avail_jump),
	DVS_TEST(test_hostile_rx_without_write),
	DVS_TEST(test_hostile_rx_outside_key),
	DVS_TEST(test_hostile_indirect),
	DVS_TEST(test_hostile_tx_write),
	DVS_TEST(test_hostile_short_header),
	DVS_TEST(test_hostile_rewrite_during_pass),
	DVS_TEST(test_fenced_memory),
	DVS_TEST(test_hostile_rx_jump_with_tx_pending),
	DVS_TEST(test_hostile_tx_bad_mid_burst),
	DVS_TEST(test_hostile_oversize),
	DVS_TEST(test_fair_turns),
	DVS_TEST(test_hostile_overlapping_buffers),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_datapath", cases);
}

DVS_CUNIT_MAIN("test_sim_datapath", register_tests)
