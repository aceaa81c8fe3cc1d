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
#include <cstring>

#include "dvs_sim.h"
#include "sim_context.h"

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

/* Export: the object behind @handle must be alive; @fill writes the
 * type's fields, the ufile nonce is added here. */
template <typename Blob, typename Fill>
int export_blob(SimContext *ctx, uint32_t handle, KobjType type, void *data, Fill &&fill)
{
	if (data == nullptr)
		return fail(EINVAL);
	UfileLock lock(ctx->ufile.hdr());
	if (ctx->ufile.table().lookup(handle, type) == nullptr)
		return fail(EINVAL);
	Blob b{};
	b.handle = handle;
	fill(b);
	b.nonce = ctx->ufile.hdr()->nonce;
	memcpy(data, &b, sizeof(b));
	return 0;
}

/* Import: the blob must come from this context's ufile and name a live
 * object of @type it matches (@match); @make builds the local struct. */
template <typename Blob, typename T, typename Match, typename Make>
T *import_blob(struct ibv_context *ctx, void *data, KobjType type, Match &&match, Make &&make)
{
	SimContext *sc = to_sim(ctx);
	Blob b;

	if (sc == nullptr || data == nullptr)
		return fail_null<T>(EINVAL);
	memcpy(&b, data, sizeof(b));
	if (b.nonce != sc->ufile.hdr()->nonce)
		return fail_null<T>(EINVAL);
	UfileLock lock(sc->ufile.hdr());
	const Kobj *k = sc->ufile.table().lookup(b.handle, type);
	if (k == nullptr || !match(*k, b))
		return fail_null<T>(EINVAL);
	return make(sc, b, *k);
}

} // namespace dvs::sim

#endif
