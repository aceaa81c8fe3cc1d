/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The C API: argument checks, the error convention, and a guard so no C++
 * exception (only std::bad_alloc can occur) ever crosses into C.
 */
#include <cerrno>
#include <cstring>
#include <mutex>
#include <new>
#include <set>
#include <string>
#include <type_traits>

#include <rte_eal.h>

#include "device.h"
#include "dpdk_memory.h"
#include "dvshare_prm.h"
#include "dvs_log.h"
#include "dvshare.h"
#include "attach_mode.h"
#include "ipc.h"
#include "ipc_proto.h"
#include "library.h"
#include "peers.h"

using dvs::fail;
using dvs::fail_null;
using dvs::Library;

namespace {

template <typename R, typename F> R guarded(R on_oom, F &&fn)
{
	try {
		return fn();
	} catch (const std::bad_alloc &) {
		rte_errno = ENOMEM;
		return on_oom;
	}
}

template <typename F> int guard_int(F &&fn)
{
	return guarded(-ENOMEM, [&] {
		int rc = fn();
		if (rc < 0)
			rte_errno = -rc;
		return rc;
	});
}

template <typename T, typename F> T *guard_ptr(F &&fn)
{
	return guarded(static_cast<T *>(nullptr), fn);
}

dvshare_dev *add_primary_device(int rc, std::unique_ptr<dvshare_dev> dev)
{
	if (rc != 0)
		return fail_null<dvshare_dev>(-rc);
	Library &lib = Library::get();
	std::lock_guard<std::mutex> lock(lib.mu);
	if (lib.find(dev->name().c_str()) != nullptr) {
		DVS_LOG(ERR, "%s is already shared", dev->name().c_str());
		return fail_null<dvshare_dev>(EEXIST);
	}
	dvshare_dev *raw = dev.get();
	lib.add(Library::share(std::move(dev)));
	DVS_LOG(INFO, "%s shared (%s provider)", raw->name().c_str(), raw->glue()->provider);
	return raw;
}

/* An enum argument as the integer the caller passed: a C caller may pass
 * any int, and reading it through the enum type would be undefined. */
template <typename E> unsigned int raw_enum(const E &e)
{
	std::underlying_type_t<E> v;

	memcpy(&v, &e, sizeof(v));
	return static_cast<unsigned int>(v);
}

int primary_check()
{
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		DVS_LOG(ERR, "only the primary process can share a device");
		return -EPERM;
	}
	/* In case the vdev scan hook did not run (no vdev bus linked). */
	return dvs::ipc_primary_init();
}

/* A revoked handle's last reference frees it (VAR fence, unimport). */
void release(dvs::Handle *h)
{
	bool revoked;

	if (h == nullptr)
		return;
	/* Read before the reference goes: the handle may be freed after. */
	dvshare_dev *dev = h->dev;
	if (h->put(&revoked) && revoked)
		dev->reap(h);
}

/* Query and modify: refused once revoked, else on this process's context. */
template <typename Fn> int obj_cmd(struct dvshare_obj *obj, Fn &&fn)
{
	if (obj == nullptr)
		return fail(EINVAL);
	int rc = obj->command([&] { return obj->dv == nullptr ? ENODEV : fn(obj->dev->glue()); });
	return rc == 0 ? 0 : fail(rc);
}

template <typename H> H *as(dvs::Handle *h)
{
	return static_cast<H *>(h);
}

/* 0 for a device calls may use: EINVAL for NULL, ENODEV once closed (a
 * closed device is a shell that stays valid memory, see Library::share). */
int usable(const dvshare_dev *dev)
{
	return dev == nullptr ? EINVAL : dev->gone() ? ENODEV : 0;
}

/* The usual guard of a call on @dev returning a pointer. */
template <typename T, typename F> T *on_dev_ptr(const dvshare_dev *dev, F &&fn)
{
	int err = usable(dev);

	return err != 0 ? fail_null<T>(err) : guard_ptr<T>(fn);
}

/* The same for a call returning an int. */
template <typename F> int on_dev_int(const dvshare_dev *dev, F &&fn)
{
	int err = usable(dev);

	return err != 0 ? fail(err) : guard_int(fn);
}

