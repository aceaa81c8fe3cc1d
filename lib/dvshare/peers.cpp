/* SPDX-License-Identifier: BSD-3-Clause */
#include "peers.h"

#include <algorithm>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

#include <fcntl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_alarm.h>

#include "channel.h"
#include "dvs_log.h"
#include "ipc.h"
#include "ipc_proto.h"
#include "library.h"
#include "log_budget.h"
#include "peer_requests.h"
#include "request_lines.h"

namespace dvs {

namespace {

uint64_t new_token()
{
	uint64_t t = 0;

	while (t == 0)
		if (getrandom(&t, sizeof(t), 0) != sizeof(t))
			t = 0;
	return t;
}

void welcome(int fd, int status, uint64_t token)
{
	struct rte_mp_msg m;
	WelcomeMsg w{};

	w.hdr = mp_hdr();
	w.status = status;
	w.token = token;
	mp_pack(&m, kActWelcome, w);
	/* Its first message, on an empty queue: never waits. */
	(void)channel_send(fd, m);
}

/* The EAL runtime file every process of this prefix maps (DPDK's shared
 * config): a process that maps it is a DPDK process of this prefix. */
int dpdk_process_of_prefix(pid_t pid)
{
	return pid_maps_file(pid, std::string(rte_eal_get_runtime_dir()) + "/config");
}

} // namespace

/* Never destroyed: the library's exit-time code (Library::at_exit(), run
 * after every other dvshare static is gone) still says goodbye through it,
 * and DPDK's interrupt thread may still call in. */
Peers &Peers::get()
{
	static Peers *p = new Peers;
	return *p;
}

std::string pid_list(const std::set<pid_t> &pids)
{
	std::string s;

	for (pid_t p : pids)
		s += (s.empty() ? "" : " ") + std::to_string(p);
	return s;
}

int Peers::listen()
{
	std::lock_guard<std::mutex> lock(mu_);
	Fd fd;
	int err = 0;

	if (listener_ != nullptr)
		return 0;
	int rc = RequestLines::get().prepare();
	if (rc != 0) {
		DVS_LOG(ERR, "no epoll set for secondaries' request lines: %s", strerror(-rc));
		return rc;
	}
	rc = channel_listen(&fd);
	if (rc != 0) {
		DVS_LOG(ERR, "cannot listen on %s: %s", channel_path().c_str(), strerror(-rc));
		return rc;
	}
	/* The callback may run before start() returns (anyone may connect
	 * once the socket is bound): it gets the fd, not listener_. */
	int lfd = fd.get();
	listener_ = FdWatch::start(std::move(fd), [this, lfd] { return on_listen(lfd); }, &err);
	if (listener_ == nullptr) {
		DVS_LOG(ERR, "cannot watch %s: %s", channel_path().c_str(), strerror(-err));
		unlink(channel_path().c_str());
		return err;
	}
	return 0;
}

/* On the interrupt thread: a secondary connected to @lfd. */
bool Peers::on_listen(int lfd)
{
	for (;;) {
		Fd fd;
		pid_t pid = 0;
		uid_t uid = 0;
		int rc = channel_accept(lfd, &fd, &pid, &uid);
		if (rc == -EMFILE) {
			/* Out of fds: that connection was refused with the fd
			 * kept in reserve (channel.cpp). Connections that said
			 * no hello in time go now, so that the next one fits. */
			{
				std::lock_guard<std::mutex> lock(mu_);
				make_room_locked();
				sweep_locked();
			}
			Library::get().refused("channel", "no fd left for a new connection "
					       "(RLIMIT_NOFILE): connections without a hello in time closed", 0);
			return true;
		}
		if (rc <= 0)
			return true; /* nothing more now (an error is the next one's) */
		std::lock_guard<std::mutex> lock(mu_);
		sweep_locked();
		make_room_locked();
		auto c = std::make_shared<Conn>();
		c->pid = pid;
		c->uid = uid;
		c->since = std::chrono::steady_clock::now();
		Fd reader(fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
		c->fd = std::move(fd);
		int err = 0;
		/* Its callback cannot run before this one returns (one interrupt
		 * thread), so c->chan is set by then. */
		if (reader.valid())
			c->chan = FdWatch::start(std::move(reader), [this, raw = c.get()] {
				return on_channel(raw);
			}, &err);
		if (c->chan == nullptr) {
			/* Out of fds, most likely (a peer holding many
			 * connections): refused and counted, its lines under
			 * the log budget of that pid. */
			int e = err != 0 ? -err : errno;
			Library::get().refused("channel", "cannot watch the channel of pid " +
					       std::to_string(pid) + ": " + strerror(e) +
					       (e == EMFILE ? " (RLIMIT_NOFILE)" : ""), pid);
			continue;
		}
		conns_.push_back(std::move(c));
	}
}

bool Peers::on_channel(Conn *c)
{
	if (read_channel(c))
		return true;
	std::lock_guard<std::mutex> lock(mu_);
	close_locked(c);
	return false;
}

/* Connections that said no hello in time, and the oldest ones past the
 * limit, are closed: nobody holds the primary's door open for good. */
void Peers::make_room_locked()
{
	auto deadline = std::chrono::steady_clock::now() - std::chrono::milliseconds(kHelloWithinMs);
	std::vector<Conn *> pending;

	for (const auto &c : conns_)
		if (!c->verified && !c->closed)
			pending.push_back(c.get());
	std::sort(pending.begin(), pending.end(),
		  [](const Conn *a, const Conn *b) { return a->since < b->since; });
	for (size_t i = 0; i < pending.size(); i++) {
		if (pending.size() - i < kPendingMax && pending[i]->since > deadline)
			break;
		Library::get().refused("channel", "pid " + std::to_string(pending[i]->pid) +
						  " said no hello in time", pending[i]->pid);
		close_locked(pending[i]);
	}
}

/* A bounded batch per call (@batch): the interrupt thread serves others
 * too, and calls again while more is queued; 0 reads all there is. */
bool Peers::read_channel(Conn *c, int batch)
{
	for (int i = 0; batch == 0 || i < batch; i++) {
		struct rte_mp_msg m;
		std::vector<Fd> fds;
		pid_t sender = 0;
		int rc = channel_recv(c->chan->fd(), &m, &fds, &sender);
		if (rc == 0)
			return true;
		if (rc == -EBADMSG) {
			Library::get().refused("channel message", "malformed, from pid " +
								   std::to_string(c->pid), c->pid);
			continue;
		}
		if (rc < 0)
			return false; /* its end closed (or worse): nothing more from it */
		/* Whoever holds the socket (a child it forked, a process it gave
		 * the fd to), only the connector speaks on it. */
		if (sender != c->pid) {
			Library::get().refused(m.name, "sent by pid " + std::to_string(sender) +
							 " on the channel of pid " +
							 std::to_string(c->pid), c->pid);
			continue;
		}
		if (!handle(c, m, &fds))
			return false;
	}
	return true;
}

/* One message from @c; the fds it carried are closed on return unless a
 * handler took them. False: close the channel. */
bool Peers::handle(Conn *c, const struct rte_mp_msg &m, std::vector<Fd> *fds)
{
	Library &lib = Library::get();
	std::string why;
	std::string from = "from pid " + std::to_string(c->pid);
	bool verified;
	{
		std::lock_guard<std::mutex> lock(mu_);
		verified = c->verified;
	}
	if (!verified) {
		if (strcmp(m.name, kActHello) == 0)
			return hello(c, m, fds);
		lib.refused("channel message", std::string(m.name) + " before hello, " + from, c->pid);
		return false;
	}
	/* Who speaks is the kernel's word: a body naming anyone else is a
	 * forgery, whatever it says. */
	auto as_peer = [&](const MpHdr &h, const char *what) {
		if (h.pid == c->pid)
			return true;
		lib.refused(what, from + " naming pid " + std::to_string(h.pid), c->pid);
		return false;
	};
	if (strcmp(m.name, kActAttach) == 0) {
		AttachReq a;
		if (decode_attach_req(m, &a, &why) != 0)
			lib.refused("attach request", why + ", " + from, c->pid);
		else if (as_peer(a.hdr, "attach request"))
			ipc_on_attach(c->pid, a);
	} else if (strcmp(m.name, kActRevokeAck) == 0) {
		RevokeAck a;
		if (decode_revoke_ack(m, &a, &why) != 0)
			lib.refused("revoke ack", why + ", " + from, c->pid);
		else if (as_peer(a.hdr, "revoke ack"))
			lib.revoke_ack(a.ibdev, c->pid, a.revoke_id, a.slot, a.gen);
	} else if (strcmp(m.name, kActDetach) == 0) {
		DetachMsg d;
		if (decode_detach(m, &d, &why) != 0)
			lib.refused("detach", why + ", " + from, c->pid);
		else if (as_peer(d.hdr, "detach"))
			detached(c->pid, d.ibdev);
	} else if (strcmp(m.name, kActLine) == 0) {
		LineMsg l;
		if (decode_line(m, &l, &why) != 0)
			lib.refused("request line", why + ", " + from, c->pid);
		else if (as_peer(l.hdr, "request line"))
			RequestLines::get().add(PeerId{ c->pid, c->peer_id }, std::move((*fds)[0]));
	} else if (strcmp(m.name, kActBye) == 0) {
		ByeMsg b;
		if (decode_bye(m, &b, &why) != 0) {
			lib.refused("goodbye", why + ", " + from, c->pid);
		} else if (as_peer(b.hdr, "goodbye")) {
			std::lock_guard<std::mutex> lock(mu_);
			c->said_bye = true;
		}
	} else {
		lib.refused("channel message", std::string(m.name) + " is not taken from a peer, " +
							  from, c->pid);
	}
	std::lock_guard<std::mutex> lock(mu_);
	flush_locked(c); /* it reads again: what waited for it may go */
	return true;
}

/* A connection's first message: is it who the kernel says, a live DPDK
 * process of this prefix, not this process, and not a peer already? */
bool Peers::hello(Conn *c, const struct rte_mp_msg &m, std::vector<Fd> *fds)
{
	std::string why;
	HelloMsg h;
	int rc = decode_hello(m, &h, &why);

	if (rc == 0 && h.hdr.pid != c->pid) {
		why = "it names pid " + std::to_string(h.hdr.pid);
		rc = -EPERM;
	} else if (rc == 0 && c->pid == getpid()) {
		why = "it is this primary";
		rc = -EPERM;
	} else if (rc == 0 && (pidfd_pid((*fds)[0].get()) != c->pid ||
			       !pidfd_alive((*fds)[0].get()) ||
			       (fcntl((*fds)[0].get(), F_GETFL) & O_EXCL) != 0)) {
		/* O_EXCL is PIDFD_THREAD: a thread's exit is not the process's. */
		why = "its pidfd is not one of itself";
		rc = -EPERM;
	} else if (rc == 0 && (rc = dpdk_process_of_prefix(c->pid)) != 0) {
		why = "it is not a DPDK process of this prefix (" +
		      std::string(rte_eal_get_runtime_dir()) + "/config " +
		      (rc == -ENOENT ? "not mapped" : strerror(-rc)) + ")";
		rc = -EPERM;
	}
	std::unique_lock<std::mutex> lock(mu_);
	auto old = peers_.find(c->pid);
	Conn *prev = rc == 0 && old != peers_.end() ? old->second : nullptr;
	if (prev != nullptr && !prev->closed) {
		why = "it has a channel already";
		rc = -EBUSY;
	} else if (prev != nullptr && (prev->death == nullptr || !prev->death->alive())) {
		/* Its pid is another process's now, whose hello came before
		 * the earlier one's death was read: once that is, it may. */
		why = "pid reused before the death of its earlier process was handled: try again";
		rc = -EAGAIN;
	} else if (prev != nullptr && !may_reconnect_locked(prev)) {
		why = "it reconnects too often (" + std::to_string(static_cast<int>(kReconnectBurst)) +
		      " at once, then " + std::to_string(static_cast<int>(kReconnectPerSec)) +
		      " a second)";
		rc = -EAGAIN;
	}
	if (rc != 0) {
		welcome(c->fd.get(), rc, 0);
		lock.unlock();
		Library::get().refused("hello", "from pid " + std::to_string(c->pid) + ": " + why,
				       c->pid);
		return false;
	}
	if (prev != nullptr) {
		/* A peer whose channel ended (it gave up waiting for its
		 * welcome) comes back: what it attached stays attached, and
		 * its one death watch moves to the new channel (this hello's
		 * pidfd is closed); the old channel is freed now, not when the
		 * process exits. */
		c->death = std::move(prev->death);
		c->peer_id = prev->peer_id;
		c->reconnects = prev->reconnects;
		c->refilled = prev->refilled;
		c->devices = std::move(prev->devices);
		prev->gone = true;
	} else {
		int err = 0;
		c->peer_id = ++next_peer_id_;
		c->refilled = std::chrono::steady_clock::now();
		c->death = PidWatch::start(std::move((*fds)[0]),
					   [this, pid = c->pid, id = c->peer_id] { gone_of(pid, id); },
					   &err);
		if (c->death == nullptr) {
			welcome(c->fd.get(), err, 0);
			return false;
		}
	}
	c->verified = true;
	c->token = new_token();
	peers_[c->pid] = c;
	welcome(c->fd.get(), 0, c->token);
	sweep_locked();
	return true;
}

bool Peers::may_reconnect_locked(Conn *prev)
{
	auto now = std::chrono::steady_clock::now();
	double sec = std::chrono::duration<double>(now - prev->refilled).count();

	prev->reconnects = std::min(kReconnectBurst, prev->reconnects + sec * kReconnectPerSec);
	prev->refilled = now;
	if (prev->reconnects < 1)
		return false;
	prev->reconnects -= 1;
	return true;
}

void Peers::gone_of(pid_t pid, uint64_t id)
{
	Conn *c = nullptr;
	{
		std::lock_guard<std::mutex> lock(mu_);
		auto it = peers_.find(pid);
		if (it != peers_.end() && it->second->peer_id == id)
			c = it->second;
	}
	if (c != nullptr)
		gone(c);
}

bool Peers::holds(uint64_t token, pid_t pid, uid_t *uid)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto it = peers_.find(pid);

	if (it == peers_.end() || token == 0 || it->second->token != token || it->second->closed)
		return false;
	*uid = it->second->uid;
	return true;
}

int Peers::answer(pid_t pid, uint64_t token, struct rte_mp_msg *m, std::vector<Fd> fds)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto it = peers_.find(pid);

