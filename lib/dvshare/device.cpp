/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A shared device's lifecycle: open or adopt (primary), teardown, this
 * process's view of a VAR page, device commands, and the software
 * device's engine. Publishing is in device_publish.cpp, attaching and
 * lookups in device_import.cpp, the destroy protocol in device_revoke.cpp.
 */
#include "device.h"

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "dvs_log.h"
#include "dvs_mlx5_glue.h"
#include "dvs_sim.h"
#include "dvshare_prm.h"

using dvs::Handle;

namespace {

constexpr uint32_t kMaxObjectsLimit = 1u << 22;

} // namespace

dvshare_dev::~dvshare_dev()
{
	teardown();
}

/* Let go of everything this process holds of the device: objects before
 * the UMEMs they may point into, VARs last, then the context and the
 * registry. What is left is a shell that refuses every call (ENODEV), so
 * a closed device's pointer stays safe to pass; handles the application
 * still references stay too, revoked, until their last release. */
void dvshare_dev::teardown()
{
	std::lock_guard<std::mutex> lock(ctl_);

	if (torn_down_)
		return;
	torn_down_ = true;
	gone_.store(true);
	engine_.reset();
	for (auto type : { DVSHARE_TYPE_OBJ, DVSHARE_TYPE_UMEM, DVSHARE_TYPE_VAR })
		drop_handles(type);
	free_watch_.reset();
	if (ctx_ != nullptr && owns_ctx_)
		glue_->close_device(ctx_);
	ctx_ = nullptr;
	reg_ = dvs::Registry();
	store_.clear();
	vars_.close(); /* only the places of VARs the application still holds stay */
}

void dvshare_dev::drop_handles(enum dvshare_type type)
{
	auto keep = [](const dvs::HandlePtr<> &h) {
		if (h->refs() == 0)
			return false;
		h->revoke_and_drain();
		h->let_go();
		return true;
	};
	for (uint32_t s : store_.slots()) {
		if (store_.get(s)->type != type)
			continue;
		dvs::HandlePtr<> h = store_.take(s);
		if (h != nullptr && keep(h))
			retired_.emplace(h.get(), std::move(h));
	}
	std::erase_if(retired_, [&](auto &kv) { return kv.second->type == type && !keep(kv.second); });
}

int dvshare_dev::init_primary(const struct dvs_glue *g, struct ibv_context *ctx, bool owns,
			      const struct dvshare_dev_conf *conf)
{
	uint32_t max = conf != nullptr && conf->max_objects != 0 ? conf->max_objects
								  : DVSHARE_DEFAULT_MAX_OBJECTS;
	std::string why;

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
	max_per_secondary_ = conf != nullptr && conf->max_objects_per_secondary != 0
				     ? conf->max_objects_per_secondary
				     : std::max(1u, max / 4);
	max_secondaries_ = conf != nullptr && conf->max_objects_secondaries != 0
				   ? conf->max_objects_secondaries
				   : std::max(1u, max / 2);
	if (max_secondaries_ > max) {
		DVS_LOG(ERR, "%s: max_objects_secondaries %u is above max_objects %u",
			name_.c_str(), max_secondaries_, max);
		return -EINVAL;
	}
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
	if (dvs::read_caps(g, ctx, &caps_, &why) != 0)
		DVS_LOG(WARNING, "%s: %s: no VAR pages will be shared", name_.c_str(), why.c_str());
	else if (!caps_.virtio_net_q)
		DVS_LOG(INFO, "%s: no VIRTIO_NET_Q capability: no VAR pages on this device",
			name_.c_str());
	int rc = reg_.create(name_.c_str(), g->provider, sizes_, max, caps_.db_offset);
	if (rc != 0) {
		DVS_LOG(ERR, "%s: cannot create registry: %s", name_.c_str(), strerror(-rc));
		return rc;
	}
	if (dvs_sim_is_context(ctx))
		free_watch_ = std::make_unique<dvs::FreeWatch>(ctx);
	db_off_ = reg_.hdr()->db_offset;
	vars_.configure(reg_.hdr()->max_objects);
	return store_.init(reg_.nslots());
}

/* Each failure has its own errno and a whole message: ENOENT (rdma-core
 * not installed), ENOSYS (no RDMA support in the kernel), ENODEV (no such
 * device), ENOTSUP (rdma-core older than 63). */