/* A call on an object name that failed with EINVAL or ENAMETOOLONG:
 * if the name is why, say so (dvshare.h: every failure's reason is
 * logged), after the fact so that a lookup stays one pass over it. */
void log_bad_name(const char *call, const char *name)
{
	int err = rte_errno;

	if (err != EINVAL && err != ENAMETOOLONG)
		return;
	std::string why = dvs::name_problem(name);
	if (!why.empty())
		DVS_LOG(ERR, "%s: %s", call, why.c_str());
	rte_errno = err;
}

template <typename T, typename F>
T *on_named_ptr(const dvshare_dev *dev, const char *call, const char *name, F &&fn)
{
	T *r = on_dev_ptr<T>(dev, fn);

	if (r == nullptr)
		log_bad_name(call, name);
	return r;
}

template <typename F>
int on_named_int(const dvshare_dev *dev, const char *call, const char *name, F &&fn)
{
	int rc = on_dev_int(dev, fn);

	if (rc < 0)
		log_bad_name(call, name);
	return rc;
}

/* A create in a secondary: the primary makes the object for this
 * process (ipc_remote_create()), which then imports it like a lookup. */
template <typename H> H *remote_create(dvshare_dev *dev, dvs::RemoteCreate c)
{
	uint32_t slot = 0, gen = 0;
	pid_t primary = 0;
	int rc = dvs::check_name(c.name);

	if (rc == 0 && (c.flags & ~DVSHARE_CREATE_PERSIST) != 0)
		rc = -EINVAL;
	if (rc == 0 && c.kind == DVSHARE_TYPE_UMEM && !c.alloc) {
		std::string why;
		rc = dvs::dpdk_memory_covers(c.addr, c.size, &why);
		if (rc != 0)
			DVS_LOG(ERR, "%s: UMEM %s refused: %s: a secondary's UMEM must lie in DPDK "
				     "memory (rte_malloc(), a mempool), which the primary maps at the "
				     "same address; dvshare_umem_alloc() makes both in one call",
				dev->name().c_str(), c.name, why.c_str());
	}
	if (rc == 0) {
		c.ibdev = dev->name().c_str();
		rc = dvs::ipc_remote_create(c, &slot, &gen, &primary);
	}
	if (rc != 0)
		return fail_null<H>(-rc);
	dvs::Handle *h = dev->lookup(c.name, static_cast<enum dvshare_type>(c.kind));
	if (h != nullptr && (h->slot != slot || h->gen != gen)) {
		/* Destroyed and made again by someone else meanwhile. */
		release(h);
		h = nullptr;
		rte_errno = ENOENT;
	}
	if (h == nullptr) {
		int err = rte_errno;
		DVS_LOG(ERR, "%s: %s was created but cannot be imported here: %s",
			dev->name().c_str(), c.name, strerror(err));
		/* Not left behind: the caller was told it failed. */
		if (err != ENOENT)
			(void)dvs::ipc_remote_destroy(dev->name().c_str(), c.name, 1000);
		return fail_null<H>(err);
	}
	/* The primary tells the others; this process's own publish is told
	 * here, on the calling thread, as in the primary. */
	dvs::Library::get().emit(dev, DVSHARE_EVENT_PUBLISHED, c.name, primary);
	return static_cast<H *>(h);
}

/* A secondary's UMEM, made by the primary: over [@addr, +@size), or
 * (@alloc) over @size bytes it allocates aligned to @addr. */
dvshare_umem *remote_umem(dvshare_dev *dev, const char *name, uint32_t access, uint64_t addr,
			  uint64_t size, bool alloc)
{
	dvs::RemoteCreate c{};

	c.name = name;
	c.kind = DVSHARE_TYPE_UMEM;
	c.flags = access & DVSHARE_CREATE_PERSIST;
	c.arg = access & ~DVSHARE_CREATE_PERSIST;
	c.addr = addr;
	c.size = size;
	c.alloc = alloc;
	return remote_create<dvshare_umem>(dev, c);
}

