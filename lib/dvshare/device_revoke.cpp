/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The destroy protocol (doc/protocol.md): the primary marks an entry
 * revoking, every attached secondary fences and lets go, and only then is
 * the kernel object destroyed. Letting go in any process: a VAR mapping is
 * fenced in place, DEVX objects and UMEMs are unimported at their last
 * release.
 */
#include "device.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include <rte_interrupts.h>

#include "dvs_log.h"
#include "fault.h"
#include "ipc.h"
#include "library.h"
#include "peer_requests.h"
#include "peers.h"

using dvs::EntryState;
using dvs::Handle;
using dvs::RegEntry;

/* Owner side of a destroy for objects whose destroy can fail. VARs are
 * freed by let_go_locked(), after their mapping is fenced. */
int dvshare_dev::kill_kernel_object(Handle *h)
{
	int rc = 0;

	/* Other threads of this process may be querying it: none may run
	 * during the destroy (it frees rdma-core's object) or reach the id
	 * after it (the device reuses ids). If the device refuses, they go on. */
	h->hold_commands();
	if (h->type == DVSHARE_TYPE_OBJ) {
		auto *o = static_cast<dvshare_obj *>(h);
		rc = glue_->devx_obj_destroy(o->dv);
		if (rc == 0)
			o->dv = nullptr;
	} else if (h->type == DVSHARE_TYPE_UMEM) {
		auto *u = static_cast<dvshare_umem *>(h);
		rc = glue_->devx_umem_dereg(u->dv);
		if (rc == 0) {
			u->dv = nullptr;
			u->free_mem();
		}
	}
	if (rc == 0)
		h->revoke_and_drain(); /* the waiting commands find it revoked */
	h->release_commands();
	if (rc != 0)
		DVS_LOG(ERR, "%s: device refused to destroy %s: %s", name_.c_str(), h->name,
			strerror(rc));
	return -rc;
}

/* Hide the handle of @slot from lookups, refuse its commands from now on
 * and fence a VAR: what a revoke must finish before it is answered. */
dvs::HandlePtr<> dvshare_dev::detach_locked(uint32_t slot, bool fence_var)
{
	dvs::HandlePtr<> h = store_.take(slot);

	if (h == nullptr)
		return h;
	if (h->for_peer)
		for_peers_--;
	if (!h->creator.none() && --created_[h->creator] == 0)
		created_.erase(h->creator);
	h->revoke_and_drain();
	dvs::Library::get().stats.revoked++;
	if (h->type == DVSHARE_TYPE_VAR && fence_var)
		static_cast<dvshare_var *>(h.get())->fence();
	return h;
}

void dvshare_dev::fence_vars(const std::vector<dvshare_var *> &vars)
{
	std::vector<uint32_t> places;

	for (dvshare_var *v : vars) {
		if (v->fenced || !v->page.valid())
			continue;
		if (v->page.region() != &vars_) {
			v->fence(); /* a mapping of its own */
			continue;
		}
		places.push_back(v->page.index());
		v->fenced = true;
	}
	if (places.empty() || vars_.fence(places) == 0)
		return;
	/* Some run could not be fenced and was unmapped instead: fence()
	 * says which VAR, one by one. */
	DVS_LOG(ERR, "%s: cannot fence %zu VAR(s) in one call: unmapped instead", name_.c_str(),
		places.size());
}

/* The rest of letting go, which may follow the answer: a VAR is freed or
 * unimported now; objects and UMEMs are refused already and unimported
 * at their last release (when the pool takes them back). */
void dvshare_dev::retire_locked(dvs::HandlePtr<> h)
{
	if (h->type == DVSHARE_TYPE_VAR)
		h->let_go();
	if (h->refs() == 0)
		return; /* nobody holds it: back to the pool now */
	Handle *raw = h.get();
	retired_.emplace(raw, std::move(h));
	reap_locked(raw);
	if (++retired_since_sweep_ >= std::max<size_t>(1024, retired_.size())) {
		retired_since_sweep_ = 0;
		reap_all_locked();
	}
}

void dvshare_dev::let_go_locked(uint32_t slot)
{
	dvs::HandlePtr<> h = detach_locked(slot);

	if (h != nullptr)
		retire_locked(std::move(h));
}

/* Recycle retired handle @h if nobody references it (its deleter gives it
 * back to the pool: a lookup may still read it, handles.h). @h may have
 * been recycled already: it is only a key here. */
void dvshare_dev::reap_locked(Handle *h)
{
	auto it = retired_.find(h);

	if (it != retired_.end() && it->second->refs() == 0)
		retired_.erase(it);
}

void dvshare_dev::reap_all_locked()
{
	std::erase_if(retired_, [](const auto &kv) { return kv.second->refs() == 0; });
}

void dvshare_dev::reap(Handle *h)
{
	std::lock_guard<std::mutex> lock(ctl_);
	reap_locked(h);
}

/* The answers a destroy waits for are read by DPDK's interrupt thread:
 * waiting there (an event callback) could only end in a timeout. */
