/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A port for the sim suite's data path tests: an RX queue (index 2k) and
 * a TX queue (2k+1) on one PD and TIS, their rings and buffers in one
 * region of this process registered as a UMEM, a direct key over it whose
 * addresses are the virtual ones (IOVA = VA), and the driver side of both
 * rings (app/common/app_vring.h). Kicks go through a VAR page.
 *
 * The region has a canary page on each side, outside the UMEM and the
 * key: sim_port_canaries_ok() says whether the device wrote there. With
 * sim_port_use_klm() the queues reach the region through an indirect
 * (KLM) key over two direct ones, each over half of it, at the same
 * addresses.
 */
#ifndef SIM_PORT_H
#define SIM_PORT_H

#include "app_vring.h"
#include "sim_test_util.h"

#define SIM_BUF 2048u   /* bytes per buffer */
#define SIM_NET_HDR 12u /* virtio_net_hdr_v1 */
#define SIM_CANARY 4096u /* bytes of canary on each side of a port's region */
#define SIM_CANARY_BYTE 0xa5

struct sim_port {
	struct ibv_context *ctx;
	struct sim_q q[2];      /* [0] RX 2k, [1] TX 2k+1 */
	uint16_t size;
	uint8_t *mem;           /* the rings, then 2 * size buffers */
	size_t len;
	uint8_t *map;           /* mem - SIM_CANARY: the mapping, canaries included */
	struct mlx5dv_devx_umem *umem;
	struct mlx5dv_devx_obj *key;
	uint32_t mkey;
	struct mlx5dv_devx_obj *half[2], *klm; /* sim_port_use_klm() */
	uint32_t klm_key;
	struct app_vring ring[2];
	void *meta[2];
	uint8_t *buf;
	uint32_t rx_posted, tx_posted;
	volatile uint32_t *db; /* a doorbell register */
};

static inline uint8_t *sim_port_rx_buf(struct sim_port *p, uint32_t n)
{
	return p->buf + (size_t)(n % p->size) * SIM_BUF;
}

static inline uint8_t *sim_port_tx_buf(struct sim_port *p, uint32_t n)
{
	return p->buf + (size_t)(p->size + n % p->size) * SIM_BUF;
}

/* Build port @k with rings of @size on @share's PD and TIS (NULL: its
 * own), kicking through @db; the queues are created in INIT with their
 * key and rings, not yet RDY. 0 or an errno. */
static inline int sim_port_open(struct sim_port *p, struct ibv_context *ctx, uint16_t k,
				uint16_t size, const struct sim_q *share, volatile uint32_t *db)
{
	uint8_t out[DVSHARE_PRM_HDR_SIZE];
	size_t rings = app_vring_bytes(size);
	int rc;

	memset(p, 0, sizeof(*p));
	p->ctx = ctx;
	p->size = size;
	p->db = db;
	p->len = 2 * rings + 2 * (size_t)size * SIM_BUF;
	p->len = (p->len + 4095) & ~(size_t)4095;
	p->map = mmap(NULL, p->len + 2 * SIM_CANARY, PROT_READ | PROT_WRITE,
		      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p->map == MAP_FAILED) {
		p->map = NULL;
		return errno;
	}
	memset(p->map, SIM_CANARY_BYTE, SIM_CANARY);
	memset(p->map + SIM_CANARY + p->len, SIM_CANARY_BYTE, SIM_CANARY);
	p->mem = p->map + SIM_CANARY;
	p->buf = p->mem + 2 * rings;
	if ((rc = sim_q_parts_on(ctx, &p->q[0], (uint16_t)(2 * k), size, share)) != 0 ||
	    (rc = sim_q_parts_on(ctx, &p->q[1], (uint16_t)(2 * k + 1), size,
				 share != NULL ? share : &p->q[0])) != 0)
		return rc;
	p->umem = G->devx_umem_reg(ctx, p->mem, p->len, IBV_ACCESS_LOCAL_WRITE);
	if (p->umem == NULL)
		return errno;
	p->key = sim_mkey(ctx, p->q[0].pd_id, p->umem->umem_id, (uintptr_t)p->mem, p->len, 0, 1,
			  &p->mkey, out);
	if (p->key == NULL)
		return errno;
	for (int i = 0; i < 2; i++) {
		uint8_t *r = p->mem + i * rings;
		p->meta[i] = calloc(1, app_vring_meta_bytes(size));
		if (p->meta[i] == NULL || app_vring_init(&p->ring[i], r, size, p->meta[i]) != 0)
			return ENOMEM;
		p->q[i].attr.mkey = p->mkey;
		p->q[i].attr.desc_addr = (uintptr_t)r;
		p->q[i].attr.available_addr = (uintptr_t)r + app_vring_avail_off(size);
		p->q[i].attr.used_addr = (uintptr_t)r + app_vring_used_off(size);
		if ((rc = sim_q_make(ctx, &p->q[i])) != 0)
			return rc;
	}
	return 0;
}

