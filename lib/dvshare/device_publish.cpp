/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Publishing (primary): create or take an rdma-core object, export it into
 * a registry entry, and announce it to the secondaries.
 */
#include "device.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include <rte_malloc.h>

#include "dvs_log.h"
#include "dvshare_prm.h"
#include "ipc.h"
#include "library.h"
#include "virtq_check.h"

using dvs::RegEntry;

namespace {

RegEntry make_entry(const char *name, enum dvshare_type type, uint32_t id)
{
	RegEntry e{};

	snprintf(e.name, sizeof(e.name), "%s", name);
	e.type = type;
	e.id = id;
	return e;
}

/* The create commands dvshare shares, and which decodes the new object's
 * id from the output (dvshare_prm_created_id()). */
bool shareable_create(uint16_t opcode)
{
	switch (opcode) {
	case DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT:
	case DVSHARE_PRM_CMD_CREATE_MKEY:
	case DVSHARE_PRM_CMD_ALLOC_PD:
	case DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER:
	case DVSHARE_PRM_CMD_ALLOC_TRANSPORT_DOMAIN:
	case DVSHARE_PRM_CMD_CREATE_TIS:
		return true;
	default:
		return false;
	}
}

} // namespace

/* Insert @e into the registry and keep @h for its slot. On failure @h is
 * destroyed, which frees what it owns, unless @give_back: then the object
 * stays the application's. */
template <typename H>
H *dvshare_dev::publish(dvs::HandlePtr<H> h, RegEntry e, bool give_back, dvs::Origin o)
{
	uint32_t slot = 0;
	H *raw = h.get();
	{
		std::lock_guard<std::mutex> lock(ctl_);
		e.owner = o.owner.pid;
		/* A close under way destroys what is published: nothing new
		 * may slip in behind its walk. */
		int rc = closing_ ? -ENODEV : reg_.insert(e, &slot);
		if (rc != 0) {
			DVS_LOG(ERR, "%s: cannot publish %s: %s", name_.c_str(), e.name,
				rc == -EEXIST ? "name already published"
				: rc == -ENOSPC ? "registry full"
				: rc == -ENODEV ? "the device is being closed" : strerror(-rc));
			if (give_back)
				h->dv = nullptr;
			return dvs::fail_null<H>(-rc);
		}
		RegEntry snap;
		reg_.read(slot, &snap);
		raw->slot = slot;
		raw->gen = snap.gen;
		raw->peer = o.owner;
		raw->creator = o.creator;
		raw->for_peer = !o.creator.none();
		if (raw->for_peer) {
			created_[o.creator]++;
			for_peers_++;
		}
		snprintf(raw->name, sizeof(raw->name), "%s", e.name);
		if (store_.get(slot) != nullptr)
			let_go_locked(slot); /* a stale import of the slot's old object */
		store_.put(slot, std::move(h));
		raw->get(); /* the creator's reference */
	}
	dvs::Library::get().stats.published++;
	/* A secondary's create is announced by the worker once its creator
	 * has its answer (peer_requests.cpp): the answer goes first. */
	if (o.creator.none())
		dvs::ipc_announce(this, DVSHARE_EVENT_PUBLISHED, raw->name);
	return raw;
}

/* Checks every publish call shares before touching the device. */
int dvshare_dev::publish_precheck(const char *name) const
{
	int rc = dvs::check_name(name);

	if (!primary_)
		return -EPERM;
	if (rc != 0)
		return rc;
	RegEntry snap;
	uint32_t slot;
	if (reg_.closed())
		return -ENODEV;
	if (reg_.find(name, &snap, &slot) == 0)
		return -EEXIST;
	return 0;
}

/* VAR pages exist for virtio emulation: a device without VIRTIO_NET_Q
 * has none (mlx5_ib: var_is_supported). */
int dvshare_dev::var_precheck(const char *name) const
{
	int rc = publish_precheck(name);

	if (rc == 0 && !caps_.virtio_net_q) {
		DVS_LOG(ERR, "%s: no VAR for %s: the device has no VIRTIO_NET_Q capability",
			name_.c_str(), name);
		rc = -EOPNOTSUPP;
	}
	return rc;
}

dvshare_var *dvshare_dev::var_alloc(const char *name, uint32_t flags, dvs::Origin o)
{
	int rc = var_precheck(name);

	if (rc != 0)
		return dvs::fail_null<dvshare_var>(-rc);
	struct mlx5dv_var *dv = glue_->alloc_var(ctx_, flags & ~DVSHARE_CREATE_PERSIST);
	if (dv == nullptr) {
		rc = errno;
		DVS_LOG(ERR, "%s: VAR allocation failed: %s", name_.c_str(), strerror(rc));
		return dvs::fail_null<dvshare_var>(rc);
	}
	auto h = dvs::make_handle<dvshare_var>(store_.pool(), this, true);
	h->dv = dv;
	return publish_var(std::move(h), name, false, o);
}

/* Is @dv already published? Publishing one rdma-core object twice would
 * make dvshare free it twice. */
