/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What dvshare_obj_create() checks of a VIRTIO_NET_Q create against the
 * device's virtio caps before sending it, so that a wrong field is named
 * with its limit instead of coming back as a firmware status and a
 * syndrome: the queue index (max_num_virtio_queues), the ring type and
 * event mode (the caps' bit masks), virtio 1.0, the queue size (the
 * virtio spec: a split ring's size is a power of two, every ring's at
 * most 32768) and each UMEM's size (umem_N_buffer_param_a * queue_size +
 * _b, as DPDK's vdpa driver sizes them).
 */
#ifndef DVS_VIRTQ_CHECK_H
#define DVS_VIRTQ_CHECK_H

#include <cstddef>
#include <cstdint>
#include <string>

#include "dvshare_prm.h"

namespace dvs {

/* 0 when the VIRTIO_NET_Q create @in (@inlen bytes) fits @caps; -EINVAL
 * with the field, its value and the limit in @why otherwise. A command
 * shorter than DVSHARE_PRM_VIRTQ_SIZE is left to the device. */
int virtq_create_check(const struct dvshare_prm_virtio_caps &caps, const void *in, size_t inlen,
		       std::string *why);

} // namespace dvs

#endif
