/* SPDX-License-Identifier: BSD-3-Clause */
/* DEVX UMEMs: register, deregister, export, import, unimport. */
#include <algorithm>
#include <cstring>
#include <memory>

#include <sys/mman.h>
#include <unistd.h>

#include "sim_context.h"
#include "sim_export.h"

namespace dvs::sim {

namespace {

constexpr uint32_t kKnownAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				  IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC |
				  IBV_ACCESS_RELAXED_ORDERING;

/* The kernel pins the pages of a UMEM; memory that is not mapped fails
 * with EFAULT. mincore() answers "is every page of the range mapped". */
bool range_mapped(void *addr, size_t size)
{
	const size_t pg = static_cast<size_t>(sysconf(_SC_PAGESIZE));
	auto start = reinterpret_cast<uintptr_t>(addr) & ~(pg - 1);
	auto end = reinterpret_cast<uintptr_t>(addr) + size;
	unsigned char vec[64];

	for (uintptr_t p = start; p < end; p += pg * sizeof(vec)) {
		size_t len = std::min<size_t>(end - p, pg * sizeof(vec));
		if (mincore(reinterpret_cast<void *>(p), len, vec) != 0)
			return false;
	}
	return true;
}

SimUmem *to_umem(struct mlx5dv_devx_umem *umem)
{
	return reinterpret_cast<SimUmem *>(umem);
}

struct mlx5dv_devx_umem *make_umem(SimContext *sc, uint32_t handle, uint32_t umem_id)
{
	auto u = std::make_unique<SimUmem>();

	u->ctx = sc;
	u->handle = handle;
	u->dv.umem_id = umem_id;
	return &u.release()->dv;
}

} // namespace

Kobj *find_umem(const HandleTable &t, uint32_t umem_id)
{
	Kobj *k = t.at_slot(slot_of_id(umem_id), KobjType::Umem);

	return k != nullptr && k->id == umem_id ? k : nullptr;
}

struct mlx5dv_devx_umem *umem_reg(struct ibv_context *ctx, void *addr, size_t size,
				  uint32_t access)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || addr == nullptr || size == 0 || (access & ~kKnownAccess) != 0)
		return fail_null<struct mlx5dv_devx_umem>(EINVAL);
	if (!sc->ufile.hdr()->devx)
		return fail_null<struct mlx5dv_devx_umem>(EOPNOTSUPP);
	if (!range_mapped(addr, size))
		return fail_null<struct mlx5dv_devx_umem>(EFAULT);
	Kobj k{};
	k.addr = reinterpret_cast<uintptr_t>(addr);
	k.size = size;
	k.access = access;
	k.owner_pid = getpid();
	UfileLock lock(sc->ufile.hdr());
	HandleTable t = sc->ufile.table();
	uint32_t handle = t.insert(k, KobjType::Umem);
	if (handle == 0)
		return fail_null<struct mlx5dv_devx_umem>(ENOSPC);
	t.lookup(handle, KobjType::Umem)->id = umem_id_of(handle);
	return make_umem(sc, handle, umem_id_of(handle));
}

int umem_dereg(struct mlx5dv_devx_umem *umem)
{
	if (umem == nullptr)
		return fail(EINVAL);
	SimUmem *u = to_umem(umem);
	{
		UfileLock lock(u->ctx->ufile.hdr());
		HandleTable t = u->ctx->ufile.table();
		const Kobj *k = t.lookup(u->handle, KobjType::Umem);
		if (k == nullptr)
			return fail(EINVAL);
		/* An object still points into this memory. */
		if (k->users != 0)
			return fail(EBUSY);
		t.remove(u->handle, KobjType::Umem);
	}
	std::unique_ptr<SimUmem> owned(u);
	return 0;
}

int umem_export(struct mlx5dv_devx_umem *umem, void *data)
{
	if (umem == nullptr)
		return fail(EINVAL);
	SimUmem *u = to_umem(umem);
	return export_blob<UmemBlob>(u->ctx, u->handle, KobjType::Umem, data,
				     [&](UmemBlob &b) { b.umem_id = umem->umem_id; });
}

struct mlx5dv_devx_umem *umem_import(struct ibv_context *ctx, void *data)
{
	return import_blob<UmemBlob, struct mlx5dv_devx_umem>(
		ctx, data, KobjType::Umem,
		[](const Kobj &k, const UmemBlob &b) { return k.id == b.umem_id; },
		[](SimContext *sc, const UmemBlob &b, const Kobj &) {
			return make_umem(sc, b.handle, b.umem_id);
		});
}

void umem_unimport(struct mlx5dv_devx_umem *umem)
{
	std::unique_ptr<SimUmem> owned(to_umem(umem));
}

} // namespace dvs::sim
