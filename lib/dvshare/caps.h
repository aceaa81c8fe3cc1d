/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What dvshare needs to know of a device, read with QUERY_HCA_CAP through
 * the glue (mlx5dv_devx_general_cmd): whether it has VIRTIO_NET_Q, which
 * is what VAR pages exist for, and where the doorbell register sits in a
 * VAR page (DPDK's vdpa driver: doorbell_bar_offset & (page_size - 1)).
 */
#ifndef DVS_CAPS_H
#define DVS_CAPS_H

#include <cstdint>
#include <string>

#include "dvs_glue.h"
#include "dvshare_prm.h"

namespace dvs {

struct DeviceCaps {
	bool virtio_net_q = false; /* VIRTIO_NET_Q objects and VAR pages */
	uint32_t db_offset = 0;    /* doorbell register, bytes into a VAR page */
	struct dvshare_prm_virtio_caps vio = {}; /* when virtio_net_q */
};

/* Read @ctx's caps. 0, or a negative errno with the reason in @why
 * (then @caps says no VIRTIO_NET_Q). */
int read_caps(const struct dvs_glue *g, struct ibv_context *ctx, DeviceCaps *caps,
	      std::string *why);

} // namespace dvs

#endif