/* Did the device leave both canaries of @p alone? */
static inline int sim_port_canaries_ok(const struct sim_port *p)
{
	const uint8_t *side[2] = { p->map, p->mem + p->len };

	if (p->map == NULL)
		return 0;
	for (int i = 0; i < 2; i++)
		for (size_t j = 0; j < SIM_CANARY; j++)
			if (side[i][j] != SIM_CANARY_BYTE)
				return 0;
	return 1;
}

/* Before sim_port_ready(): both queues reach the region through a KLM key
 * over two direct keys, one on each half (a buffer may straddle them). */
static inline int sim_port_use_klm(struct sim_port *p)
{
	uint8_t out[DVSHARE_PRM_HDR_SIZE], in[DVSHARE_PRM_VIRTQ_SIZE];
	size_t half = p->len / 2;
	uint32_t k[2];

	for (int i = 0; i < 2; i++) {
		p->half[i] = sim_mkey(p->ctx, p->q[0].pd_id, p->umem->umem_id,
				      (uintptr_t)p->mem + i * half, half, i * half, 1, &k[i], out);
		if (p->half[i] == NULL)
			return errno;
	}
	struct dvshare_prm_klm klm[2] = {
		{ (uint32_t)half, k[0], (uintptr_t)p->mem },
		{ (uint32_t)half, k[1], (uintptr_t)p->mem + half },
	};
	p->klm = sim_mkey_klm(p->ctx, p->q[0].pd_id, (uintptr_t)p->mem, klm, 2, &p->klm_key, out);
	if (p->klm == NULL)
		return errno;
	for (int i = 0; i < 2; i++) {
		struct dvshare_prm_virtq w;
		memset(&w, 0, sizeof(w));
		w.mkey = p->klm_key;
		int rc = G->devx_obj_modify(p->q[i].q, in,
					    dvshare_prm_virtq_modify(in, p->q[i].id,
								     DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY, &w),
					    out, sizeof(out));
		if (rc != 0)
			return rc;
	}
	return 0;
}

static inline int sim_q_set_state(struct sim_q *q, uint8_t state, uint8_t *out)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];

	return G->devx_obj_modify(q->q, in, dvshare_prm_virtq_modify_state(in, q->id, state), out,
				  DVSHARE_PRM_HDR_SIZE);
}

/* Both queues RDY. */
static inline int sim_port_ready(struct sim_port *p)
{
	uint8_t out[DVSHARE_PRM_HDR_SIZE];
	int rc = sim_q_set_state(&p->q[0], DVSHARE_PRM_VIRTQ_STATE_RDY, out);

	return rc != 0 ? rc : sim_q_set_state(&p->q[1], DVSHARE_PRM_VIRTQ_STATE_RDY, out);
}

