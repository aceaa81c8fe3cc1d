/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handles: what the C API's struct dvshare_var / _obj / _umem are. A handle
 * is this process's object for one registry slot: in the primary the object
 * it created (owner: destroyed when the device closes), in a secondary the
 * object it imported (unimported, never destroyed). Handles are counted:
 * every lookup takes a reference, *_release() drops it.
 *
 * A handle a lookup could have seen is never freed while its device is
 * open: once revoked and unreferenced it goes back to the device's pool
 * (HandlePool) and is reused, in place, for a later object of its type.
 * A lookup may therefore take a reference on the memory it read from the
 * view without any counter of lookups in flight: the reference word says
 * whether the handle was live (not revoked) when it was taken, and the
 * slot, generation and name, read after it, whether it is the one sought.
 */
#ifndef DVS_HANDLES_H
#define DVS_HANDLES_H

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <memory>
#include <mutex>
#include <new>
#include <thread>
#include <vector>

#include <sys/types.h>

#include "dvs_fd.h"
#include "dvs_glue.h"
#include "dvshare.h"
#include "peer_id.h"
#include "var_region.h"

struct dvshare_dev;

namespace dvs {

/* "VAR", "DEVX object" or "UMEM", for messages. */
const char *type_str(uint32_t type);

/* Whom a create is for (primary): the secondary that owns the object
 * (none: the primary), and the one that asked for it, whose quota it
 * counts against (none: the primary's own create). */
struct Origin {
	PeerId owner;
	PeerId creator;
};

class HandlePool;

struct alignas(64) Handle {
	Handle(dvshare_dev *d, enum dvshare_type t, bool own) : dev(d), type(t), owner(own) {}
	virtual ~Handle() = default;
	Handle(const Handle &) = delete;
	Handle &operator=(const Handle &) = delete;

	/* The reference count and the revoked flag share one word: the
	 * release that drops the last reference learns from that same atomic
	 * operation whether the handle was revoked, without reading the
	 * handle again (a reaper may recycle it once the count is zero). A
	 * handle is born revoked and made live by revive() as it is shown to
	 * lookups, so a lookup holding a stale pointer never takes a handle
	 * whose fields are still being written. */
	static constexpr uint32_t kRevokedBit = 1u << 31;
	static constexpr uint32_t kHeldBit = 1u << 30; /* commands wait */
	static constexpr uint32_t kRefMask = kHeldBit - 1;

