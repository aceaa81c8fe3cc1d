/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_dvshare's ethdev operations. What changes the port (configure,
 * queue setup, start, stop, close) is the primary's; a secondary reads
 * (info, link, stats, xstats) and drives queues. Statistics are the
 * drivers' counters in the shared queues plus, in xstats, the device's
 * own: each queue's VIRTIO_Q_COUNTERS, queried through this process's
 * context (and on the software device its drops per queue index).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <ethdev_driver.h>
#include <rte_malloc.h>

#include "dvs_sim.h"
#include "net_dvshare.h"

static int primary_only(const struct rte_eth_dev *eth, const char *what)
{
	if (rte_eal_process_type() == RTE_PROC_PRIMARY)
		return 0;
	DVS_ETH_LOG(ERR, "port %u: %s is the primary's (a secondary drives the queues the "
		    "primary set up)", eth->data->port_id, what);
	return -E_RTE_SECONDARY;
}

static int dvs_eth_configure(struct rte_eth_dev *eth)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	const struct rte_eth_conf *c = &eth->data->dev_conf;
	int rc = primary_only(eth, "configure");

	if (rc != 0)
		return rc;
	if (eth->data->nb_rx_queues != eth->data->nb_tx_queues) {
		DVS_ETH_LOG(ERR, "%s: %u RX and %u TX queues: the device's queues come in pairs",
			    s->prefix, eth->data->nb_rx_queues, eth->data->nb_tx_queues);
		return -EINVAL;
	}
	if (c->rxmode.mq_mode != RTE_ETH_MQ_RX_NONE && eth->data->nb_rx_queues > 1)
		DVS_ETH_LOG(NOTICE, "%s: no RSS: each RX queue takes what its TX queue's "
			    "steering sends it", s->prefix);
	return 0;
}

static int dvs_eth_infos_get(struct rte_eth_dev *eth, struct rte_eth_dev_info *info)
{
	struct dvs_eth_shared *s = eth->data->dev_private;

	info->max_mac_addrs = 1;
	info->max_rx_pktlen = s->mtu + DVS_ETH_FRAME_OVERHEAD;
	info->min_mtu = RTE_ETHER_MIN_MTU;
	info->max_mtu = (uint16_t)s->mtu;
	info->min_rx_bufsize = DVS_ETH_NET_HDR + RTE_ETHER_MIN_LEN;
	info->max_rx_queues = s->max_pairs;
	info->max_tx_queues = s->max_pairs;
	info->rx_offload_capa = 0; /* none done: no checksum, no LRO, no scatter */
	info->tx_offload_capa = 0; /* nor MULTI_SEGS: a chained mbuf is not taken */
	info->rx_desc_lim.nb_max = DVS_ETH_MAX_DESC;
	info->rx_desc_lim.nb_min = DVS_ETH_MIN_DESC;
	info->rx_desc_lim.nb_align = 1;
	info->tx_desc_lim = info->rx_desc_lim;
	info->default_rxportconf.ring_size = s->default_desc;
	info->default_txportconf.ring_size = s->default_desc;
	info->default_rxportconf.nb_queues = 1;
	info->default_txportconf.nb_queues = 1;
	info->speed_capa = RTE_ETH_LINK_SPEED_FIXED;
	return 0;
}

/* The ring size the device gets: @n rounded up to a power of two. */
static uint16_t ring_size(const struct dvs_eth_shared *s, uint16_t n)
{
	uint32_t v = n == 0 ? s->default_desc : n;

	v = rte_align32pow2(v);
	if (v < DVS_ETH_MIN_DESC)
		v = DVS_ETH_MIN_DESC;
	if (v != n && n != 0)
		DVS_ETH_LOG(INFO, "%s: %u descriptors asked, a ring of %u (a power of two)",
			    s->prefix, n, v);
	return (uint16_t)v;
}

static struct dvs_eth_queue *queue_new(struct rte_eth_dev *eth, uint16_t qid, uint16_t nb,
				       int socket, int tx)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	struct dvs_eth_queue *q = rte_zmalloc_socket("dvs_eth_queue", sizeof(*q),
						     RTE_CACHE_LINE_SIZE, socket);

	if (q == NULL)
		return NULL;
	q->meta = rte_zmalloc_socket("dvs_eth_ring_meta", app_vring_meta_bytes(nb),
				     RTE_CACHE_LINE_SIZE, socket);
	if (q->meta == NULL) {
		rte_free(q);
		return NULL;
	}
	q->is_tx = (uint8_t)tx;
	q->port_id = eth->data->port_id;
	q->qid = qid;
	q->nb_desc = nb;
	q->vq_index = 2u * (s->base + qid) + (tx ? 1u : 0u);
	return q;
}

