/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Export blobs, byte for byte rdma-core 65's on x86-64 (providers/mlx5
 * mlx5.h: mlx5dv_var_attrs, mlx5dv_devx_obj_attrs, mlx5dv_devx_umem_attrs).
 * As in libmlx5, export zeroes the caller's buffer and copies the local
 * struct's fields; import allocates a local struct around the same handle
 * and validates nothing: a blob imported into a context that does not
 * share the exporter's ufile fails later, at mmap or at a command, or
 * reaches another object (mlx5dv_devx_obj_export(3)).
 */
#ifndef DVS_SIM_EXPORT_H
#define DVS_SIM_EXPORT_H

#include <cstdint>
#include <cstring>
#include <memory>

#include "dvs_sim.h"
#include "sim_context.h"

namespace dvs::sim {

struct VarBlob {
	uint32_t handle;
	uint32_t page_id;
	uint32_t length;
	uint32_t pad;
	uint64_t mmap_off;
};
static_assert(sizeof(VarBlob) == DVS_SIM_VAR_EXPORT_SIZE);

struct ObjBlob {
	uint32_t handle;
	uint32_t type;
	uint32_t object_id;
	uint32_t pad;
	uint64_t rx_icm_addr;
	uint8_t log_obj_range;
	uint8_t pad2[7];
};
static_assert(sizeof(ObjBlob) == DVS_SIM_OBJ_EXPORT_SIZE);

struct UmemBlob {
	uint32_t handle;
	uint32_t umem_id;
};
static_assert(sizeof(UmemBlob) == DVS_SIM_UMEM_EXPORT_SIZE);

/* Export: zero the caller's buffer, let @fill copy the fields. */
template <typename Blob, typename Fill> int export_blob(void *data, Fill &&fill)
{
	Blob b{};

	if (data == nullptr)
		return fail(EINVAL);
	fill(b);
	memcpy(data, &b, sizeof(b));
	return 0;
}

/* Import: a local struct of type @T built by @make from the blob, with no
 * kernel call. Fails only for a context of another provider (libmlx5:
 * EOPNOTSUPP) or no memory. */
template <typename Blob, typename T, typename Make>
T *import_blob(struct ibv_context *ctx, const void *data, Make &&make)
{
	SimContext *sc = to_sim(ctx);
	Blob b;

	if (sc == nullptr)
		return fail_null<T>(EOPNOTSUPP);
	if (data == nullptr)
		return fail_null<T>(EINVAL);
	memcpy(&b, data, sizeof(b));
	return make(sc, b);
}

} // namespace dvs::sim

#endif
