/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * This process's handles of a device, by registry slot: one pointer per
 * slot, which owns the handle and which lookups read without a lock (in
 * zeroed memory the kernel hands out lazily, in transparent hugepages from
 * 2 MiB up); the list of the slots held, so walks cost what is held, not
 * the registry's capacity, with no allocation per handle; and the pool
 * its handles return to (handles.h).
 */
#ifndef DVS_SLOT_STORE_H
#define DVS_SLOT_STORE_H

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <vector>

#include "handles.h"

namespace dvs {

class SlotStore {
public:
	SlotStore() = default;
	SlotStore(const SlotStore &) = delete;
	SlotStore &operator=(const SlotStore &) = delete;
	~SlotStore() { clear(); }

	/* For @nslots slots; 0 or -ENOMEM. */
	int init(uint32_t nslots)
	{
		view_mem_ = Mapping::anon(static_cast<size_t>(nslots) * sizeof(Handle *));
		view_ = static_cast<Handle **>(view_mem_.addr());
		return view_ != nullptr ? 0 : -ENOMEM;
	}

	/* About to hold @n handles (an eager attach, before any): their
	 * memory and the view in hugepages (Mapping::anon_huge()), rather
	 * than faulted a 4 KiB page at a time at random slots. */
	void reserve(size_t n)
	{
		if (held_.empty()) {
			Mapping v = Mapping::anon_huge(view_mem_.length());
			if (v.valid()) {
				view_mem_ = std::move(v);
				view_ = static_cast<Handle **>(view_mem_.addr());
			}
		}
		/* The list of held slots grows as handles come: sized from
		 * the claim, malloc may commit it (MALLOC_PERTURB_ fills it). */
		pool_.reserve(n);
	}

	/* The hot path: the handle a lookup may take, or nullptr. */
	Handle *view(uint32_t slot) const
	{
		return std::atomic_ref<Handle *>(view_[slot]).load(std::memory_order_acquire);
	}

	/* The handle held for @slot (the owner's side: under the device's
	 * lock), or nullptr. */
	Handle *get(uint32_t slot) const { return view_ != nullptr ? view_[slot] : nullptr; }

	/* Own @h for @slot (which holds nothing), its fields all written,
	 * and show it to lookups: from now on it is only ever recycled. */
	void put(uint32_t slot, HandlePtr<> h)
	{
		Handle *raw = h.release();
		raw->pool = &pool_;
		raw->revive();
		raw->held_at = static_cast<uint32_t>(held_.size());
		held_.push_back(slot);
		std::atomic_ref<Handle *>(view_[slot]).store(raw, std::memory_order_release);
	}

	/* Hide @slot's handle from lookups and give it up (nullptr if none). */
	HandlePtr<> take(uint32_t slot)
	{
		Handle *h = get(slot);
		if (h == nullptr)
			return nullptr;
		/* Out of the list of held slots in O(1): the last one moves in. */
		const uint32_t last = held_.back();
		held_[h->held_at] = last;
		view_[last]->held_at = h->held_at;
		held_.pop_back();
		std::atomic_ref<Handle *>(view_[slot]).store(nullptr, std::memory_order_seq_cst);
		return HandlePtr<>(h);
	}

	HandlePool *pool() { return &pool_; }

	/* The slots held now (a copy: the caller may take() while walking). */
	std::vector<uint32_t> slots() const { return held_; }

	template <typename F> bool any_of(F &&pred) const
	{
		for (uint32_t s : held_)
			if (pred(static_cast<const Handle &>(*view_[s])))
				return true;
		return false;
	}

	/* In the order the handles were made (an eager attach: entry order,
	 * about the registry's own order). */
	template <typename F> void for_each(F &&fn)
	{
		for (uint32_t s : held_)
			fn(*view_[s]);
	}

	template <typename F> void for_each(F &&fn) const
	{
		for (uint32_t s : held_)
			fn(static_cast<const Handle &>(*view_[s]));
	}

	size_t size() const { return held_.size(); }

	void clear()
	{
		while (!held_.empty())
			take(held_.back()).reset();
		view_ = nullptr;
		view_mem_.reset();
		pool_.close();
	}

private:
	HandlePool pool_; /* first: destroyed last */
	std::vector<uint32_t> held_; /* the slots held; Handle::held_at is the index here */
	Mapping view_mem_;
	Handle **view_ = nullptr; /* owning: a handle here is this store's */
};

} // namespace dvs

#endif
