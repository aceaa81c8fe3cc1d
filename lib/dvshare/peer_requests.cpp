/* SPDX-License-Identifier: BSD-3-Clause */
#include "peer_requests.h"

#include <algorithm>
#include <iterator>
#include <cerrno>
#include <cstring>
#include <system_error>
#include <thread>

#include <pthread.h>

#include <rte_errno.h>

#include "channel.h"
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

/* The answer to @who's admitted request: one it cannot take (its line
 * full: it does not read its answers) is dropped and counted; a caller
 * gone or given up is not a fault. */
int deliver(const PeerId &who, const std::shared_ptr<const Fd> &reply, const ReplyMsg &rep)
{
	int rc = reply != nullptr ? answer(*reply, rep) : -EBADF;

	if (rc == -EAGAIN)
		Library::get().refused("answer", "pid " + std::to_string(who.pid) +
							 " does not read its answers", who.pid);
	return rc;
}

/* Drop the reference a create hands its caller: the primary keeps the
 * object in its store, the secondary imports its own. */
void drop(dvshare_dev *d, Handle *h)
{
	bool revoked;

	if (h->put(&revoked) && revoked)
		d->reap(h);
}

} // namespace

/* Never destroyed: its thread may run while the process exits. */
PeerRequests &PeerRequests::get()
{
	static PeerRequests *p = new PeerRequests;
	return *p;
}

int answer(const Fd &reply, const ReplyMsg &rep)
{
	struct rte_mp_msg m;

	if (!reply.valid())
		return -EBADF;
	mp_pack(&m, kActReply, rep);
	int rc = channel_send(reply.get(), m);
	if (rc != 0)
		DVS_LOG(DEBUG, "no answer to request %u: %s", rep.seq, strerror(-rc));
	return rc;
}

int answer_status(const Fd &reply, uint32_t seq, int status)
{
	ReplyMsg rep{};

	rep.hdr = mp_hdr();
	rep.seq = seq;
	rep.status = status;
	return answer(reply, rep);
}

bool PeerRequests::answerable(pid_t pid)
{
	if (Peers::get().backlog(pid) < Peers::kQueueMax)
		return true;
	Library::get().refused("request", "pid " + std::to_string(pid) +
					  " does not read its channel", pid);
	return false;
}

/* One more request of @who, unless it has too many under way: then it is
 * answered -EAGAIN now (a secondary waits for each of its own, so only a
 * hostile one or many threads get there). No lock of Peers held. */
int PeerRequests::admit(const PeerId &who, uint32_t seq, const Fd &reply)
{
	if (!answerable(who.pid))
		return -1;
	{
		std::lock_guard<std::mutex> lock(mu_);
		if (per_peer_[who] < kPerPeer) {
			per_peer_[who]++;
			return 1;
		}
	}
	Library::get().refused("request", "pid " + std::to_string(who.pid) + " has " +
						  std::to_string(kPerPeer) + " under way already", who.pid);
	(void)answer_status(reply, seq, -EAGAIN);
	return 0;
}

/* The pool: detached, its threads live as long as the process, like this
 * object. A thread that cannot be had now is tried again at the next
 * job; the jobs wait meanwhile. */
void PeerRequests::start()
{
	std::lock_guard<std::mutex> lock(mu_);

	start_locked();
}

void PeerRequests::start_locked()
{
	if (started_)
		return;
	try {
		for (unsigned int i = 0; i < kWorkers; i++) {
			std::thread w([this] { run_work(); });
			pthread_setname_np(w.native_handle(), "dvshare-destroy");
			w.detach();
		}
		started_ = true;
	} catch (const std::system_error &e) {
		DVS_LOG(ERR, "no thread for secondaries' requests (%s): they wait", e.what());
	}
}

bool PeerRequests::create(const PeerId &who, const CreateReq &req, std::vector<uint8_t> cmd,
			  std::shared_ptr<const Fd> reply)
{
	int ok = admit(who, req.seq, *reply);
	if (ok <= 0)
		return ok == 0;
	Job j(Kind::Create, who, req.ibdev);
	j.counted = true;
	j.create = req;
	j.cmd = std::move(cmd);
	j.reply = std::move(reply);
	done(j, run_one(j)); /* here and now: see the top of peer_requests.h */
	return true;
}

bool PeerRequests::destroy(const PeerId &who, const DestroyReq &req,
			   std::shared_ptr<const Fd> reply)
{
	int ok = admit(who, req.seq, *reply);
	if (ok <= 0)
		return ok == 0;
	Job j(Kind::Destroy, who, req.ibdev);
	j.counted = true;
	j.destroy = req;
	j.reply = std::move(reply);
	std::lock_guard<std::mutex> lock(mu_);
	queue_work_locked(std::move(j));
	return true;
}

