/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The sim's export blobs. rdma-core's blobs hold the kernel handle plus the
 * fields needed to rebuild the user-space struct; the sim's add the ufile
 * nonce, so an import into a context that does not share the exporter's
 * ufile is refused at once (rdma-core cannot tell, and fails later).
 * Blobs are host-endian: they never leave the machine.
 */
#ifndef DVS_SIM_EXPORT_H
#define DVS_SIM_EXPORT_H

#include <cstdint>

#include "dvs_sim.h"

namespace dvs::sim {

struct VarBlob {
	uint32_t handle;
	uint32_t page_id;
	uint32_t length;
	uint32_t reserved;
	uint64_t mmap_off;
	uint64_t nonce;
};
static_assert(sizeof(VarBlob) == DVS_SIM_VAR_EXPORT_SIZE);

struct ObjBlob {
	uint32_t handle;
	uint32_t type;
	uint32_t object_id;
	uint32_t log_obj_range;
	uint64_t rx_icm_addr;
	uint64_t nonce;
};
static_assert(sizeof(ObjBlob) == DVS_SIM_OBJ_EXPORT_SIZE);

struct UmemBlob {
	uint32_t handle;
	uint32_t umem_id;
	uint64_t nonce;
};
static_assert(sizeof(UmemBlob) == DVS_SIM_UMEM_EXPORT_SIZE);

} // namespace dvs::sim

#endif
