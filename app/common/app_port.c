/* SPDX-License-Identifier: BSD-3-Clause */
#include "app_port.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>
#include <rte_errno.h>
#include <rte_malloc.h>
#include <rte_mbuf_pool_ops.h>

#include "app_objects.h"

#define POOL_EXTRA 1024u /* mbufs beyond the two rings: bursts in hand, caches */
#define POOL_CACHE 256u

static void obj_name(char *buf, const struct app_port *p, const char *suffix)
{
	snprintf(buf, DVSHARE_NAME_MAX, "%s.%s", p->name, suffix);
}

/* The UMEM's memory: the two rings, then the pool's objects. */
static size_t pool_bytes(uint32_t n, uint32_t *elt)
{
	struct rte_mempool_objsz sz;

	*elt = (uint32_t)(sizeof(struct rte_mbuf) + RTE_MBUF_DEFAULT_BUF_SIZE);
	rte_mempool_calc_obj_size(*elt, RTE_MEMPOOL_F_NO_IOVA_CONTIG, &sz);
	return (size_t)n * sz.total_size + 2 * RTE_CACHE_LINE_SIZE;
}

/* A pool of @n mbufs in [@addr, @addr + @len): DPDK's own mbufs, in
 * memory the device reaches through the port's key. */
static struct rte_mempool *pool_in(const char *name, uint32_t n, uint32_t elt, void *addr,
				   size_t len)
{
	struct rte_pktmbuf_pool_private priv = {
		.mbuf_data_room_size = RTE_MBUF_DEFAULT_BUF_SIZE,
		.mbuf_priv_size = 0,
	};
	/* Objects may straddle pages: the device reaches them through the
	 * key (virtually contiguous), never by IOVA. */
	struct rte_mempool *mp = rte_mempool_create_empty(name, n, elt, POOL_CACHE, sizeof(priv),
							  SOCKET_ID_ANY,
							  RTE_MEMPOOL_F_NO_IOVA_CONTIG);
	int rc;

	if (mp == NULL)
		return NULL;
	rc = rte_mempool_set_ops_byname(mp, rte_mbuf_best_mempool_ops(), NULL);
	if (rc == 0) {
		rte_pktmbuf_pool_init(mp, &priv);
		/* No IOVA: the device reaches the mbufs through the key. */
		rc = rte_mempool_populate_iova(mp, addr, RTE_BAD_IOVA, len, NULL, NULL);
		rc = rc == (int)n ? 0 : rc < 0 ? rc : -ENOMEM;
	}
	if (rc != 0) {
		rte_mempool_free(mp);
		rte_errno = -rc;
		return NULL;
	}
	rte_mempool_obj_iter(mp, rte_pktmbuf_init, NULL);
	return mp;
}

/* Kick queue @qidx if the device asks (a TX queue always, when told to). */
static void kick(struct app_port *p, struct app_vring *r, uint32_t qidx)
{
	if (!(p->kick_always && r == &p->ring[1]) && !app_vring_want_kick(r))
		return;
	if (p->kick != NULL)
		p->kick(p, qidx);
	else
		dvshare_doorbell32(p->db, 0, qidx);
	if (r == &p->ring[1])
		p->st.tx_kicks++;
	else
		p->st.rx_kicks++;
}

/* Post fresh RX buffers while there is room (a batch at least) and mbufs. */
static void rx_refill(struct app_port *p)
{
	struct rte_mbuf *m[64];
	uint16_t room = p->ring[0].num_free, posted = 0;

	if (room < 32 && room < p->size)
		return;

	while (room > 0) {
		uint16_t n = room < 64 ? room : 64;
		if (rte_pktmbuf_alloc_bulk(p->pool, m, n) != 0) {
			p->st.rx_nombuf++;
			break;
		}
		for (uint16_t i = 0; i < n; i++) {
			uint8_t *hdr = rte_pktmbuf_mtod(m[i], uint8_t *) - APP_NET_HDR;
			app_vring_add(&p->ring[0], (uintptr_t)hdr,
				      rte_pktmbuf_tailroom(m[i]) + APP_NET_HDR, 1, m[i]);
		}
		room -= n;
		posted += n;
	}
	if (posted == 0)
		return;
	app_vring_publish(&p->ring[0]);
	kick(p, &p->ring[0], 2u * p->index);
}

/* Undo what a create made, by name: each destroy is of something that may
 * not exist. */
