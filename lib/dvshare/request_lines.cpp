/* SPDX-License-Identifier: BSD-3-Clause */
#include "request_lines.h"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "channel.h"
#include "dvs_log.h"
#include "ipc_proto.h"
#include "library.h"
#include "peer_requests.h"

namespace dvs {

namespace {

/* Threads reading lines: a create that blocks (a NIC's firmware command)
 * holds one, and the other goes on serving the other lines. */
constexpr unsigned int kThreads = 2;
/* A line is watched once (EPOLLONESHOT): served by one thread at a time,
 * then armed again, at the end of the ready list. */
constexpr uint32_t kArm = EPOLLIN | EPOLLONESHOT;
/* After a request, one thread (never both) stays on its line for the
 * next one, in a recvmsg() that the line's SO_RCVTIMEO ends: woken by
 * epoll_wait(), a thread makes a second system call to read what came
 * (about 2.5 us of a secondary's 35 to 45 us create here); woken in
 * recvmsg(), it has it. A secondary's creates come in bursts (its start,
 * a queue's set-up). Bounded both ways, so that the line cannot keep the
 * thread from the others: idle kLingerUs, at most kLingerMax requests. */
constexpr long kLingerUs = 1000;
constexpr unsigned int kLingerMax = 64;
/* The sender may keep a dup of the primary's end and lift its timeout:
 * a thread waiting on a line this long is taken back by the other one
 * (at its next wake-up), and the line is closed. Far above any timer's
 * lateness, so that a line that keeps the rule is never taken for one
 * that broke it. */
constexpr std::chrono::seconds kLingerStuck{ 2 };

int64_t now_ns()
{
	return std::chrono::duration_cast<std::chrono::nanoseconds>(
		       std::chrono::steady_clock::now().time_since_epoch())
		.count();
}

/* Has a wait that started at @since (0: none) lasted past kLingerStuck? */
bool stuck(int64_t since)
{
	return since != 0 && now_ns() - since >= std::chrono::nanoseconds(kLingerStuck).count();
}

/* A create's command from the fd beside the request: it must be memory
 * (a memfd or other shmem file: F_GET_SEALS works only there), so reading
 * it can neither block this thread nor fault, and exactly @len bytes. It
 * is copied once; what the sender does to the file afterwards changes
 * nothing. */
int read_command(int fd, uint32_t len, std::vector<uint8_t> *out, std::string *why)
{
	struct stat st;

	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || fcntl(fd, F_GET_SEALS) < 0) {
		*why = "the command's fd is not a memfd";
		return -EINVAL;
	}
	if (st.st_size != static_cast<off_t>(len)) {
		*why = "the command's memfd holds " + std::to_string(st.st_size) +
		       " bytes, the request says " + std::to_string(len);
		return -EINVAL;
	}
	out->resize(len);
	if (pread(fd, out->data(), len, 0) != static_cast<ssize_t>(len)) {
		*why = "the command's memfd could not be read";
		return -EINVAL;
	}
	return 0;
}

} // namespace

/* Never destroyed: its thread may run while the process exits. */
RequestLines &RequestLines::get()
{
	static RequestLines *l = new RequestLines;
	return *l;
}

int RequestLines::prepare()
{
	int rc;
	{
		std::lock_guard<std::mutex> lock(mu_);
		rc = start_locked();
	}
	/* The destroy pool too: the primary's threads are all there once it
	 * listens, whatever its secondaries ask. */
	if (rc == 0)
		PeerRequests::get().start();
	return rc;
}

int RequestLines::prepare_locked()
{
	if (!ep_.valid())
		ep_ = Fd(epoll_create1(EPOLL_CLOEXEC));
	return ep_.valid() ? 0 : -errno;
}

int RequestLines::start_locked()
{
	if (started_)
		return 0;
	if (int rc = prepare_locked(); rc != 0)
		return rc;
	for (unsigned int i = running_; i < kThreads; i++, running_++) {
		try {
			std::thread t([this] { run(); });
			pthread_setname_np(t.native_handle(), "dvshare-req");
			t.detach();
		} catch (const std::system_error &e) {
			if (running_ > 0)
				break; /* one serves: tried again at the next line */
			return -(e.code().value() != 0 ? e.code().value() : EAGAIN);
		}
	}
	started_ = running_ == kThreads;
	return 0;
}