dvshare_obj *obj_create(dvshare_dev *dev, const char *name, const void *in, size_t inlen,
			void *out, size_t outlen, uint32_t flags)
{
	if (dev->primary()) {
		if ((flags & ~DVSHARE_CREATE_PERSIST) != 0)
			return fail_null<dvshare_obj>(EINVAL);
		return dev->obj_create(name, in, inlen, out, outlen);
	}
	if (in == nullptr || out == nullptr || inlen < DVSHARE_PRM_HDR_SIZE ||
	    outlen < DVSHARE_PRM_HDR_SIZE)
		return fail_null<dvshare_obj>(EINVAL);
	dvs::RemoteCreate c{};
	c.name = name;
	c.kind = DVSHARE_TYPE_OBJ;
	c.flags = flags;
	c.in = in;
	c.inlen = inlen;
	c.out = out;
	c.outlen = outlen;
	return remote_create<dvshare_obj>(dev, c);
}

} // namespace

extern "C" {

struct dvshare_dev *dvshare_dev_open(const char *ibdev, const struct dvshare_dev_conf *conf)
{
	return guard_ptr<dvshare_dev>([&]() -> dvshare_dev * {
		int rc = primary_check();
		if (rc != 0)
			return fail_null<dvshare_dev>(-rc);
		{
			Library &lib = Library::get();
			std::lock_guard<std::mutex> lock(lib.mu);
			if (ibdev != nullptr && lib.find(ibdev) != nullptr) {
				DVS_LOG(ERR, "%s is already shared", ibdev);
				return fail_null<dvshare_dev>(EEXIST);
			}
		}
		std::unique_ptr<dvshare_dev> dev;
		rc = dvshare_dev::open(ibdev, conf, &dev);
		return add_primary_device(rc, std::move(dev));
	});
}

struct dvshare_dev *dvshare_dev_adopt(struct ibv_context *ctx, const struct dvshare_dev_conf *conf)
{
	return guard_ptr<dvshare_dev>([&]() -> dvshare_dev * {
		int rc = primary_check();
		if (rc != 0)
			return fail_null<dvshare_dev>(-rc);
		std::unique_ptr<dvshare_dev> dev;
		rc = dvshare_dev::adopt(ctx, conf, &dev);
		return add_primary_device(rc, std::move(dev));
	});
}

struct dvshare_var *dvshare_var_alloc(struct dvshare_dev *dev, const char *name, uint32_t flags)
{
	return on_named_ptr<dvshare_var>(dev, "dvshare_var_alloc", name, [&] {
		if (dev->primary())
			return dev->var_alloc(name, flags);
		dvs::RemoteCreate c{};
		c.name = name;
		c.kind = DVSHARE_TYPE_VAR;
		c.flags = flags & DVSHARE_CREATE_PERSIST;
		c.arg = flags & ~DVSHARE_CREATE_PERSIST;
		return remote_create<dvshare_var>(dev, c);
	});
}

struct dvshare_var *dvshare_var_publish(struct dvshare_dev *dev, const char *name,
					struct mlx5dv_var *var)
{
	return on_named_ptr<dvshare_var>(dev, "dvshare_var_publish", name, [&] { return dev->var_publish(name, var); });
}

struct dvshare_obj *dvshare_obj_create(struct dvshare_dev *dev, const char *name, const void *in,
				       size_t inlen, void *out, size_t outlen)
{
	return on_named_ptr<dvshare_obj>(dev, "dvshare_obj_create", name, [&] { return obj_create(dev, name, in, inlen, out, outlen, 0); });
}

struct dvshare_obj *dvshare_obj_create_flags(struct dvshare_dev *dev, const char *name,
					     const void *in, size_t inlen, void *out,
					     size_t outlen, uint32_t flags)
{
	return on_named_ptr<dvshare_obj>(dev, "dvshare_obj_create_flags", name, [&] { return obj_create(dev, name, in, inlen, out, outlen, flags); });
}

struct dvshare_obj *dvshare_obj_publish(struct dvshare_dev *dev, const char *name,
					struct mlx5dv_devx_obj *obj, uint32_t obj_id)
{
	return on_named_ptr<dvshare_obj>(dev, "dvshare_obj_publish", name, [&] { return dev->obj_publish(name, obj, obj_id); });
}

struct dvshare_umem *dvshare_umem_reg(struct dvshare_dev *dev, const char *name, void *addr,
				      size_t size, uint32_t access)
{
	return on_named_ptr<dvshare_umem>(dev, "dvshare_umem_reg", name, [&]() -> dvshare_umem * {
		if (addr == nullptr || size == 0) {
			DVS_LOG(ERR, "UMEM %s: no memory to register (%s)", name ? name : "(null)",
				addr == nullptr ? "NULL address" : "size 0");
			return fail_null<dvshare_umem>(EINVAL);
		}
		if (dev->primary())
			return dev->umem_reg(name, addr, size, access);
		return remote_umem(dev, name, access, reinterpret_cast<uintptr_t>(addr), size, false);
	});
}

struct dvshare_umem *dvshare_umem_alloc(struct dvshare_dev *dev, const char *name, size_t size,
					size_t align, uint32_t access)
{
	return on_named_ptr<dvshare_umem>(dev, "dvshare_umem_alloc", name, [&]() -> dvshare_umem * {
		if (align == 0)
			align = 4096;
		if (size == 0 || (align & (align - 1)) != 0 || align > dvs::kAllocAlignMax ||
		    size > SIZE_MAX - align) {
			DVS_LOG(ERR, "UMEM %s: cannot allocate %zu bytes aligned to %zu (a size, and "
				     "a power of two up to 1 GiB)", name ? name : "(null)", size, align);
			return fail_null<dvshare_umem>(EINVAL);
		}
		if (dev->primary())
			return dev->umem_alloc(name, size, align, access);
		return remote_umem(dev, name, access, align, size, true);
	});
}

int dvshare_set_meta(struct dvshare_dev *dev, const char *name, const void *meta, size_t len)
{
	return on_named_int(dev, "dvshare_set_meta", name, [&] { return dev->set_meta(name, meta, len); });
}

/* A device this process does not have: name those it has, once per name
 * (an application polling for a device that comes later would fill the
 * log), for up to 64 names. */
static void hint_unknown_device(Library &lib, const char *ibdev)
{
	static std::mutex mu;
	static std::set<std::string> told;
	std::string have;
	{
		std::lock_guard<std::mutex> lock(lib.mu);
		for (const auto &d : lib.devices)
			have += (have.empty() ? "" : ", ") + d->name();
	}
	std::lock_guard<std::mutex> lock(mu);
	if (told.size() >= 64 || !told.insert(ibdev).second)
		return;
	bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	DVS_LOG(NOTICE, "no device %s %s (%s: %s)", ibdev,
		primary ? "is open in this primary" : "is shared by the primary",
		primary ? "open are" : "it shares", have.empty() ? "none" : have.c_str());
}

struct dvshare_dev *dvshare_dev_lookup(const char *ibdev)
{
	return guard_ptr<dvshare_dev>([&]() -> dvshare_dev * {
		Library &lib = Library::get();
		if (ibdev == nullptr)
			return fail_null<dvshare_dev>(EINVAL);
		{
			std::lock_guard<std::mutex> lock(lib.mu);
			dvshare_dev *d = lib.find(ibdev);
			if (d != nullptr)
				return d;
		}
		/* A secondary may not know a device opened after it attached. */
		if (rte_eal_process_type() == RTE_PROC_SECONDARY) {
			int rc = dvs::ipc_secondary_attach();
			if (rc == -EPROTO) /* another release: logged once, at the refusal */
				return fail_null<dvshare_dev>(EPROTO);
			std::lock_guard<std::mutex> lock(lib.mu);
			dvshare_dev *d = rc >= 0 ? lib.find(ibdev) : nullptr;
			if (d != nullptr)
				return d;
		}
		hint_unknown_device(lib, ibdev);
		return fail_null<dvshare_dev>(ENOENT);
	});
}

int dvshare_dev_list(struct dvshare_dev **devs, unsigned int n)
{
	Library &lib = Library::get();
	std::lock_guard<std::mutex> lock(lib.mu);

	if (devs == nullptr && n != 0)
		return fail(EINVAL);
	for (unsigned int i = 0; i < n && i < lib.devices.size(); i++)
		devs[i] = lib.devices[i].get();
	return static_cast<int>(lib.devices.size());
}

struct ibv_context *dvshare_dev_ctx(struct dvshare_dev *dev)
{
	int err = usable(dev);

	return err == 0 ? dev->ctx() : fail_null<struct ibv_context>(err);
}

const char *dvshare_dev_name(const struct dvshare_dev *dev)
{
	return dev != nullptr ? dev->name().c_str() : nullptr;
}

int dvshare_destroy(struct dvshare_dev *dev, const char *name, unsigned int timeout_ms)
{
	return on_named_int(dev, "dvshare_destroy", name, [&] {
		if (dev->primary())
			return dev->destroy(name, timeout_ms);
		int rc = dvs::check_name(name);
		return rc != 0 ? rc : dvs::ipc_remote_destroy(dev->name().c_str(), name, timeout_ms);
	});
}

int dvshare_destroy_many(struct dvshare_dev *dev, const char *const *names, unsigned int n,
			 unsigned int timeout_ms)
{
	return on_dev_int(dev, [&] {
		if (names == nullptr && n != 0)
			return -EINVAL;
		std::vector<std::string> list;
		list.reserve(n);
		for (unsigned int i = 0; i < n; i++) {
			if (names[i] == nullptr)
				return -EINVAL;
			/* Bounded: check_name() refuses the overlong. */
			list.emplace_back(names[i], strnlen(names[i], DVSHARE_NAME_MAX));
		}
		return dev->destroy_many(list, timeout_ms);
	});
}

int dvshare_destroy_glob(struct dvshare_dev *dev, const char *pattern, unsigned int timeout_ms)
{
	return on_dev_int(dev, [&] {
		if (pattern == nullptr)
			return -EINVAL;
		if (!dev->primary())
			return -EPERM;
		return dev->destroy_many(dev->names_matching(pattern), timeout_ms);
	});
}

int dvshare_engine_start(struct dvshare_dev *dev, uint32_t *service_id)
{
	return on_dev_int(dev, [&] { return dev->engine_start(service_id); });
}

int dvshare_engine_steer(struct dvshare_dev *dev, int tx_queue, int rx_queue, const char *counter)
{
	return on_dev_int(dev, [&] { return dev->engine_steer(tx_queue, rx_queue, counter); });
}

int dvshare_var_kicks(struct dvshare_dev *dev, const char *name, uint64_t *kicks,
		      uint32_t *last_value)
{
	return on_named_int(dev, "dvshare_var_kicks", name, [&] { return dev->var_kicks(name, kicks, last_value); });
}

int dvshare_dev_close(struct dvshare_dev *dev)
{
	return guard_int([&] {
		Library &lib = Library::get();
		std::shared_ptr<dvshare_dev> owned;
		{
			std::lock_guard<std::mutex> lock(lib.mu);
			if (lib.find(dev) == nullptr)
				return dev != nullptr && dev->gone() ? -ENODEV : -EINVAL;
		}
		/* Without the library lock: acks for the destroys arrive
		 * through it. */
		if (dev->primary()) {
			int rc = dev->close_all(0);
			if (rc != 0) {
				DVS_LOG(ERR, "%s: not closed: %s", dev->name().c_str(), strerror(-rc));
				return rc;
			}
		}
		dev->mark_gone();
		{
			std::lock_guard<std::mutex> lock(lib.mu);
			owned = lib.remove(dev);
		}
		if (owned == nullptr)
			return -EINVAL;
		if (owned->primary())
			dvs::ipc_announce(owned.get(), DVSHARE_EVENT_CLOSED, nullptr);
		else if (!owned->closed_by_primary() && lib.primary_exited() == 0 &&
			 lib.orphaned() == 0) /* else nobody counts this process */
			dvs::ipc_send_detach(owned.get());
		DVS_LOG(INFO, "%s %s", owned->name().c_str(),
			owned->primary() ? "closed" : "detached");
		return 0;
	});
}

int dvshare_attach_status(void)
{
	return Library::get().attach_status.load();
}

int dvshare_peers(struct dvshare_peer *peers, unsigned int n)
{
	if (peers == nullptr && n != 0)
		return fail(EINVAL);
	return guard_int([&] {
		std::vector<dvs::PeerInfo> list = dvs::Peers::get().list();
		for (unsigned int i = 0; i < n && i < list.size(); i++)
			peers[i] = { list[i].pid, list[i].uid,
				     static_cast<uint32_t>(list[i].devices.size()), list[i].queued };
		return static_cast<int>(list.size());
	});
}

int dvshare_stats_get(struct dvshare_stats *st)
{
	if (st == nullptr)
		return fail(EINVAL);
	Library &lib = Library::get();
	const auto &c = lib.stats;
	*st = {};
	st->attach_status = lib.attach_status.load();
	st->attach_ns = c.attach_ns.load();
	st->attach_cpu_ns = c.attach_cpu_ns.load();
	st->imports = c.imports.load();
	st->lookups = lib.lookups.load();
	st->published = c.published.load();
	st->destroyed = c.destroyed.load();
	st->destroy_busy = c.destroy_busy.load();
	st->revoked = c.revoked.load();
	st->refused = c.refused.load();
	st->orphaned = lib.orphaned() != 0;
	st->primary_state = lib.orphaned() != 0	       ? DVSHARE_PRIMARY_DIED
			    : lib.primary_exited() != 0 ? DVSHARE_PRIMARY_EXITED
							: DVSHARE_PRIMARY_ALIVE;
	st->attach_mode = dvs::attach_mode_now();
	st->peers = static_cast<uint32_t>(guarded(size_t{0}, [] { return dvs::Peers::get().list().size(); }));
	std::lock_guard<std::mutex> lock(lib.mu);
	st->devices = static_cast<uint32_t>(lib.devices.size());
	return 0;
}

struct dvshare_var *dvshare_var_lookup(struct dvshare_dev *dev, const char *name)
{
	return on_named_ptr<dvshare_var>(dev, "dvshare_var_lookup", name, [&] { return as<dvshare_var>(dev->lookup(name, DVSHARE_TYPE_VAR)); });
}

struct dvshare_obj *dvshare_obj_lookup(struct dvshare_dev *dev, const char *name)
{
	return on_named_ptr<dvshare_obj>(dev, "dvshare_obj_lookup", name, [&] { return as<dvshare_obj>(dev->lookup(name, DVSHARE_TYPE_OBJ)); });
}

struct dvshare_umem *dvshare_umem_lookup(struct dvshare_dev *dev, const char *name)
{
	return on_named_ptr<dvshare_umem>(dev, "dvshare_umem_lookup", name, [&] { return as<dvshare_umem>(dev->lookup(name, DVSHARE_TYPE_UMEM)); });
}

void dvshare_var_release(struct dvshare_var *var)
{
	release(var);
}

void dvshare_obj_release(struct dvshare_obj *obj)
{
	release(obj);
}

void dvshare_umem_release(struct dvshare_umem *umem)
{
	release(umem);
}

/* An imported VAR is mapped at the first of these calls (a system call,
 * under the device's lock); every later call is one load. */
static void *var_db(const struct dvshare_var *var)
{
	if (var == nullptr)
		return nullptr;
	void *db = var->db.load(std::memory_order_acquire);
	if (db != nullptr)
		return db;
	return var->dev->map_var_late(const_cast<dvshare_var *>(var));
}

void *dvshare_var_addr(const struct dvshare_var *var)
{
	return var_db(var) != nullptr ? var->page.addr() : nullptr;
}

void *dvshare_var_doorbell(const struct dvshare_var *var)
{
	return var_db(var);
}

size_t dvshare_var_length(const struct dvshare_var *var)
{
	return var_db(var) != nullptr ? var->page.length() : 0;
}

struct mlx5dv_var *dvshare_var_dv(const struct dvshare_var *var)
{
	return var != nullptr ? var->dv : nullptr;
}

struct mlx5dv_devx_obj *dvshare_obj_dv(const struct dvshare_obj *obj)
{
	return obj != nullptr ? obj->dv : nullptr;
}

uint32_t dvshare_obj_id(const struct dvshare_obj *obj)
{
	return obj != nullptr ? obj->obj_id : 0;
}

uint32_t dvshare_umem_id(const struct dvshare_umem *umem)
{
	return umem != nullptr && umem->dv != nullptr ? umem->dv->umem_id : 0;
}

void *dvshare_umem_addr(const struct dvshare_umem *umem)
{
	return umem != nullptr ? umem->mem : nullptr;
}

int dvshare_obj_query(struct dvshare_obj *obj, const void *in, size_t inlen, void *out,
		      size_t outlen)
{
	return obj_cmd(obj, [&](const struct dvs_glue *g) {
		return g->devx_obj_query(obj->dv, in, inlen, out, outlen);
	});
}

int dvshare_obj_modify(struct dvshare_obj *obj, const void *in, size_t inlen, void *out,
		       size_t outlen)
{
	return obj_cmd(obj, [&](const struct dvs_glue *g) {
		return g->devx_obj_modify(obj->dv, in, inlen, out, outlen);
	});
}

int dvshare_dev_general_cmd(struct dvshare_dev *dev, const void *in, size_t inlen, void *out,
			    size_t outlen)
{
	return on_dev_int(dev, [&] { return dev->general_cmd(in, inlen, out, outlen); });
}

int dvshare_get_meta(struct dvshare_dev *dev, const char *name, void *buf, size_t len)
{
	return on_named_int(dev, "dvshare_get_meta", name, [&] { return dev->get_meta(name, buf, len); });
}

int dvshare_foreach(struct dvshare_dev *dev, dvshare_foreach_cb cb, void *arg)
{
	return on_dev_int(dev, [&] { return dev->foreach(cb, arg); });
}

int dvshare_event_register(struct dvshare_dev *dev, dvshare_event_cb cb, void *arg)
{
	if (cb == nullptr)
		return fail(EINVAL);
	if (dev != nullptr && dev->gone())
		return fail(ENODEV);
	return guard_int([&] { return Library::get().subscribe(dev, cb, arg); });
}

int dvshare_event_register_mask(struct dvshare_dev *dev, uint32_t mask, dvshare_event_cb cb,
				void *arg)
{
	constexpr uint32_t known = DVSHARE_EVENT_BIT(DVSHARE_EVENT_BATCH_REVOKED + 1) -
				   DVSHARE_EVENT_BIT(DVSHARE_EVENT_PUBLISHED);

	if (cb == nullptr || (mask & known) == 0)
		return fail(EINVAL);
	if (dev != nullptr && dev->gone())
		return fail(ENODEV);
	return guard_int([&] { return Library::get().subscribe(dev, cb, arg, mask); });
}

int dvshare_event_unregister(struct dvshare_dev *dev, dvshare_event_cb cb, void *arg)
{
	if (cb == nullptr)
		return fail(EINVAL);
	return guard_int([&] { return Library::get().unsubscribe(dev, cb, arg); });
}

int dvshare_attach_mode_set(enum dvshare_attach_mode mode, const char *const *patterns)
{
	return guard_int([&] {
		int rc = dvs::attach_mode_set(raw_enum(mode), patterns);
		if (rc == -EBUSY)
			DVS_LOG(ERR, "attach mode not changed: the attach already ran "
				     "(call dvshare_attach_mode_set() before rte_eal_init())");
		return rc;
	});
}

const char *dvshare_version(void)
{
	return DVSHARE_VERSION;
}

const char *dvshare_event_name(enum dvshare_event event)
{
	switch (raw_enum(event)) {
	case DVSHARE_EVENT_PUBLISHED: return "published";
	case DVSHARE_EVENT_PEER_ATTACHED: return "peer-attached";
	case DVSHARE_EVENT_PEER_DETACHED: return "peer-detached";
	case DVSHARE_EVENT_REVOKING: return "revoking";
	case DVSHARE_EVENT_REVOKED: return "revoked";
	case DVSHARE_EVENT_PEER_DIED: return "peer-died";
	case DVSHARE_EVENT_PRIMARY_DIED: return "primary-died";
	case DVSHARE_EVENT_CLOSED: return "closed";
	case DVSHARE_EVENT_BATCH_REVOKED: return "batch-revoked";
	}
	return "unknown";
}

} /* extern "C" */