static void unmake(struct app_port *p, unsigned int timeout_ms)
{
	char n[DVSHARE_NAME_MAX];

	for (int i = 1; i >= 0; i--) {
		if (p->q[i] != NULL)
			dvshare_obj_release(p->q[i]);
		p->q[i] = NULL;
		obj_name(n, p, i == 0 ? "rxq" : "txq");
		app_virtq_destroy(p->dev, n, timeout_ms);
	}
	/* The queues are gone: nothing uses the buffers. The pool goes before
	 * its memory, which N.umem's destroy frees. */
	if (p->pool != NULL)
		rte_mempool_free(p->pool);
	p->pool = NULL;
	obj_name(n, p, "key");
	dvshare_destroy(p->dev, n, timeout_ms);
	obj_name(n, p, "umem");
	dvshare_destroy(p->dev, n, timeout_ms);
	obj_name(n, p, "db");
	dvshare_destroy(p->dev, n, timeout_ms);
}

/* After unmake(), which freed the pool and, with N.umem, its memory. */
static void free_port(struct app_port *p)
{
	free(p->meta);
	free(p);
}

int app_port_create(struct dvshare_dev *dev, const char *name, uint16_t index, uint16_t size,
		    struct app_port **out, uint8_t *status, uint32_t *syndrome)
{
	char n[DVSHARE_NAME_MAX], mz[RTE_MEMZONE_NAMESIZE];
	struct app_virtq_rings r[2];
	struct app_port *p;
	uint32_t elt, umem_id, mkey, id;
	int rc;

	if (status != NULL)
		*status = 0;
	if (syndrome != NULL)
		*syndrome = 0;
	if (name == NULL || strlen(name) >= APP_PORT_NAME_MAX || index >= 0x8000 || size < 2 ||
	    (size & (size - 1)) != 0 || size > 32768)
		return name != NULL && strlen(name) >= APP_PORT_NAME_MAX ? -ENAMETOOLONG : -EINVAL;
	p = calloc(1, sizeof(*p));
	if (p == NULL)
		return -ENOMEM;
	p->dev = dev;
	p->index = index;
	p->size = size;
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->meta = calloc(2, app_vring_meta_bytes(size));
	const size_t rings = app_vring_bytes(size);
	const uint32_t nbufs = 2u * size + POOL_EXTRA;
	size_t len = 2 * rings + pool_bytes(nbufs, &elt);
	snprintf(mz, sizeof(mz), "dvs-%s-%s", dvshare_dev_name(dev), name);
	/* The memory, as one UMEM that frees it. */
	struct dvshare_umem *u = NULL;
	obj_name(n, p, "umem");
	if (p->meta != NULL)
		u = dvshare_umem_alloc(dev, n, len, 4096, IBV_ACCESS_LOCAL_WRITE);
	if (u == NULL) {
		rc = p->meta == NULL ? -ENOMEM : -rte_errno;
		free_port(p);
		return rc;
	}
	p->mem = dvshare_umem_addr(u);
	p->mem_len = len;
	umem_id = dvshare_umem_id(u);
	dvshare_umem_release(u);
	uint8_t *base = p->mem;
	p->pool = pool_in(mz, nbufs, elt, base + 2 * rings, len - 2 * rings);
	if (p->pool == NULL) {
		rc = -rte_errno;
		unmake(p, 1000);
		free_port(p);
		return rc;
	}
	for (int i = 0; i < 2; i++) {
		app_vring_init(&p->ring[i], base + i * rings, size,
			       (uint8_t *)p->meta + i * app_vring_meta_bytes(size));
		r[i].desc = (uintptr_t)p->ring[i].desc;
		r[i].avail = (uintptr_t)p->ring[i].avail;
		r[i].used = (uintptr_t)p->ring[i].used;
	}
	/* Its key, the doorbell, the two queues. */
	obj_name(n, p, "key");
	rc = app_mkey_create(dev, n, umem_id, p->mem, p->mem_len, &mkey);
	if (rc == 0) {
		obj_name(n, p, "db");
		struct dvshare_var *v = dvshare_var_alloc(dev, n, 0);
		rc = v != NULL ? 0 : -rte_errno;
		/* The doorbell stays mapped while the VAR is published (a
		 * destroy fences it: a late kick lands on a private page). */
		if (v != NULL) {
			p->db = dvshare_var_doorbell(v);
			dvshare_var_release(v);
		}
	}
	for (int i = 0; i < 2 && rc == 0; i++) {
		r[i].mkey = mkey;
		obj_name(n, p, i == 0 ? "rxq" : "txq");
		rc = app_virtq_create_rings(dev, n, (uint16_t)(2 * index + i), size, &r[i], &id, status,
					    syndrome);
		if (rc == 0 && (p->q[i] = dvshare_obj_lookup(dev, n)) == NULL)
			rc = -rte_errno;
	}
	for (int i = 0; i < 2 && rc == 0; i++) {
		struct dvshare_prm_virtq w;
		memset(&w, 0, sizeof(w));
		w.state = DVSHARE_PRM_VIRTQ_STATE_RDY;
		rc = app_virtq_modify(p->q[i], DVSHARE_PRM_VIRTQ_MODIFY_STATE, &w, status, syndrome);
	}
	if (rc != 0) {
		unmake(p, 1000);
		free_port(p);
		return rc;
	}
	rx_refill(p);
	*out = p;
	return 0;
}

