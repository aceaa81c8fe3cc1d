/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The primary's view of its secondaries. Each connects a channel
 * (channel.h) to the primary's socket: the kernel says which process did
 * (SO_PEERCRED), and its hello proves it with a pidfd of itself, checked
 * to be a DPDK process of this prefix. Only then is it a peer: it gets a
 * token to attach with over rte_mp, its death is watched through the
 * pidfd, whatever it says (revoke acks, detach, goodbye) is taken from its
 * channel alone and under its own pid, and whatever the primary tells it
 * goes there without ever waiting (a bounded queue, then a resync).
 * Everything here runs its callbacks on DPDK's interrupt thread.
 */
#ifndef DVS_PEERS_H
#define DVS_PEERS_H

#include <chrono>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <sys/types.h>

#include <rte_eal.h>

#include "dvs_fd.h"
#include "fd_watch.h"
#include "peer_id.h"
#include "pidfd.h"

namespace dvs {

/* "12 345 6789", for logs. */
std::string pid_list(const std::set<pid_t> &pids);

struct PeerInfo {
	pid_t pid;
	uid_t uid;
	std::vector<std::string> devices;
	uint32_t queued; /* messages waiting for it to read */
};

class Peers {
public:
	/* Messages queued for one peer whose channel is full; past it they
	 * are dropped and the peer is told to resync from the registries. */
	static constexpr size_t kQueueMax = 256;
	/* Connections that have not said hello yet: past this many, or this
	 * old, the oldest are closed to make room. */
	static constexpr size_t kPendingMax = 64;
	static constexpr int kHelloWithinMs = 2000;
	/* A process whose channel ended may say hello again (a secondary
	 * that gave up waiting for its welcome): this many at once, then one
	 * a second. Past that its hellos are refused (-EAGAIN). */
	static constexpr double kReconnectBurst = 8;
	static constexpr double kReconnectPerSec = 1;

	static Peers &get();

	/* Listen for secondaries' channels (idempotent): 0 or -errno. */
	int listen();
	/* An attach over rte_mp presenting @token as @pid: true, with the
	 * peer's uid, if @pid is a peer and holds @token. */
	bool holds(uint64_t token, pid_t pid, uid_t *uid);
	/* The answer @m (an AttachRep, carrying @fds) to that request, sent
	 * on @pid's channel without waiting, behind what waits there already
	 * (queued while its channel is full), with the token for its next
	 * request written in; @token is spent by it. 0, or -ESTALE (@token is
	 * no longer the one it holds). */
	int answer(pid_t pid, uint64_t token, struct rte_mp_msg *m, std::vector<Fd> fds);
	/* @pid attached @devs: from now on destroys wait for it. */
	void attached(pid_t pid, const std::vector<std::string> &devs);
	/* Secondaries attached to @dev now. */
	std::set<pid_t> attached_to(const std::string &dev);
	/* Is @who a live peer attached to @dev? */
	bool is_attached(const PeerId &who, const std::string &dev);
	/* Is @who a live peer (attached to anything or not)? */
	bool is_peer(const PeerId &who);
	/* Messages waiting for @pid to read (SIZE_MAX: not a peer). */
	size_t backlog(pid_t pid);
	std::vector<PeerInfo> list();
	/* Tell every peer but @except @m (no fds), never waiting. Events
	 * past a full queue are dropped (the peer resyncs); revokes never
	 * are, but one whose destroy has ended (revoke_over) is dropped
	 * unsent. */
	void broadcast(const struct rte_mp_msg &m, pid_t except = 0);
	/* A revoke @rid of @dev is going out; it has ended. */
	void revoke_begins(const std::string &dev, uint32_t rid);
	void revoke_over(const std::string &dev, uint32_t rid);
	/* Send what is queued, as far as the channels take it. */
	void flush();
	/* This primary exits normally: tell every secondary. */
	void say_bye();

private:
	/* A message waiting for its peer to read, with the fds it carries
	 * (an attach answer's), kept open until it is sent. */
	struct Out {
		struct rte_mp_msg m;
		std::vector<Fd> fds;
	};
	struct Conn {
		pid_t pid = 0; /* the kernel's word (SO_PEERCRED) */
		uid_t uid = 0;
		std::chrono::steady_clock::time_point since; /* accepted */
		Fd fd;         /* where messages to it go */
		bool verified = false;
		bool closed = false; /* refused, or its channel ended */
		bool gone = false;   /* its pidfd fired */
		bool said_bye = false;
		uint64_t token = 0;
		std::set<std::string> devices;
		std::deque<Out> outq;
		bool resync_owed = false;
		std::unique_ptr<FdWatch> chan; /* reads a dup of fd */
		/* One per process: a reconnect hands it to the new channel. */
		std::unique_ptr<PidWatch> death;
		uint64_t peer_id = 0; /* the process's, kept across reconnects */
		double reconnects = kReconnectBurst; /* left, refilled over time */
		std::chrono::steady_clock::time_point refilled;
	};

	Peers() = default;
	bool on_listen(int lfd);
	bool on_channel(Conn *c);
	/* Read what @c sent: false once the channel is to be closed. */
	bool read_channel(Conn *c, int batch = 64);
	bool handle(Conn *c, const struct rte_mp_msg &m, std::vector<Fd> *fds);
	bool hello(Conn *c, const struct rte_mp_msg &m, std::vector<Fd> *fds);
	void detached(pid_t pid, const std::string &dev);
	void gone(Conn *c);
	/* The death watch of peer @id (pid @pid) fired. */
	void gone_of(pid_t pid, uint64_t id);
	/* May @prev's process say hello again now? Takes one reconnect. */
	bool may_reconnect_locked(Conn *prev);
	void close_locked(Conn *c);
	void send_locked(Conn *c, const struct rte_mp_msg &m, std::vector<Fd> fds = {});
	void flush_locked(Conn *c);
	bool stale_locked(const struct rte_mp_msg &m) const;
	void sweep_locked();
	void make_room_locked();
	void arm_flush_locked();
	static void on_flush_alarm(void *arg);

	std::mutex mu_;
	std::unique_ptr<FdWatch> listener_;
	std::vector<std::shared_ptr<Conn>> conns_;
	std::map<pid_t, Conn *> peers_; /* verified, not gone */
	std::set<std::pair<std::string, uint32_t>> revokes_; /* under way */
	bool flush_armed_ = false; /* an alarm will push the queues on */
	uint64_t next_peer_id_ = 0;
};

} // namespace dvs

#endif
