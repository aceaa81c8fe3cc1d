/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The primary's work for its secondaries: a create a secondary asks for,
 * the destroy of an object it owns, and the reclaim of what it owned once
 * it is gone or detached. Never on DPDK's interrupt thread: a destroy
 * waits for acks that thread reads, and a device command may take
 * milliseconds on a NIC. Creates run on one worker thread in arrival
 * order; each destroy and reclaim on a thread of its own, since it may
 * wait up to its timeout for a secondary that does not answer, and must
 * not hold up anyone's create meanwhile. A create checks after it
 * published that its owner is still attached, and destroys the object if
 * not: its owner's reclaim (queued only once the owner is marked gone or
 * detached) either found the object or was too early to, so no object
 * outlives its owner unseen. See doc/protocol.md, "Creates".
 */
#ifndef DVS_PEER_REQUESTS_H
#define DVS_PEER_REQUESTS_H

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <set>
#include <mutex>
#include <string>
#include <vector>

#include <sys/types.h>

#include "ipc_proto.h"

namespace dvs {

class PeerRequests {
public:
	/* Requests of one secondary queued or running at once; past it the
	 * next is answered -EAGAIN at once. */
	static constexpr size_t kPerPeer = 16;
	/* The longest a secondary's destroy may wait for the others. */
	static constexpr unsigned int kDestroyTimeoutMaxMs = 10000;

	static PeerRequests &get();
	/* May @pid be answered? Not while it does not read its channel: its
	 * answers would pile up in the primary (answers are never dropped).
	 * A refusal is counted. Interrupt thread, no Peers lock held. */
	static bool answerable(pid_t pid);

	/* From @pid's channel (the interrupt thread): queue its request. A
	 * create's command (OBJ) is @cmd, copied out of its memfd. */
	void create(pid_t pid, const CreateReq &req, std::vector<uint8_t> cmd);
	void destroy(pid_t pid, const DestroyReq &req);
	/* @pid is gone (@dev empty) or let go of @dev: destroy what it owns
	 * there; what the device keeps becomes the primary's. */
	void reclaim(pid_t pid, const std::string &dev);

private:
	enum class Kind { Create, Destroy, Reclaim };
	struct Job {
		Kind kind;
		pid_t pid;
		CreateReq create;
		DestroyReq destroy;
		std::vector<uint8_t> cmd;
		std::string dev;
	};

	PeerRequests() = default;
	bool admit(pid_t pid, uint32_t seq);
	void push(Job j);
	/* A destroy or reclaim on a thread of its own. */
	void spawn(Job j);
	int run_one(const Job &j);
	void done(const Job &j, int status);
	void run();
	int run_create(const Job &j);
	int do_create(const Job &j, ReplyMsg *rep);
	int run_destroy(const Job &j);
	void run_reclaim(const Job &j);

	std::mutex mu_;
	std::condition_variable cv_;
	std::deque<Job> jobs_;
	std::map<pid_t, size_t> per_peer_;
	/* Peers with a create done: only they can own anything to reclaim
	 * (one whose create is still running checks for itself). */
	std::set<pid_t> creators_;
	bool started_ = false;
};

/* The primary's answer to request @seq of @pid, on its channel. */
void reply_to(pid_t pid, const ReplyMsg &rep);

} // namespace dvs

#endif