int app_port_destroy(struct app_port *p, unsigned int timeout_ms)
{
	if (p == NULL)
		return 0;
	/* The queues go first: once their destroy returns the device uses
	 * neither the rings nor the buffers, which go with N.umem. */
	unmake(p, timeout_ms);
	free_port(p);
	return 0;
}

uint16_t app_port_rx_burst(struct app_port *p, struct rte_mbuf **pkts, uint16_t n)
{
	void *c[64];
	uint32_t len[64];
	uint16_t got = 0;

	while (got < n) {
		uint16_t want = (uint16_t)(n - got) < 64 ? (uint16_t)(n - got) : 64;
		int r = app_vring_reap(&p->ring[0], c, len, want);
		if (r <= 0)
			break;
		for (int i = 0; i < r; i++) {
			struct rte_mbuf *m = c[i];
			uint32_t l = len[i] > APP_NET_HDR ? len[i] - APP_NET_HDR : 0;
			m->data_len = (uint16_t)l;
			m->pkt_len = l;
			p->st.rx_bytes += l;
			pkts[got++] = m;
		}
		if (r < want)
			break;
	}
	p->st.rx_packets += got;
	/* Also after nothing came: a refill the pool could not serve is
	 * tried again (an empty ring would never bring a packet). */
	rx_refill(p);
	return got;
}

void app_port_tx_done(struct app_port *p)
{
	void *c[64];
	int r;

	while ((r = app_vring_reap(&p->ring[1], c, NULL, 64)) > 0)
		rte_pktmbuf_free_bulk((struct rte_mbuf **)c, (unsigned int)r);
}

uint16_t app_port_tx_burst(struct app_port *p, struct rte_mbuf **pkts, uint16_t n)
{
	uint16_t i;

	if (p->ring[1].num_free < n)
		app_port_tx_done(p);
	for (i = 0; i < n; i++) {
		struct rte_mbuf *m = pkts[i];
		if (m->nb_segs != 1 || rte_pktmbuf_headroom(m) < APP_NET_HDR)
			break;
		uint8_t *hdr = rte_pktmbuf_mtod(m, uint8_t *) - APP_NET_HDR;
		memset(hdr, 0, APP_NET_HDR);
		if (app_vring_add(&p->ring[1], (uintptr_t)hdr, m->data_len + APP_NET_HDR, 0, m) != 0)
			break;
		p->st.tx_bytes += m->data_len;
	}
	p->st.tx_full += n - i;
	if (i == 0)
		return 0;
	app_vring_publish(&p->ring[1]);
	p->st.tx_packets += i;
	p->st.tx_bursts++;
	kick(p, &p->ring[1], 2u * p->index + 1);
	return i;
}

int app_port_device_view(struct app_port *p, struct app_port_device_view *v)
{
	char n[DVSHARE_NAME_MAX];
	int rc = 0;

	memset(v, 0, sizeof(*v));
	v->have_counters = 1;
	for (int i = 0; i < 2 && rc == 0; i++) {
		rc = app_virtq_query(p->q[i], &v->q[i]);
		snprintf(n, sizeof(n), "%s.%s" APP_COUNTERS_SUFFIX, p->name, i == 0 ? "rxq" : "txq");
		struct dvshare_obj *c = dvshare_obj_lookup(p->dev, n);
		if (c == NULL) {
			v->have_counters = 0;
			continue;
		}
		uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_VIRTQ_COUNTERS_SIZE];
		if (rc == 0)
			rc = dvshare_obj_query(c, in,
					       dvshare_prm_virtq_counters_query(in, dvshare_obj_id(c)),
					       out, sizeof(out));
		if (rc == 0)
			dvshare_prm_virtq_counters_parse(out, &v->c[i]);
		dvshare_obj_release(c);
	}
	return rc;
}