static inline void sim_port_close(struct sim_port *p)
{
	for (int i = 1; i >= 0; i--) {
		if (p->q[i].q != NULL)
			CU_ASSERT_EQUAL(G->devx_obj_destroy(p->q[i].q), 0);
		p->q[i].q = NULL;
	}
	if (p->klm != NULL)
		CU_ASSERT_EQUAL(G->devx_obj_destroy(p->klm), 0);
	for (int i = 0; i < 2; i++)
		if (p->half[i] != NULL)
			CU_ASSERT_EQUAL(G->devx_obj_destroy(p->half[i]), 0);
	if (p->key != NULL)
		CU_ASSERT_EQUAL(G->devx_obj_destroy(p->key), 0);
	if (p->umem != NULL)
		CU_ASSERT_EQUAL(G->devx_umem_dereg(p->umem), 0);
	sim_q_destroy(&p->q[1]);
	sim_q_destroy(&p->q[0]);
	if (p->map != NULL)
		munmap(p->map, p->len + 2 * SIM_CANARY);
	free(p->meta[0]);
	free(p->meta[1]);
	memset(p, 0, sizeof(*p));
}

/* Kick queue @qidx if the device asks for it; 1 if it did. */
static inline int sim_port_kick(struct sim_port *p, int tx)
{
	if (!app_vring_want_kick(&p->ring[tx]))
		return 0;
	*p->db = p->q[tx].attr.queue_index;
	return 1;
}

/* Post @n RX buffers. */
static inline int sim_port_post_rx(struct sim_port *p, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		uint8_t *b = sim_port_rx_buf(p, p->rx_posted);
		if (app_vring_add(&p->ring[0], (uintptr_t)b, SIM_BUF, 1, b) != 0)
			return -ENOSPC;
		p->rx_posted++;
	}
	app_vring_publish(&p->ring[0]);
	sim_port_kick(p, 0);
	return 0;
}

/* Post one packet of @len bytes (after a zero header) whose bytes are
 * @seed + i; not kicked. */
static inline int sim_port_post_tx(struct sim_port *p, uint32_t seed, uint32_t len)
{
	uint8_t *b = sim_port_tx_buf(p, p->tx_posted);

	memset(b, 0, SIM_NET_HDR);
	for (uint32_t i = 0; i < len; i++)
		b[SIM_NET_HDR + i] = (uint8_t)(seed + i);
	if (app_vring_add(&p->ring[1], (uintptr_t)b, SIM_NET_HDR + len, 0, b) != 0)
		return -ENOSPC;
	p->tx_posted++;
	return 0;
}

/* Does @b hold a received packet of @len bytes made with @seed? */
static inline int sim_packet_ok(const uint8_t *b, uint32_t seed, uint32_t len)
{
	static const uint8_t hdr[SIM_NET_HDR] = { [10] = 1 }; /* num_buffers 1 (LE) */

	if (memcmp(b, hdr, SIM_NET_HDR) != 0)
		return 0;
	for (uint32_t i = 0; i < len; i++)
		if (b[SIM_NET_HDR + i] != (uint8_t)(seed + i))
			return 0;
	return 1;
}

/* QUERY a queue. */
static inline struct dvshare_prm_virtq sim_q_query(struct sim_q *q)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_VIRTQ_SIZE];
	struct dvshare_prm_virtq v;

	memset(&v, 0xff, sizeof(v));
	if (G->devx_obj_query(q->q, in, dvshare_prm_virtq_query(in, q->id), out, sizeof(out)) == 0)
		dvshare_prm_virtq_parse(out, &v);
	return v;
}

/* Its VIRTIO_Q_COUNTERS. */
static inline struct dvshare_prm_virtq_counters sim_q_counters(struct sim_q *q)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_VIRTQ_COUNTERS_SIZE];
	struct dvshare_prm_virtq_counters c;

	memset(&c, 0xff, sizeof(c));
	if (G->devx_obj_query(q->counters, in,
			      dvshare_prm_virtq_counters_query(in, q->attr.counter_set_id), out,
			      sizeof(out)) == 0)
		dvshare_prm_virtq_counters_parse(out, &c);
	return c;
}

#endif
