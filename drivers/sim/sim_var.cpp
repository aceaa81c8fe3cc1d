/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * VAR doorbell pages: alloc, free, export, import, unimport (libmlx5 +
 * mlx5_ib's VAR object), and the kernel's mmap handler for a cmd_fd.
 */
#include <cstring>
#include <memory>

#include <sys/mman.h>
#include <unistd.h>

#include "sim_context.h"
#include "sim_export.h"
#include "sim_var_pages.h"

namespace dvs::sim {

namespace {

/* rdma-core's MLX5DV_VAR_ALLOC_FLAG_TLP (mlx5_api.h), missing from older
 * headers. */
constexpr uint32_t kVarFlagTlp = 1u << 0;

struct mlx5dv_var *make_var(SimContext *sc, uint32_t handle, uint32_t page_id,
			    uint32_t length, uint64_t mmap_off)
{
	auto v = std::make_unique<SimVar>();

	v->ctx = sc;
	v->handle = handle;
	v->dv.page_id = page_id;
	v->dv.length = length;
	v->dv.mmap_off = static_cast<off_t>(mmap_off);
	return &v.release()->dv;
}

SimVar *to_var(struct mlx5dv_var *var)
{
	return reinterpret_cast<SimVar *>(var);
}

} // namespace

/* mlx5dv_alloc_var: flags other than TLP are EOPNOTSUPP in libmlx5; the
 * kernel takes the lowest free page (alloc_var_entry: find_first_zero_bit),
 * -ENOSPC when there is none, and the lowest free mmap entry, which the
 * contexts' UARs share (rdma_user_mmap_entry_insert_range). */
struct mlx5dv_var *alloc_var(struct ibv_context *ctx, uint32_t flags)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || (flags & ~kVarFlagTlp) != 0)
		return fail_null<struct mlx5dv_var>(EOPNOTSUPP);
	UfileLock lock(sc->ufile.hdr());
	HandleTable t = sc->ufile.table();
	Kobj k{};
	k.owner_pid = self_pid();
	uint32_t handle = t.insert(k, KobjType::Var);
	if (handle == HandleTable::kNone)
		return fail_null<struct mlx5dv_var>(ENOMEM);
	int page = take_page(sc->ufile, handle);
	if (page < 0) {
		t.remove(handle);
		return fail_null<struct mlx5dv_var>(page == -ENOSPC ? ENOSPC : ENOMEM);
	}
	t.at(handle)->id = static_cast<uint32_t>(page);
	return make_var(sc, handle, static_cast<uint32_t>(page), kPage,
			entry_mmap_off(sc->ufile.page(static_cast<uint32_t>(page)).entry));
}

/* mlx5dv_free_var: destroys whatever VAR the handle names now (a stale
 * handle reaches the object that reused the number) and frees the local
 * struct even when the kernel refuses, as libmlx5 does. */
void free_var(struct mlx5dv_var *var)
{
	if (var == nullptr)
		return;
	std::unique_ptr<SimVar> v(to_var(var));
	UfileLock lock(v->ctx->ufile.hdr());
	HandleTable t = v->ctx->ufile.table();
	Kobj *k = nullptr;
	if (t.lookup(v->handle, KobjType::Var, &k) != 0)
		return;
	release_page(v->ctx->ufile, k->id);
	t.remove(v->handle);
}

int var_export(struct mlx5dv_var *var, void *data)
{
	if (var == nullptr)
		return fail(EINVAL);
	return export_blob<VarBlob>(data, [&](VarBlob &b) {
		b.handle = to_var(var)->handle;
		b.page_id = var->page_id;
		b.length = var->length;
		b.mmap_off = static_cast<uint64_t>(var->mmap_off);
	});
}

struct mlx5dv_var *var_import(struct ibv_context *ctx, void *data)
{
	return import_blob<VarBlob, struct mlx5dv_var>(ctx, data, [](SimContext *sc, const VarBlob &b) {
		return make_var(sc, b.handle, b.page_id, b.length, b.mmap_off);
	});
}

void var_unimport(struct mlx5dv_var *var)
{
	std::unique_ptr<SimVar> v(to_var(var));
}

/*
 * mmap(cmd_fd): rdma_user_mmap_entry_get finds no live entry for an offset
 * whose VAR was freed (or never existed) and mlx5_ib_mmap_offset fails
 * with EINVAL; rdma_user_mmap_io wants a shared mapping of exactly the
 * entry's length. A mapping that succeeds keeps the page out of the pool
 * until it is gone.
 */
void *mmap_cmd(struct ibv_context *ctx, void *addr, size_t length, int prot, int flags,
	       off_t offset)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || offset < 0 || length != kPage || (flags & MAP_TYPE) != MAP_SHARED)
		return fail_null<void>(EINVAL);
	if (int err = take_mmap_failure(); err != 0)
		return fail_null<void>(err);
	UfileLock lock(sc->ufile.hdr());
	/* A UAR's entry has no page in the sim: refused as an unknown one. */
	int page = page_of_offset(sc->ufile, static_cast<uint64_t>(offset));
	if (page < 0 ||
	    sc->ufile.page(static_cast<uint32_t>(page)).use != static_cast<uint32_t>(PageUse::Owned))
		return fail_null<void>(EINVAL);
	void *p = ::mmap(addr, length, prot, flags, sc->ufile.fd(), offset);
	if (p == MAP_FAILED)
		return nullptr;
	record_mapping(sc->ufile, static_cast<uint32_t>(page), p);
	return p;
}

} // namespace dvs::sim