bool dvshare_dev::on_ipc_thread() const
{
	if (rte_thread_is_intr() == 0)
		return false;
	DVS_LOG(ERR, "%s: no destroy or close from DPDK's interrupt thread (an event callback): "
		     "the secondaries' answers are read there", name_.c_str());
	return true;
}

void dvshare_dev::DestroyRun::done()
{
	if (dev == nullptr)
		return;
	std::lock_guard<std::mutex> lk(dev->wait_mu_);
	dev->destroying_--;
	dev->wait_cv_.notify_all();
	dev = nullptr;
}

bool dvshare_dev::wait_destroys(unsigned int timeout_ms)
{
	std::unique_lock<std::mutex> lk(wait_mu_);

	return wait_cv_.wait_for(lk, std::chrono::milliseconds(timeout_ms),
				 [this] { return destroying_ == 0; });
}

int dvshare_dev::wait_acks(uint32_t revoke_id, unsigned int timeout_ms, std::set<pid_t> *missing)
{
	std::unique_lock<std::mutex> lk(wait_mu_);
	auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
	auto done = [&] { return pending_[revoke_id].waiting.empty(); };

	/* Woken by each answer and each peer's end. A peer that stopped
	 * reading has the revoke in its queue, pushed on by the interrupt
	 * thread as it reads again (peers.h): no polling here. */
	wait_cv_.wait_until(lk, deadline, done);
	*missing = std::move(pending_[revoke_id].waiting);
	pending_.erase(revoke_id);
	dvs::Peers::get().revoke_over(name_, revoke_id);
	return missing->empty() ? 0 : -EBUSY;
}

void dvshare_dev::revoke_ack(pid_t pid, uint32_t revoke_id, uint32_t slot, uint32_t gen)
{
	{
		std::lock_guard<std::mutex> lk(wait_mu_);
		auto it = pending_.find(revoke_id);
		if (it != pending_.end() && it->second.slot == slot && it->second.gen == gen) {
			it->second.waiting.erase(pid);
			wait_cv_.notify_all();
			return;
		}
	}
	/* A late answer to a destroy that was called off: @pid reads again,
	 * so what waited for it (orphans) may go now. */
	dvs::PeerRequests::get().unblocked(pid);
}

void dvshare_dev::peer_gone(pid_t pid)
{
	std::lock_guard<std::mutex> lk(wait_mu_);

	for (auto &[id, p] : pending_)
		p.waiting.erase(pid);
	wait_cv_.notify_all();
}

int dvshare_dev::destroy(const char *name, unsigned int timeout_ms, const dvs::PeerId *owner)
{
	dvs::Library &lib = dvs::Library::get();
	RegEntry snap;
	uint32_t slot, rid;
	int rc = dvs::check_name(name);

	if (!primary_)
		return -EPERM;
	if (rc != 0)
		return rc;
	if (on_ipc_thread())
		return -EDEADLK;
	{
		std::lock_guard<std::mutex> lock(ctl_);
		if (reg_.closed())
			return -ENODEV;
		rc = reg_.find(name, &snap, &slot);
		if (rc != 0)
			return rc;
		const Handle *h = store_.get(slot);
		if (owner != nullptr && (h == nullptr || h->peer != *owner)) {
			std::string whose = snap.owner == 0 ? "the primary's"
					    : snap.owner == owner->pid ? "an earlier process's of that pid"
					    : "pid " + std::to_string(snap.owner) + "'s";
			DVS_LOG(ERR, "%s: pid %d may not destroy %s: it is %s", name_.c_str(),
				owner->pid, name, whose.c_str());
			return -EPERM;
		}
		rid = ++revoke_seq_;
		reg_.set_revoking(slot, rid);
		std::lock_guard<std::mutex> lk(wait_mu_);
		pending_[rid] = { slot, snap.gen, dvs::Peers::get().attached_to(name_) };
		destroying_++;
	}
	DestroyRun run(this);
	dvs::fault_point("primary-revoke");
	lib.emit(this, DVSHARE_EVENT_REVOKING, name, getpid());
	dvs::ipc_revoke(this, slot, snap.gen, rid);
	std::set<pid_t> missing;
	rc = wait_acks(rid, timeout_ms, &missing);
	{
		std::lock_guard<std::mutex> lock(ctl_);
		if (rc == 0)
			rc = kill_kernel_object(store_.get(slot));
		else
			DVS_LOG(ERR, "%s: destroy of %s called off: pid(s) %s did not let go within %u ms",
				name_.c_str(), name, dvs::pid_list(missing).c_str(), timeout_ms);
		if (rc != 0) {
			/* Nothing was destroyed: back to live, same generation. */
			reg_.set_live(slot);
			lib.stats.destroy_busy += rc == -EBUSY;
			return rc;
		}
		let_go_locked(slot);
		reg_.remove(slot);
	}
	run.done();
	lib.stats.destroyed++;
	lib.emit(this, DVSHARE_EVENT_REVOKED, name, getpid());
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
		if (store_.get(slot) != nullptr && store_.get(slot)->gen == gen)
			let_go_locked(slot);
	}
	dvs::fault_point("revoke-fence");
	return true;
}