void RequestLines::add(const PeerId &who, Fd line)
{
	Library &lib = Library::get();
	const std::string from = "from pid " + std::to_string(who.pid);
	std::string why;

	/* Not answered: a refusal would go where the sender points it. */
	if (channel_line_check(line.get(), who.pid, &why) != 0) {
		lib.refused("request line", why + ", " + from, who.pid);
		return;
	}
	int rc;
	{
		std::lock_guard<std::mutex> lock(mu_);
		if (per_peer_[who] >= kLinesPerPeer) {
			rc = -EMFILE;
			why = "it has " + std::to_string(kLinesPerPeer) + " already";
		} else if ((rc = start_locked()) != 0) {
			why = std::string("no thread to read it: ") + strerror(-rc);
		} else {
			uint64_t id = ++next_id_;
			struct epoll_event ev = {};
			ev.events = kArm;
			ev.data.u64 = id;
			if (epoll_ctl(ep_.get(), EPOLL_CTL_ADD, line.get(), &ev) != 0) {
				rc = -errno;
				why = std::string("cannot watch it: ") + strerror(errno);
			} else {
				/* Without its timeout a line is never waited on. */
				struct timeval tv = { 0, kLingerUs };
				bool linger = setsockopt(line.get(), SOL_SOCKET, SO_RCVTIMEO, &tv,
							 sizeof(tv)) == 0;
				lines_[id] = Line{ who, std::make_shared<const Fd>(std::move(line)), linger };
				per_peer_[who]++;
				return;
			}
		}
		if (per_peer_[who] == 0)
			per_peer_.erase(who);
	}
	lib.refused("request line", why + ", " + from, who.pid);
	(void)answer_status(line, 0, rc);
}

void RequestLines::drop(const PeerId &who)
{
	std::lock_guard<std::mutex> lock(mu_);

	for (auto it = lines_.begin(); it != lines_.end();) {
		if (it->second.who != who) {
			++it;
			continue;
		}
		(void)epoll_ctl(ep_.get(), EPOLL_CTL_DEL, it->second.fd->get(), nullptr);
		it = lines_.erase(it);
	}
	per_peer_.erase(who);
}

void RequestLines::remove(uint64_t id)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto it = lines_.find(id);

	if (it == lines_.end())
		return; /* dropped meanwhile */
	(void)epoll_ctl(ep_.get(), EPOLL_CTL_DEL, it->second.fd->get(), nullptr);
	if (--per_peer_[it->second.who] == 0)
		per_peer_.erase(it->second.who);
	lines_.erase(it);
}

void RequestLines::run()
{
	for (;;) {
		struct epoll_event ev;
		int n = epoll_wait(ep_.get(), &ev, 1, -1);
		if (n < 0) {
			if (errno != EINTR)
				DVS_LOG(ERR, "request lines: epoll_wait: %s", strerror(errno));
			continue;
		}
		if (n == 0)
			continue;
		take_back();
		Line l;
		if (!find(ev.data.u64, &l))
			continue; /* dropped meanwhile */
		Served r = serve(l, 0);
		if (r == Served::Done && l.linger)
			r = linger(ev.data.u64, l);
		if (r == Served::Closed) {
			remove(ev.data.u64);
			continue;
		}
		/* Fails only once the line was dropped meanwhile. */
		ev.events = kArm;
		(void)epoll_ctl(ep_.get(), EPOLL_CTL_MOD, l.fd->get(), &ev);
	}
}

bool RequestLines::find(uint64_t id, Line *l)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto it = lines_.find(id);

	if (it == lines_.end())
		return false;
	if (l != nullptr)
		*l = it->second;
	return true;
}

/* Serve what @l sends next while it keeps sending; the line is not armed
 * meanwhile (EPOLLONESHOT), so no other thread reads it. */
RequestLines::Served RequestLines::linger(uint64_t id, const Line &l)
{
	if (lingering_.exchange(true, std::memory_order_acquire))
		return Served::Done; /* the other thread is on a line */
	{
		std::lock_guard<std::mutex> lock(mu_);
		lingered_ = l;
	}
	Served r = Served::Done;
	for (unsigned int k = 0; k < kLingerMax && r == Served::Done; k++)
		r = serve(l, id);
	{
		std::lock_guard<std::mutex> lock(mu_);
		lingered_ = Line{};
	}
	lingering_.store(false, std::memory_order_release);
	return r == Served::Idle ? Served::Done : r;
}

