/* SPDX-License-Identifier: BSD-3-Clause */
#include "peer_requests.h"

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>

#include <pthread.h>

#include <rte_errno.h>

#include "device.h"
#include "dpdk_memory.h"
#include "dvs_log.h"
#include "fault.h"
#include "ipc.h"
#include "library.h"
#include "log_budget.h"
#include "peers.h"

namespace dvs {

namespace {

/* Drop the reference a create hands its caller: the primary keeps the
 * object in its store, the secondary imports its own. */
void drop(dvshare_dev *d, Handle *h)
{
	bool revoked;

	if (h->put(&revoked) && revoked)
		d->reap();
}

} // namespace

/* Never destroyed: its thread may run while the process exits. */
PeerRequests &PeerRequests::get()
{
	static PeerRequests *p = new PeerRequests;
	return *p;
}

void reply_to(pid_t pid, const ReplyMsg &rep)
{
	struct rte_mp_msg m;

	mp_pack(&m, kActReply, rep);
	int rc = Peers::get().send_to(pid, m);
	if (rc != 0)
		DVS_LOG(DEBUG, "no answer to request %u of pid %d: %s", rep.seq, pid,
			strerror(-rc));
}

bool PeerRequests::answerable(pid_t pid)
{
	if (Peers::get().backlog(pid) < Peers::kQueueMax)
		return true;
	Library::get().refused("request", "pid " + std::to_string(pid) +
					  " does not read its channel", pid);
	return false;
}

/* One more request of @pid, unless it has too many under way: then it is
 * answered -EAGAIN now (a secondary waits for each of its own, so only a
 * hostile one or many threads get there). Called on the interrupt
 * thread, which also reads the peer's channel: no lock of Peers held. */
bool PeerRequests::admit(pid_t pid, uint32_t seq)
{
	if (!answerable(pid))
		return false;
	{
		std::lock_guard<std::mutex> lock(mu_);
		if (per_peer_[pid] < kPerPeer) {
			per_peer_[pid]++;
			return true;
		}
	}
	Library::get().refused("request", "pid " + std::to_string(pid) + " has " +
						  std::to_string(kPerPeer) + " under way already", pid);
	ReplyMsg rep{};
	rep.hdr = mp_hdr();
	rep.seq = seq;
	rep.status = -EAGAIN;
	reply_to(pid, rep);
	return false;
}

void PeerRequests::push(Job j)
{
	std::lock_guard<std::mutex> lock(mu_);

	jobs_.push_back(std::move(j));
	if (!started_) {
		/* Detached: it lives as long as the process, like this object. */
		std::thread t([this] { run(); });
		pthread_setname_np(t.native_handle(), "dvshare-req");
		t.detach();
		started_ = true;
	}
	cv_.notify_one();
}

void PeerRequests::create(pid_t pid, const CreateReq &req, std::vector<uint8_t> cmd)
{
	if (!admit(pid, req.seq))
		return;
	Job j{ Kind::Create, pid, req, {}, std::move(cmd), req.ibdev };
	push(std::move(j));
}

void PeerRequests::destroy(pid_t pid, const DestroyReq &req)
{
	if (!admit(pid, req.seq))
		return;
	spawn(Job{ Kind::Destroy, pid, {}, req, {}, req.ibdev });
}

void PeerRequests::reclaim(pid_t pid, const std::string &dev)
{
	{
		/* Most peers never create: their death costs no thread. */
		std::lock_guard<std::mutex> lock(mu_);
		if (creators_.count(pid) == 0)
			return;
		if (dev.empty())
			creators_.erase(pid); /* gone: a later pid of that number is another */
	}
	spawn(Job{ Kind::Reclaim, pid, {}, {}, {}, dev });
}

void PeerRequests::spawn(Job j)
{
	try {
		std::thread t([this, j] { done(j, run_one(j)); });
		pthread_setname_np(t.native_handle(), "dvshare-destroy");
		t.detach();
	} catch (const std::system_error &e) {
		/* No thread to be had: in line with the creates, late rather
		 * than never (a reclaim must not be lost). */
		DVS_LOG(WARNING, "no thread for a destroy of pid %d (%s): queued with the creates",
			j.pid, e.what());
		push(std::move(j));
	}
}

/* The request's status (0 for a reclaim). */
int PeerRequests::run_one(const Job &j)
{
	/* A peer whose failed requests spent its log budget: what its next
	 * ones log goes at debug level. */
	log_demoted = j.kind != Kind::Reclaim && LogBudget::get().spent(j.pid);
	int rc = 0;
	try {
		if (j.kind == Kind::Create)
			rc = run_create(j);
		else if (j.kind == Kind::Destroy)
			rc = run_destroy(j);
		else
			run_reclaim(j);
	} catch (const std::bad_alloc &) {
		DVS_LOG(ERR, "request of pid %d dropped: out of memory", j.pid);
	}
	log_demoted = false;
	return rc;
}

void PeerRequests::done(const Job &j, int status)
{
	if (j.kind == Kind::Reclaim)
		return;
	{
		std::lock_guard<std::mutex> lock(mu_);
		if (--per_peer_[j.pid] == 0)
			per_peer_.erase(j.pid);
	}
	/* Each failure spends the peer's log budget (a detach does not
	 * give it back); once spent, that is said once. */
	bool last = false;
	if (status != 0 && !LogBudget::get().take(j.pid, &last))
		return;
	if (last)
		DVS_LOG(NOTICE, "pid %d: its requests keep failing: what the next ones log goes at "
				"debug level", j.pid);
}

void PeerRequests::run()
{
	std::unique_lock<std::mutex> lock(mu_);

	for (;;) {
		cv_.wait(lock, [this] { return !jobs_.empty(); });
		Job j = std::move(jobs_.front());
		jobs_.pop_front();
		lock.unlock();
		done(j, run_one(j));
		lock.lock();
	}
}

int PeerRequests::run_create(const Job &j)
{
	ReplyMsg rep{};

	rep.hdr = mp_hdr();
	rep.seq = j.create.seq;
	rep.status = do_create(j, &rep);
	reply_to(j.pid, rep);
	if (rep.status != 0)
		return rep.status;
	fault_point("primary-created");
	/* The others hear of it after its creator has its answer. */
	std::shared_ptr<dvshare_dev> d = Library::get().hold(j.create.ibdev);
	if (d != nullptr)
		ipc_announce(d.get(), DVSHARE_EVENT_PUBLISHED, j.create.name);
	return 0;
}

int PeerRequests::do_create(const Job &j, ReplyMsg *rep)
{
	const CreateReq &r = j.create;
	/* Only a live secondary attached to the device (checked again once
	 * the object is published: it may go meanwhile). */
	if (!Peers::get().is_attached(j.pid, r.ibdev)) {
		DVS_LOG(NOTICE, "create of %s refused: pid %d is not attached to %s (or is gone)",
			r.name, j.pid, r.ibdev);
		return -ENODEV;
	}
	std::shared_ptr<dvshare_dev> d = Library::get().hold(r.ibdev);
	if (d == nullptr || !d->primary() || d->gone())
		return -ENODEV;
	uint32_t mine = d->created_by(j.pid);
	if (mine >= d->max_per_secondary()) {
		DVS_LOG(ERR, "%s: create of %s for pid %d refused: it has %u object(s), its limit "
			     "(max_objects_per_secondary)", d->name().c_str(), r.name, j.pid, mine);
		return -EDQUOT;
	}
	Origin o{ (r.flags & kCreatePersist) != 0 ? 0 : j.pid, j.pid };
	Handle *h = nullptr;
	fault_point("primary-create");
	rte_errno = 0;
	if (r.kind == DVSHARE_TYPE_VAR) {
		h = d->var_alloc(r.name, r.arg & ~DVSHARE_CREATE_PERSIST, o);
	} else if (r.kind == DVSHARE_TYPE_OBJ) {
		std::string why;
		if (d->check_peer_create(j.pid, j.cmd.data(), j.cmd.size(), &why) != 0) {
			DVS_LOG(ERR, "%s: create of %s for pid %d refused: %s", d->name().c_str(),
				r.name, j.pid, why.c_str());
			return -EPERM;
		}
		std::vector<uint8_t> out(r.outlen, 0);
		h = d->obj_create(r.name, j.cmd.data(), j.cmd.size(), out.data(), out.size(), o);
		rep->outlen = std::min<uint32_t>(r.outlen, kCreateOutMax);
		memcpy(rep->out, out.data(), rep->outlen);
	} else {
		std::string why;
		if (dpdk_memory_covers(r.addr, r.size, &why) != 0) {
			DVS_LOG(ERR, "%s: UMEM %s of pid %d refused: %s", d->name().c_str(), r.name,
				j.pid, why.c_str());
			return -EINVAL;
		}
		h = d->umem_reg(r.name, reinterpret_cast<void *>(r.addr), r.size, r.arg, o);
	}
	if (h == nullptr)
		return -(rte_errno != 0 ? rte_errno : EIO);
	rep->slot = h->slot;
	rep->gen = h->gen;
	{
		std::lock_guard<std::mutex> lock(mu_);
		creators_.insert(j.pid);
	}
	/* Gone or detached meanwhile: its reclaim may have looked before
	 * this was published (or skipped it). Not left behind, and not
	 * destroyed here: a destroy waits for every peer's answer, and no
	 * create may wait for that. A reclaim of its own does it. */
	if (!Peers::get().is_attached(j.pid, r.ibdev)) {
		drop(d.get(), h);
		DVS_LOG(INFO, "%s: %s made for pid %d, which is gone: handed to its reclaim",
			d->name().c_str(), r.name, j.pid);
		reclaim(j.pid, Peers::get().is_peer(j.pid) ? std::string(r.ibdev) : std::string());
		return -ENODEV;
	}
	DVS_LOG(INFO, "%s: %s %s created for pid %d (%s)", d->name().c_str(), type_str(r.kind),
		r.name, j.pid, o.owner != 0 ? "its own" : "persistent: the primary's");
	drop(d.get(), h);
	return 0;
}

int PeerRequests::run_destroy(const Job &j)
{
	const DestroyReq &r = j.destroy;
	ReplyMsg rep{};

	rep.hdr = mp_hdr();
	rep.seq = r.seq;
	std::shared_ptr<dvshare_dev> d = Library::get().hold(r.ibdev);
	if (d == nullptr || !d->primary() || d->gone())
		rep.status = -ENODEV;
	else
		rep.status = d->destroy(r.name, std::min(r.timeout_ms, kDestroyTimeoutMaxMs), j.pid);
	reply_to(j.pid, rep);
	return rep.status;
}

void PeerRequests::run_reclaim(const Job &j)
{
	std::vector<std::shared_ptr<dvshare_dev>> devs;
	{
		Library &lib = Library::get();
		std::lock_guard<std::mutex> lock(lib.mu);
		devs = lib.devices;
	}
	for (const auto &d : devs) {
		if (!d->primary() || d->gone() || (!j.dev.empty() && d->name() != j.dev))
			continue;
		/* A destroy of its own running beside this one takes a name
		 * out of the batch (-ENOENT, nothing done): look again. */
		for (int tries = 0; tries < 3; tries++) {
			std::vector<std::string> names = d->owned_by(j.pid);
			if (names.empty())
				break;
			int rc = d->destroy_many(names, d->close_timeout_ms());
			if (rc >= 0)
				DVS_LOG(INFO, "%s: %d object(s) of pid %d destroyed: it %s",
					d->name().c_str(), rc, j.pid,
					j.dev.empty() ? "is gone" : "let go of the device");
			if (rc != -ENOENT)
				break;
		}
		d->adopt(j.pid);
	}
}

} // namespace dvs
