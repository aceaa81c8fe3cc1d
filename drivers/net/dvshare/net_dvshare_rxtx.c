/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_dvshare's bursts: the driver side of a VIRTIO_NET_Q pair over the
 * shared ring state (net_dvshare.h), and the hand-over of a queue between
 * processes.
 *
 * A burst makes no system call, takes no lock and allocates nothing but
 * mbufs from the queue's pool: a load of the queue's owner word says this
 * process drives it, the ring is driver memory, the doorbell is a store
 * to this process's mapping of the VAR page, written only when the device
 * asks (VRING_USED_F_NO_NOTIFY clear).
 *
 * Each mbuf is one descriptor: its headroom holds the virtio_net_hdr_v1
 * the device reads (TX) or writes (RX), so no packet is copied. The
 * device reaches buffers through the port's key, whose addresses are the
 * mbufs' virtual ones moved by their region's delta.
 */
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <ethdev_driver.h>
#include <rte_cycles.h>

#include "net_dvshare.h"

#define BATCH 64u

uint32_t dvs_eth_self;

static struct dvs_eth_proc *proc_of(const struct dvs_eth_queue *q)
{
	return rte_eth_devices[q->port_id].process_private;
}

static void kick(struct dvs_eth_queue *q)
{
	struct dvs_eth_proc *p;

	if (!app_vring_want_kick(&q->ring))
		return;
	p = proc_of(q);
	dvshare_doorbell32(p->db, 0, q->vq_index);
	q->c.kicks++;
}

/* Where the device reaches [@va, @va + @len), or 0: outside every region. */
static inline uint64_t key_addr(const struct dvs_eth_queue *q, uintptr_t va, uint32_t len)
{
	for (uint16_t i = 0; i < q->nb_regions; i++)
		if (va >= q->region[i].lo && va + len <= q->region[i].hi)
			return va + q->region[i].delta;
	return 0;
}

void dvs_eth_rx_refill(struct dvs_eth_queue *q)
{
	struct rte_mbuf *m[BATCH];
	uint16_t room = q->ring.num_free, posted = 0;

	if (room < 32 && room < q->ring.size)
		return;
	while (room > 0) {
		uint16_t n = room < BATCH ? room : BATCH;
		if (rte_pktmbuf_alloc_bulk(q->mp, m, n) != 0) {
			q->c.nombuf++;
			break;
		}
		for (uint16_t i = 0; i < n; i++) {
			uintptr_t hdr = rte_pktmbuf_mtod(m[i], uintptr_t) - DVS_ETH_NET_HDR;
			uint32_t len = rte_pktmbuf_tailroom(m[i]) + DVS_ETH_NET_HDR;
			/* The pool's memory is in the key (the start put it there). */
			m[i]->port = q->port_id;
			app_vring_add(&q->ring, key_addr(q, hdr, len), len, 1, m[i]);
		}
		room = (uint16_t)(room - n);
		posted = (uint16_t)(posted + n);
	}
	if (posted == 0)
		return;
	app_vring_publish(&q->ring);
	kick(q);
}

static inline int driving(struct dvs_eth_queue *q)
{
	return likely(__atomic_load_n(&q->owner, __ATOMIC_RELAXED) == dvs_eth_self && q->ready) ||
	       dvs_eth_queue_claim(q) == 0;
}

uint16_t dvs_eth_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t n)
{
	struct dvs_eth_queue *q = rxq;
	void *c[BATCH];
	uint32_t len[BATCH];
	uint16_t got = 0;

	if (!driving(q))
		return 0;
	while (got < n) {
		unsigned int want = (unsigned int)(n - got) < BATCH ? (unsigned int)(n - got) : BATCH;
		int r = app_vring_reap(&q->ring, c, len, want);
		if (r <= 0)
			break;
		for (int i = 0; i < r; i++) {
			struct rte_mbuf *m = c[i];
			uint32_t l = len[i] > DVS_ETH_NET_HDR ? len[i] - DVS_ETH_NET_HDR : 0;
			m->data_len = (uint16_t)l;
			m->pkt_len = l;
			q->c.bytes += l;
			pkts[got++] = m;
		}
		if ((unsigned int)r < want)
			break;
	}
	q->c.packets += got;
	/* Also after nothing came: a refill the pool could not serve is
	 * tried again (an empty ring would never bring a packet). */
	dvs_eth_rx_refill(q);
	return got;
}

/* Free the mbufs of what the device has sent. */
static void tx_done(struct dvs_eth_queue *q)
{
	void *c[BATCH];
	int r;

	while ((r = app_vring_reap(&q->ring, c, NULL, BATCH)) > 0)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)c, (unsigned int)r);
}

uint16_t dvs_eth_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n)
{
	struct dvs_eth_queue *q = txq;
	uint16_t i;

	if (!driving(q))
		return 0;
	if (q->ring.num_free < n)
		tx_done(q);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		/* The header goes in the headroom: the mbuf must be the
		 * buffer's only user, and one segment (no MULTI_SEGS). */
		if (unlikely(m->nb_segs != 1 || !RTE_MBUF_DIRECT(m) ||
			     rte_mbuf_refcnt_read(m) != 1 ||
			     rte_pktmbuf_headroom(m) < DVS_ETH_NET_HDR)) {
			q->c.refused++;
			break;
		}
		uintptr_t hdr = rte_pktmbuf_mtod(m, uintptr_t) - DVS_ETH_NET_HDR;
		uint32_t l = m->data_len + DVS_ETH_NET_HDR;
		uint64_t a = key_addr(q, hdr, l);
		if (unlikely(a == 0)) {
			q->c.refused++; /* a pool the port's key does not cover */
			break;
		}
		if (q->ring.num_free == 0) {
			q->c.full += (uint64_t)(n - i);
			break;
		}
		memset((void *)hdr, 0, DVS_ETH_NET_HDR);
		app_vring_add(&q->ring, a, l, 0, m);
		q->c.bytes += m->data_len;
	}
	if (i == 0)
		return 0;
	app_vring_publish(&q->ring);
	q->c.packets += i;
	kick(q);
	return i;
}