/* The thread on a line that kept it past kLingerStuck gets it back: the
 * line is shut for reading (its wait ends, it is closed, counted). */
void RequestLines::take_back()
{
	if (!stuck(wait_since_.load(std::memory_order_relaxed)))
		return;
	PeerId who;
	{
		std::lock_guard<std::mutex> lock(mu_);
		/* Again under the lock: the wait may have ended meanwhile. */
		if (lingered_.fd == nullptr || !stuck(wait_since_.load(std::memory_order_relaxed)))
			return;
		(void)shutdown(lingered_.fd->get(), SHUT_RD);
		who = lingered_.who;
	}
	Library::get().refused("request line",
			       "its read timeout was lifted (a thread waited on it " +
				       std::to_string(kLingerStuck.count()) + " s): closed, from pid " +
				       std::to_string(who.pid),
			       who.pid);
}

RequestLines::Served RequestLines::serve(const Line &l, uint64_t waited)
{
	Library &lib = Library::get();
	/* Built only for a refusal: this is every request's path. */
	auto from = [&] { return "from pid " + std::to_string(l.who.pid); };
	struct rte_mp_msg m;
	std::vector<Fd> fds;
	std::string why;
	int rc;
	if (waited != 0) {
		wait_since_.store(now_ns(), std::memory_order_relaxed);
		rc = channel_recv_blocking(l.fd->get(), &m, &fds);
		wait_since_.store(0, std::memory_order_relaxed);
	} else {
		rc = channel_recv(l.fd->get(), &m, &fds);
	}

	if (rc == 0 || rc == -EINTR)
		return waited != 0 ? Served::Idle : Served::Done;
	/* Dropped while this thread waited on it (its sender died with the
	 * line handed to another process): what came is not acted on. */
	if (waited != 0 && !find(waited, nullptr))
		return Served::Closed;
	if (rc < 0) {
		/* Its end closed (the thread, or the process, let go of it):
		 * not a fault. */
		if (rc != -EPIPE && rc != -ECONNRESET)
			lib.refused("request", "its line: " + std::string(strerror(-rc)) + ", " + from(),
				    l.who.pid);
		return Served::Closed;
	}
	const bool destroy = strcmp(m.name, kActDestroy) == 0;
	if (!destroy && strcmp(m.name, kActCreate) != 0) {
		lib.refused("request", std::string(m.name) + " is not a request, " + from(),
			    l.who.pid);
		return Served::Closed;
	}
	const char *what = destroy ? "destroy request" : "create request";
	DestroyReq d;
	CreateReq r;
	if (destroy ? decode_destroy(m, &d, &why) != 0 : decode_create(m, &r, &why) != 0) {
		lib.refused(what, why + ", " + from(), l.who.pid);
		return Served::Closed;
	}
	/* Who speaks is the kernel's word (the line came on its channel): a
	 * body naming anyone else is a forgery. */
	const MpHdr &hdr = destroy ? d.hdr : r.hdr;
	if (hdr.pid != l.who.pid) {
		lib.refused(what, from() + " naming pid " + std::to_string(hdr.pid), l.who.pid);
		return Served::Closed;
	}
	if (destroy)
		return PeerRequests::get().destroy(l.who, d, l.fd) ? Served::Done : Served::Closed;
	std::vector<uint8_t> cmd;
	if (r.kind == DVSHARE_TYPE_OBJ && r.inlen <= kCreateInline) {
		cmd.assign(r.cmd, r.cmd + r.inlen);
	} else if (r.kind == DVSHARE_TYPE_OBJ &&
		   read_command(fds[0].get(), r.inlen, &cmd, &why) != 0) {
		/* Answered (the request itself was well formed); refused and
		 * counted. */
		lib.refused(what, why + ", " + from(), l.who.pid);
		(void)answer_status(*l.fd, r.seq, -EINVAL);
		return Served::Done;
	}
	return PeerRequests::get().create(l.who, r, std::move(cmd), l.fd) ? Served::Done
									    : Served::Closed;
}

} // namespace dvs
