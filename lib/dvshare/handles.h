/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Handles: what the C API's struct dvshare_var / _obj / _umem are. A handle
 * is this process's object for one registry slot: in the primary the object
 * it created (owner: destroyed when the device closes), in a secondary the
 * object it imported (unimported, never destroyed). Handles are counted:
 * every lookup takes a reference, *_release() drops it.
 */
#ifndef DVS_HANDLES_H
#define DVS_HANDLES_H

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <thread>

#include <sys/types.h>

#include "dvs_fd.h"
#include "dvs_glue.h"
#include "dvshare.h"
#include "peer_id.h"

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

struct Handle {
	Handle(dvshare_dev *d, enum dvshare_type t, bool own) : dev(d), type(t), owner(own) {}
	virtual ~Handle() = default;
	Handle(const Handle &) = delete;
	Handle &operator=(const Handle &) = delete;

	/* The reference count and the revoked flag share one word: the
	 * release that drops the last reference learns from that same atomic
	 * operation whether the handle was revoked, without reading the
	 * handle again (a reaper may free it once the count is zero). */
	static constexpr uint32_t kRevokedBit = 1u << 31;
	static constexpr uint32_t kHeldBit = 1u << 30; /* commands wait */
	static constexpr uint32_t kRefMask = kHeldBit - 1;

	void get() { word_.fetch_add(1, std::memory_order_relaxed); }
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

	dvshare_dev *dev;
	enum dvshare_type type;
	bool owner;           /* created here: destroy on close; else unimport */
	PeerId peer;          /* primary: the secondary that owns it (none:
				 the primary); RegEntry::owner is its pid */
	PeerId creator;       /* primary: the secondary it was created for */
	bool orphan = false;  /* primary: a reclaim of its owner failed */
	bool for_peer = false; /* primary: created for a secondary (its memory
				  DPDK's, checked then), persistent or not; kept */
	uint32_t slot = 0;    /* registry slot */
	uint32_t gen = 0;     /* registry generation of that slot */
	bool unreachable = false; /* no lookup can reach it any more */
	char name[DVSHARE_NAME_MAX] = {};

private:
	void drain() const
	{
		while (cmds_.load(std::memory_order_seq_cst) != 0)
			std::this_thread::yield();
	}

	/* References, the held bit, and the revoked bit: let go of (VAR fenced, kernel
	 * object destroyed by the owner or about to be unimported by an
	 * importer); query/modify refuse with -ENODEV. */
	std::atomic<uint32_t> word_{0};
	std::atomic<int32_t> cmds_{0}; /* device commands running on it */
};

} // namespace dvs

struct dvshare_var : dvs::Handle {
	dvshare_var(dvshare_dev *d, bool own) : Handle(d, DVSHARE_TYPE_VAR, own) {}
	~dvshare_var() override;
	void let_go() override;

	struct mlx5dv_var *dv = nullptr;
	dvs::Mapping page; /* this process's mapping of the VAR page */
	void *db = nullptr; /* its doorbell register: page + device db offset */
};

struct dvshare_obj : dvs::Handle {
	dvshare_obj(dvshare_dev *d, bool own) : Handle(d, DVSHARE_TYPE_OBJ, own) {}
	~dvshare_obj() override;
	void let_go() override;

	struct mlx5dv_devx_obj *dv = nullptr;
	uint32_t obj_id = 0;
	uint16_t obj_type = 0;
	uint16_t create_op = 0;
};

struct dvshare_umem : dvs::Handle {
	dvshare_umem(dvshare_dev *d, bool own) : Handle(d, DVSHARE_TYPE_UMEM, own) {}
	~dvshare_umem() override;
	void let_go() override;

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
