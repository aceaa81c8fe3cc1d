/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The uverbs object table of a ufile, over shared memory.
 *
 * Handles are allocated as the kernel's ufile xarray does (xa_alloc on an
 * XA_FLAGS_ALLOC array, rdma_alloc_begin_idr_uobject): the lowest free
 * number, from 0, reused at once after a destroy. So a handle kept past a
 * destroy reaches whatever object holds the number now; one that holds
 * nothing gives ENOENT, one of another type EINVAL (lookup_get_idr_uobject,
 * rdma_lookup_get_uobject). Callers serialise mutations (the ufile lock).
 *
 * Firmware ids are not handles: each allocation of a slot bumps its
 * fw_gen, and ids are (fw_gen << 15) | slot, so a firmware id is not
 * reused at once and finding an object by id is O(1).
 */
#ifndef DVS_SIM_HANDLE_TABLE_H
#define DVS_SIM_HANDLE_TABLE_H

#include <cstdint>

#include "sim_layout.h"

namespace dvs::sim {

class HandleTable {
public:
	/* No free handle: the sim's table is full (the kernel's is 2^32). */
	static constexpr uint32_t kNone = UINT32_MAX;

	HandleTable(HtabHdr *hdr, Kobj *slots) : hdr_(hdr), slots_(slots) {}

	/* Prepare zeroed memory for @capacity slots. */
	static void format(HtabHdr *hdr, uint32_t capacity);

	/* Copy @init into the lowest free slot and make it live as @type.
	 * Returns the handle, or kNone when the table is full. */
	uint32_t insert(const Kobj &init, KobjType type);

	/* The object behind @handle: 0 with *out set, -ENOENT when the
	 * handle holds nothing, -EINVAL when it holds another type. */
	int lookup(uint32_t handle, KobjType type, Kobj **out) const;

	/* The live object of any type behind @handle, or nullptr. */
	Kobj *at(uint32_t handle) const;

	/* The live object of @type whose firmware id is @id, or nullptr. */
	Kobj *by_id(uint32_t id, KobjType type) const;

	/* The handle of object @k (a slot of this table). */
	uint32_t handle_of(const Kobj &k) const { return static_cast<uint32_t>(&k - slots_); }
	/* Kill the object behind @handle (which must be live). */
	void remove(uint32_t handle);

	uint32_t live() const { return hdr_->live; }
	uint32_t live(KobjType type) const;

	/* Firmware id of the object in slot @handle (24 bits when @narrow). */
	uint32_t make_id(uint32_t handle, bool narrow) const;

private:
	HtabHdr *hdr_;
	Kobj *slots_;
};

} // namespace dvs::sim

#endif