	void get() { word_.fetch_add(1, std::memory_order_relaxed); }
	/* The lookup's reference, on memory that may have been recycled
	 * since it was read: false (and no reference) when revoked. */
	bool try_get()
	{
		if ((word_.fetch_add(1, std::memory_order_acquire) & kRevokedBit) == 0)
			return true;
		word_.fetch_sub(1, std::memory_order_relaxed);
		return false;
	}
	/* Live again, for new fields written before this: waits out the
	 * lookups that briefly counted themselves in while it was revoked
	 * (try_get() backs out at once). */
	void revive()
	{
		uint32_t expect = kRevokedBit;
		while (!word_.compare_exchange_weak(expect, 0, std::memory_order_release,
						    std::memory_order_relaxed)) {
			expect = kRevokedBit;
			std::this_thread::yield();
		}
	}
	/* Drop a reference; true when it was the last one, with *revoked
	 * telling whether the handle was revoked by then. A release with no
	 * reference left (a double release) is refused, not wrapped round. */
	bool put(bool *revoked)
	{
		uint32_t n = word_.load(std::memory_order_relaxed);
		while ((n & kRefMask) > 0 &&
		       !word_.compare_exchange_weak(n, n - 1, std::memory_order_acq_rel))
			;
		*revoked = (n & kRevokedBit) != 0;
		return (n & kRefMask) == 1;
	}
	uint32_t refs() const { return word_.load() & kRefMask; }
	bool revoked() const { return (word_.load() & kRevokedBit) != 0; }
	/* Refuse commands from now on, then wait for those already started:
	 * none reaches the device after this returns (the object's id may
	 * then name another object, or the import be freed). */
	void revoke_and_drain()
	{
		word_.fetch_or(kRevokedBit, std::memory_order_seq_cst);
		drain();
	}
	/* The owner destroying the kernel object: commands of other threads
	 * wait (the destroy frees rdma-core's object, and a refused destroy
	 * must leave the handle usable) until release_commands(). */
	void hold_commands()
	{
		word_.fetch_or(kHeldBit, std::memory_order_seq_cst);
		drain();
	}
	void release_commands() { word_.fetch_and(~kHeldBit, std::memory_order_release); }
	/* Run @fn (a device command on this handle) unless revoked: ENODEV
	 * then. Announced before the check, so a revoke or a hold waits for
	 * it; a command that finds the handle held steps back and waits. */
	template <typename Fn> int command(Fn &&fn)
	{
		for (;;) {
			cmds_.fetch_add(1, std::memory_order_seq_cst);
			uint32_t w = word_.load(std::memory_order_seq_cst);
			if (w & kRevokedBit) {
				cmds_.fetch_sub(1, std::memory_order_release);
				return ENODEV;
			}
			if (!(w & kHeldBit))
				break;
			cmds_.fetch_sub(1, std::memory_order_release);
			while (word_.load(std::memory_order_acquire) & kHeldBit)
				std::this_thread::yield();
		}
		int rc = fn();
		cmds_.fetch_sub(1, std::memory_order_release);
		return rc;
	}
	/* Give the rdma-core object up now (destroy if owner, else unimport;
	 * a VAR is fenced first); the handle stays valid memory. */
	virtual void let_go() = 0;
	/* Back to a blank handle of its type for reuse (it was let go of):
	 * what the constructor sets, and no mapping left. */
	virtual void clear();

private:
	/* First, beside what a lookup reads after taking its reference: the
	 * slot, the generation and (for names up to 39 bytes) the name sit in
	 * the same 64-byte line. References, the held bit, and the revoked
	 * bit (let go of: VAR fenced, kernel object destroyed by the owner
	 * or about to be unimported by an importer; commands refuse). */
	std::atomic<uint32_t> word_{kRevokedBit};

public:
	uint32_t slot = 0;    /* registry slot */
	uint32_t gen = 0;     /* registry generation of that slot */
	char name[DVSHARE_NAME_MAX] = {};
	dvshare_dev *dev;
	enum dvshare_type type;
	bool owner;           /* created here: destroy on close; else unimport */
	PeerId peer;          /* primary: the secondary that owns it (none:
				 the primary); RegEntry::owner is its pid */
	PeerId creator;       /* primary: the secondary it was created for */
	bool orphan = false;  /* primary: a reclaim of its owner failed */
	bool for_peer = false; /* primary: created for a secondary (its memory
				  DPDK's, checked then), persistent or not; kept */
	HandlePool *pool = nullptr; /* where it is recycled */
	uint32_t held_at = 0;       /* its place in SlotStore's list of held slots */

private:
	void drain() const
	{
		while (cmds_.load(std::memory_order_seq_cst) != 0)
			std::this_thread::yield();
	}

	std::atomic<int32_t> cmds_{0}; /* device commands running on it */
};

/* Where a device's handles live: an arena of 256-byte blocks, in 2 MiB
 * transparent hugepages once it has grown that far (a lookup's handle then
 * costs no TLB miss of its own), and the handles that lookups may have
 * seen, kept for reuse until the device closes (see the top of this
 * file). Thread-safe; a leaf lock. The arena is unmapped once the pool is
 * closed and no handle is left outside it (the application may hold
 * revoked handles past a close). */
class HandlePool {
public:
	static constexpr size_t kBlock = 256;

	HandlePool() = default;
	HandlePool(const HandlePool &) = delete;
	HandlePool &operator=(const HandlePool &) = delete;
	~HandlePool() { close(); }

	/* A blank handle of type T for @dev: a recycled one, else a new one
	 * in the arena. std::bad_alloc when the arena cannot grow. */
	template <typename T> T *make(dvshare_dev *dev, bool own)
	{
		static_assert(sizeof(T) <= kBlock && alignof(T) <= 64);
		if (Handle *h = take(T::kType)) {
			h->owner = own;
			return static_cast<T *>(h);
		}
		T *t = new (alloc()) T(dev, own);
		t->pool = this;
		return t;
	}
	/* A blank handle of @type, or nullptr when none is free. */
	Handle *take(enum dvshare_type type);
	/* Room for @n more handles in one chunk, in hugepages (an eager
	 * attach: a fault per 8,192 handles instead of one per 16). Only
	 * address space until handles are made; none to be had: nothing. */
	void reserve(size_t n);
	/* @h (from make()) was let go of and is unreferenced: keep it for
	 * reuse, or destroy it once the pool is closed. */
	void give(Handle *h);
	/* Destroy what is kept; later give()s destroy at once. */
	void close();

private:
	void *alloc();
	void grow_locked(size_t len);
	void unmap_if_unused();

