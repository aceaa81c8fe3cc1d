/* SPDX-License-Identifier: BSD-3-Clause */
#include "sim_handle_table.h"

#include <atomic>
#include <cerrno>
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

constexpr uint32_t kSlotMask = (1u << kIdxBits) - 1;

} // namespace

void HandleTable::format(HtabHdr *hdr, uint32_t capacity)
{
	hdr->capacity = capacity;
	hdr->first_free = 0;
	hdr->live = 0;
	for (auto &n : hdr->live_by_type)
		n = 0;
}

uint32_t HandleTable::insert(const Kobj &init, KobjType type)
{
	for (uint32_t slot = hdr_->first_free; slot < hdr_->capacity; slot++) {
		Kobj &k = slots_[slot];
		if (load_type(k) != static_cast<uint32_t>(KobjType::Free))
			continue;
		/* fw_gen 0 is never used, so no firmware id is 0. */
		uint32_t gen = k.fw_gen + 1 != 0 ? k.fw_gen + 1 : 1;
		Kobj fresh = init;
		fresh.type = static_cast<uint32_t>(KobjType::Free);
		fresh.fw_gen = gen;
		std::memcpy(&k, &fresh, sizeof(k));
		store_type(k, type);
		hdr_->first_free = slot + 1;
		hdr_->live++;
		hdr_->live_by_type[static_cast<uint32_t>(type)]++;
		return slot;
	}
	hdr_->first_free = hdr_->capacity;
	return kNone;
}

Kobj *HandleTable::at(uint32_t handle) const
{
	if (handle >= hdr_->capacity)
		return nullptr;
	Kobj &k = slots_[handle];
	return load_type(k) != static_cast<uint32_t>(KobjType::Free) ? &k : nullptr;
}

int HandleTable::lookup(uint32_t handle, KobjType type, Kobj **out) const
{
	Kobj *k = at(handle);

	if (k == nullptr)
		return -ENOENT;
	if (load_type(*k) != static_cast<uint32_t>(type))
		return -EINVAL;
	*out = k;
	return 0;
}

Kobj *HandleTable::by_id(uint32_t id, KobjType type) const
{
	Kobj *k = at(id & kSlotMask);

	return k != nullptr && load_type(*k) == static_cast<uint32_t>(type) && k->id == id ? k
											  : nullptr;
}

void HandleTable::remove(uint32_t handle)
{
	Kobj &k = slots_[handle];
	uint32_t type = load_type(k);

	store_type(k, KobjType::Free);
	hdr_->live--;
	hdr_->live_by_type[type]--;
	if (handle < hdr_->first_free)
		hdr_->first_free = handle;
}

uint32_t HandleTable::live(KobjType type) const
{
	return hdr_->live_by_type[static_cast<uint32_t>(type)];
}

uint32_t HandleTable::make_id(uint32_t handle, bool narrow) const
{
	/* The generation fills the bits the handle leaves: of 24 for a
	 * narrow PRM field (pd), of 32 otherwise. */
	const uint32_t bits = (narrow ? 24u : 32u) - kIdxBits;
	uint32_t gen = slots_[handle].fw_gen & ((1u << bits) - 1);

	if (gen == 0)
		gen = 1;
	return gen << kIdxBits | handle;
}

} // namespace dvs::sim
