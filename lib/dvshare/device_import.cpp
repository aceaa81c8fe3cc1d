/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Attaching (secondary): import the primary's device from its cmd_fd and
 * each published object from its registry entry; lookups, which are a
 * memory read once an object is imported; reading the registry.
 */
#include "device.h"

#include <cerrno>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>

#include "dvs_log.h"
#include "fault.h"
#include "library.h"

using dvs::EntryState;
using dvs::Handle;
using dvs::RegEntry;

namespace dvs {

namespace {

bool same_file(int fd, const struct stat &ref)
{
	struct stat st;

	return fcntl(fd, F_GETFD) != -1 && fstat(fd, &st) == 0 && st.st_dev == ref.st_dev &&
	       st.st_ino == ref.st_ino;
}

} // namespace

struct ibv_context *import_context(const struct dvs_glue *g, Fd *cmd_fd, std::string *why)
{
	struct stat ref;

	/* A second descriptor of the same file keeps it (and its inode
	 * number) alive, so after a failure "is our fd still open on this
	 * file" cannot be fooled by the number being reused for another. */
	Fd witness(dup(cmd_fd->get()));
	if (!witness.valid() || fstat(witness.get(), &ref) != 0) {
		int err = errno;
		*why = std::string("cannot inspect the device fd: ") + strerror(err);
		errno = err;
		return nullptr;
	}
	struct ibv_context *ctx = g->import_device(cmd_fd->get());
	int err = errno;
	if (ctx != nullptr) {
		cmd_fd->release(); /* the context owns it now */
		return ctx;
	}
	*why = std::string("import_device failed: ") + strerror(err);
	/* Once it has matched the device, ibv_import_device owns the fd and
	 * closes it on failure: closing it again could close someone else's. */
	if (!same_file(cmd_fd->get(), ref))
		cmd_fd->release();
	errno = err;
	return nullptr;
}

} // namespace dvs