	std::mutex mu_;
	bool closed_ = false;
	std::vector<Handle *> free_[4]; /* by dvshare_type */
	std::vector<Mapping> chunks_;
	size_t used_ = 0;        /* bytes handed out of the last chunk */
	size_t outstanding_ = 0; /* made and not in free_ */
};

/* What owns a handle: freeing one returns it to its pool. */
struct HandleFree {
	void operator()(Handle *h) const
	{
		if (h->pool != nullptr)
			h->pool->give(h);
		else
			delete h;
	}
};
template <typename T = Handle> using HandlePtr = std::unique_ptr<T, HandleFree>;

/* A handle of type T for @dev from @pool (recycled or new). */
template <typename T> HandlePtr<T> make_handle(HandlePool *pool, dvshare_dev *dev, bool own)
{
	return HandlePtr<T>(pool->make<T>(dev, own));
}

} // namespace dvs

namespace dvs {

/* This process's mapping of a VAR page: a place in the device's region
 * (given back when reset), or a mapping of its own (unmapped). */
class VarPage {
public:
	VarPage() = default;
	VarPage(const VarPage &) = delete;
	VarPage &operator=(const VarPage &) = delete;
	~VarPage() { reset(); }
	void set(void *addr, size_t len, VarRegion *region, uint32_t idx)
	{
		reset();
		addr_ = addr;
		len_ = len;
		region_ = region;
		idx_ = idx;
	}
	void *addr() const { return addr_; }
	size_t length() const { return len_; }
	bool valid() const { return addr_ != nullptr; }
	VarRegion *region() const { return region_; }
	uint32_t index() const { return idx_; }
	void reset()
	{
		if (addr_ == nullptr)
			return;
		if (region_ != nullptr)
			region_->give(idx_);
		else
			munmap(addr_, len_);
		addr_ = nullptr;
		region_ = nullptr;
	}

private:
	void *addr_ = nullptr;
	size_t len_ = 0;
	VarRegion *region_ = nullptr;
	uint32_t idx_ = 0;
};

} // namespace dvs

struct dvshare_var : dvs::Handle {
	static constexpr enum dvshare_type kType = DVSHARE_TYPE_VAR;
	dvshare_var(dvshare_dev *d, bool own) : Handle(d, kType, own) {}
	~dvshare_var() override;
	void let_go() override;
	void clear() override;
	/* Replace the page in place by a private one: a doorbell written
	 * from now on reaches no device (what a revoke waits for). */
	void fence();
	bool fenced = false;

	struct mlx5dv_var *dv = nullptr;
	dvs::VarPage page; /* this process's mapping of the VAR page */
	/* Its doorbell register (page + the device's doorbell offset), set
	 * once mapped: an import maps at its first use. */
	std::atomic<void *> db{ nullptr };
};

struct dvshare_obj : dvs::Handle {
	static constexpr enum dvshare_type kType = DVSHARE_TYPE_OBJ;
	dvshare_obj(dvshare_dev *d, bool own) : Handle(d, kType, own) {}
	~dvshare_obj() override;
	void let_go() override;
	void clear() override;

	struct mlx5dv_devx_obj *dv = nullptr;
	uint32_t obj_id = 0;
	uint16_t obj_type = 0;
	uint16_t create_op = 0;
};

struct dvshare_umem : dvs::Handle {
	static constexpr enum dvshare_type kType = DVSHARE_TYPE_UMEM;
	dvshare_umem(dvshare_dev *d, bool own) : Handle(d, kType, own) {}
	~dvshare_umem() override;
	void let_go() override;
	void clear() override;

	/* Free the memory dvshare allocated for it, once deregistered. */
	void free_mem();

	struct mlx5dv_devx_umem *dv = nullptr;
	uint64_t size = 0;
	void *mem = nullptr;    /* dvshare_umem_alloc()'s memory (any process) */
	bool frees_mem = false; /* primary: mem is ours to rte_free() */
	size_t mem_size = 0;    /* primary: its element's size, as DPDK said */
	size_t mem_lead = 0;    /* primary: room its headers may take before it */
};

#endif