static void queue_free(struct dvs_eth_queue *q)
{
	if (q == NULL)
		return;
	rte_free(q->meta);
	rte_free(q);
}

static int dvs_eth_rx_queue_setup(struct rte_eth_dev *eth, uint16_t qid, uint16_t nb, unsigned int socket,
			      const struct rte_eth_rxconf *conf, struct rte_mempool *mp)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	int rc = primary_only(eth, "RX queue setup");
	(void)conf;

	if (rc != 0)
		return rc;
	if (s->started)
		return -EBUSY;
	/* A buffer holds a whole frame (no MRG_RXBUF) after its header. */
	uint32_t room = rte_pktmbuf_data_room_size(mp);
	uint32_t want = RTE_PKTMBUF_HEADROOM + s->mtu + DVS_ETH_FRAME_OVERHEAD;
	if (room < want || RTE_PKTMBUF_HEADROOM < DVS_ETH_NET_HDR) {
		DVS_ETH_LOG(ERR, "%s: mempool %s: %u bytes of data room, a frame of MTU %u needs %u "
			    "(the device does not split a frame over buffers)", s->prefix, mp->name,
			    room, s->mtu, want);
		return -EINVAL;
	}
	uint16_t size = ring_size(s, nb);
	struct dvs_eth_queue *q = queue_new(eth, qid, size, (int)socket, 0);
	if (q == NULL)
		return -ENOMEM;
	q->mp = mp;
	queue_free(s->rxq[qid]);
	s->rxq[qid] = q;
	eth->data->rx_queues[qid] = q;
	return 0;
}

static int dvs_eth_tx_queue_setup(struct rte_eth_dev *eth, uint16_t qid, uint16_t nb, unsigned int socket,
			      const struct rte_eth_txconf *conf)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	int rc = primary_only(eth, "TX queue setup");
	(void)conf;

	if (rc != 0)
		return rc;
	if (s->started)
		return -EBUSY;
	struct dvs_eth_queue *q = queue_new(eth, qid, ring_size(s, nb), (int)socket, 1);
	if (q == NULL)
		return -ENOMEM;
	queue_free(s->txq[qid]);
	s->txq[qid] = q;
	eth->data->tx_queues[qid] = q;
	return 0;
}

/* Queue @qid of direction @tx goes (the primary's: it set it up). */
static void queue_release(struct rte_eth_dev *eth, uint16_t qid, int tx)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	struct dvs_eth_queue **q = tx ? &s->txq[qid] : &s->rxq[qid];
	void **slots = tx ? eth->data->tx_queues : eth->data->rx_queues;
	uint16_t n = tx ? eth->data->nb_tx_queues : eth->data->nb_rx_queues;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY || qid >= DVS_ETH_MAX_QUEUES)
		return;
	queue_free(*q);
	*q = NULL;
	if (slots != NULL && qid < n)
		slots[qid] = NULL;
}

static void dvs_eth_rx_queue_release(struct rte_eth_dev *eth, uint16_t qid)
{
	queue_release(eth, qid, 0);
}

static void dvs_eth_tx_queue_release(struct rte_eth_dev *eth, uint16_t qid)
{
	queue_release(eth, qid, 1);
}

static int dvs_eth_link_update(struct rte_eth_dev *eth, int wait)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	struct rte_eth_link link = {
		.link_speed = RTE_ETH_SPEED_NUM_UNKNOWN,
		.link_duplex = RTE_ETH_LINK_FULL_DUPLEX,
		.link_autoneg = RTE_ETH_LINK_FIXED,
		.link_status = s->started ? RTE_ETH_LINK_UP : RTE_ETH_LINK_DOWN,
	};
	(void)wait;
	return rte_eth_linkstatus_set(eth, &link);
}

static int dvs_eth_start(struct rte_eth_dev *eth)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	int rc = primary_only(eth, "start");

	if (rc != 0)
		return rc;
	rc = dvs_eth_port_start(eth);
	if (rc != 0)
		return rc;
	s->started = 1;
	for (uint16_t k = 0; k < eth->data->nb_rx_queues; k++) {
		eth->data->rx_queue_state[k] = RTE_ETH_QUEUE_STATE_STARTED;
		eth->data->tx_queue_state[k] = RTE_ETH_QUEUE_STATE_STARTED;
	}
	dvs_eth_link_update(eth, 0);
	return 0;
}

