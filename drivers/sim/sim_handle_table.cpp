/* SPDX-License-Identifier: BSD-3-Clause */
#include "sim_handle_table.h"

#include <atomic>
#include <cstring>

namespace dvs::sim {

namespace {

uint32_t load_type(const Kobj &k)
{
	return std::atomic_ref<const uint32_t>(k.type).load(std::memory_order_acquire);
}

void store_type(Kobj &k, KobjType t)
{
	std::atomic_ref<uint32_t>(k.type).store(static_cast<uint32_t>(t),
						 std::memory_order_release);
}

} // namespace

void HandleTable::format(HtabHdr *hdr, uint32_t capacity)
{
	hdr->capacity = capacity;
	hdr->cursor = 1;
	hdr->live = 0;
	for (auto &n : hdr->live_by_type)
		n = 0;
}

uint32_t HandleTable::insert(const Kobj &init, KobjType type)
{
	const uint32_t cap = hdr_->capacity;

	for (uint32_t n = 1; n < cap; n++) {
		uint32_t slot = hdr_->cursor;

		hdr_->cursor = slot + 1 < cap ? slot + 1 : 1;
		Kobj &k = slots_[slot];
		if (load_type(k) != static_cast<uint32_t>(KobjType::Free))
			continue;
		/* Generation 0 is never handed out: handle 0 means "none". */
		uint32_t gen = (k.gen + 1) & 0xffffu;
		if (gen == 0)
			gen = 1;
		Kobj fresh = init;
		fresh.type = static_cast<uint32_t>(KobjType::Free);
		fresh.gen = gen;
		std::memcpy(&k, &fresh, sizeof(k));
		store_type(k, type);
		hdr_->live++;
		hdr_->live_by_type[static_cast<uint32_t>(type)]++;
		return (gen << 16) | slot;
	}
	return 0;
}

Kobj *HandleTable::at_slot(uint32_t slot, KobjType type) const
{
	if (slot == 0 || slot >= hdr_->capacity)
		return nullptr;
	Kobj &k = slots_[slot];
	if (load_type(k) != static_cast<uint32_t>(type))
		return nullptr;
	return &k;
}

Kobj *HandleTable::lookup(uint32_t handle, KobjType type) const
{
	Kobj *k = at_slot(slot_of(handle), type);

	if (k == nullptr || k->gen != gen_of(handle))
		return nullptr;
	return k;
}

bool HandleTable::remove(uint32_t handle, KobjType type)
{
	Kobj *k = lookup(handle, type);

	if (k == nullptr)
		return false;
	store_type(*k, KobjType::Free);
	hdr_->live--;
	hdr_->live_by_type[static_cast<uint32_t>(type)]--;
	return true;
}

uint32_t HandleTable::live(KobjType type) const
{
	return hdr_->live_by_type[static_cast<uint32_t>(type)];
}

} // namespace dvs::sim
