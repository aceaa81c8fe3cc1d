/* SPDX-License-Identifier: BSD-3-Clause */
/* The sim's glue table and its introspection entry points. */
#include <algorithm>
#include <atomic>
#include <cstring>

#include "sim_context.h"
#include "sim_var_pages.h"

namespace dvs::sim {

namespace {

/* Versioned like rdma-core's: fill no more than the caller's struct. */
void get_export_sizes(struct mlx5dv_export_sizes *sizes, size_t sizes_len)
{
	struct mlx5dv_export_sizes s = {};

	s.var_attrs_size = DVS_SIM_VAR_EXPORT_SIZE;
	s.devx_umem_attrs_size = DVS_SIM_UMEM_EXPORT_SIZE;
	s.devx_obj_attrs_size = DVS_SIM_OBJ_EXPORT_SIZE;
	memcpy(sizes, &s, std::min(sizes_len, sizeof(s)));
}

struct dvs_glue make_glue()
{
	struct dvs_glue g{};

	g.provider = "sim";
	snprintf(g.origin, sizeof(g.origin), "the software device built into dvshare");
	g.get_device_list = get_device_list;
	g.free_device_list = free_device_list;
	g.get_device_name = get_device_name;
	g.dv_open_device = dv_open_device;
	g.import_device = import_device;
	g.close_device = close_device;
	g.alloc_var = alloc_var;
	g.free_var = free_var;
	g.var_export = var_export;
	g.var_import = var_import;
	g.var_unimport = var_unimport;
	g.mmap_cmd = mmap_cmd;
	g.devx_obj_create = devx_obj_create;
	g.devx_obj_query = devx_obj_query;
	g.devx_obj_modify = devx_obj_modify;
	g.devx_obj_destroy = devx_obj_destroy;
	g.devx_obj_export = devx_obj_export;
	g.devx_obj_import = devx_obj_import;
	g.devx_obj_unimport = devx_obj_unimport;
	g.devx_general_cmd = devx_general_cmd;
	g.devx_umem_reg = umem_reg;
	g.devx_umem_dereg = umem_dereg;
	g.devx_umem_export = umem_export;
	g.devx_umem_import = umem_import;
	g.devx_umem_unimport = umem_unimport;
	g.get_export_sizes = get_export_sizes;
	return g;
}

} // namespace

} // namespace dvs::sim

using namespace dvs::sim;

const struct dvs_glue *dvs_sim_glue(void)
{
	static const struct dvs_glue glue = make_glue();
	return &glue;
}

int dvs_sim_is_context(const struct ibv_context *ctx)
{
	return to_sim(ctx) != nullptr;
}

int dvs_sim_stats(struct ibv_context *ctx, struct dvs_sim_stats *stats)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || stats == nullptr)
		return -EINVAL;
	UfileLock lock(sc->ufile.hdr());
	HandleTable t = sc->ufile.table();
	stats->pages_held = reclaim_pages(sc->ufile);
	stats->vars = t.live(KobjType::Var);
	stats->devx_objs = t.live(KobjType::DevxObj);
	stats->umems = t.live(KobjType::Umem);
	stats->uars = t.live(KobjType::Uar);
	stats->lock_recoveries = sc->ufile.hdr()->lock_recoveries;
	stats->fence_waits = sc->ufile.hdr()->fence_waits;
	stats->fence_wait_max_ns = sc->ufile.hdr()->fence_wait_max_ns;
	stats->fenced_turn_max_ns = sc->ufile.hdr()->fenced_turn_max_ns;
	return 0;
}

int dvs_sim_page_kicks(struct ibv_context *ctx, uint32_t page_id, uint64_t *kicks,
		       uint32_t *last_value)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || page_id >= kVarPages)
		return -EINVAL;
	PageState &ps = sc->ufile.page(page_id);
	if (std::atomic_ref<uint32_t>(ps.use).load(std::memory_order_acquire) !=
	    static_cast<uint32_t>(PageUse::Owned))
		return -ENOENT;
	if (kicks != nullptr)
		*kicks = std::atomic_ref<uint64_t>(ps.kicks).load(std::memory_order_relaxed);
	if (last_value != nullptr)
		*last_value = std::atomic_ref<uint32_t>(ps.last).load(std::memory_order_relaxed);
	return 0;
}

int dvs_sim_lock(struct ibv_context *ctx)
{
	SimContext *sc = to_sim(ctx);

	return sc == nullptr ? -EINVAL : UfileLock::acquire(sc->ufile.hdr());
}

void dvs_sim_unlock(struct ibv_context *ctx)
{
	SimContext *sc = to_sim(ctx);

	if (sc != nullptr)
		UfileLock::release(sc->ufile.hdr());
}