	if (it == peers_.end() || it->second->token != token || it->second->closed)
		return -ESTALE;
	Conn *c = it->second;
	/* One answer per token, the next inside it: a request is answered
	 * once, never by a blocking send, and never lost to a channel that
	 * revokes keep full (it waits behind them: at most one per peer,
	 * since the next request needs the token it carries). */
	uint64_t next = new_token();
	memcpy(m->param + offsetof(AttachRep, token), &next, sizeof(next));
	c->token = next;
	send_locked(c, *m, std::move(fds));
	return 0;
}

void Peers::attached(pid_t pid, const std::vector<std::string> &devs)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto it = peers_.find(pid);

	if (it != peers_.end())
		it->second->devices.insert(devs.begin(), devs.end());
}

/* On the interrupt thread: @pid let go of @dev. */
void Peers::detached(pid_t pid, const std::string &dev)
{
	PeerId who;
	{
		std::lock_guard<std::mutex> lock(mu_);
		auto it = peers_.find(pid);
		if (it == peers_.end() || it->second->devices.erase(dev) == 0)
			return;
		who = PeerId{ pid, it->second->peer_id };
	}
	Library &lib = Library::get();
	lib.peer_gone(dev.c_str(), pid); /* a destroy need not wait for it */
	lib.emit(dev.c_str(), DVSHARE_EVENT_PEER_DETACHED, nullptr, pid, true);
	PeerRequests::get().reclaim(who, dev); /* what it owns there goes too */
}

