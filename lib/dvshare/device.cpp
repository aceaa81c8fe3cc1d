/* SPDX-License-Identifier: BSD-3-Clause */
#include "device.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <rte_eal.h>

#include "dvs_log.h"
#include "dvs_mlx5_glue.h"
#include "dvs_prm.h"
#include "dvs_sim.h"
#include "fault.h"
#include "ipc.h"
#include "library.h"
#include "peers.h"

using dvs::EntryState;
using dvs::Handle;
using dvs::RegEntry;

namespace {

constexpr uint32_t kMaxObjectsLimit = 1u << 22;

const char *type_str(uint32_t type)
{
	switch (type) {
	case DVSHARE_TYPE_VAR: return "VAR";
	case DVSHARE_TYPE_OBJ: return "DEVX object";
	case DVSHARE_TYPE_UMEM: return "UMEM";
	default: return "object";
	}
}

/* Open @ibdev by walking the provider's device list. */
struct ibv_context *open_by_name(const struct dvs_glue *g, const char *ibdev)
{
	struct mlx5dv_context_attr attr = {};
	struct ibv_device **list = g->get_device_list(nullptr);
	struct ibv_context *ctx = nullptr;
	bool found = false;

	if (list == nullptr)
		return nullptr;
	attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
	for (int i = 0; list[i] != nullptr && !found; i++) {
		const char *n = g->get_device_name(list[i]);
		if (n != nullptr && strcmp(n, ibdev) == 0) {
			found = true;
			ctx = g->dv_open_device(list[i], &attr);
		}
	}
	int err = errno;
	g->free_device_list(list);
	errno = found ? err : ENODEV;
	return ctx;
}

RegEntry make_entry(const char *name, enum dvshare_type type, uint32_t id)
{
	RegEntry e{};

	snprintf(e.name, sizeof(e.name), "%s", name);
	e.type = type;
	e.id = id;
	return e;
}

} // namespace

dvshare_dev::~dvshare_dev()
{
	engine_.reset();
	/* Objects before the UMEMs they may point into, VARs last. */
	drop_handles(DVSHARE_TYPE_OBJ);
	drop_handles(DVSHARE_TYPE_UMEM);
	drop_handles(DVSHARE_TYPE_VAR);
	if (ctx_ != nullptr && owns_ctx_)
		glue_->close_device(ctx_);
}

void dvshare_dev::drop_handles(enum dvshare_type type)
{
	for (size_t s = 0; s < store_.size(); s++) {
		if (store_[s] != nullptr && store_[s]->type == type) {
			view_[s].store(nullptr, std::memory_order_release);
			store_[s].reset();
		}
	}
	std::erase_if(retired_, [type](const auto &h) { return h->type == type; });
}

int dvshare_dev::init_primary(const struct dvs_glue *g, struct ibv_context *ctx, bool owns,
			      const struct dvshare_dev_conf *conf)
{
	uint32_t max = conf != nullptr && conf->max_objects != 0 ? conf->max_objects
								  : DVSHARE_DEFAULT_MAX_OBJECTS;

	glue_ = g;
	ctx_ = ctx;
	owns_ctx_ = owns;
	primary_ = true;
	name_ = ctx->device->name;
	if (conf != nullptr && conf->n_allowed_uids != 0) {
		if (conf->allowed_uids == nullptr)
			return -EINVAL;
		allowed_uids_.assign(conf->allowed_uids, conf->allowed_uids + conf->n_allowed_uids);
	} else {
		allowed_uids_.push_back(geteuid());
	}
	if (conf != nullptr && conf->close_timeout_ms != 0)
		close_timeout_ms_ = conf->close_timeout_ms;
	if (max > kMaxObjectsLimit) {
		DVS_LOG(ERR, "%s: max_objects %u is above the limit %u", name_.c_str(), max,
			kMaxObjectsLimit);
		return -EINVAL;
	}
	g->get_export_sizes(&sizes_, sizeof(sizes_));
	for (uint32_t sz : { sizes_.var_attrs_size, sizes_.devx_obj_attrs_size,
			     sizes_.devx_umem_attrs_size }) {
		if (sz == 0 || sz > dvs::kBlobMax) {
			DVS_LOG(ERR, "%s: rdma-core export size %u does not fit a registry slot (%u B)",
				name_.c_str(), sz, dvs::kBlobMax);
			return -ENOTSUP;
		}
	}
	int rc = reg_.create(name_.c_str(), g->provider, sizes_, max);
	if (rc != 0) {
		DVS_LOG(ERR, "%s: cannot create registry: %s", name_.c_str(), strerror(-rc));
		return rc;
	}
	store_.resize(reg_.nslots());
	view_ = std::make_unique<std::atomic<Handle *>[]>(reg_.nslots());
	return 0;
}

