/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Real device objects, built only with dvshare.h and dvshare_prm.h as an
 * application would, for the demo, the benchmark and the multi-process
 * tests: the device's capabilities, a protection domain, a flow counter,
 * and a VIRTIO_NET_Q with its three UMEMs sized from the caps. Every call
 * works on a ConnectX-6 Dx / BlueField and on the software device alike.
 */
#ifndef DVS_APP_OBJECTS_H
#define DVS_APP_OBJECTS_H

#include <stdint.h>

#include "dvshare.h"
#include "dvshare_prm.h"

/* Names of the PD, transport domain and TIS the helpers below share per
 * device, as DPDK's vdpa driver makes one of each per device. */
#define APP_PD_NAME "pd"
#define APP_TD_NAME "td"
#define APP_TIS_NAME "tis"
/* Suffix of a queue's own VIRTIO_Q_COUNTERS object: <queue>.counters. */
#define APP_COUNTERS_SUFFIX ".counters"

/*
 * Read the general and virtio emulation caps through dvshare_dev_general_cmd
 * (primary or secondary). @vio may be NULL.
 * 0; -EOPNOTSUPP when the device has no VIRTIO_NET_Q (then @vio is zeroed);
 * or the command's negative errno.
 */
int app_caps(struct dvshare_dev *dev, struct dvshare_prm_hca_caps *gen,
	     struct dvshare_prm_virtio_caps *vio);

/* The device's shared PD (APP_PD_NAME), created and published on first
 * use (any process). 0 and *pd, or a negative errno. */
int app_pd(struct dvshare_dev *dev, uint32_t *pd);

/* The device's shared TIS (APP_TIS_NAME) on its transport domain
 * (APP_TD_NAME), each created and published on first use (any process).
 * 0 and *tisn, or a negative errno. */
int app_tis(struct dvshare_dev *dev, uint32_t *tisn);

/*
 * The event mode app_virtq_create() gives a queue on a device with @vio:
 * NO_MSIX (the application polls), the one DPDK's vdpa driver picks for
 * a polled queue when the caps offer it. -EOPNOTSUPP when they do not:
 * QP mode needs an event QP and CQ, which these helpers do not build.
 */
int app_virtq_event_mode(const struct dvshare_prm_virtio_caps *vio);

/* Create and publish a flow counter named @name on the device's PD
 * (any process). 0 and *id, or a negative errno. */
int app_counter_create(struct dvshare_dev *dev, const char *name, uint32_t *id);

/* Read a flow counter through this process's context. 0 or a negative
 * errno (-EREMOTEIO: the device refused; -ENODEV: revoked). */
int app_counter_read(struct dvshare_obj *counter, uint64_t *packets, uint64_t *octets);

/*
 * Create and publish a VIRTIO_NET_Q named @name, as DPDK's vdpa driver
 * prepares one (mlx5_vdpa_virtq_sub_objs_prepare): on the device's PD and
 * TIS, with three UMEMs named <name>.umem1..3 of the sizes the caps ask
 * for, its own VIRTIO_Q_COUNTERS <name>.counters when the general caps
 * offer the type, in state INIT, split ring, the event mode of
 * app_virtq_event_mode(), no mkey yet (any process). The UMEMs' memory is
 * freed with them as app_umem_reg()'s are. 0 and *obj_id, or a negative errno;
 * on a device failure *status / *syndrome (may be NULL) say why.
 */
int app_virtq_create(struct dvshare_dev *dev, const char *name, uint16_t queue_index,
		     uint16_t queue_size, uint32_t *obj_id, uint8_t *status, uint32_t *syndrome);

/* Where a queue's rings are, through which key (its virtio_q_mkey). */
struct app_virtq_rings {
	uint32_t mkey;
	uint64_t desc, avail, used;
};

/* app_virtq_create(), the queue given its key and rings at create (as
 * DPDK's vdpa driver gives them, so that a state change is the only
 * modify it needs). @rings NULL: none, as app_virtq_create(). */
int app_virtq_create_rings(struct dvshare_dev *dev, const char *name, uint16_t queue_index,
			   uint16_t queue_size, const struct app_virtq_rings *rings,
			   uint32_t *obj_id, uint8_t *status, uint32_t *syndrome);

/* A direct key named @name over UMEM @umem_id ([@addr, @addr + @len) of
 * this process, the key's addresses the virtual ones), readable and
 * writable by the device, on the device's PD (any process). 0 and *mkey,
 * or a negative errno. */
int app_mkey_create(struct dvshare_dev *dev, const char *name, uint32_t umem_id, const void *addr,
		    uint64_t len, uint32_t *mkey);

/* The most KLM entries app_mkey_klm_create() takes: what a device
 * reporting log_max_klm_list_size 3 (the software device) allows. */
#define APP_KLM_MAX 8u

/* An indirect key named @name over @n pieces of direct keys (@klm, in
 * order), its range starting at @start, readable and writable by the
 * device, on the device's PD (any process). 0 and *mkey, or a negative
 * errno. */
int app_mkey_klm_create(struct dvshare_dev *dev, const char *name, uint64_t start,
			const struct dvshare_prm_klm *klm, unsigned int n, uint32_t *mkey);

/* @size bytes of DPDK memory (page-aligned, zeroed) as UMEM @name, in
 * any process (dvshare_umem_alloc()): the memory goes with the UMEM,
 * whoever destroys it, so nothing is left to free. 0 and *id, or a
 * negative errno. */
int app_umem_reg(struct dvshare_dev *dev, const char *name, uint64_t size, uint32_t *id);

/* Destroy a queue made by app_virtq_create(), then its UMEMs and counters
 * (a secondary: one it made). */
int app_virtq_destroy(struct dvshare_dev *dev, const char *name, unsigned int timeout_ms);

/* Query a VIRTIO_NET_Q through this process's context. 0 or a negative errno. */
int app_virtq_query(struct dvshare_obj *q, struct dvshare_prm_virtq *out);

/* Modify the fields @select names (DVSHARE_PRM_VIRTQ_MODIFY_*) to @want.
 * 0 or a negative errno; on a device failure *status / *syndrome say why. */
int app_virtq_modify(struct dvshare_obj *q, uint64_t select, const struct dvshare_prm_virtq *want,
		     uint8_t *status, uint32_t *syndrome);

#endif