bool Peers::is_attached(const PeerId &who, const std::string &dev)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto it = peers_.find(who.pid);

	return it != peers_.end() && !it->second->gone && it->second->peer_id == who.id &&
	       it->second->devices.count(dev) != 0;
}

bool Peers::is_peer(const PeerId &who)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto it = peers_.find(who.pid);

	return it != peers_.end() && !it->second->gone && it->second->peer_id == who.id;
}

size_t Peers::backlog(pid_t pid)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto it = peers_.find(pid);

	return it == peers_.end() || it->second->closed ? SIZE_MAX : it->second->outq.size();
}

std::set<pid_t> Peers::attached_to(const std::string &dev)
{
	std::lock_guard<std::mutex> lock(mu_);
	std::set<pid_t> out;

	for (const auto &[pid, c] : peers_)
		if (c->devices.count(dev) != 0)
			out.insert(pid);
	return out;
}

std::vector<PeerInfo> Peers::list()
{
	std::lock_guard<std::mutex> lock(mu_);
	std::vector<PeerInfo> out;

	for (const auto &[pid, c] : peers_)
		out.push_back({ pid, c->uid, { c->devices.begin(), c->devices.end() },
				static_cast<uint32_t>(c->outq.size()) });
	return out;
}

void Peers::broadcast(const struct rte_mp_msg &m, pid_t except)
{
	std::lock_guard<std::mutex> lock(mu_);

	sweep_locked();
	for (const auto &[pid, c] : peers_)
		if (pid != except)
			send_locked(c, m);
}