void PeerRequests::undo_create(const PeerId &who, const CreateReq &req)
{
	Job j(Kind::Destroy, who, req.ibdev);
	std::shared_ptr<dvshare_dev> d = Library::get().hold(req.ibdev);

	j.any_owner = (req.flags & kCreatePersist) != 0;
	j.destroy.hdr = req.hdr;
	j.destroy.seq = req.seq;
	j.destroy.timeout_ms = d != nullptr ? d->close_timeout_ms() : kDestroyTimeoutMaxMs;
	memcpy(j.destroy.ibdev, req.ibdev, sizeof(j.destroy.ibdev));
	memcpy(j.destroy.name, req.name, sizeof(j.destroy.name));
	std::lock_guard<std::mutex> lock(mu_);
	per_peer_[who]++; /* settled() counts it off like the peer's own */
	j.counted = true;
	queue_work_locked(std::move(j));
}

void PeerRequests::reclaim(const PeerId &who, const std::string &dev)
{
	unblocked(who.pid); /* whatever it held up may go now */
	Job j(Kind::Reclaim, who, dev);
	if (!dev.empty()) {
		/* Before taking mu_, which stays a leaf: the interrupt thread
		 * calls unblocked() under the library's lock. */
		std::shared_ptr<dvshare_dev> d = Library::get().hold(dev.c_str());
		if (d != nullptr && d->primary())
			j.upto = d->publish_seq();
	}
	std::lock_guard<std::mutex> lock(mu_);
	/* Most peers never create: their death costs nothing here. */
	if (creators_.count(who) == 0)
		return;
	if (dev.empty())
		creators_.erase(who); /* gone for good: all it owns */
	queue_work_locked(std::move(j));
}

void PeerRequests::unblocked(pid_t pid)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto now = Clock::now();
	bool any = false;

	for (auto &[key, o] : orphans_) {
		/* A peer that keeps answering late (or forging answers) gets
		 * one early retry a second, not one per message. */
		if (o.blockers.count(pid) == 0 || now - o.last_unblocked < std::chrono::seconds(1))
			continue;
		o.last_unblocked = now;
		o.next_try = now;
		any = true;
	}
	if (any)
		work_cv_.notify_all();
}

size_t PeerRequests::orphan_records()
{
	std::lock_guard<std::mutex> lock(mu_);
	return orphans_.size();
}

void PeerRequests::queue_work_locked(Job j)
{
	if (j.kind == Kind::Reclaim) {
		for (Job &q : work_) {
			if (q.kind != Kind::Reclaim || q.who != j.who)
				continue;
			if (q.dev.empty() || q.dev == j.dev || j.dev.empty()) {
				/* The queued one does it, up to the later bound;
				 * a gone peer's takes all its devices. */
				q.upto = std::max(q.upto, j.upto);
				if (j.dev.empty())
					q.dev.clear();
				return;
			}
		}
	}
	work_.push_back(std::move(j));
	start_locked();
	work_cv_.notify_one();
}

bool PeerRequests::next_work_locked(Job *j)
{
	for (auto it = work_.begin(); it != work_.end(); ++it) {
		if (busy_.count(it->who) != 0)
			continue;
		*j = std::move(*it);
		work_.erase(it);
		return true;
	}
	auto now = Clock::now();
	for (auto &[key, o] : orphans_) {
		if (o.next_try > now || busy_.count(key.first) != 0)
			continue;
		/* Not tried again until this try has ended (it sets the next). */
		o.next_try = Clock::time_point::max();
		*j = Job(Kind::Reclaim, key.first, key.second);
		j->upto = o.upto;
		return true;
	}
	return false;
}

void PeerRequests::run_work()
{
	std::unique_lock<std::mutex> lock(mu_);

	for (;;) {
		Job j;
		if (!next_work_locked(&j)) {
			/* Sleep until a job comes or the next orphan retry is due. */
			auto until = Clock::time_point::max();
			for (const auto &[key, o] : orphans_)
				until = std::min(until, o.next_try);
			if (until == Clock::time_point::max())
				work_cv_.wait(lock);
			else
				work_cv_.wait_until(lock, until);
			continue;
		}
		busy_.insert(j.who);
		lock.unlock();
		int status = run_one(j);
		lock.lock();
		busy_.erase(j.who);
		lock.unlock();
		done(j, status);
		lock.lock();
		work_cv_.notify_all(); /* a job of that peer may wait */
	}
}

