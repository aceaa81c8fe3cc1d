/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * This process's handles of a device, by registry slot: who owns each
 * (a map of the slots actually held, so walks cost what is held, not the
 * registry's capacity) and a lock-free view for lookups (one pointer per
 * slot, in zeroed memory the kernel hands out lazily: a registry of
 * 100,000 objects costs no page until a slot is used).
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
		view_.reset(static_cast<Handle **>(calloc(nslots, sizeof(Handle *))));
		return view_ != nullptr ? 0 : -ENOMEM;
	}

	/* The hot path: the handle a lookup may take, or nullptr. */
	Handle *view(uint32_t slot) const
	{
		return std::atomic_ref<Handle *>(view_[slot]).load(std::memory_order_seq_cst);
	}

	Handle *get(uint32_t slot) const
	{
		auto it = owned_.find(slot);
		return it != owned_.end() ? it->second.get() : nullptr;
	}

	/* Own @h for @slot (which holds nothing) and show it to lookups. */
	void put(uint32_t slot, std::unique_ptr<Handle> h)
	{
		Handle *raw = h.get();
		owned_[slot] = std::move(h);
		std::atomic_ref<Handle *>(view_[slot]).store(raw, std::memory_order_release);
	}

	/* Hide @slot's handle from lookups and give it up (nullptr if none). */
	std::unique_ptr<Handle> take(uint32_t slot)
	{
		auto it = owned_.find(slot);
		if (it == owned_.end())
			return nullptr;
		std::atomic_ref<Handle *>(view_[slot]).store(nullptr, std::memory_order_seq_cst);
		std::unique_ptr<Handle> h = std::move(it->second);
		owned_.erase(it);
		return h;
	}

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
		view_.reset();
	}

private:
	struct Free {
		void operator()(Handle **p) const { free(p); }
	};
	std::unordered_map<uint32_t, std::unique_ptr<Handle>> owned_;
	std::unique_ptr<Handle *[], Free> view_;
};

} // namespace dvs

#endif