void Peers::flush()
{
	std::lock_guard<std::mutex> lock(mu_);

	for (const auto &[pid, c] : peers_)
		flush_locked(c);
}

void Peers::say_bye()
{
	struct rte_mp_msg m;
	ByeMsg b{ mp_hdr(), kByeMagic };
	std::lock_guard<std::mutex> lock(mu_);

	mp_pack(&m, kActBye, b);
	/* At exit what was queued no longer matters (the registries say
	 * closed): the goodbye goes first, or not at all. */
	for (const auto &[pid, c] : peers_) {
		c->outq.clear();
		c->resync_owed = false;
		(void)channel_send(c->fd.get(), m);
	}
}

/* A peer that starts reading again gets what waited for it without
 * having to say anything: while a queue holds something, the interrupt
 * thread pushes the queues on every 10 ms. */
void Peers::arm_flush_locked()
{
	if (flush_armed_)
		return;
	if (rte_eal_alarm_set(10 * 1000, on_flush_alarm, this) == 0)
		flush_armed_ = true;
}

void Peers::on_flush_alarm(void *arg)
{
	auto *p = static_cast<Peers *>(arg);
	{
		std::lock_guard<std::mutex> lock(p->mu_);
		p->flush_armed_ = false;
	}
	p->flush();
}

