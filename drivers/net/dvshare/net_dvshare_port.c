/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_dvshare's objects on the device, made by the primary at a start
 * and undone at a stop, through dvshare's public API as any application
 * would (app_objects.h): every queue's rings in one UMEM (<prefix>.rings,
 * kept until the close, so that a burst a secondary runs late into a stop
 * writes memory that is still the port's); the memory of each RX queue's
 * mempool as UMEMs (<prefix>.mem<i>); a direct key over each region and
 * one indirect (KLM) key over them all (<prefix>.key), the key every
 * queue reaches its rings and buffers through, as DPDK's vdpa/mlx5 maps
 * guest memory; and the VIRTIO_NET_Qs, RDY.
 *
 * The key's address space packs the regions one after another from
 * DVS_ETH_KEY_BASE: a descriptor's address is the buffer's virtual
 * address plus its region's delta.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ethdev_driver.h>
#include <infiniband/verbs.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "net_dvshare.h"

#define TIMEOUT_MS 2000u
#define PAGE 4096u

static void name_of(char *buf, const struct dvs_eth_shared *s, const char *what, int i)
{
	if (i < 0)
		snprintf(buf, DVSHARE_NAME_MAX, "%s.%s", s->prefix, what);
	else
		snprintf(buf, DVSHARE_NAME_MAX, "%s.%s%d", s->prefix, what, i);
}

/* Add region [@lo, @hi) of this process's memory, registered as UMEM
 * <prefix>.mem<i> unless @umem_id is given, with its direct key. */
static int add_region(struct dvs_eth_shared *s, struct dvshare_dev *dev, uintptr_t lo, uintptr_t hi,
		      uint32_t umem_id)
{
	char n[DVSHARE_NAME_MAX];
	uint16_t i = s->nb_regions;

	for (uint16_t k = 0; k < s->nb_regions; k++)
		if (lo >= s->region[k].lo && hi <= s->region[k].hi)
			return 0; /* a pool given to two queues */
	if (i == DVS_ETH_MAX_REGIONS) {
		DVS_ETH_LOG(ERR, "%s: the mempools are in more than %u pieces of memory: the device's "
			    "key maps %u (use fewer or larger pools)", s->prefix,
			    DVS_ETH_MAX_REGIONS - 1, DVS_ETH_MAX_REGIONS);
		return -E2BIG;
	}
	if (hi - lo > UINT32_MAX) {
		DVS_ETH_LOG(ERR, "%s: a mempool piece of %zu bytes: a key entry maps 4 GiB at most",
			    s->prefix, (size_t)(hi - lo));
		return -E2BIG;
	}
	if (umem_id == 0) {
		name_of(n, s, "mem", i);
		struct dvshare_umem *u = dvshare_umem_reg(dev, n, (void *)lo, hi - lo,
							  IBV_ACCESS_LOCAL_WRITE);
		if (u == NULL)
			return -rte_errno;
		umem_id = dvshare_umem_id(u);
		dvshare_umem_release(u);
	}
	uint32_t key;
	name_of(n, s, "key", i);
	int rc = app_mkey_create(dev, n, umem_id, (void *)lo, hi - lo, &key);
	if (rc != 0)
		return rc;
	uint64_t at = DVS_ETH_KEY_BASE;
	for (uint16_t k = 0; k < i; k++)
		at += s->region[k].hi - s->region[k].lo;
	s->region[i].lo = lo;
	s->region[i].hi = hi;
	s->region[i].delta = at - lo;
	s->nb_regions++;
	s->nb_keys = s->nb_regions;
	/* Remembered for the KLM: the direct key's value. */
	s->region_key[i] = key;
	return 0;
}

struct chunks {
	uintptr_t (*r)[2];
	unsigned int n, room;
};

static void pool_chunk(struct rte_mempool *mp, void *opaque, struct rte_mempool_memhdr *h,
		       unsigned int idx)
{
	struct chunks *c = opaque;
	(void)mp;
	(void)idx;
	if (c->n == c->room)
		return;
	/* Whole pages: the UMEM's and the key's granule. */
	c->r[c->n][0] = RTE_ALIGN_FLOOR((uintptr_t)h->addr, PAGE);
	c->r[c->n][1] = RTE_ALIGN_CEIL((uintptr_t)h->addr + h->len, PAGE);
	c->n++;
}

static int cmp_chunk(const void *a, const void *b)
{
	uintptr_t x = ((const uintptr_t *)a)[0], y = ((const uintptr_t *)b)[0];

	return x < y ? -1 : x > y;
}