/* Is process @pid alive? (kill(0): EPERM is a live process of another user.) */
static int alive(uint32_t pid)
{
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

int dvs_eth_queue_claim(struct dvs_eth_queue *q)
{
	struct dvs_eth_proc *p = proc_of(q);
	uint32_t cur = __atomic_load_n(&q->owner, __ATOMIC_ACQUIRE);
	const int t = q->is_tx;

	if (!q->ready)
		return -EAGAIN; /* the port is stopped */
	if (cur == dvs_eth_self)
		return 0;
	if (cur != 0) {
		/* Driven by another: its life is looked at once a second
		 * at most (a system call, on a path that moves nothing). */
		uint64_t now = rte_get_timer_cycles();
		if (now < p->next_check[t][q->qid])
			return -EBUSY;
		p->next_check[t][q->qid] = now + rte_get_timer_hz();
		if (alive(cur)) {
			if (!(p->denied_logged[t] & (1u << q->qid))) {
				p->denied_logged[t] |= 1u << q->qid;
				DVS_ETH_LOG(ERR, "port %u %s queue %u is driven by process %u: DPDK "
					    "allows one process per queue; this one's bursts "
					    "return 0", q->port_id, t ? "TX" : "RX", q->qid, cur);
			}
			return -EBUSY;
		}
	}
	if (!__atomic_compare_exchange_n(&q->owner, &cur, dvs_eth_self, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return -EBUSY;
	unsigned int freed = dvs_eth_queue_recover(q);
	if (cur != 0) {
		q->c.takeovers++;
		q->c.lost += freed;
		DVS_ETH_LOG(NOTICE, "port %u %s queue %u: taken over from process %u, which is gone "
			    "(%u mbufs it held freed)", q->port_id, t ? "TX" : "RX", q->qid, cur, freed);
	}
	p->denied_logged[t] &= ~(1u << q->qid);
	if (!t)
		dvs_eth_rx_refill(q);
	return 0;
}

void dvs_eth_queue_release(struct dvs_eth_queue *q)
{
	uint32_t me = dvs_eth_self;

	__atomic_compare_exchange_n(&q->owner, &me, 0, 0, __ATOMIC_RELEASE, __ATOMIC_RELAXED);
}

unsigned int dvs_eth_queue_recover(struct dvs_eth_queue *q)
{
	struct app_vring *r = &q->ring;
	uint16_t avail = rte_le_to_cpu_16(__atomic_load_n(&r->avail->idx, __ATOMIC_ACQUIRE));
	uint16_t used = rte_le_to_cpu_16(__atomic_load_n(&r->used->idx, __ATOMIC_ACQUIRE));
	unsigned int freed = 0;
	uint8_t *held = calloc(r->size, 1);

	if (held == NULL)
		return 0; /* keep the view as it is: a claim on a consistent ring loses nothing */
	/* Entries the last driver took back before it could say so. */
	while (r->used_idx != used) {
		uint32_t id = rte_le_to_cpu_32(r->used->ring[r->used_idx & r->mask].id);
		if (id < r->size && r->cookie[id] != NULL)
			break;
		r->used_idx++;
	}
	/* What the device holds (posted, not returned) and has returned. */
	for (uint16_t i = used; i != avail && (uint16_t)(i - used) <= r->size; i++) {
		uint16_t d = rte_le_to_cpu_16(r->avail->ring[i & r->mask]);
		if (d < r->size)
			held[d] = 1;
	}
	for (uint16_t i = r->used_idx; i != used && (uint16_t)(i - r->used_idx) <= r->size; i++) {
		uint32_t id = rte_le_to_cpu_32(r->used->ring[i & r->mask].id);
		if (id < r->size)
			held[id] = 1;
	}
	/* Everything else is free; a buffer added and never published goes
	 * back to its pool. */
	r->avail_idx = avail;
	r->num_free = 0;
	r->free_head = r->size; /* the end of the list */
	for (uint32_t d = r->size; d-- > 0;) {
		if (held[d] && r->cookie[d] != NULL)
			continue;
		if (r->cookie[d] != NULL) {
			rte_pktmbuf_free(r->cookie[d]);
			r->cookie[d] = NULL;
			freed++;
		}
		r->free_next[d] = r->free_head;
		r->free_head = (uint16_t)d;
		r->num_free++;
	}
	free(held);
	return freed;
}

void dvs_eth_queue_drain(struct dvs_eth_queue *q)
{
	struct app_vring *r = &q->ring;

	for (uint32_t d = 0; d < r->size; d++)
		if (r->cookie[d] != NULL) {
			rte_pktmbuf_free(r->cookie[d]);
			r->cookie[d] = NULL;
		}
}