void Peers::revoke_begins(const std::string &dev, uint32_t rid)
{
	std::lock_guard<std::mutex> lock(mu_);

	revokes_.emplace(dev, rid);
}

void Peers::revoke_over(const std::string &dev, uint32_t rid)
{
	std::lock_guard<std::mutex> lock(mu_);

	revokes_.erase({ dev, rid });
	/* A peer that does not read keeps no answerless revoke. */
	for (const auto &[pid, c] : peers_)
		std::erase_if(c->outq, [this](const Out &o) { return stale_locked(o.m); });
}

/* A revoke whose destroy is over: nobody waits for its answer. */
bool Peers::stale_locked(const struct rte_mp_msg &m) const
{
	RevokeMsg r;

	if (strcmp(m.name, kActRevoke) != 0 || m.len_param != static_cast<int>(sizeof(r)))
		return false;
	memcpy(&r, m.param, sizeof(r));
	return revokes_.count({ r.ibdev, r.revoke_id }) == 0;
}

/* @m with @fds in its slots: what goes on the wire. */
static struct rte_mp_msg with_fds(const struct rte_mp_msg &m, const std::vector<Fd> &fds)
{
	struct rte_mp_msg out = m;

	out.num_fds = static_cast<int>(fds.size());
	for (size_t i = 0; i < fds.size(); i++)
		out.fds[i] = fds[i].get();
	return out;
}

