/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A ufile: the memfd that is a sim context's cmd_fd, and this process's
 * views of it. Owns both (RAII). Every live Ufile of the process is known,
 * so that a fork can mark the VAR pages the child inherits mappings of
 * (sim_var_pages.cpp).
 *
 * Two views: the control region is mapped when the ufile is made or
 * adopted; the 4 GiB VAR area (file offset 0) only when this process
 * first needs a VAR page's words (map_var_area()). A secondary adopts
 * its ufiles during rte_eal_init(), before EAL has placed its memory:
 * reserving 4 GiB of address space there could take the range the
 * primary's memory needs in the secondary.
 */
#ifndef DVS_SIM_UFILE_H
#define DVS_SIM_UFILE_H

#include <atomic>
#include <cstdint>
#include <functional>

#include "sim_handle_table.h"
#include "sim_layout.h"

namespace dvs::sim {

class Ufile {
public:
	/* A new ufile for device simN. Returns 0 or a negative errno. */
	int create(uint32_t dev_index);
	/* Map @fd if it is a sim ufile; -EINVAL otherwise. The fd stays the
	 * caller's either way until take_fd(). */
	int adopt(int fd);
	/* Own the fd adopt() mapped (closed with the Ufile). */
	void take_fd(int fd) { fd_ = fd; }

	Ufile();
	Ufile(const Ufile &) = delete;
	Ufile &operator=(const Ufile &) = delete;
	~Ufile();

	int fd() const { return fd_; }
	UfileHdr *hdr() const { return hdr_; }
	HandleTable table() const;
	PageState &page(uint32_t page_id) const;
	/* Record @i of VAR page @page_id. Record-major: record i of every
	 * page is contiguous, so a process mapping many pages (each usually
	 * mapped by few) touches few pages of the table, not one per VAR. */
	MapRec &map_rec(uint32_t page_id, uint32_t i) const;
	/* mmap entry @e (below kMmapEntries). */
	EntryRec &entry(uint32_t e) const;
	/* The data path's shared state. */
	DpState &dp() const;
	/* Map the VAR area if this process has not yet (thread-safe,
	 * idempotent). Returns 0 or a negative errno. */
	int map_var_area() const;
	/* This process's view of VAR page @page_id, at its entry's offset
	 * (Owned or Released pages); map_var_area() must have succeeded
	 * first. */
	uint32_t *var_words(uint32_t page_id) const;

	/* Run @fn on every Ufile this process has mapped, with the list
	 * locked by lock_all() (held across fork() by sim_var_pages.cpp). */
	static void lock_all();
	static void unlock_all();
	static void for_each(const std::function<void(Ufile &)> &fn);

private:
	int map_view(int fd);
	void unmap();

	int fd_ = -1;
	UfileHdr *hdr_ = nullptr; /* the control region's view */
	mutable std::atomic<uint8_t *> var_base_{nullptr};
	/* Entries of the VAR area this process made accessible (var_words()). */
	mutable std::atomic<uint64_t> open_entries_[kMmapEntries / 64] = {};
};

/* The ufile's robust process-shared lock, as a scope guard. A holder that
 * died is recovered: the table is consistent at every store (see Kobj). */
class UfileLock {
public:
	explicit UfileLock(UfileHdr *hdr);
	~UfileLock();
	UfileLock(const UfileLock &) = delete;
	UfileLock &operator=(const UfileLock &) = delete;

	static int acquire(UfileHdr *hdr);
	static void release(UfileHdr *hdr);

private:
	UfileHdr *hdr_;
};

/*
 * An engine's turn on the queues of a ufile (one queue's service, or the
 * doorbells' take): the engine gate of UfileHdr. ok() is false when a
 * control call holds the ufile lock (the engine skips the turn, and
 * never waits on that lock). Control calls wait for a turn in progress
 * to end (UfileLock), which is why a turn's work is bounded.
 */
class EngineTurn {
public:
	explicit EngineTurn(UfileHdr *hdr);
	~EngineTurn();
	EngineTurn(const EngineTurn &) = delete;
	EngineTurn &operator=(const EngineTurn &) = delete;
	bool ok() const { return hdr_ != nullptr; }

	/* The fence has been up for long: if whoever raised it died with the
	 * ufile lock, lower it (the lock recovered). True if it did. */
	static bool lift_dead_fence(UfileHdr *hdr);

private:
	UfileHdr *hdr_ = nullptr;
	uint64_t start_ns_ = 0;
};

} // namespace dvs::sim

#endif
