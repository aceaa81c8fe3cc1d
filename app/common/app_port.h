/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A virtio-net port on a dvshare device, driven by the process that made
 * it: an RX queue (index 2k) and a TX queue (2k+1), VIRTIO_NET_Q objects
 * on the device's PD and TIS, with their rings and an mbuf pool in one
 * UMEM of DPDK memory (dvshare_umem_alloc(): freed with the UMEM, by
 * whichever process destroys it, so a secondary that crashes leaks no
 * heap), a direct key whose addresses are the virtual ones (IOVA = VA, as
 * virtio-user does), and a VAR to kick through. Any process makes one (a
 * secondary through the primary's creates); packets are DPDK's own
 * rte_mbufs. Objects, for a port named N: N.rxq and N.txq (each with its
 * .umem1..3 and .counters), N.umem, N.key, N.db; the pool "dvs-<dev>-N".
 *
 * Each mbuf is one descriptor: its headroom holds the 12-byte
 * virtio_net_hdr_v1 the device reads (TX) or writes (RX), so a packet
 * needs no copy in the driver. The device has no MRG_RXBUF: an RX buffer
 * holds a whole frame (an mbuf's data room, 2048 bytes by default).
 */
#ifndef DVS_APP_PORT_H
#define DVS_APP_PORT_H

#include <stdint.h>

#include <rte_mbuf.h>

#include "app_vring.h"
#include "dvshare.h"
#include "dvshare_prm.h"

#define APP_PORT_NAME_MAX 24 /* room left in DVSHARE_NAME_MAX for the suffixes */
#define APP_NET_HDR 12u      /* virtio_net_hdr_v1 */

struct app_port_stats {
	uint64_t rx_packets, rx_bytes;
	uint64_t tx_packets, tx_bytes;
	uint64_t tx_full;      /* packets tx_burst could not post: ring full */
	uint64_t rx_nombuf;    /* RX refills the pool could not serve */
	uint64_t tx_bursts;    /* tx_burst calls that posted something */
	uint64_t tx_kicks;     /* doorbells written for the TX queue */
	uint64_t rx_kicks;     /* and for the RX queue (until the device says
				* it reads RX buffers without them) */
};

struct app_port {
	struct dvshare_dev *dev;
	char name[APP_PORT_NAME_MAX];
	uint16_t index;          /* k: queues 2k and 2k + 1 */
	uint16_t size;
	uint8_t *mem;            /* N.umem's memory: the rings, then the pool */
	size_t mem_len;
	struct rte_mempool *pool;
	struct dvshare_obj *q[2]; /* RX, TX */
	void *db;                /* this process's doorbell register */
	struct app_vring ring[2];
	void *meta;
	struct app_port_stats st;
	/* How a kick is written: NULL, a store of the queue index to the
	 * port's doorbell (dvshare_doorbell32()); else this call (a benchmark
	 * forwarding kicks to the primary). @kick_always: kick the TX queue
	 * every burst, even while the device says it polls. */
	void (*kick)(struct app_port *p, uint32_t queue_index);
	int kick_always;
};

/*
 * Make port @name, queues 2 * @index and 2 * @index + 1 of @size entries
 * (a power of two), on @dev, RDY with RX buffers posted. Any process.
 * 0 and *out, or a negative errno (-EOPNOTSUPP: the device has no
 * VIRTIO_NET_Q; a device failure: *status and *syndrome, may be NULL).
 * Nothing made stays on failure.
 */
int app_port_create(struct dvshare_dev *dev, const char *name, uint16_t index, uint16_t size,
		    struct app_port **out, uint8_t *status, uint32_t *syndrome);

/* Destroy what app_port_create() made (the queues first), then free it. */
int app_port_destroy(struct app_port *p, unsigned int timeout_ms);

/*
 * Receive up to @n packets (what the device wrote, its header stripped)
 * and post as many fresh buffers; the RX queue is kicked only if the
 * device asks (it does not while it polls).
 */
uint16_t app_port_rx_burst(struct app_port *p, struct rte_mbuf **pkts, uint16_t n);

/*
 * Send up to @n single-segment packets (a header written in each
 * headroom); the ones posted belong to the port until the device has
 * sent them, the others (ring full, chained or too little headroom) stay
 * the caller's. At most one kick, skipped while the device polls.
 * Returns how many were posted.
 */
uint16_t app_port_tx_burst(struct app_port *p, struct rte_mbuf **pkts, uint16_t n);

/* Free the mbufs of what the device has sent. */
void app_port_tx_done(struct app_port *p);

/* The device's view of the port's queues: QUERY and their counters. */
struct app_port_device_view {
	struct dvshare_prm_virtq q[2];
	struct dvshare_prm_virtq_counters c[2];
	int have_counters;
};
int app_port_device_view(struct app_port *p, struct app_port_device_view *v);

#endif