int dvshare_dev::open(const char *ibdev, const struct dvshare_dev_conf *conf,
		      std::unique_ptr<dvshare_dev> *out)
{
	char err[256] = "";
	const struct dvs_glue *g = dvs_glue_select(ibdev, err, sizeof(err));

	if (g == nullptr) {
		DVS_LOG(ERR, "%s: %s", ibdev ? ibdev : "(null)", err);
		return -errno;
	}
	int rc = dvs_glue_require_export(g, err, sizeof(err));
	if (rc != 0) {
		DVS_LOG(ERR, "%s: %s", ibdev, err);
		return rc;
	}
	struct ibv_context *ctx = open_by_name(g, ibdev);
	if (ctx == nullptr) {
		rc = -errno;
		DVS_LOG(ERR, "%s: cannot open device with DEVX: %s", ibdev, strerror(errno));
		return rc;
	}
	std::unique_ptr<dvshare_dev> d(new dvshare_dev());
	rc = d->init_primary(g, ctx, true, conf);
	if (rc != 0) {
		if (d->ctx_ == nullptr)
			g->close_device(ctx);
		return rc;
	}
	*out = std::move(d);
	return 0;
}

int dvshare_dev::adopt(struct ibv_context *ctx, const struct dvshare_dev_conf *conf,
		       std::unique_ptr<dvshare_dev> *out)
{
	char err[256] = "";
	const struct dvs_glue *g;

	if (ctx == nullptr || ctx->device == nullptr)
		return -EINVAL;
	g = dvs_sim_is_context(ctx) ? dvs_sim_glue() : dvs_mlx5_glue(err, sizeof(err));
	if (g == nullptr) {
		DVS_LOG(ERR, "%s: %s", ctx->device->name, err);
		return -errno;
	}
	int rc = dvs_glue_require_export(g, err, sizeof(err));
	if (rc != 0) {
		DVS_LOG(ERR, "%s: %s", ctx->device->name, err);
		return rc;
	}
	std::unique_ptr<dvshare_dev> d(new dvshare_dev());
	rc = d->init_primary(g, ctx, false, conf);
	if (rc != 0)
		return rc;
	*out = std::move(d);
	return 0;
}

int dvshare_dev::map_var(dvshare_var *v)
{
	v->page = dvs::Mapping::map(v->dv->length, PROT_READ | PROT_WRITE, MAP_SHARED,
				    ctx_->cmd_fd, v->dv->mmap_off);
	if (!v->page.valid()) {
		int err = errno;
		DVS_LOG(ERR, "%s: cannot map VAR page %u: %s", name_.c_str(), v->dv->page_id,
			strerror(err));
		return -err;
	}
	return 0;
}

Handle *dvshare_dev::handle_at(uint32_t slot, uint32_t gen) const
{
	Handle *h = view_[slot].load(std::memory_order_seq_cst);

	return h != nullptr && h->gen == gen && !h->revoked.load() ? h : nullptr;
}

/* Insert @e into the registry and keep @h for its slot. On failure @h is
 * destroyed, which frees what it owns, unless @give_back: then the object
 * stays the application's. */