/* The request's status (0 for a reclaim). */
int PeerRequests::run_one(const Job &j)
{
	/* A peer whose failed requests spent its log budget: what its next
	 * ones log goes at debug level. */
	log_demoted = j.kind != Kind::Reclaim && LogBudget::get().spent(j.who.pid);
	int rc = 0;
	try {
		if (j.kind == Kind::Create)
			rc = run_create(j);
		else if (j.kind == Kind::Destroy)
			rc = run_destroy(j);
		else
			run_reclaim(j);
	} catch (const std::bad_alloc &) {
		DVS_LOG(ERR, "request of pid %d dropped: out of memory", j.who.pid);
	}
	log_demoted = false;
	return rc;
}

void PeerRequests::settled(const Job &j)
{
	std::lock_guard<std::mutex> lock(mu_);

	if (!j.counted)
		return;
	j.counted = false;
	if (--per_peer_[j.who] == 0)
		per_peer_.erase(j.who);
}

void PeerRequests::done(const Job &j, int status)
{
	if (j.kind == Kind::Reclaim)
		return;
	settled(j); /* if no answer went out */
	/* Each failure spends the peer's log budget (a detach does not
	 * give it back); once spent, that is said once. A destroy of a name
	 * that is not there is an answer, logged nowhere: it spends nothing
	 * (the bench's round trips are such destroys). */
	if (status == 0 || (j.kind == Kind::Destroy && status == -ENOENT))
		return;
	bool last = false;
	if (!LogBudget::get().take(j.who.pid, &last))
		return;
	if (last)
		DVS_LOG(NOTICE, "pid %d: its requests keep failing: what the next ones log goes at "
				"debug level", j.who.pid);
}

int PeerRequests::run_create(const Job &j)
{
	ReplyMsg rep{};

	rep.hdr = mp_hdr();
	rep.seq = j.create.seq;
	rep.status = do_create(j, &rep);
	settled(j);
	if (deliver(j.who, j.reply, rep) != 0 && rep.status == 0) {
		/* Its caller gave up (shut its end first, so nothing it could
		 * still read was sent) or is gone: it was told it failed. */
		DVS_LOG(INFO, "%s: %s was made after pid %d gave up waiting: destroying it",
			j.create.ibdev, j.create.name, j.who.pid);
		undo_create(j.who, j.create);
		return 0;
	}
	if (rep.status != 0)
		return rep.status;
	fault_point("primary-created");
	/* The others hear of it after its creator has its answer; the
	 * creator raises its own event (dvshare.h: this process's own
	 * publishes are told on the calling thread). */
	std::shared_ptr<dvshare_dev> d = Library::get().hold(j.create.ibdev);
	if (d != nullptr)
		ipc_announce(d.get(), DVSHARE_EVENT_PUBLISHED, j.create.name, j.who.pid);
	return 0;
}

