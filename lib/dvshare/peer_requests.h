/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The primary's work for its secondaries: a create a secondary asks for,
 * the destroy of an object it owns, and the reclaim of what it owned once
 * it is gone or detached. Requests come on the secondary's request lines
 * (request_lines.h), and each is answered on the line it came on.
 *
 * A create runs where it was read, on the request lines' thread: no
 * hand-off to another thread on the way (each costs a wake-up, as much as
 * a create on the software device). That thread never reads a channel, so
 * a DEVX create that is a NIC's firmware command (milliseconds, or the
 * kernel's command timeout) holds up only other creates. Destroys and
 * reclaims run on a fixed pool of kWorkers threads (however many peers
 * ask), one job per peer at a time, so a peer that queues many holds one
 * worker; reclaims are merged per (peer, device); a destroy waits for acks
 * the interrupt thread reads, and a create never waits for a destroy.
 * A create checks after it published that its owner is still attached:
 * if not, the object goes to its owner's reclaim (queued only once the
 * owner is marked gone or detached), so no object outlives its owner
 * unseen.
 *
 * A reclaim that cannot finish (a secondary does not let go, the device
 * refuses) leaves the objects their owner's: orphans, still charged to
 * it. They are tried again when a secondary that held them up answers
 * late, leaves or dies, and otherwise after a back-off (1 s, doubling to
 * a minute); the device's close destroys them with the rest. See
 * doc/protocol.md, "Creates" and "Orphans".
 */
#ifndef DVS_PEER_REQUESTS_H
#define DVS_PEER_REQUESTS_H

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <sys/types.h>

#include "dvs_fd.h"
#include "ipc_proto.h"
#include "peer_id.h"

namespace dvs {

class PeerRequests {
public:
	/* Destroys of one secondary queued or running at once; past it the
	 * next is answered -EAGAIN at once. */
	static constexpr size_t kPerPeer = 16;
	/* Threads that run destroys and reclaims, for the whole library. */
	static constexpr unsigned int kWorkers = 3;
	/* The longest a secondary's destroy may wait for the others. */
	static constexpr unsigned int kDestroyTimeoutMaxMs = 10000;
	/* Orphans are tried again after this, doubling up to the most. */
	static constexpr int kRetryFirstMs = 1000;
	static constexpr int kRetryMostMs = 60000;

	static PeerRequests &get();
	/* Start the pool now (when the primary starts listening; else at
	 * its first job). */
	void start();
	/* May @pid have work done? Not while it does not read its channel
	 * (what it asks would announce objects to a process that reads
	 * nothing). A refusal is counted. No Peers lock held. */
	static bool answerable(pid_t pid);

	/* From one of @who's request lines (its thread): run a create here,
	 * or queue a destroy for the pool, answered on @reply (the line). A
	 * create's command (OBJ) is @cmd, copied out of its memfd. False:
	 * refused unanswered, the line is to be closed. */
	bool create(const PeerId &who, const CreateReq &req, std::vector<uint8_t> cmd,
		    std::shared_ptr<const Fd> reply);
	bool destroy(const PeerId &who, const DestroyReq &req, std::shared_ptr<const Fd> reply);
	/* @who is gone (@dev empty) or let go of @dev: destroy what it owns
	 * there (made by now: not what it makes after attaching again); what
	 * cannot be destroyed stays its own (orphans). */
	void reclaim(const PeerId &who, const std::string &dev);
	/* @pid answered a revoke late, left a device or died: the orphans it
	 * held up are tried again. Never waits (interrupt thread). */
	void unblocked(pid_t pid);
	/* Orphan records (owner, device) waiting to be tried again. */
	size_t orphan_records();

private:
	enum class Kind { Create, Destroy, Reclaim };
	struct Job {
		Job() = default;
		Job(Kind k, const PeerId &w, std::string d) : kind(k), who(w), dev(std::move(d)) {}
		Kind kind = Kind::Reclaim;
		PeerId who;
		CreateReq create{};
		DestroyReq destroy{};
		std::vector<uint8_t> cmd;
		std::string dev;
		/* Reclaim: what was published by this sequence (a detach's
		 * reclaim spares what the peer made after attaching again). */
		uint64_t upto = UINT64_MAX;
		/* Where the answer goes (the request's line); none for a
		 * reclaim, or the destroy of a create whose caller gave up. */
		std::shared_ptr<const Fd> reply;
		/* Destroy: whoever owns it (a persistent create undone). */
		bool any_owner = false;
		/* Counted in per_peer_ until settled() (before its answer). */
		mutable bool counted = false;
	};
	using Clock = std::chrono::steady_clock;
	/* What a reclaim left of @who's on one device. */
	struct Orphans {
		std::set<pid_t> blockers; /* did not let go (empty: the device refused) */
		Clock::time_point next_try;
		int backoff_ms = kRetryFirstMs;
		Clock::time_point last_unblocked;
		uint64_t upto = UINT64_MAX;
	};
	using OrphanKey = std::pair<PeerId, std::string>;

	PeerRequests() = default;
	/* 1: run it; 0: answered a refusal; -1: refused unanswered. */
	int admit(const PeerId &who, uint32_t seq, const Fd &reply);
	/* The create's caller gave up before its answer: destroy what was
	 * made for it, as if it had asked, with no answer. */
	void undo_create(const PeerId &who, const CreateReq &req);
	void start_locked();
	/* Queue a destroy or reclaim for the pool; reclaims merge. */
	void queue_work_locked(Job j);
	void run_work();
	/* The next job the pool may run (none of its peer's running), or an
	 * orphan retry now due: false if none. */
	bool next_work_locked(Job *j);
	int run_one(const Job &j);
	/* @j is no longer under way: its peer may send the next request.
	 * Before the answer goes out (the peer's next request may come at
	 * once on the same line), and at the latest in done(). */
	void settled(const Job &j);
	void done(const Job &j, int status);
	int run_create(const Job &j);
	int do_create(const Job &j, ReplyMsg *rep);
	int run_destroy(const Job &j);
	void run_reclaim(const Job &j);
	void reclaim_on(struct dvshare_dev *d, const Job &j, bool retry);

	/* A leaf: nothing else is locked under it (unblocked() runs under the
	 * library's lock, on the interrupt thread). */
	std::mutex mu_;
	std::condition_variable work_cv_;
	std::deque<Job> work_;
	std::set<PeerId> busy_; /* peers with a destroy or reclaim running */
	std::map<PeerId, size_t> per_peer_;
	/* Peers with a create done: only they can own anything to reclaim
	 * (one whose create is still running checks for itself). */
	std::set<PeerId> creators_;
	std::map<OrphanKey, Orphans> orphans_;
	bool started_ = false;
};

/* The primary's answer to a request, on its line, without blocking: 0,
 * or -errno (-EPIPE: the caller gave up or is gone). */
int answer(const Fd &reply, const ReplyMsg &rep);
/* The same for an answer that is only a status: request @seq (0: the
 * line itself) refused with @status. */
int answer_status(const Fd &reply, uint32_t seq, int status);

} // namespace dvs

#endif
