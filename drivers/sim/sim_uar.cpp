/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The UAR every context allocates. libmlx5 sets up a non-cached UAR for
 * each opened and each imported context (mlx5_set_context ->
 * mlx5_set_singleton_nc_uar -> mlx5_alloc_dyn_uar), and mlx5_ib makes it
 * a uverbs object with an mmap entry in the range the VARs use
 * (MLX5_IB_METHOD_UAR_OBJ_ALLOC). So on a NIC a context's UAR takes a
 * handle and an entry before any VAR, a closed context gives both back,
 * and a process that dies without closing leaves its UAR until the
 * ufile goes (the last fd closed). The sim keeps that bookkeeping; it has
 * no UAR page to map. libmlx5 carries on without the UAR when the
 * allocation fails, and so does the sim. Callers hold the ufile lock.
 */
#include <unistd.h>

#include "sim_context.h"
#include "sim_var_pages.h"

namespace dvs::sim {

uint32_t alloc_uar(const Ufile &u)
{
	HandleTable t = u.table();

	/* Half the entries are the VARs': UARs never starve them. */
	if (t.live(KobjType::Uar) >= kMmapEntries - kVarPages)
		return HandleTable::kNone;
	Kobj k{};
	k.owner_pid = self_pid();
	uint32_t handle = t.insert(k, KobjType::Uar);
	if (handle == HandleTable::kNone)
		return handle;
	int e = take_entry(u, EntryUse::Uar, handle);
	if (e < 0) {
		t.remove(handle);
		return HandleTable::kNone;
	}
	t.at(handle)->id = static_cast<uint32_t>(e);
	return handle;
}

void free_uar(const Ufile &u, uint32_t handle)
{
	HandleTable t = u.table();
	Kobj *k = nullptr;

	if (handle == HandleTable::kNone || t.lookup(handle, KobjType::Uar, &k) != 0)
		return;
	free_entry(u, k->id);
	t.remove(handle);
}

} // namespace dvs::sim