/* The memory of pool @mp as regions: its chunks (one per hugepage when
 * DPDK needed IOVA-contiguous pieces) merged where they touch. */
static int add_pool(struct dvs_eth_shared *s, struct dvshare_dev *dev, struct rte_mempool *mp)
{
	struct chunks c = { calloc(mp->nb_mem_chunks, sizeof(*c.r)), 0, mp->nb_mem_chunks };
	int rc = 0;

	if (c.r == NULL)
		return -ENOMEM;
	rte_mempool_mem_iter(mp, pool_chunk, &c);
	qsort(c.r, c.n, sizeof(*c.r), cmp_chunk);
	for (unsigned int i = 0; i < c.n && rc == 0;) {
		uintptr_t lo = c.r[i][0], hi = c.r[i][1];
		for (i++; i < c.n && c.r[i][0] <= hi; i++)
			hi = RTE_MAX(hi, c.r[i][1]);
		rc = add_region(s, dev, lo, hi, 0);
	}
	free(c.r);
	return rc;
}

/* Every queue's rings, in one UMEM kept until the close. */
static int rings_mem(struct rte_eth_dev *eth, size_t need, uint32_t *umem_id)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	struct dvs_eth_proc *p = eth->process_private;
	char n[DVSHARE_NAME_MAX];
	struct dvshare_umem *u;

	name_of(n, s, "rings", -1);
	if (s->rings != NULL && s->rings_len < need) {
		dvshare_destroy(p->dev, n, TIMEOUT_MS);
		s->rings = NULL;
	}
	if (s->rings == NULL) {
		u = dvshare_umem_alloc(p->dev, n, need, PAGE, IBV_ACCESS_LOCAL_WRITE);
		if (u == NULL)
			return -rte_errno;
		s->rings = dvshare_umem_addr(u);
		s->rings_len = need;
	} else {
		u = dvshare_umem_lookup(p->dev, n);
		if (u == NULL)
			return -rte_errno;
	}
	*umem_id = dvshare_umem_id(u);
	dvshare_umem_release(u);
	return 0;
}

/* Undo the keys and pool UMEMs of a start. */
static void unmake_keys(struct dvs_eth_shared *s, struct dvshare_dev *dev)
{
	char n[DVSHARE_NAME_MAX];

	name_of(n, s, "key", -1);
	dvshare_destroy(dev, n, TIMEOUT_MS);
	for (int i = (int)s->nb_keys - 1; i >= 0; i--) {
		name_of(n, s, "key", i);
		dvshare_destroy(dev, n, TIMEOUT_MS);
		if (i > 0) {
			name_of(n, s, "mem", i);
			dvshare_destroy(dev, n, TIMEOUT_MS);
		}
	}
	s->nb_keys = 0;
	s->nb_regions = 0;
}

static void unmake_queues(struct rte_eth_dev *eth)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	struct dvs_eth_proc *p = eth->process_private;
	char n[DVSHARE_NAME_MAX];

	for (uint16_t k = 0; k < eth->data->nb_rx_queues; k++) {
		for (int t = 1; t >= 0; t--) {
			struct dvs_eth_queue *q = t ? s->txq[k] : s->rxq[k];
			if (q != NULL)
				__atomic_store_n(&q->ready, 0, __ATOMIC_RELEASE);
			name_of(n, s, t ? "txq" : "rxq", k);
			app_virtq_destroy(p->dev, n, TIMEOUT_MS);
			/* The device is off the queue: what it held is ours. */
			if (q != NULL && q->ring.cookie != NULL)
				dvs_eth_queue_drain(q);
		}
	}
}