bool dvshare_dev::holds(const void *dv)
{
	std::lock_guard<std::mutex> lock(ctl_);
	auto same = [dv](const dvs::Handle &h) {
		if (!h.owner)
			return false;
		if (h.type == DVSHARE_TYPE_VAR)
			return static_cast<const dvshare_var &>(h).dv == dv;
		if (h.type == DVSHARE_TYPE_OBJ)
			return static_cast<const dvshare_obj &>(h).dv == dv;
		return false;
	};

	return store_.any_of(same) ||
	       std::any_of(retired_.begin(), retired_.end(),
			   [&](const auto &kv) { return same(*kv.second); });
}

dvshare_var *dvshare_dev::var_publish(const char *name, struct mlx5dv_var *dv)
{
	int rc = var_precheck(name);

	if (rc == 0 && dv == nullptr)
		rc = -EINVAL;
	if (rc == 0 && holds(dv)) {
		DVS_LOG(ERR, "%s: cannot publish %s: that VAR is already published", name_.c_str(),
			name);
		rc = -EEXIST;
	}
	if (rc != 0)
		return dvs::fail_null<dvshare_var>(-rc);
	auto h = dvs::make_handle<dvshare_var>(store_.pool(), this, true);
	h->dv = dv;
	return publish_var(std::move(h), name, true, {});
}

dvshare_var *dvshare_dev::publish_var(dvs::HandlePtr<dvshare_var> h, const char *name,
				      bool give_back, dvs::Origin o)
{
	RegEntry e = make_entry(name, DVSHARE_TYPE_VAR, h->dv->page_id);
	/* A VAR made for a secondary is rung there: mapped here only if this
	 * process ever asks for its doorbell (map_var_late()). */
	int rc = o.creator.none() ? map_var(h.get()) : 0;

	if (rc == 0 && glue_->var_export(h->dv, e.blob) != 0)
		rc = -errno;
	if (rc != 0) {
		if (give_back)
			h->dv = nullptr;
		return dvs::fail_null<dvshare_var>(-rc);
	}
	e.mmap_off = static_cast<uint64_t>(h->dv->mmap_off);
	e.size = h->dv->length;
	e.blob_len = static_cast<uint16_t>(sizes_.var_attrs_size);
	return publish(std::move(h), e, give_back, o);
}

dvshare_obj *dvshare_dev::obj_create(const char *name, const void *in, size_t inlen, void *out,
				     size_t outlen, dvs::Origin o)
{
	int rc = publish_precheck(name);

	if (rc == 0 && (in == nullptr || out == nullptr || inlen < DVSHARE_PRM_HDR_SIZE ||
			outlen < DVSHARE_PRM_HDR_SIZE))
		rc = -EINVAL;
	if (rc != 0)
		return dvs::fail_null<dvshare_obj>(-rc);
	const uint16_t op = dvshare_prm_opcode(in);
	if (!shareable_create(op)) {
		DVS_LOG(ERR, "%s: %s: create opcode 0x%04x is not one dvshare_obj_create() takes "
			     "(CREATE_GENERAL_OBJECT, CREATE_MKEY, ALLOC_PD, ALLOC_FLOW_COUNTER, "
			     "ALLOC_TRANSPORT_DOMAIN, CREATE_TIS); create it with "
			     "mlx5dv_devx_obj_create() and share it with dvshare_obj_publish()",
			name_.c_str(), name, op);
		return dvs::fail_null<dvshare_obj>(EOPNOTSUPP);
	}
	if (op == DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT && caps_.virtio_net_q &&
	    dvshare_prm_hdr_decode(in).obj_type == DVSHARE_PRM_OBJ_VIRTIO_NET_Q) {
		std::string why;
		if (dvs::virtq_create_check(caps_.vio, in, inlen, &why) != 0) {
			DVS_LOG(ERR, "%s: VIRTIO_NET_Q %s refused before the device: %s", name_.c_str(),
				name, why.c_str());
			return dvs::fail_null<dvshare_obj>(EINVAL);
		}
	}
	struct mlx5dv_devx_obj *dv = glue_->devx_obj_create(ctx_, in, inlen, out, outlen);
	if (dv == nullptr) {
		rc = errno;
		/* Only a device failure (EREMOTEIO) put a status in @out. */
		if (rc == EREMOTEIO)
			DVS_LOG(ERR, "%s: DEVX create for %s failed: status %s, syndrome 0x%08x",
				name_.c_str(), name,
				dvshare_prm_status_str(dvshare_prm_out_status(out)),
				dvshare_prm_out_syndrome(out));
		else
			DVS_LOG(ERR, "%s: DEVX create for %s refused: %s", name_.c_str(), name,
				strerror(rc));
		return dvs::fail_null<dvshare_obj>(rc);
	}
	uint16_t type = op == DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT ? dvshare_prm_hdr_decode(in).obj_type
								     : 0;
	/* A key is what queues and KLM entries name: index << 8 | mkey_7_0. */
	uint32_t id = op == DVSHARE_PRM_CMD_CREATE_MKEY ? dvshare_prm_mkey_created(in, out)
						       : dvshare_prm_created_id(op, out);
	return publish_obj(name, dv, id, type, op, false, o);
}

