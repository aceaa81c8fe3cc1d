/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Generation-checked handle table over shared memory.
 *
 * A handle is (generation << 16) | slot. Freeing a slot keeps its generation;
 * the next allocation of the slot bumps it, so a handle kept past a destroy
 * no longer matches and fails like the kernel's (EINVAL). Slots are taken
 * cyclically so a freed handle is not reused at once. Callers serialise
 * mutations (the ufile lock); lookups by the owner of a handle are safe
 * under the same lock.
 */
#ifndef DVS_SIM_HANDLE_TABLE_H
#define DVS_SIM_HANDLE_TABLE_H

#include <cstdint>

#include "sim_layout.h"

namespace dvs::sim {

class HandleTable {
public:
	HandleTable(HtabHdr *hdr, Kobj *slots) : hdr_(hdr), slots_(slots) {}

	/* Prepare zeroed memory for @capacity slots (slot 0 stays unused). */
	static void format(HtabHdr *hdr, uint32_t capacity);

	/* Copy @init into a free slot and make it live as @type.
	 * Returns the handle, or 0 when the table is full. */
	uint32_t insert(const Kobj &init, KobjType type);

	/* The live object of @type behind @handle, or nullptr. */
	Kobj *lookup(uint32_t handle, KobjType type) const;

	/* The live object of @type in @slot, or nullptr. */
	Kobj *at_slot(uint32_t slot, KobjType type) const;

	/* Kill the object behind @handle. Returns false for a stale handle. */
	bool remove(uint32_t handle, KobjType type);

	uint32_t live() const { return hdr_->live; }
	uint32_t live(KobjType type) const;

	static uint32_t slot_of(uint32_t handle) { return handle & 0xffffu; }
	static uint32_t gen_of(uint32_t handle) { return handle >> 16; }

private:
	HtabHdr *hdr_;
	Kobj *slots_;
};

} // namespace dvs::sim

#endif