int PeerRequests::do_create(const Job &j, ReplyMsg *rep)
{
	const CreateReq &r = j.create;
	const pid_t pid = j.who.pid;
	/* Only a live secondary attached to the device (checked again once
	 * the object is published: it may go meanwhile). */
	if (!Peers::get().is_attached(j.who, r.ibdev)) {
		DVS_LOG(NOTICE, "create of %s refused: pid %d is not attached to %s (or is gone)",
			r.name, pid, r.ibdev);
		return -ENODEV;
	}
	std::shared_ptr<dvshare_dev> d = Library::get().hold(r.ibdev);
	if (d == nullptr || !d->primary() || d->gone())
		return -ENODEV;
	std::string why;
	int rc = d->may_create(j.who, &why);
	if (rc != 0) {
		DVS_LOG(ERR, "%s: create of %s for pid %d refused: %s", d->name().c_str(), r.name,
			pid, why.c_str());
		return rc;
	}
	Origin o{ (r.flags & kCreatePersist) != 0 ? PeerId{} : j.who, j.who };
	Handle *h = nullptr;
	fault_point("primary-create");
	rte_errno = 0;
	if (r.kind == DVSHARE_TYPE_VAR) {
		h = d->var_alloc(r.name, r.arg & ~DVSHARE_CREATE_PERSIST, o);
	} else if (r.kind == DVSHARE_TYPE_OBJ) {
		if (d->check_peer_create(j.who, j.cmd.data(), j.cmd.size(), &why) != 0) {
			DVS_LOG(ERR, "%s: create of %s for pid %d refused: %s", d->name().c_str(),
				r.name, pid, why.c_str());
			return -EPERM;
		}
		std::vector<uint8_t> out(r.outlen, 0);
		h = d->obj_create(r.name, j.cmd.data(), j.cmd.size(), out.data(), out.size(), o);
		rep->outlen = std::min<uint32_t>(r.outlen, kCreateOutMax);
		memcpy(rep->out, out.data(), rep->outlen);
	} else if ((r.flags & kCreateAlloc) != 0) {
		/* Memory of the primary's own making: freed with the UMEM. */
		h = d->umem_alloc(r.name, r.size, r.addr, r.arg, o);
	} else {
		if (dpdk_memory_covers(r.addr, r.size, &why) != 0) {
			DVS_LOG(ERR, "%s: UMEM %s of pid %d refused: %s", d->name().c_str(), r.name,
				pid, why.c_str());
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
		creators_.insert(j.who);
	}
	/* Gone or detached meanwhile: its reclaim may have looked before
	 * this was published (or skipped it). Not left behind, and not
	 * destroyed here: a destroy waits for every peer's answer, and no
	 * create may wait for that. A reclaim of its own does it. */
	if (!Peers::get().is_attached(j.who, r.ibdev)) {
		drop(d.get(), h);
		DVS_LOG(INFO, "%s: %s made for pid %d, which is gone: handed to its reclaim",
			d->name().c_str(), r.name, pid);
		reclaim(j.who, Peers::get().is_peer(j.who) ? std::string(r.ibdev) : std::string());
		return -ENODEV;
	}
	DVS_LOG(INFO, "%s: %s %s created for pid %d (%s)", d->name().c_str(), type_str(r.kind),
		r.name, pid, !o.owner.none() ? "its own" : "persistent: the primary's");
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
		rep.status = d->destroy(r.name, std::min(r.timeout_ms, kDestroyTimeoutMaxMs),
					j.any_owner ? nullptr : &j.who);
	settled(j);
	if (j.reply != nullptr)
		(void)deliver(j.who, j.reply, rep);
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
	bool retry;
	{
		std::lock_guard<std::mutex> lock(mu_);
		retry = orphans_.count({ j.who, j.dev }) != 0;
		/* Devices closed since: their close destroyed the orphans. */
		for (auto it = orphans_.begin(); it != orphans_.end();) {
			bool open = std::any_of(devs.begin(), devs.end(), [&](const auto &d) {
				return d->name() == it->first.second && !d->gone();
			});
			it = open ? std::next(it) : orphans_.erase(it);
		}
	}
	for (const auto &d : devs) {
		if (!d->primary() || d->gone() || (!j.dev.empty() && d->name() != j.dev))
			continue;
		reclaim_on(d.get(), j, retry);
		if (!Peers::get().is_peer(j.who))
			d->forget_creator(j.who); /* its persistent ones count for no one now */
	}
}

/* Destroy what @j.who owns on @d, or keep what stays as its orphans. */
void PeerRequests::reclaim_on(dvshare_dev *d, const Job &j, bool retry)
{
	const OrphanKey key{ j.who, d->name() };
	std::set<pid_t> blockers;
	/* A retry that fails again is no news: said at debug level. */
	log_demoted = retry;
	int rc = d->destroy_owned(j.who, j.upto, d->close_timeout_ms(), &blockers);
	log_demoted = false;
	if (rc > 0)
		DVS_LOG(INFO, "%s: %d object(s) of pid %d destroyed: it %s", d->name().c_str(), rc,
			j.who.pid, !Peers::get().is_peer(j.who) ? "is gone" : "let go of the device");
	std::lock_guard<std::mutex> lock(mu_);
	if (rc >= 0 || rc == -ENODEV) {
		orphans_.erase(key);
		return;
	}
	auto [it, fresh] = orphans_.try_emplace(key);
	Orphans &o = it->second;
	o.upto = fresh ? j.upto : std::max(o.upto, j.upto);
	if (!fresh)
		o.backoff_ms = std::min(o.backoff_ms * 2, kRetryMostMs);
	o.blockers = std::move(blockers);
	o.next_try = Clock::now() + std::chrono::milliseconds(o.backoff_ms);
	if (fresh)
		DVS_LOG(NOTICE, "%s: objects of pid %d kept as its orphans (%s), still charged to "
				"it: tried again when %s, or in %d s", d->name().c_str(), j.who.pid,
			strerror(-rc),
			o.blockers.empty() ? "a secondary leaves"
					   : ("pid(s) " + pid_list(o.blockers) + " answer, leave or die").c_str(),
			o.backoff_ms / 1000);
	work_cv_.notify_all();
}

} // namespace dvs
