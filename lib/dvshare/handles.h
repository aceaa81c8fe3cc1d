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
#include <cstdint>

#include "dvs_fd.h"
#include "dvs_glue.h"
#include "dvshare.h"

struct dvshare_dev;

namespace dvs {

/* "VAR", "DEVX object" or "UMEM", for messages. */
const char *type_str(uint32_t type);

struct Handle {
	Handle(dvshare_dev *d, enum dvshare_type t, bool own) : dev(d), type(t), owner(own) {}
	virtual ~Handle() = default;
	Handle(const Handle &) = delete;
	Handle &operator=(const Handle &) = delete;

	void get() { refs.fetch_add(1, std::memory_order_relaxed); }
	/* Drop a reference; true when it was the last one. A release with no
	 * reference left (a double release) is refused, not wrapped round. */
	bool put()
	{
		int32_t n = refs.load(std::memory_order_relaxed);
		while (n > 0 && !refs.compare_exchange_weak(n, n - 1, std::memory_order_acq_rel))
			;
		return n == 1;
	}
	/* Give the rdma-core object up now (destroy if owner, else unimport;
	 * a VAR is fenced first); the handle stays valid memory. */
	virtual void let_go() = 0;

	dvshare_dev *dev;
	enum dvshare_type type;
	bool owner;           /* created here: destroy on close; else unimport */
	uint32_t slot = 0;    /* registry slot */
	uint32_t gen = 0;     /* registry generation of that slot */
	std::atomic<int32_t> refs{0};
	/* Let go of: VAR fenced, kernel object destroyed (owner) or about
	 * to be unimported (importer); query/modify refuse with -ENODEV. */
	std::atomic<bool> revoked{false};
	bool unreachable = false; /* no lookup can reach it any more */
	char name[DVSHARE_NAME_MAX] = {};
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

	struct mlx5dv_devx_umem *dv = nullptr;
	uint64_t size = 0;
};

#endif