int dvshare_dev::open(const char *ibdev, const struct dvshare_dev_conf *conf,
		      std::unique_ptr<dvshare_dev> *out)
{
	char err[DVS_GLUE_ERR_MAX] = "";
	const struct dvs_glue *g = dvs_glue_select(ibdev, err, sizeof(err));

	if (g == nullptr) {
		DVS_LOG(ERR, "%s: %s", ibdev ? ibdev : "(null)", err);
		return -errno;
	}
	struct ibv_context *ctx = dvs_glue_open_device(g, ibdev, err, sizeof(err));
	if (ctx == nullptr) {
		int rc = -errno;
		DVS_LOG(ERR, "%s: %s", ibdev, err);
		return rc;
	}
	int rc = dvs_glue_require_export(g, err, sizeof(err));
	if (rc != 0) {
		DVS_LOG(ERR, "%s: %s", ibdev, err);
		g->close_device(ctx);
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
	char err[DVS_GLUE_ERR_MAX] = "";
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

/* Map a page of @len for @v at this device's next VAR place (else
 * anywhere) with @map(address, MAP_FIXED or 0), which returns the mapping
 * or nullptr with errno; its doorbell register is db_offset() into it. */
template <typename Map> int dvshare_dev::place_var_page(dvshare_var *v, size_t len, Map &&map)
{
	dvs::VarRegion *region = nullptr;
	uint32_t idx = 0;
	void *at = nullptr;

	if (vars_.fits(len) && vars_.take(&idx, &at) == 0)
		region = &vars_;
	void *p = map(at, region != nullptr ? MAP_FIXED : 0);
	if (p == nullptr)
		return -errno; /* the place is not given back (VarRegion::take()) */
	v->page.set(p, len, region, idx);
	v->db.store(static_cast<uint8_t *>(p) + db_offset(), std::memory_order_release);
	return 0;
}

/* Map a VAR page the way the kernel hands it out (mmap of the cmd_fd at
 * the VAR's offset). */
int dvshare_dev::map_var(dvshare_var *v)
{
	const size_t len = v->dv->length;

	if (db_offset() + sizeof(uint32_t) > len) {
		DVS_LOG(ERR, "%s: doorbell offset %u is outside the %zu-byte VAR page", name_.c_str(),
			db_offset(), len);
		return -EINVAL;
	}
	int rc = place_var_page(v, len, [&](void *at, int fixed) {
		return glue_->mmap_cmd(ctx_, at, len, PROT_READ | PROT_WRITE, MAP_SHARED | fixed,
				       v->dv->mmap_off);
	});
	if (rc != 0)
		DVS_LOG(ERR, "%s: cannot map VAR page %u: %s", name_.c_str(), v->dv->page_id,
			strerror(-rc));
	return rc;
}

/* A private page where the VAR would have been: for a handle revoked
 * (or its device closed) before this process ever mapped it. */
int dvshare_dev::map_fence_page(dvshare_var *v)
{
	const size_t len = static_cast<size_t>(sysconf(_SC_PAGESIZE));
	int rc = place_var_page(v, len, [&](void *at, int fixed) {
		void *p = mmap(at, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | fixed,
			       -1, 0);
		return p != MAP_FAILED ? p : nullptr;
	});
	if (rc == 0)
		v->fenced = true;
	return rc;
}

void *dvshare_dev::map_var_late(dvshare_var *v)
{
	std::lock_guard<std::mutex> lock(ctl_); /* what revokes and fences take */
	void *db = v->db.load(std::memory_order_acquire);

	if (db != nullptr)
		return db;
	/* Revoked under this lock, so it cannot happen while we map: a live
	 * handle's kernel object outlives this call. */
	int rc = !v->revoked() && v->dv != nullptr && !torn_down_ ? map_var(v) : map_fence_page(v);
	if (rc != 0)
		return dvs::fail_null<void>(-rc);
	return v->db.load(std::memory_order_relaxed);
}

Handle *dvshare_dev::handle_at(uint32_t slot, uint32_t gen) const
{
	Handle *h = store_.view(slot);

	return h != nullptr && h->gen == gen && !h->revoked() ? h : nullptr;
}

int dvshare_dev::general_cmd(const void *in, size_t inlen, void *out, size_t outlen)
{
	if (in == nullptr || out == nullptr)
		return -EINVAL;
	return -glue_->devx_general_cmd(ctx_, in, inlen, out, outlen);
}

void dvshare_dev::abandon()
{
	std::lock_guard<std::mutex> lock(ctl_);

	store_.for_each([](Handle &h) { h.owner = false; });
	for (auto &kv : retired_)
		kv.second->owner = false;
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

int dvshare_dev::engine_steer(int tx_queue, int rx_queue, const char *counter)
{
	uint32_t id = 0;

	if (!primary_)
		return -EPERM;
	if (!dvs_sim_is_context(ctx_))
		return -ENOTSUP;
	if (tx_queue < 0 || tx_queue > UINT16_MAX || rx_queue < -1 || rx_queue >= UINT16_MAX)
		return -EINVAL;
	if (counter != nullptr) {
		dvs::Handle *h = lookup(counter, DVSHARE_TYPE_OBJ);
		if (h == nullptr)
			return -ENOENT;
		const auto *o = static_cast<const dvshare_obj *>(h);
		bool is_counter = o->create_op == DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER;
		id = o->obj_id;
		bool revoked;
		if (h->put(&revoked) && revoked)
			reap(h);
		if (!is_counter)
			return -EINVAL;
	}
	return dvs_sim_steer(ctx_, static_cast<uint16_t>(tx_queue),
			     rx_queue < 0 ? UINT16_MAX : static_cast<uint16_t>(rx_queue), id);
}

int dvshare_dev::var_kicks(const char *name, uint64_t *kicks, uint32_t *last)
{
	dvs::RegEntry snap;
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