void Peers::send_locked(Conn *c, const struct rte_mp_msg &m, std::vector<Fd> fds)
{
	if (c->closed)
		return;
	flush_locked(c);
	if (c->outq.empty() && !c->resync_owed) {
		int rc = channel_send(c->fd.get(), with_fds(m, fds));
		if (rc != -EAGAIN)
			return; /* sent, or it is gone: its pidfd will say */
	}
	/* A revoke is kept whatever the queue holds: a destroy waits for its
	 * answer, and there are no more of them than destroys under way. So
	 * is a reply: its request waits for it, and a peer has at most
	 * PeerRequests::kPerPeer under way; and an attach answer, one per
	 * token. */
	if (c->outq.size() < kQueueMax || strcmp(m.name, kActRevoke) == 0 ||
	    strcmp(m.name, kActReply) == 0 || strcmp(m.name, kActAttach) == 0)
		c->outq.push_back({ m, std::move(fds) });
	else
		c->resync_owed = true;
	arm_flush_locked();
}

void Peers::flush_locked(Conn *c)
{
	while (!c->outq.empty()) {
		if (stale_locked(c->outq.front().m)) {
			c->outq.pop_front();
			continue;
		}
		int rc = channel_send(c->fd.get(), with_fds(c->outq.front().m, c->outq.front().fds));
		if (rc == -EAGAIN) {
			arm_flush_locked();
			return;
		}
		c->outq.pop_front();
	}
	if (!c->resync_owed)
		return;
	struct rte_mp_msg m;
	ResyncMsg r{ mp_hdr() };
	mp_pack(&m, kActResync, r);
	if (channel_send(c->fd.get(), m) != -EAGAIN)
		c->resync_owed = false;
	else
		arm_flush_locked();
}

/* Its channel is done with: what it sent is read, nothing more goes to it.
 * A peer stays one until its pidfd fires. */
void Peers::close_locked(Conn *c)
{
	c->closed = true;
	c->outq.clear();
	c->resync_owed = false;
	/* Its reader (a dup) sees the end now and stops; the fds go as soon
	 * as the interrupt thread lets go of them, not at the next sweep. */
	if (c->fd.valid())
		shutdown(c->fd.get(), SHUT_RDWR);
	c->fd.reset();
}

/* Free what no callback refers to any more: channels closed, and for a
 * peer, gone too. */
void Peers::sweep_locked()
{
	std::erase_if(conns_, [](const std::shared_ptr<Conn> &c) {
		bool done = c->verified ? c->gone : c->closed;
		return done && c->chan->spent() && (c->death == nullptr || c->death->spent());
	});
}

/* On the interrupt thread: @c's pidfd fired. What it held is reclaimed; a
 * goodbye read from its channel (now, or before) makes it an exit. */
void Peers::gone(Conn *c)
{
	if (c->chan->fd() >= 0)
		(void)read_channel(c, 0); /* all of it: the goodbye may be last */
	std::set<std::string> devs;
	bool clean;
	pid_t pid = c->pid;
	{
		std::lock_guard<std::mutex> lock(mu_);
		c->gone = true;
		clean = c->said_bye;
		devs = std::move(c->devices);
		/* Unless a new channel of the same process took its place. */
		auto it = peers_.find(pid);
		if (it != peers_.end() && it->second == c)
			peers_.erase(it);
		close_locked(c);
	}
	if (!devs.empty() && clean)
		DVS_LOG(INFO, "secondary pid %d exited: detached from %zu device(s)", pid,
			devs.size());
	else if (!devs.empty() && LogBudget::get().take(pid))
		DVS_LOG(NOTICE, "secondary pid %d died attached to %zu device(s): reclaimed", pid,
			devs.size());
	else if (!devs.empty())
		DVS_LOG(DEBUG, "secondary pid %d died attached to %zu device(s): reclaimed", pid,
			devs.size());
	LogBudget::get().forget(pid);
	Library &lib = Library::get();
	for (const std::string &d : devs) {
		lib.peer_gone(d.c_str(), pid);
		lib.emit(d.c_str(), clean ? DVSHARE_EVENT_PEER_DETACHED : DVSHARE_EVENT_PEER_DIED,
			 nullptr, pid, true);
	}
	/* After its last requests (read above): they run first. */
	RequestLines::get().drop(PeerId{ pid, c->peer_id });
	PeerRequests::get().reclaim(PeerId{ pid, c->peer_id }, "");
}

} // namespace dvs