static int dvs_eth_stop(struct rte_eth_dev *eth)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	int rc = primary_only(eth, "stop");

	if (rc != 0)
		return rc;
	if (!s->started)
		return 0;
	s->started = 0;
	dvs_eth_port_stop(eth);
	for (uint16_t k = 0; k < eth->data->nb_rx_queues; k++) {
		eth->data->rx_queue_state[k] = RTE_ETH_QUEUE_STATE_STOPPED;
		eth->data->tx_queue_state[k] = RTE_ETH_QUEUE_STATE_STOPPED;
	}
	dvs_eth_link_update(eth, 0);
	return 0;
}

int dvs_eth_close(struct rte_eth_dev *eth);

/* Promiscuous and all-multicast: a virtio-net device without a control
 * queue (VIRTIO_NET_F_CTRL_RX) delivers every frame, so it is both, and
 * cannot stop being either (as DPDK's net/virtio says without CTRL_RX). */
static int dvs_eth_accept(struct rte_eth_dev *eth)
{
	(void)eth;
	return 0;
}

static int dvs_eth_refuse(struct rte_eth_dev *eth)
{
	(void)eth;
	return -ENOTSUP;
}

static int dvs_eth_mac_set(struct rte_eth_dev *eth, struct rte_ether_addr *mac)
{
	struct dvs_eth_shared *s = eth->data->dev_private;

	rte_ether_addr_copy(mac, &s->mac);
	return 0;
}

static int dvs_eth_mtu_set(struct rte_eth_dev *eth, uint16_t mtu)
{
	struct dvs_eth_shared *s = eth->data->dev_private;

	if (mtu > s->mtu) {
		DVS_ETH_LOG(ERR, "%s: MTU %u: the device's is %u", s->prefix, mtu, s->mtu);
		return -EINVAL;
	}
	return 0;
}

static void sum(struct dvs_eth_counts *into, const struct dvs_eth_queue *q)
{
	const uint64_t *a = (const uint64_t *)&q->c, *b = (const uint64_t *)&q->base;
	uint64_t *o = (uint64_t *)into;

	for (size_t i = 0; i < sizeof(*into) / sizeof(uint64_t); i++)
		o[i] = a[i] - b[i];
}

static int dvs_eth_stats_get(DVS_ETH_STATS_ARGS)
{
	struct dvs_eth_shared *s = dev->data->dev_private;
	uint64_t *qi = DVS_ETH_QSTAT(q_ipackets), *qo = DVS_ETH_QSTAT(q_opackets);
	uint64_t *qib = DVS_ETH_QSTAT(q_ibytes), *qob = DVS_ETH_QSTAT(q_obytes);

	for (uint16_t k = 0; k < dev->data->nb_rx_queues && k < DVS_ETH_MAX_QUEUES; k++) {
		struct dvs_eth_counts r = { 0 }, t = { 0 };
		if (s->rxq[k] != NULL)
			sum(&r, s->rxq[k]);
		if (s->txq[k] != NULL)
			sum(&t, s->txq[k]);
		stats->ipackets += r.packets;
		stats->ibytes += r.bytes;
		stats->rx_nombuf += r.nombuf;
		stats->opackets += t.packets;
		stats->obytes += t.bytes;
		stats->oerrors += t.refused;
		if (k < RTE_ETHDEV_QUEUE_STAT_CNTRS && qi != NULL) {
			qi[k] = r.packets;
			qib[k] = r.bytes;
			qo[k] = t.packets;
			qob[k] = t.bytes;
		}
	}
	return 0;
}

static int dvs_eth_stats_reset(struct rte_eth_dev *eth)
{
	struct dvs_eth_shared *s = eth->data->dev_private;

	for (uint16_t k = 0; k < DVS_ETH_MAX_QUEUES; k++) {
		if (s->rxq[k] != NULL)
			s->rxq[k]->base = s->rxq[k]->c;
		if (s->txq[k] != NULL)
			s->txq[k]->base = s->txq[k]->c;
	}
	return 0;
}

/* xstats: per queue, the driver's counters, then the device's. */
static const char *const drv_names[] = { "packets", "bytes", "nombuf", "refused",
					 "full", "kicks", "takeovers", "lost" };
static const char *const dev_names[] = { "dev_received_desc", "dev_completed_desc",
					 "dev_error_cqes", "dev_bad_desc_errors",
					 "dev_exceed_max_chain", "dev_invalid_buffer",
					 "dev_dropped", "dev_oversize" };
#define N_DRV RTE_DIM(drv_names)
#define N_DEV RTE_DIM(dev_names)
#define PER_QUEUE (N_DRV + N_DEV)

static unsigned int n_xstats(const struct rte_eth_dev *eth)
{
	return 2u * eth->data->nb_rx_queues * (unsigned int)PER_QUEUE;
}

