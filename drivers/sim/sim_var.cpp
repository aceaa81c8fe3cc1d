/* SPDX-License-Identifier: BSD-3-Clause */
/* VAR doorbell pages: alloc, free, export, import, unimport. */
#include <atomic>
#include <cstring>
#include <memory>

#include <unistd.h>

#include "sim_context.h"
#include "sim_export.h"

namespace dvs::sim {

namespace {

/* Lowest free page, as the kernel's bitmap allocator hands them out; a
 * freed page is the next one given away, which is what fencing guards. */
int take_page(const Ufile &u)
{
	for (uint32_t p = 0; p < kVarPages; p++) {
		PageState &ps = u.page(p);
		std::atomic_ref<uint32_t> used(ps.used);

		if (used.load(std::memory_order_acquire) != 0)
			continue;
		uint32_t *words = u.var_words(p);
		for (uint32_t w = 0; w < DVS_SIM_DB_WORDS; w++)
			std::atomic_ref<uint32_t>(words[w]).store(DVS_SIM_DB_IDLE,
								  std::memory_order_relaxed);
		std::atomic_ref<uint64_t>(ps.kicks).store(0, std::memory_order_relaxed);
		std::atomic_ref<uint32_t>(ps.last).store(0, std::memory_order_relaxed);
		used.store(1, std::memory_order_release);
		return static_cast<int>(p);
	}
	return -1;
}

void release_page(const Ufile &u, uint32_t page_id)
{
	std::atomic_ref<uint32_t>(u.page(page_id).used).store(0, std::memory_order_release);
}

struct mlx5dv_var *make_var(SimContext *sc, uint32_t handle, uint32_t page_id)
{
	auto v = std::make_unique<SimVar>();

	v->ctx = sc;
	v->handle = handle;
	v->dv.page_id = page_id;
	v->dv.length = kPage;
	v->dv.mmap_off = static_cast<off_t>(kVarAreaOff + kPage * page_id);
	return &v.release()->dv;
}

SimVar *to_var(struct mlx5dv_var *var)
{
	return reinterpret_cast<SimVar *>(var);
}

} // namespace

struct mlx5dv_var *alloc_var(struct ibv_context *ctx, uint32_t flags)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || flags != 0)
		return fail_null<struct mlx5dv_var>(EINVAL);
	UfileLock lock(sc->ufile.hdr());
	int page = take_page(sc->ufile);
	if (page < 0)
		return fail_null<struct mlx5dv_var>(ENOMEM);
	Kobj k{};
	k.id = static_cast<uint32_t>(page);
	k.owner_pid = getpid();
	uint32_t handle = sc->ufile.table().insert(k, KobjType::Var);
	if (handle == 0) {
		release_page(sc->ufile, static_cast<uint32_t>(page));
		return fail_null<struct mlx5dv_var>(ENOSPC);
	}
	return make_var(sc, handle, static_cast<uint32_t>(page));
}

void free_var(struct mlx5dv_var *var)
{
	if (var == nullptr)
		return;
	std::unique_ptr<SimVar> v(to_var(var));
	UfileLock lock(v->ctx->ufile.hdr());
	HandleTable t = v->ctx->ufile.table();
	Kobj *k = t.lookup(v->handle, KobjType::Var);
	if (k == nullptr)
		return; /* already freed through another context */
	uint32_t page = k->id;
	t.remove(v->handle, KobjType::Var);
	release_page(v->ctx->ufile, page);
}

int var_export(struct mlx5dv_var *var, void *data)
{
	if (var == nullptr)
		return fail(EINVAL);
	SimVar *v = to_var(var);
	return export_blob<VarBlob>(v->ctx, v->handle, KobjType::Var, data, [&](VarBlob &b) {
		b.page_id = var->page_id;
		b.length = var->length;
		b.mmap_off = static_cast<uint64_t>(var->mmap_off);
	});
}

struct mlx5dv_var *var_import(struct ibv_context *ctx, void *data)
{
	return import_blob<VarBlob, struct mlx5dv_var>(
		ctx, data, KobjType::Var,
		[](const Kobj &k, const VarBlob &b) {
			return k.id == b.page_id && b.length == kPage &&
			       b.mmap_off == kVarAreaOff + kPage * b.page_id;
		},
		[](SimContext *sc, const VarBlob &b, const Kobj &) {
			return make_var(sc, b.handle, b.page_id);
		});
}

void var_unimport(struct mlx5dv_var *var)
{
	std::unique_ptr<SimVar> v(to_var(var));
}

} // namespace dvs::sim