template <typename H>
H *dvshare_dev::publish(std::unique_ptr<H> h, const RegEntry &e, bool give_back)
{
	uint32_t slot = 0;
	H *raw = h.get();
	{
		std::lock_guard<std::mutex> lock(ctl_);
		int rc = reg_.insert(e, &slot);
		if (rc != 0) {
			DVS_LOG(ERR, "%s: cannot publish %s: %s", name_.c_str(), e.name,
				rc == -EEXIST ? "name already published"
				: rc == -ENOSPC ? "registry full" : strerror(-rc));
			if (give_back)
				h->dv = nullptr;
			return dvs::fail_null<H>(-rc);
		}
		RegEntry snap;
		reg_.read(slot, &snap);
		raw->slot = slot;
		raw->gen = snap.gen;
		snprintf(raw->name, sizeof(raw->name), "%s", e.name);
		raw->get();
		if (store_[slot] != nullptr)
			let_go_locked(slot); /* a stale import of the slot's old object */
		store_[slot] = std::move(h);
		view_[slot].store(raw, std::memory_order_release);
	}
	dvs::Library::get().stats.published++;
	dvs::ipc_announce(this, raw->name);
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

dvshare_var *dvshare_dev::var_alloc(const char *name, uint32_t flags)
{
	int rc = publish_precheck(name);

	if (rc != 0)
		return dvs::fail_null<dvshare_var>(-rc);
	struct mlx5dv_var *dv = glue_->alloc_var(ctx_, flags);
	if (dv == nullptr) {
		rc = errno;
		DVS_LOG(ERR, "%s: VAR allocation failed: %s", name_.c_str(), strerror(rc));
		return dvs::fail_null<dvshare_var>(rc);
	}
	auto h = std::make_unique<dvshare_var>(this, true);
	h->dv = dv;
	return publish_var(std::move(h), name, false);
}

dvshare_var *dvshare_dev::var_publish(const char *name, struct mlx5dv_var *dv)
{
	int rc = publish_precheck(name);

	if (rc == 0 && dv == nullptr)
		rc = -EINVAL;
	if (rc != 0)
		return dvs::fail_null<dvshare_var>(-rc);
	auto h = std::make_unique<dvshare_var>(this, true);
	h->dv = dv;
	return publish_var(std::move(h), name, true);
}

dvshare_var *dvshare_dev::publish_var(std::unique_ptr<dvshare_var> h, const char *name,
				      bool give_back)
{
	RegEntry e = make_entry(name, DVSHARE_TYPE_VAR, h->dv->page_id);
	int rc = map_var(h.get());

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
	return publish(std::move(h), e, give_back);
}

dvshare_obj *dvshare_dev::obj_create(const char *name, const void *in, size_t inlen, void *out,
				     size_t outlen)
{
	int rc = publish_precheck(name);

	if (rc == 0 && (in == nullptr || out == nullptr || inlen < DVS_PRM_HDR_SIZE ||
			outlen < DVS_PRM_HDR_SIZE))
		rc = -EINVAL;
	if (rc != 0)
		return dvs::fail_null<dvshare_obj>(-rc);
	struct mlx5dv_devx_obj *dv = glue_->devx_obj_create(ctx_, in, inlen, out, outlen);
	if (dv == nullptr) {
		rc = errno;
		DVS_LOG(ERR, "%s: DEVX create for %s failed: %s (status %s, syndrome 0x%08x)",
			name_.c_str(), name, strerror(rc),
			dvs_prm_status_str(dvs_prm_out_status(out)), dvs_prm_out_syndrome(out));
		return dvs::fail_null<dvshare_obj>(rc);
	}
	struct dvs_prm_hdr hdr = dvs_prm_hdr_decode(in);
	uint16_t type = hdr.opcode == DVS_PRM_CMD_CREATE_GENERAL_OBJECT ? hdr.obj_type : 0;
	return publish_obj(name, dv, dvs_prm_out_obj_id(out), type, false);
}

dvshare_obj *dvshare_dev::obj_publish(const char *name, struct mlx5dv_devx_obj *dv,
				      uint32_t obj_id, uint16_t obj_type)
{
	int rc = publish_precheck(name);

	if (rc == 0 && dv == nullptr)
		rc = -EINVAL;
	if (rc != 0)
		return dvs::fail_null<dvshare_obj>(-rc);
	return publish_obj(name, dv, obj_id, obj_type, true);
}

dvshare_obj *dvshare_dev::publish_obj(const char *name, struct mlx5dv_devx_obj *dv,
				      uint32_t obj_id, uint16_t obj_type, bool give_back)
{
	auto h = std::make_unique<dvshare_obj>(this, true);
	RegEntry e = make_entry(name, DVSHARE_TYPE_OBJ, obj_id);

	h->dv = dv;
	h->obj_id = obj_id;
	h->obj_type = obj_type;
	if (glue_->devx_obj_export(dv, e.blob) != 0) {
		int err = errno;
		DVS_LOG(ERR, "%s: cannot export DEVX object %s: %s", name_.c_str(), name,
			strerror(err));
		if (give_back)
			h->dv = nullptr;
		return dvs::fail_null<dvshare_obj>(err);
	}
	e.obj_type = obj_type;
	e.blob_len = static_cast<uint16_t>(sizes_.devx_obj_attrs_size);
	return publish(std::move(h), e, give_back);
}

dvshare_umem *dvshare_dev::umem_reg(const char *name, void *addr, size_t size, uint32_t access)
{
	int rc = publish_precheck(name);

	if (rc != 0)
		return dvs::fail_null<dvshare_umem>(-rc);
	struct mlx5dv_devx_umem *dv = glue_->devx_umem_reg(ctx_, addr, size, access);
	if (dv == nullptr) {
		rc = errno;
		DVS_LOG(ERR, "%s: UMEM registration of %s failed: %s", name_.c_str(), name,
			strerror(rc));
		return dvs::fail_null<dvshare_umem>(rc);
	}
	auto h = std::make_unique<dvshare_umem>(this, true);
	RegEntry e = make_entry(name, DVSHARE_TYPE_UMEM, dv->umem_id);
	h->dv = dv;
	h->size = size;
	if (glue_->devx_umem_export(dv, e.blob) != 0) {
		rc = errno;
		DVS_LOG(ERR, "%s: cannot export UMEM %s: %s", name_.c_str(), name, strerror(rc));
		return dvs::fail_null<dvshare_umem>(rc);
	}
	e.size = size;
	e.blob_len = static_cast<uint16_t>(sizes_.devx_umem_attrs_size);
	return publish(std::move(h), e, false);
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

int dvshare_dev::import_slot(uint32_t slot, const RegEntry &e, Handle **out)
{
	uint8_t blob[dvs::kBlobMax];
	std::unique_ptr<Handle> h;
	const char *what = type_str(e.type);

	memcpy(blob, e.blob, sizeof(blob));
	switch (e.type) {
	case DVSHARE_TYPE_VAR: {
		auto v = std::make_unique<dvshare_var>(this, false);
		v->dv = glue_->var_import(ctx_, blob);
		if (v->dv == nullptr || map_var(v.get()) != 0)
			break;
		h = std::move(v);
		break;
	}
	case DVSHARE_TYPE_OBJ: {
		auto o = std::make_unique<dvshare_obj>(this, false);
		o->dv = glue_->devx_obj_import(ctx_, blob);
		o->obj_id = e.id;
		o->obj_type = e.obj_type;
		if (o->dv != nullptr)
			h = std::move(o);
		break;
	}
	case DVSHARE_TYPE_UMEM: {
		auto u = std::make_unique<dvshare_umem>(this, false);
		u->dv = glue_->devx_umem_import(ctx_, blob);
		u->size = e.size;
		if (u->dv != nullptr)
			h = std::move(u);
		break;
	}
	default:
		errno = EBADMSG;
		break;
	}
	if (h == nullptr) {
		int err = errno != 0 ? errno : EIO;
		DVS_LOG(ERR, "%s: cannot import %s %s: %s", name_.c_str(), what, e.name,
			strerror(err));
		return -err;
	}
	h->slot = slot;
	h->gen = e.gen;
	snprintf(h->name, sizeof(h->name), "%s", e.name);
	*out = h.get();
	if (store_[slot] != nullptr)
		let_go_locked(slot); /* a stale import of the slot's old object */
	store_[slot] = std::move(h);
	view_[slot].store(*out, std::memory_order_release);
	imported_++;
	dvs::Library::get().stats.imports++;
	return 0;
}

int dvshare_dev::attach(dvs::Fd cmd_fd, dvs::Fd reg_fd, std::unique_ptr<dvshare_dev> *out,
			std::string *why)
{
	std::unique_ptr<dvshare_dev> d(new dvshare_dev());
	char err[256] = "";
	int rc = d->reg_.attach(std::move(reg_fd), why);

	if (rc != 0)
		return rc;
	const dvs::RegHeader *h = d->reg_.hdr();
	d->name_ = h->ibdev;
	d->glue_ = dvs_glue_select(h->ibdev, err, sizeof(err));
	if (d->glue_ == nullptr) {
		*why = err;
		return -errno;
	}
	rc = dvs_glue_require_export(d->glue_, err, sizeof(err));
	if (rc != 0) {
		*why = err;
		return rc;
	}
	if (strcmp(h->provider, d->glue_->provider) != 0) {
		*why = std::string("primary shares it through provider '") + h->provider +
		       "', this process has '" + d->glue_->provider + "'";
		return -EPROTO;
	}
	d->glue_->get_export_sizes(&d->sizes_, sizeof(d->sizes_));
	if (d->sizes_.var_attrs_size != h->export_var ||
	    d->sizes_.devx_obj_attrs_size != h->export_obj ||
	    d->sizes_.devx_umem_attrs_size != h->export_umem) {
		snprintf(err, sizeof(err),
			 "export sizes differ (var/obj/umem): primary %u/%u/%u, this process "
			 "%u/%u/%u; run the same rdma-core in both",
			 h->export_var, h->export_obj, h->export_umem, d->sizes_.var_attrs_size,
			 d->sizes_.devx_obj_attrs_size, d->sizes_.devx_umem_attrs_size);
		*why = err;
		return -EPROTO;
	}
	d->ctx_ = d->glue_->import_device(cmd_fd.get());
	if (d->ctx_ == nullptr) {
		rc = -errno;
		*why = std::string("import_device failed: ") + strerror(errno);
		return rc;
	}
	cmd_fd.release(); /* the context owns it now */
	d->owns_ctx_ = true;
	d->store_.resize(d->reg_.nslots());
	d->view_ = std::make_unique<std::atomic<Handle *>[]>(d->reg_.nslots());
	for (uint32_t s = d->reg_.next_used(0); s < d->reg_.nslots(); s = d->reg_.next_used(s + 1)) {
		RegEntry e;
		Handle *hd;
		rc = d->reg_.read(s, &e);
		if (rc != 0) {
			*why = "registry entry " + std::to_string(s) + " unreadable";
			return rc;
		}
		if (e.state != static_cast<uint32_t>(EntryState::Live))
			continue;
		rc = d->import_slot(s, e, &hd);
		if (rc != 0) {
			*why = std::string("cannot import ") + type_str(e.type) + " " + e.name +
			       ": " + strerror(-rc);
			return rc;
		}
		dvs::fault_point("attach-import");
	}
	*out = std::move(d);
	return 0;
}

Handle *dvshare_dev::lookup(const char *name, enum dvshare_type type)
{
	RegEntry snap;
	uint32_t slot;
	int rc = dvs::check_name(name);

	if (rc != 0)
		return dvs::fail_null<Handle>(-rc);
	if (reg_.closed())
		return dvs::fail_null<Handle>(ENODEV);
	if (!primary_ && dvs::Library::get().orphaned() != 0) {
		DVS_LOG(ERR, "%s: no lookup of %s: the primary (pid %d) died", name_.c_str(), name,
			dvs::Library::get().orphaned());
		return dvs::fail_null<Handle>(ENOTCONN);
	}
	rc = reg_.find(name, &snap, &slot);
	if (rc != 0)
		return dvs::fail_null<Handle>(-rc);
	if (snap.type != static_cast<uint32_t>(type))
		return dvs::fail_null<Handle>(ENOENT);
	/* The common case: a memory read and a reference. The in-flight count
	 * keeps a handle being revoked meanwhile from being freed under us. */
	lookups_in_flight_.fetch_add(1, std::memory_order_seq_cst);
	Handle *h = handle_at(slot, snap.gen);
	if (h != nullptr)
		h->get();
	lookups_in_flight_.fetch_sub(1, std::memory_order_release);
	if (h == nullptr)
		h = lookup_slow(name, slot, snap.gen);
	if (h != nullptr)
		dvs::Library::get().stats.lookups.fetch_add(1, std::memory_order_relaxed);
	return h;
}

/* Published after this process attached (or re-published after a destroy
 * was called off): import it now, under the lock revokes also take. */
Handle *dvshare_dev::lookup_slow(const char *name, uint32_t slot, uint32_t gen)
{
	std::lock_guard<std::mutex> lock(ctl_);
	RegEntry snap;
	Handle *h = handle_at(slot, gen);

	if (h != nullptr) {
		h->get();
		return h;
	}
	/* Still live with this generation? A revoke that ran before we took
	 * the lock has marked it, and the kernel object may be gone. */
	if (reg_.read(slot, &snap) != 0 || snap.state != static_cast<uint32_t>(EntryState::Live) ||
	    snap.gen != gen || strcmp(snap.name, name) != 0 || primary_)
		return dvs::fail_null<Handle>(ENOENT);
	int rc = import_slot(slot, snap, &h);
	if (rc != 0)
		return dvs::fail_null<Handle>(-rc);
	h->get();
	return h;
}

int dvshare_dev::get_meta(const char *name, void *buf, size_t len)
{
	RegEntry snap;
	uint32_t slot;
	int rc = dvs::check_name(name);

	if (rc != 0)
		return rc;
	if (buf == nullptr && len != 0)
		return -EINVAL;
	rc = reg_.find(name, &snap, &slot);
	if (rc != 0)
		return rc;
	if (len != 0)
		memcpy(buf, snap.meta, std::min<size_t>(len, snap.meta_len));
	return snap.meta_len;
}

int dvshare_dev::foreach(dvshare_foreach_cb cb, void *arg)
{
	if (cb == nullptr)
		return -EINVAL;
	for (uint32_t s = reg_.next_used(0); s < reg_.nslots(); s = reg_.next_used(s + 1)) {
		RegEntry e;
		int rc = reg_.read(s, &e);
		if (rc != 0)
			return rc;
		if (e.state != static_cast<uint32_t>(EntryState::Live))
			continue;
		struct dvshare_info info = {};
		info.name = e.name;
		info.type = static_cast<enum dvshare_type>(e.type);
		info.id = e.id;
		info.obj_type = e.obj_type;
		info.meta_len = e.meta_len;
		info.size = e.size;
		rc = cb(this, &info, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

void dvshare_dev::abandon()
{
	std::lock_guard<std::mutex> lock(ctl_);

	for (auto &h : store_)
		if (h != nullptr)
			h->owner = false;
	for (auto &h : retired_)
		h->owner = false;
	/* EAL cleanup has already freed the service library's state. */
	(void)engine_.release();
}

void dvshare_dev::close_primary()
{
	std::lock_guard<std::mutex> lock(ctl_);
	reg_.mark_closed();
}

bool dvshare_dev::uid_allowed(uid_t uid) const
{
	return std::find(allowed_uids_.begin(), allowed_uids_.end(), uid) != allowed_uids_.end();
}

/* Owner side of a destroy for objects whose destroy can fail. VARs are
 * freed by let_go_locked(), after their mapping is fenced. */
int dvshare_dev::kill_kernel_object(Handle *h)
{
	int rc = 0;

	if (h->type == DVSHARE_TYPE_OBJ) {
		auto *o = static_cast<dvshare_obj *>(h);
		rc = glue_->devx_obj_destroy(o->dv);
		if (rc == 0)
			o->dv = nullptr;
	} else if (h->type == DVSHARE_TYPE_UMEM) {
		auto *u = static_cast<dvshare_umem *>(h);
		rc = glue_->devx_umem_dereg(u->dv);
		if (rc == 0)
			u->dv = nullptr;
	}
	if (rc != 0)
		DVS_LOG(ERR, "%s: device refused to destroy %s: %s", name_.c_str(), h->name,
			strerror(rc));
	return -rc;
}

/* Replace the VAR page in place with a private anonymous page, so a
 * doorbell written after this lands in the fence, never on a page the
 * device may give to someone else; then free (owner) or unimport. */
static void fence_var(dvshare_var *v, const struct dvs_glue *g, const char *dev)
{
	if (v->page.valid()) {
		void *p = mmap(v->page.addr(), v->page.length(), PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
		if (p == MAP_FAILED) {
			/* Unmapped instead: a late write faults rather than land. */
			DVS_LOG(ERR, "%s: cannot fence VAR %s (%s): unmapping it", dev, v->name,
				strerror(errno));
			v->page.reset();
		}
	}
	if (v->dv != nullptr) {
		if (v->owner)
			g->free_var(v->dv);
		else
			g->var_unimport(v->dv);
		v->dv = nullptr;
	}
}

void dvshare_dev::let_go_locked(uint32_t slot)
{
	std::unique_ptr<Handle> h = std::move(store_[slot]);

	if (h == nullptr)
		return;
	view_[slot].store(nullptr, std::memory_order_seq_cst);
	h->revoked.store(true);
	dvs::Library::get().stats.revoked++;
	if (h->type == DVSHARE_TYPE_VAR)
		fence_var(static_cast<dvshare_var *>(h.get()), glue_, name_.c_str());
	retired_.push_back(std::move(h));
	reap_locked();
}

/* Free retired handles nobody references and no lookup can reach: a
 * lookup reads view_ between two updates of lookups_in_flight_, so once
 * view_ is cleared and the count is seen at zero, none can find it. */
void dvshare_dev::reap_locked()
{
	bool quiet = lookups_in_flight_.load(std::memory_order_seq_cst) == 0;

	std::erase_if(retired_, [quiet](const std::unique_ptr<Handle> &h) {
		if (quiet)
			h->unreachable = true;
		return h->unreachable && h->refs.load() == 0;
	});
}

void dvshare_dev::reap()
{
	std::lock_guard<std::mutex> lock(ctl_);
	reap_locked();
}

int dvshare_dev::wait_acks(uint32_t revoke_id, unsigned int timeout_ms, std::set<pid_t> *missing)
{
	std::unique_lock<std::mutex> lk(wait_mu_);
	auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);

	wait_cv_.wait_until(lk, deadline, [&] { return pending_[revoke_id].waiting.empty(); });
	*missing = std::move(pending_[revoke_id].waiting);
	pending_.erase(revoke_id);
	return missing->empty() ? 0 : -EBUSY;
}

void dvshare_dev::revoke_ack(pid_t pid, uint32_t revoke_id, uint32_t slot, uint32_t gen)
{
	std::lock_guard<std::mutex> lk(wait_mu_);
	auto it = pending_.find(revoke_id);

	if (it == pending_.end() || it->second.slot != slot || it->second.gen != gen)
		return; /* late answer to a destroy that was called off */
	it->second.waiting.erase(pid);
	wait_cv_.notify_all();
}

void dvshare_dev::peer_gone(pid_t pid)
{
	std::lock_guard<std::mutex> lk(wait_mu_);

	for (auto &[id, p] : pending_)
		p.waiting.erase(pid);
	wait_cv_.notify_all();
}

static std::string pid_list(const std::set<pid_t> &pids)
{
	std::string s;

	for (pid_t p : pids)
		s += (s.empty() ? "" : " ") + std::to_string(p);
	return s;
}

int dvshare_dev::destroy(const char *name, unsigned int timeout_ms)
{
	dvs::Library &lib = dvs::Library::get();
	RegEntry snap;
	uint32_t slot, rid;
	int rc = dvs::check_name(name);

	if (!primary_)
		return -EPERM;
	if (rc != 0)
		return rc;
	{
		std::lock_guard<std::mutex> lock(ctl_);
		if (reg_.closed())
			return -ENODEV;
		rc = reg_.find(name, &snap, &slot);
		if (rc != 0)
			return rc;
		rid = ++revoke_seq_;
		reg_.set_revoking(slot, rid);
		std::lock_guard<std::mutex> lk(wait_mu_);
		pending_[rid] = { slot, snap.gen, dvs::Peers::get().attached_to(name_) };
	}
	dvs::fault_point("primary-revoke");
	lib.emit(this, DVSHARE_EVENT_REVOKING, name, getpid());
	dvs::ipc_revoke(this, slot, snap.gen, rid);
	std::set<pid_t> missing;
	rc = wait_acks(rid, timeout_ms, &missing);
	{
		std::lock_guard<std::mutex> lock(ctl_);
		if (rc == 0)
			rc = kill_kernel_object(store_[slot].get());
		else
			DVS_LOG(ERR, "%s: destroy of %s called off: pid(s) %s did not let go within %u ms",
				name_.c_str(), name, pid_list(missing).c_str(), timeout_ms);
		if (rc != 0) {
			/* Nothing was destroyed: back to live, same generation. */
			reg_.set_live(slot);
			lib.stats.destroy_busy += rc == -EBUSY;
			return rc;
		}
		let_go_locked(slot);
		reg_.remove(slot);
	}
	lib.stats.destroyed++;
	lib.emit(this, DVSHARE_EVENT_REVOKED, name, getpid());
	return 0;
}

int dvshare_dev::close_all(unsigned int timeout_ms)
{
	if (timeout_ms == 0)
		timeout_ms = close_timeout_ms_;
	/* Objects first: they may point into UMEMs. */
	for (auto type : { DVSHARE_TYPE_OBJ, DVSHARE_TYPE_UMEM, DVSHARE_TYPE_VAR }) {
		std::vector<std::string> names;
		for (uint32_t s = reg_.next_used(0); s < reg_.nslots(); s = reg_.next_used(s + 1)) {
			RegEntry e;
			if (reg_.read(s, &e) == 0 && e.state == static_cast<uint32_t>(EntryState::Live) &&
			    e.type == static_cast<uint32_t>(type))
				names.emplace_back(e.name);
		}
		for (const std::string &n : names) {
			int rc = destroy(n.c_str(), timeout_ms);
			if (rc != 0 && rc != -ENOENT)
				return rc;
		}
	}
	close_primary();
	return 0;
}

bool dvshare_dev::revoke_local(uint32_t slot, uint32_t gen, uint32_t revoke_id,
			       std::string *name)
{
	RegEntry e;
	auto still_asked = [&] {
		return slot < reg_.nslots() && reg_.read(slot, &e) == 0 &&
		       e.state == static_cast<uint32_t>(EntryState::Revoking) && e.gen == gen &&
		       e.revoke_id == revoke_id;
	};

	if (!still_asked())
		return false; /* a destroy already called off: nothing to do */
	*name = e.name;
	dvs::Library::get().emit(this, DVSHARE_EVENT_REVOKING, e.name, reg_.hdr()->primary_pid);
	{
		std::lock_guard<std::mutex> lock(ctl_);
		if (!still_asked())
			return false; /* called off while the application looked */
		if (store_[slot] != nullptr && store_[slot]->gen == gen)
			let_go_locked(slot);
	}
	dvs::fault_point("revoke-fence");
	return true;
}

void dvshare_dev::revalidate()
{
	std::lock_guard<std::mutex> lock(ctl_);

	for (uint32_t s = 0; s < store_.size(); s++) {
		RegEntry e;
		if (store_[s] == nullptr)
			continue;
		if (reg_.read(s, &e) != 0 || e.state != static_cast<uint32_t>(EntryState::Live) ||
		    e.gen != store_[s]->gen) {
			DVS_LOG(INFO, "%s: %s was revoked while attaching: let go", name_.c_str(),
				store_[s]->name);
			let_go_locked(s);
		}
	}
}

int dvshare_dev::engine_start(uint32_t *service_id)
{
	std::lock_guard<std::mutex> lock(ctl_);
	int err = 0;

	if (!primary_)
		return -EPERM;
	if (!dvs_sim_is_context(ctx_))
		return -ENOTSUP;
	if (engine_ != nullptr)
		return -EALREADY;
	engine_ = dvs::EngineService::start(ctx_, name_, &err);
	if (engine_ == nullptr)
		return err;
	if (service_id != nullptr)
		*service_id = engine_->id();
	return 0;
}

int dvshare_dev::var_kicks(const char *name, uint64_t *kicks, uint32_t *last)
{
	RegEntry snap;
	uint32_t slot;
	int rc = dvs::check_name(name);

	if (rc != 0)
		return rc;
	if (!dvs_sim_is_context(ctx_))
		return -ENOTSUP;
	rc = reg_.find(name, &snap, &slot);
	if (rc != 0)
		return rc;
	if (snap.type != DVSHARE_TYPE_VAR)
		return -ENOENT;
	return dvs_sim_page_kicks(ctx_, snap.id, kicks, last);
}