int dvshare_dev::import_slot(uint32_t slot, const RegEntry &e, Handle **out)
{
	uint8_t blob[dvs::kBlobMax];
	dvs::HandlePtr<> h;
	const char *what = dvs::type_str(e.type);

	memcpy(blob, e.blob, sizeof(blob));
	switch (e.type) {
	case DVSHARE_TYPE_VAR: {
		auto v = dvs::make_handle<dvshare_var>(store_.pool(), this, false);
		v->dv = glue_->var_import(ctx_, blob);
		if (v->dv != nullptr)
			h = std::move(v); /* mapped at first use: map_var_late() */
		break;
	}
	case DVSHARE_TYPE_OBJ: {
		auto o = dvs::make_handle<dvshare_obj>(store_.pool(), this, false);
		o->dv = glue_->devx_obj_import(ctx_, blob);
		o->obj_id = e.id;
		o->obj_type = e.obj_type;
		o->create_op = e.create_op;
		if (o->dv != nullptr)
			h = std::move(o);
		break;
	}
	case DVSHARE_TYPE_UMEM: {
		auto u = dvs::make_handle<dvshare_umem>(store_.pool(), this, false);
		u->dv = glue_->devx_umem_import(ctx_, blob);
		u->size = e.size;
		u->mem = reinterpret_cast<void *>(e.mmap_off); /* same in every process */
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
	if (store_.get(slot) != nullptr)
		let_go_locked(slot); /* a stale import of the slot's old object */
	store_.put(slot, std::move(h));
	imported_++;
	dvs::Library::get().stats.imports++;
	/* After each import, inside the attach or at a lazy first lookup. */
	dvs::fault_point("attach-import");
	return 0;
}

int dvshare_dev::attach(dvs::Fd cmd_fd, dvs::Fd reg_fd, const dvs::AttachPolicy &policy,
			std::unique_ptr<dvshare_dev> *out, std::string *why)
{
	std::unique_ptr<dvshare_dev> d(new dvshare_dev());
	char err[DVS_GLUE_ERR_MAX] = "";
	int rc = d->reg_.attach(std::move(reg_fd), why);

	if (rc != 0)
		return rc;
	const dvs::RegHeader *h = d->reg_.hdr();
	d->db_off_ = h->db_offset;
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
	d->ctx_ = dvs::import_context(d->glue_, &cmd_fd, why);
	if (d->ctx_ == nullptr)
		return -errno;
	d->owns_ctx_ = true;
	d->vars_.configure(d->reg_.hdr()->max_objects);
	rc = d->store_.init(d->reg_.nslots());
	if (rc != 0) {
		*why = "no memory for the device's handles";
		return rc;
	}
	/* Lazy: nothing more now; each object is imported at its first
	 * lookup (lookup_slow), in O(1) whatever the registry holds. */
	if (!policy.walks()) {
		*out = std::move(d);
		return 0;
	}
	d->reg_.prefault();
	if (policy.mode == DVSHARE_ATTACH_EAGER)
		d->store_.reserve(d->reg_.entries_used());
	/* In entry order: about the order of publishing, so handles are laid
	 * out as the application made (and tends to use) the objects, and the
	 * walk reads the registry front to back. */
	for (uint32_t n = 0, used = d->reg_.entries_used(); n < used; n++) {
		RegEntry e;
		Handle *hd;
		uint32_t s;
		rc = d->reg_.read_entry(n, &e, &s);
		if (rc == -ENOENT)
			continue;
		if (rc != 0) {
			*why = "registry entry " + std::to_string(n) + " unreadable";
			return rc;
		}
		if (e.state != static_cast<uint32_t>(EntryState::Live) || !policy.eager_for(e.name))
			continue;
		rc = d->import_slot(s, e, &hd);
		if (rc != 0) {
			*why = std::string("cannot import ") + dvs::type_str(e.type) + " " + e.name +
			       ": " + strerror(-rc);
			return rc;
		}
	}
	*out = std::move(d);
	return 0;
}

Handle *dvshare_dev::lookup(const char *name, enum dvshare_type type)
{
	uint32_t hash;
	size_t len;
	int rc = dvs::check_name(name, &len, &hash); /* one pass over the name */

	if (rc != 0)
		return dvs::fail_null<Handle>(-rc);
	/* Closed by the primary, or the primary exited normally. */
	if (reg_.closed() || (!primary_ && dvs::Library::get().primary_exited() != 0))
		return dvs::fail_null<Handle>(ENODEV);
	if (!primary_ && dvs::Library::get().orphaned() != 0) {
		DVS_LOG(ERR, "%s: no lookup of %s: the primary (pid %d) died", name_.c_str(), name,
			dvs::Library::get().orphaned());
		return dvs::fail_null<Handle>(ENOTCONN);
	}
	/* The common case: the index words on the name's probe path, then
	 * the handle this process holds for the slot, where the name is
	 * compared once a reference is taken (a handle is recycled, never
	 * freed, so the reference is safe to try: handles.h). The registry's
	 * entry is read only for what is not imported here yet. */
	Handle *found = nullptr;
	rc = reg_.probe(hash, [&](uint32_t s, uint64_t w) {
		Handle *h = store_.view(s);
		if (h != nullptr && h->try_get()) {
			if (h->slot == s && (h->gen & 0xff) == dvs::idx::gen8(w)) {
				if (strcmp(h->name, name) != 0) {
					release_ref(h);
					return 0; /* another name of the same hash */
				}
				if (h->type != type) {
					release_ref(h);
					return -ENOENT;
				}
				found = h;
				return 1;
			}
			release_ref(h); /* recycled, or a stale import */
		}
		uint32_t gen;
		int r = reg_.entry_is(s, w, name, len, &gen);
		if (r <= 0)
			return r;
		if (dvs::idx::type(w) != static_cast<uint32_t>(type))
			return -ENOENT;
		found = lookup_slow(name, s, gen);
		return found != nullptr ? 1 : -rte_errno;
	});
	if (rc != 0)
		return dvs::fail_null<Handle>(-rc);
	dvs::Library::get().lookups.inc();
	return found;
}

/* Drop a reference the lookup took and will not return. */
void dvshare_dev::release_ref(Handle *h)
{
	bool revoked;

	if (h->put(&revoked) && revoked)
		reap(h);
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

bool dvshare_dev::orphan(uint32_t slot, uint32_t gen)
{
	std::lock_guard<std::mutex> lock(ctl_);
	const Handle *h = store_.get(slot);

	return h != nullptr && h->gen == gen && h->orphan;
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
		info.create_op = e.create_op;
		info.owner = e.owner;
		info.orphan = primary_ && orphan(s, e.gen);
		rc = cb(this, &info, arg);
		if (rc != 0)
			return rc;
	}
	return 0;
}

void dvshare_dev::revalidate()
{
	std::lock_guard<std::mutex> lock(ctl_);

	for (uint32_t s : store_.slots()) {
		RegEntry e;
		const Handle *h = store_.get(s);
		if (reg_.read(s, &e) != 0 || e.state != static_cast<uint32_t>(EntryState::Live) ||
		    e.gen != h->gen) {
			DVS_LOG(INFO, "%s: %s was revoked meanwhile: let go", name_.c_str(),
				h->name);
			let_go_locked(s);
		}
	}
}
