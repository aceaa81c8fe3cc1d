/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The destroy protocol for many objects at once (doc/protocol.md,
 * "Batched destroy"): every entry is marked Revoking under one revoke id,
 * one message goes to the secondaries and each answers once, having
 * fenced and let go of all of them; then the primary destroys the kernel
 * objects in the order the device needs. dvshare_dev_close() is one such
 * batch: closing 10,000 objects costs one round trip per secondary, not
 * 10,000.
 */
#include "device.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <set>

#include <fnmatch.h>

#include "dvs_log.h"
#include "fault.h"
#include "ipc.h"
#include "ipc_proto.h"
#include "library.h"
#include "peers.h"

using dvs::EntryState;
using dvs::Handle;
using dvs::RegEntry;

namespace {

struct BatchItem {
	uint32_t slot;
	uint32_t type;
	uint64_t pub_seq;
	std::string name;
};

/* The device wants an object gone before the UMEMs and PD it uses, and
 * VARs are independent: objects, then UMEMs, then VARs, newest first. */
int kind_rank(uint32_t type)
{
	return type == DVSHARE_TYPE_OBJ ? 0 : type == DVSHARE_TYPE_UMEM ? 1 : 2;
}

bool destroy_order(const BatchItem &a, const BatchItem &b)
{
	if (kind_rank(a.type) != kind_rank(b.type))
		return kind_rank(a.type) < kind_rank(b.type);
	return a.pub_seq > b.pub_seq;
}

/* @names as batch items, each slot once; -ENOENT (said) if one is not
 * published. */
int resolve_names(const dvs::Registry &reg, const std::vector<std::string> &names,
		  std::vector<BatchItem> *items, const std::string &dev)
{
	std::set<uint32_t> seen;

	for (const std::string &n : names) {
		RegEntry snap;
		uint32_t slot;
		int rc = reg.find(n.c_str(), &snap, &slot);
		if (rc != 0) {
			DVS_LOG(ERR, "%s: batch destroy refused: no object %s", dev.c_str(), n.c_str());
			return rc;
		}
		if (seen.insert(slot).second)
			items->push_back({ slot, snap.type, snap.pub_seq, n });
	}
	return 0;
}

/* Every live object, in one walk of the registry's entries (under the
 * device's ctl_: the writer's walk). The names only when someone wants
 * them (events): a name longer than std::string keeps inline is an
 * allocation. */
void live_items(const dvs::Registry &reg, bool names, std::vector<BatchItem> *items)
{
	items->reserve(reg.entries_used());
	reg.for_each_live([&](const RegEntry &e) {
		items->push_back({ e.slot, e.type, e.pub_seq, names ? e.name : std::string() });
	});
}

/* Every live object @owner owns (its handle says: the registry's pid may
 * be another process's by now) published by sequence @upto. Under the
 * device's ctl_. */
void owned_items(const dvs::SlotStore &store, const dvs::Registry &reg, const dvs::PeerId &owner,
		 uint64_t upto, std::vector<BatchItem> *items)
{
	store.for_each([&](const Handle &h) {
		RegEntry e;
		if (h.peer == owner && reg.read(h.slot, &e) == 0 && e.gen == h.gen &&
		    e.state == static_cast<uint32_t>(EntryState::Live) && e.pub_seq <= upto)
			items->push_back({ h.slot, e.type, e.pub_seq, e.name });
	});
}

} // namespace

/* A reclaim could not destroy the object in @slot: an orphan, until a
 * later try does (doc/api.md, "Orphans"). Under ctl_. */
void dvshare_dev::mark_orphan_locked(uint32_t slot, bool reclaim)
{
	Handle *h = store_.get(slot);

	if (reclaim && h != nullptr)
		h->orphan = true;
}

std::vector<std::string> dvshare_dev::names_matching(const char *pattern)
{
	std::vector<std::string> out;

	for (uint32_t s = reg_.next_used(0); s < reg_.nslots(); s = reg_.next_used(s + 1)) {
		RegEntry e;
		if (reg_.read(s, &e) == 0 && e.state == static_cast<uint32_t>(EntryState::Live) &&
		    fnmatch(pattern, e.name, 0) == 0)
			out.emplace_back(e.name);
	}
	return out;
}

