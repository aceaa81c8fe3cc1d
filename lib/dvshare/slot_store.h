/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * This process's handles of a device, by registry slot: who owns each
 * (a map of the slots actually held, so walks cost what is held, not the
 * registry's capacity) and a lock-free view for lookups (one pointer per
 * slot, in zeroed memory the kernel hands out lazily, in transparent
 * hugepages from 2 MiB up), and the pool its
 * handles return to (handles.h).
 */
#ifndef DVS_SLOT_STORE_H
#define DVS_SLOT_STORE_H

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <unordered_map>
#include <vector>

#include "handles.h"

namespace dvs {

class SlotStore {
public:
	/* For @nslots slots; 0 or -ENOMEM. */
	int init(uint32_t nslots)
	{
		view_mem_ = Mapping::anon(static_cast<size_t>(nslots) * sizeof(Handle *));
		view_ = static_cast<Handle **>(view_mem_.addr());
		return view_ != nullptr ? 0 : -ENOMEM;
	}

	/* The hot path: the handle a lookup may take, or nullptr. */
	Handle *view(uint32_t slot) const
	{
		return std::atomic_ref<Handle *>(view_[slot]).load(std::memory_order_acquire);
	}

	Handle *get(uint32_t slot) const
	{
		auto it = owned_.find(slot);
		return it != owned_.end() ? it->second.get() : nullptr;
	}

	/* Own @h for @slot (which holds nothing), its fields all written,
	 * and show it to lookups: from now on it is only ever recycled. */
	void put(uint32_t slot, HandlePtr<> h)
	{
		Handle *raw = h.get();
		raw->pool = &pool_;
		raw->revive();
		owned_[slot] = std::move(h);
		std::atomic_ref<Handle *>(view_[slot]).store(raw, std::memory_order_release);
	}

	/* Hide @slot's handle from lookups and give it up (nullptr if none). */
	HandlePtr<> take(uint32_t slot)
	{
		auto it = owned_.find(slot);
		if (it == owned_.end())
			return nullptr;
		std::atomic_ref<Handle *>(view_[slot]).store(nullptr, std::memory_order_seq_cst);
		HandlePtr<> h = std::move(it->second);
		owned_.erase(it);
		return h;
	}

	HandlePool *pool() { return &pool_; }

	/* The slots held now (a copy: the caller may take() while walking). */
	std::vector<uint32_t> slots() const
	{
		std::vector<uint32_t> out;
		out.reserve(owned_.size());
		for (const auto &[slot, h] : owned_)
			out.push_back(slot);
		return out;
	}

	template <typename F> bool any_of(F &&pred) const
	{
		for (const auto &[slot, h] : owned_)
			if (pred(*h))
				return true;
		return false;
	}

	template <typename F> void for_each(F &&fn)
	{
		for (auto &[slot, h] : owned_)
			fn(*h);
	}

	template <typename F> void for_each(F &&fn) const
	{
		for (const auto &[slot, h] : owned_)
			fn(static_cast<const Handle &>(*h));
	}

	size_t size() const { return owned_.size(); }

	void clear()
	{
		owned_.clear();
		view_ = nullptr;
		view_mem_.reset();
		pool_.close();
	}

private:
	HandlePool pool_; /* first: destroyed last */
	std::unordered_map<uint32_t, HandlePtr<>> owned_;
	Mapping view_mem_;
	Handle **view_ = nullptr;
};

} // namespace dvs

#endif