dvshare_obj *dvshare_dev::obj_publish(const char *name, struct mlx5dv_devx_obj *dv,
				      uint32_t obj_id)
{
	int rc = publish_precheck(name);

	if (rc == 0 && dv == nullptr)
		rc = -EINVAL;
	if (rc == 0 && holds(dv)) {
		DVS_LOG(ERR, "%s: cannot publish %s: that DEVX object is already published",
			name_.c_str(), name);
		rc = -EEXIST;
	}
	if (rc != 0)
		return dvs::fail_null<dvshare_obj>(-rc);
	return publish_obj(name, dv, obj_id, 0, 0, true, {});
}

dvshare_obj *dvshare_dev::publish_obj(const char *name, struct mlx5dv_devx_obj *dv,
				      uint32_t obj_id, uint16_t obj_type, uint16_t create_op,
				      bool give_back, dvs::Origin o)
{
	auto h = dvs::make_handle<dvshare_obj>(store_.pool(), this, true);
	RegEntry e = make_entry(name, DVSHARE_TYPE_OBJ, obj_id);

	h->dv = dv;
	h->obj_id = obj_id;
	h->obj_type = obj_type;
	h->create_op = create_op;
	if (glue_->devx_obj_export(dv, e.blob) != 0) {
		int err = errno;
		DVS_LOG(ERR, "%s: cannot export DEVX object %s: %s", name_.c_str(), name,
			strerror(err));
		if (give_back)
			h->dv = nullptr;
		return dvs::fail_null<dvshare_obj>(err);
	}
	e.obj_type = obj_type;
	e.create_op = create_op;
	e.blob_len = static_cast<uint16_t>(sizes_.devx_obj_attrs_size);
	return publish(std::move(h), e, give_back, o);
}

dvshare_umem *dvshare_dev::umem_reg(const char *name, void *addr, size_t size, uint32_t access,
				    dvs::Origin o, bool frees, size_t lead)
{
	int rc = publish_precheck(name);

	if (rc != 0) {
		if (frees)
			rte_free(addr);
		return dvs::fail_null<dvshare_umem>(-rc);
	}
	struct mlx5dv_devx_umem *dv =
		glue_->devx_umem_reg(ctx_, addr, size, access & ~DVSHARE_CREATE_PERSIST);
	if (dv == nullptr) {
		rc = errno;
		DVS_LOG(ERR, "%s: UMEM registration of %s failed: %s", name_.c_str(), name,
			strerror(rc));
		if (frees)
			rte_free(addr);
		return dvs::fail_null<dvshare_umem>(rc);
	}
	auto h = dvs::make_handle<dvshare_umem>(store_.pool(), this, true);
	RegEntry e = make_entry(name, DVSHARE_TYPE_UMEM, dv->umem_id);
	h->dv = dv;
	h->size = size;
	if (frees) {
		/* From here the handle frees it, once deregistered, whatever
		 * becomes of the publish. Every process finds it at the same
		 * address (DPDK's heap). */
		h->mem = addr;
		h->frees_mem = rte_malloc_validate(addr, &h->mem_size) == 0;
		h->mem_lead = lead;
		e.mmap_off = reinterpret_cast<uintptr_t>(addr);
	}
	if (glue_->devx_umem_export(dv, e.blob) != 0) {
		rc = errno;
		DVS_LOG(ERR, "%s: cannot export UMEM %s: %s", name_.c_str(), name, strerror(rc));
		return dvs::fail_null<dvshare_umem>(rc);
	}
	e.size = size;
	e.blob_len = static_cast<uint16_t>(sizes_.devx_umem_attrs_size);
	return publish(std::move(h), e, false, o);
}

dvshare_umem *dvshare_dev::umem_alloc(const char *name, size_t size, size_t align,
				      uint32_t access, dvs::Origin o)
{
	int rc = publish_precheck(name);

	if (rc != 0)
		return dvs::fail_null<dvshare_umem>(-rc);
	void *mem = rte_zmalloc("dvshare_umem", size, static_cast<unsigned int>(align));
	if (mem == nullptr) {
		DVS_LOG(ERR, "%s: no %zu bytes (aligned to %zu) in DPDK's heap for UMEM %s",
			name_.c_str(), size, align, name);
		return dvs::fail_null<dvshare_umem>(ENOMEM);
	}
	/* Its element's headers and padding lie within this before it. */
	return umem_reg(name, mem, size, access, o, true, align + 256);
}

int dvshare_dev::set_meta(const char *name, const void *meta, size_t len)
{
	RegEntry snap;
	uint32_t slot;

	if (!primary_)
		return -EPERM;
	if (len > DVSHARE_META_MAX)
		return -EMSGSIZE;
	if (len != 0 && meta == nullptr)
		return -EINVAL;
	int rc = dvs::check_name(name);
	if (rc != 0)
		return rc;
	std::lock_guard<std::mutex> lock(ctl_);
	rc = reg_.find(name, &snap, &slot);
	if (rc != 0)
		return rc;
	return reg_.set_meta(slot, meta, len);
}