int dvshare_dev::destroy_many(const std::vector<std::string> &names, unsigned int timeout_ms)
{
	for (const std::string &n : names) {
		int rc = dvs::check_name(n.c_str());
		if (rc != 0)
			return rc;
	}
	return destroy_batch(&names, nullptr, 0, timeout_ms, nullptr);
}

int dvshare_dev::destroy_owned(const dvs::PeerId &owner, uint64_t upto, unsigned int timeout_ms,
			       std::set<pid_t> *blockers)
{
	return destroy_batch(nullptr, &owner, upto, timeout_ms, blockers);
}

uint64_t dvshare_dev::publish_seq()
{
	std::lock_guard<std::mutex> lock(ctl_);

	return reg_.hdr()->publish_seq;
}

int dvshare_dev::destroy_batch(const std::vector<std::string> *names, const dvs::PeerId *owner,
			       uint64_t upto, unsigned int timeout_ms, std::set<pid_t> *blockers)
{
	dvs::Library &lib = dvs::Library::get();
	std::vector<BatchItem> items;
	uint32_t rid;

	if (!primary_)
		return -EPERM;
	if (on_ipc_thread())
		return -EDEADLK;
	const bool listened = lib.has_subscribers(this, dvs::kRevokeEvents);
	{
		std::lock_guard<std::mutex> lock(ctl_);
		if (reg_.closed())
			return -ENODEV;
		int rc = 0;
		if (names != nullptr)
			rc = resolve_names(reg_, *names, &items, name_);
		else if (owner != nullptr)
			owned_items(store_, reg_, *owner, upto, &items);
		else
			live_items(reg_, listened, &items);
		if (rc != 0)
			return rc; /* nothing marked yet */
		if (items.empty())
			return 0;
		rid = ++revoke_seq_;
		for (const BatchItem &it : items)
			reg_.set_revoking(it.slot, rid);
		std::lock_guard<std::mutex> lk(wait_mu_);
		pending_[rid] = { dvs::kRevokeBatch, 0, dvs::Peers::get().attached_to(name_) };
		destroying_++;
	}
	DestroyRun run(this);
	dvs::fault_point("primary-revoke");
	const pid_t self = getpid(); /* a system call: once, not per object */
	if (listened)
		for (const BatchItem &it : items)
			lib.emit(this, DVSHARE_EVENT_REVOKING, it.name.c_str(), self);
	dvs::ipc_revoke(this, dvs::kRevokeBatch, 0, rid);
	std::set<pid_t> missing;
	int rc = wait_acks(rid, timeout_ms, &missing);
	std::vector<std::string> gone; /* empty names unless listened */
	int refused = 0;
	{
		std::lock_guard<std::mutex> lock(ctl_);
		if (rc != 0) {
			DVS_LOG(ERR, "%s: destroy of %zu object(s) called off: pid(s) %s did not let go "
				     "within %u ms", name_.c_str(), items.size(),
				dvs::pid_list(missing).c_str(), timeout_ms);
			for (const BatchItem &it : items) {
				reg_.set_live(it.slot); /* nothing destroyed: same generations */
				mark_orphan_locked(it.slot, owner != nullptr);
			}
			lib.stats.destroy_busy++;
			if (blockers != nullptr)
				*blockers = std::move(missing);
			return rc;
		}
		std::sort(items.begin(), items.end(), destroy_order);
		std::vector<dvshare_var *> vars;
		for (const BatchItem &it : items)
			if (Handle *h = store_.get(it.slot); h != nullptr && h->type == DVSHARE_TYPE_VAR)
				vars.push_back(static_cast<dvshare_var *>(h));
		fence_vars(vars); /* one mmap() per run; freed one by one below */
		for (const BatchItem &it : items) {
			Handle *h = store_.get(it.slot);
			int krc = h != nullptr ? kill_kernel_object(h) : 0;
			if (krc != 0) {
				reg_.set_live(it.slot); /* the device kept it: still published */
				mark_orphan_locked(it.slot, owner != nullptr);
				refused = refused != 0 ? refused : krc;
				continue;
			}
			let_go_locked(it.slot);
			reg_.remove(it.slot);
			gone.push_back(it.name);
		}
	}
	run.done();
	lib.stats.destroyed += gone.size();
	if (listened)
		for (const std::string &n : gone)
			lib.emit(this, DVSHARE_EVENT_REVOKED, n.c_str(), self);
	if (!gone.empty())
		lib.emit(this, DVSHARE_EVENT_BATCH_REVOKED, nullptr, self);
	if (refused != 0) {
		DVS_LOG(ERR, "%s: %zu of %zu object(s) destroyed; the device refused the others, "
			     "which stay published", name_.c_str(), gone.size(), items.size());
		return refused;
	}
	return static_cast<int>(gone.size());
}