static int make_queue(struct rte_eth_dev *eth, struct dvs_eth_queue *q, uint8_t *mem,
		      uint32_t key)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	struct dvs_eth_proc *p = eth->process_private;
	char n[DVSHARE_NAME_MAX];
	struct app_virtq_rings r;
	struct dvshare_prm_virtq w;
	uint8_t status = 0;
	uint32_t synd = 0, id;
	int rc;

	rc = app_vring_init(&q->ring, mem, q->nb_desc, q->meta);
	if (rc != 0)
		return rc;
	q->nb_regions = s->nb_regions;
	memcpy(q->region, s->region, sizeof(q->region));
	r.mkey = key;
	r.desc = (uintptr_t)q->ring.desc + s->region[0].delta;
	r.avail = (uintptr_t)q->ring.avail + s->region[0].delta;
	r.used = (uintptr_t)q->ring.used + s->region[0].delta;
	name_of(n, s, q->is_tx ? "txq" : "rxq", q->qid);
	rc = app_virtq_create_rings(p->dev, n, (uint16_t)q->vq_index, q->nb_desc, &r, &id, &status,
				    &synd);
	if (rc == 0) {
		struct dvshare_obj *o = dvshare_obj_lookup(p->dev, n);
		memset(&w, 0, sizeof(w));
		w.state = DVSHARE_PRM_VIRTQ_STATE_RDY;
		rc = o != NULL ? app_virtq_modify(o, DVSHARE_PRM_VIRTQ_MODIFY_STATE, &w, &status, &synd)
			       : -rte_errno;
		if (o != NULL)
			dvshare_obj_release(o);
	}
	if (rc != 0)
		DVS_ETH_LOG(ERR, "%s: queue %s (device index %u): %s (status 0x%x, syndrome 0x%x)",
			    s->prefix, n, q->vq_index, strerror(-rc), status, synd);
	return rc;
}

int dvs_eth_port_start(struct rte_eth_dev *eth)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	struct dvs_eth_proc *p = eth->process_private;
	const uint16_t nq = eth->data->nb_rx_queues;
	size_t need = 0, off = 0;
	uint32_t umem_id = 0, key = 0;
	int rc;

	for (uint16_t k = 0; k < nq; k++) {
		if (s->rxq[k] == NULL || s->txq[k] == NULL) {
			DVS_ETH_LOG(ERR, "%s: queue pair %u is not set up", s->prefix, k);
			return -EINVAL;
		}
		need += app_vring_bytes(s->rxq[k]->nb_desc) + app_vring_bytes(s->txq[k]->nb_desc);
	}
	rc = rings_mem(eth, need, &umem_id);
	if (rc != 0)
		return rc;
	s->nb_regions = 0;
	rc = add_region(s, p->dev, (uintptr_t)s->rings, (uintptr_t)s->rings + s->rings_len, umem_id);
	for (uint16_t k = 0; k < nq && rc == 0; k++)
		rc = add_pool(s, p->dev, s->rxq[k]->mp);
	if (rc == 0) {
		struct dvshare_prm_klm klm[DVS_ETH_MAX_REGIONS];
		char n[DVSHARE_NAME_MAX];
		for (uint16_t i = 0; i < s->nb_regions; i++) {
			klm[i].byte_count = (uint32_t)(s->region[i].hi - s->region[i].lo);
			klm[i].mkey = s->region_key[i];
			klm[i].address = s->region[i].lo;
		}
		name_of(n, s, "key", -1);
		rc = app_mkey_klm_create(p->dev, n, DVS_ETH_KEY_BASE, klm, s->nb_regions, &key);
	}
	for (uint16_t k = 0; k < nq && rc == 0; k++) {
		rc = make_queue(eth, s->rxq[k], s->rings + off, key);
		off += app_vring_bytes(s->rxq[k]->nb_desc);
		if (rc == 0)
			rc = make_queue(eth, s->txq[k], s->rings + off, key);
		off += app_vring_bytes(s->txq[k]->nb_desc);
	}
	if (rc != 0) {
		DVS_ETH_LOG(ERR, "%s: start failed: %s", s->prefix, strerror(-rc));
		unmake_queues(eth);
		unmake_keys(s, p->dev);
		return rc;
	}
	/* RX buffers posted, then the queues offered to their drivers. */
	for (uint16_t k = 0; k < nq; k++) {
		s->rxq[k]->owner = 0;
		s->txq[k]->owner = 0;
		dvs_eth_rx_refill(s->rxq[k]);
		__atomic_store_n(&s->rxq[k]->ready, 1, __ATOMIC_RELEASE);
		__atomic_store_n(&s->txq[k]->ready, 1, __ATOMIC_RELEASE);
	}
	return 0;
}

void dvs_eth_port_stop(struct rte_eth_dev *eth)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	struct dvs_eth_proc *p = eth->process_private;

	unmake_queues(eth);
	unmake_keys(s, p->dev);
}

void dvs_eth_port_free(struct rte_eth_dev *eth)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	struct dvs_eth_proc *p = eth->process_private;
	char n[DVSHARE_NAME_MAX];

	if (s->rings != NULL) {
		name_of(n, s, "rings", -1);
		dvshare_destroy(p->dev, n, TIMEOUT_MS);
		s->rings = NULL;
	}
}