static int dvs_eth_xstats_get_names(struct rte_eth_dev *eth, struct rte_eth_xstat_name *names,
				    unsigned int size)
{
	unsigned int n = n_xstats(eth), i = 0;

	if (names == NULL || size < n)
		return (int)n;
	for (uint16_t k = 0; k < eth->data->nb_rx_queues; k++)
		for (int t = 0; t < 2; t++)
			for (unsigned int f = 0; f < PER_QUEUE; f++, i++)
				snprintf(names[i].name, sizeof(names[i].name), "%s_q%u_%s",
					 t ? "tx" : "rx", k,
					 f < N_DRV ? drv_names[f] : dev_names[f - N_DRV]);
	return (int)n;
}

/* The device's counters of queue @name (its .counters object), and on the
 * software device its drops; zeros where there are none. */
static void device_counts(struct rte_eth_dev *eth, const char *qname, uint32_t vq_index,
			  uint64_t out[N_DEV])
{
	struct dvs_eth_proc *p = eth->process_private;
	char n[DVSHARE_NAME_MAX + sizeof(APP_COUNTERS_SUFFIX)];
	struct dvshare_prm_virtq_counters c;
	uint8_t in[DVSHARE_PRM_HDR_SIZE], buf[DVSHARE_PRM_VIRTQ_COUNTERS_SIZE];

	memset(out, 0, N_DEV * sizeof(uint64_t));
	snprintf(n, sizeof(n), "%s" APP_COUNTERS_SUFFIX, qname);
	struct dvshare_obj *o = dvshare_obj_lookup(p->dev, n);
	if (o != NULL) {
		if (dvshare_obj_query(o, in, dvshare_prm_virtq_counters_query(in, dvshare_obj_id(o)),
				      buf, sizeof(buf)) == 0) {
			dvshare_prm_virtq_counters_parse(buf, &c);
			out[0] = c.received_desc;
			out[1] = c.completed_desc;
			out[2] = c.error_cqes;
			out[3] = c.bad_desc_errors;
			out[4] = c.exceed_max_chain;
			out[5] = c.invalid_buffer;
		}
		dvshare_obj_release(o);
	}
	struct dvs_sim_vq_counts v;
	if (dvs_sim_vq_stats(dvshare_dev_ctx(p->dev), (uint16_t)vq_index, &v) == 0) {
		out[6] = v.rx_dropped;
		out[7] = v.tx_oversize;
	}
}

static int dvs_eth_xstats_get(struct rte_eth_dev *eth, struct rte_eth_xstat *xs, unsigned int size)
{
	struct dvs_eth_shared *s = eth->data->dev_private;
	unsigned int n = n_xstats(eth), i = 0;

	if (xs == NULL || size < n)
		return (int)n;
	for (uint16_t k = 0; k < eth->data->nb_rx_queues; k++)
		for (int t = 0; t < 2; t++) {
			struct dvs_eth_queue *q = t ? s->txq[k] : s->rxq[k];
			struct dvs_eth_counts c = { 0 };
			uint64_t d[N_DEV];
			char qn[DVSHARE_NAME_MAX];
			if (q != NULL)
				sum(&c, q);
			snprintf(qn, sizeof(qn), "%s.%s%u", s->prefix, t ? "txq" : "rxq", k);
			device_counts(eth, qn, 2u * (s->base + k) + (unsigned int)t, d);
			const uint64_t *cv = (const uint64_t *)&c;
			for (unsigned int f = 0; f < PER_QUEUE; f++, i++) {
				xs[i].id = i;
				xs[i].value = f < N_DRV ? cv[f] : d[f - N_DRV];
			}
		}
	return (int)n;
}

const struct eth_dev_ops dvs_eth_ops = {
	.dev_configure = dvs_eth_configure,
	.dev_infos_get = dvs_eth_infos_get,
	.dev_start = dvs_eth_start,
	.dev_stop = dvs_eth_stop,
	.dev_close = dvs_eth_close,
	.link_update = dvs_eth_link_update,
	.promiscuous_enable = dvs_eth_accept,
	.promiscuous_disable = dvs_eth_refuse,
	.allmulticast_enable = dvs_eth_accept,
	.allmulticast_disable = dvs_eth_refuse,
	.mac_addr_set = dvs_eth_mac_set,
	.mtu_set = dvs_eth_mtu_set,
	.stats_get = dvs_eth_stats_get,
	.stats_reset = dvs_eth_stats_reset,
	.xstats_get = dvs_eth_xstats_get,
	.xstats_get_names = dvs_eth_xstats_get_names,
	.rx_queue_setup = dvs_eth_rx_queue_setup,
	.tx_queue_setup = dvs_eth_tx_queue_setup,
	.rx_queue_release = dvs_eth_rx_queue_release,
	.tx_queue_release = dvs_eth_tx_queue_release,
};