void dvshare_dev::revoke_batch_fence(uint32_t revoke_id, bool want_names, BatchLetGo *out)
{
	struct Hit {
		uint32_t slot;
		uint32_t gen;
	};
	std::vector<Hit> hits;
	std::vector<std::string> names;
	auto still_asked = [&](uint32_t slot, uint32_t gen) {
		uint32_t g, rid;
		return reg_.revoking(slot, &g, &rid) == 0 && g == gen && rid == revoke_id;
	};

	if (want_names) {
		/* Events name every object of the batch, held here or not. */
		for (uint32_t s = reg_.next_used(0); s < reg_.nslots(); s = reg_.next_used(s + 1)) {
			RegEntry e;
			if (reg_.read(s, &e) == 0 &&
			    e.state == static_cast<uint32_t>(EntryState::Revoking) &&
			    e.revoke_id == revoke_id) {
				hits.push_back({ s, e.gen });
				names.emplace_back(e.name);
			}
		}
		for (const std::string &n : names)
			dvs::Library::get().emit(this, DVSHARE_EVENT_REVOKING, n.c_str(),
						 reg_.hdr()->primary_pid);
	}
	{
		std::lock_guard<std::mutex> lock(ctl_);
		if (!want_names) {
			/* Only what this process holds, three fields of each entry. */
			store_.for_each([&](const Handle &h) { hits.push_back({ h.slot, h.gen }); });
		}
		out->handles.reserve(hits.size());
		for (size_t i = 0; i < hits.size(); i++) {
			if (!still_asked(hits[i].slot, hits[i].gen))
				continue; /* not in the batch, or called off while the application looked */
			const Handle *h = store_.get(hits[i].slot);
			if (h != nullptr && h->gen == hits[i].gen)
				out->handles.push_back(detach_locked(hits[i].slot, false));
			if (want_names)
				out->names.push_back(std::move(names[i]));
		}
		std::vector<dvshare_var *> vars;
		for (auto &h : out->handles)
			if (h->type == DVSHARE_TYPE_VAR)
				vars.push_back(static_cast<dvshare_var *>(h.get()));
		fence_vars(vars);
	}
	dvs::fault_point("revoke-fence");
}

void dvshare_dev::revoke_batch_finish(BatchLetGo *lg)
{
	std::lock_guard<std::mutex> lock(ctl_);

	for (auto &h : lg->handles)
		retire_locked(std::move(h));
	lg->handles.clear();
}

/* One batch for everything, so a close costs one round trip per
 * secondary. */
int dvshare_dev::close_all(unsigned int timeout_ms)
{
	if (timeout_ms == 0)
		timeout_ms = close_timeout_ms_;
	if (on_ipc_thread())
		return -EDEADLK;
	{
		/* Secondaries' creates still running in the primary publish
		 * before this, and are in the batch, or are refused. */
		std::lock_guard<std::mutex> lock(ctl_);
		closing_ = true;
	}
	/* A destroy under way (a secondary's, a reclaim) ends first: what it
	 * marked is not live, so not in this batch, and what it leaves (it
	 * was called off) is. */
	if (!wait_destroys(timeout_ms))
		DVS_LOG(WARNING, "%s: a destroy under way did not end within %u ms: closing beside it",
			name_.c_str(), timeout_ms);
	int rc = destroy_batch(nullptr, nullptr, 0, timeout_ms, nullptr);
	if (rc < 0) {
		std::lock_guard<std::mutex> lock(ctl_);
		closing_ = false;
		return rc;
	}
	close_primary();
	return 0;
}
