/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * net_dvshare: an ethdev over VIRTIO_NET_Q queues that dvshare shares
 * between the processes of a DPDK application (doc/net_dvshare.md).
 *
 * The primary probes the port from its devargs and makes the device's
 * objects through dvshare's public API; every secondary sees the port
 * through the vdev bus and attaches to it. Everything reachable from
 * eth_dev->data lives in rte_zmalloc() memory, which every process maps
 * at one address: the queues' ring state (struct dvs_eth_queue) is
 * shared, so whichever process polls a queue drives it. What is a
 * process's own (its device handle, its mapping of the doorbell) is in
 * eth_dev->process_private (struct dvs_eth_proc).
 *
 * One process drives a queue at a time (DPDK's rule): a queue is claimed
 * by the first burst of a process and handed over when its driver
 * releases it or dies; a claim rebuilds the driver's view of the ring
 * from the ring itself (dvs_eth_queue_recover()), so a driver killed in
 * mid-burst loses at most the mbufs it held.
 */
#ifndef NET_DVSHARE_H
#define NET_DVSHARE_H

#include <stdint.h>

#include <rte_ether.h>
#include <rte_log.h>
#include <rte_mbuf.h>

#include "app_objects.h"
#include "app_vring.h"
#include "dvshare.h"
#include "net_dvshare_compat.h"

#define DVS_ETH_DRIVER net_dvshare
#define DVS_ETH_NET_HDR 12u             /* virtio_net_hdr_v1 */
#define DVS_ETH_MAX_QUEUES 16u          /* queue pairs per port */
#define DVS_ETH_MIN_DESC 64u
#define DVS_ETH_MAX_DESC 32768u
#define DVS_ETH_DEFAULT_DESC 256u
#define DVS_ETH_MAX_REGIONS APP_KLM_MAX /* the rings, then mempool memory */
#define DVS_ETH_KEY_BASE 0x10000ull     /* the indirect key's first address */
#define DVS_ETH_FRAME_OVERHEAD 18u      /* Ethernet header and one VLAN tag */
#define DVS_ETH_NAME_MAX 24u            /* the port's object prefix */

extern int dvs_eth_logtype;
#define DVS_ETH_LOG(level, fmt, ...) \
	rte_log(RTE_LOG_##level, dvs_eth_logtype, "net_dvshare: " fmt "\n", ##__VA_ARGS__)

enum dvs_eth_engine {
	DVS_ETH_ENGINE_THREAD, /* the software device's engine on a thread of the primary */
	DVS_ETH_ENGINE_SERVICE, /* as a DPDK service (dvshare_engine_start()) */
	DVS_ETH_ENGINE_NONE,   /* someone else runs it (or a NIC: it is its own) */
};

/* Memory the device reaches through the port's key: key address = VA + delta. */
struct dvs_eth_region {
	uintptr_t lo, hi;
	uint64_t delta;
};

/* A queue, shared by every process (rte_zmalloc). */
struct dvs_eth_queue {
	struct app_vring ring;          /* the driver's view; its rings in the port's UMEM */
	uint32_t owner;                 /* pid of the process driving it; 0: none */
	uint8_t ready;                  /* started: the device serves it */
	uint8_t is_tx;
	uint16_t port_id;
	uint16_t qid;
	uint16_t nb_desc;
	uint32_t vq_index;              /* the device's queue index: 2k RX, 2k + 1 TX */
	struct rte_mempool *mp;         /* RX: the pool buffers come from */
	uint16_t nb_regions;
	struct dvs_eth_region region[DVS_ETH_MAX_REGIONS];
	void *meta;                     /* the ring's bookkeeping (rte_zmalloc) */
	/* Written by the queue's driver only; @base: at the last stats reset. */
	struct dvs_eth_counts {
		uint64_t packets, bytes;
		uint64_t nombuf;        /* RX: refills the pool could not serve */
		uint64_t refused;       /* TX: packets not taken (chained, shared, outside the key) */
		uint64_t full;          /* TX: packets not taken, the ring full */
		uint64_t kicks;
		uint64_t takeovers;     /* claims from a dead driver */
		uint64_t lost;          /* mbufs a dead driver held, freed at takeover */
	} c, base;
};

/* The port, shared (eth_dev->data->dev_private). */
struct dvs_eth_shared {
	char ibdev[64];
	char prefix[DVS_ETH_NAME_MAX];  /* object names: <prefix>.db, <prefix>.rxq0, ... */
	uint16_t max_pairs;             /* queues= */
	uint16_t base;                  /* base=: the first pair's device index is 2 * base */
	uint16_t default_desc;          /* qsize= */
	uint8_t engine;                 /* enum dvs_eth_engine */
	uint8_t started;
	uint8_t opened_dev;             /* the probe opened the device (and closes it) */
	uint32_t mtu;
	struct rte_ether_addr mac;
	uint8_t *rings;                 /* <prefix>.rings: every queue's rings */
	size_t rings_len;
	uint16_t nb_keys;               /* direct keys made at start: <prefix>.key<i> */
	struct dvs_eth_region region[DVS_ETH_MAX_REGIONS];
	uint32_t region_key[DVS_ETH_MAX_REGIONS]; /* each region's direct key */
	uint16_t nb_regions;
	struct dvs_eth_queue *rxq[DVS_ETH_MAX_QUEUES], *txq[DVS_ETH_MAX_QUEUES];
};

/* A process's own view of the port (eth_dev->process_private). */
struct dvs_eth_proc {
	struct dvshare_dev *dev;
	struct dvshare_var *var;        /* the doorbell's VAR, held */
	void *db;                       /* this process's doorbell register */
	void *engine;                   /* primary, ENGINE_THREAD: struct dvs_sim_engine */
	uint32_t denied_logged[2];      /* a bit per queue: "driven by another" said once */
	uint64_t next_check[2][DVS_ETH_MAX_QUEUES]; /* when the owner's life is looked at again */
};

/* This process's pid, the value of dvs_eth_queue::owner it writes. */
extern uint32_t dvs_eth_self;

uint16_t dvs_eth_rx_burst(void *rxq, struct rte_mbuf **pkts, uint16_t n);
uint16_t dvs_eth_tx_burst(void *txq, struct rte_mbuf **pkts, uint16_t n);

/* The slow path of a burst whose process does not drive @q: claim it (a
 * free queue, or one whose driver died). 0 when this process drives it. */
int dvs_eth_queue_claim(struct dvs_eth_queue *q);

/* Give up @q if this process drives it (its remove or close). */
void dvs_eth_queue_release(struct dvs_eth_queue *q);

/* Rebuild the driver's view of @q's ring from the ring (a new driver):
 * mbufs held by no descriptor the device has or returned are freed.
 * Returns how many were. */
unsigned int dvs_eth_queue_recover(struct dvs_eth_queue *q);

/* Post RX buffers while there is room (a batch at least) and mbufs. */
void dvs_eth_rx_refill(struct dvs_eth_queue *q);

/* Free every mbuf the ring holds (the device no longer serves it). */
void dvs_eth_queue_drain(struct dvs_eth_queue *q);

/* The ethdev operations (net_dvshare_ops.c). */
extern const struct eth_dev_ops dvs_eth_ops;

/* Make the device's queues of a configured port, RDY with RX buffers
 * posted; undo them (net_dvshare_port.c). Primary only. */
int dvs_eth_port_start(struct rte_eth_dev *eth);
void dvs_eth_port_stop(struct rte_eth_dev *eth);
/* Free what the port holds on the device (a close). */
void dvs_eth_port_free(struct rte_eth_dev *eth);

#endif
