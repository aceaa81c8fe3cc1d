/* SPDX-License-Identifier: BSD-3-Clause */
#include "request_lines.h"

#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <pthread.h>
#include <sys/epoll.h>
#include <sys/stat.h>
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
				lines_[id] = Line{ who, std::make_shared<const Fd>(std::move(line)) };
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
		Line l;
		{
			std::lock_guard<std::mutex> lock(mu_);
			auto it = lines_.find(ev.data.u64);
			if (it == lines_.end())
				continue; /* dropped meanwhile */
			l = it->second;
		}
		if (!serve(l)) {
			remove(ev.data.u64);
			continue;
		}
		/* Fails only once the line was dropped meanwhile. */
		ev.events = kArm;
		(void)epoll_ctl(ep_.get(), EPOLL_CTL_MOD, l.fd->get(), &ev);
	}
}

bool RequestLines::serve(const Line &l)
{
	Library &lib = Library::get();
	/* Built only for a refusal: this is every request's path. */
	auto from = [&] { return "from pid " + std::to_string(l.who.pid); };
	struct rte_mp_msg m;
	std::vector<Fd> fds;
	std::string why;
	int rc = channel_recv(l.fd->get(), &m, &fds);

	if (rc == 0)
		return true;
	if (rc < 0) {
		/* Its end closed (the thread, or the process, let go of it):
		 * not a fault. */
		if (rc != -EPIPE && rc != -ECONNRESET)
			lib.refused("request", "its line: " + std::string(strerror(-rc)) + ", " + from(),
				    l.who.pid);
		return false;
	}
	const bool destroy = strcmp(m.name, kActDestroy) == 0;
	if (!destroy && strcmp(m.name, kActCreate) != 0) {
		lib.refused("request", std::string(m.name) + " is not a request, " + from(),
			    l.who.pid);
		return false;
	}
	const char *what = destroy ? "destroy request" : "create request";
	DestroyReq d;
	CreateReq r;
	if (destroy ? decode_destroy(m, &d, &why) != 0 : decode_create(m, &r, &why) != 0) {
		lib.refused(what, why + ", " + from(), l.who.pid);
		return false;
	}
	/* Who speaks is the kernel's word (the line came on its channel): a
	 * body naming anyone else is a forgery. */
	const MpHdr &hdr = destroy ? d.hdr : r.hdr;
	if (hdr.pid != l.who.pid) {
		lib.refused(what, from() + " naming pid " + std::to_string(hdr.pid), l.who.pid);
		return false;
	}
	if (destroy)
		return PeerRequests::get().destroy(l.who, d, l.fd);
	std::vector<uint8_t> cmd;
	if (r.kind == DVSHARE_TYPE_OBJ && r.inlen <= kCreateInline) {
		cmd.assign(r.cmd, r.cmd + r.inlen);
	} else if (r.kind == DVSHARE_TYPE_OBJ &&
		   read_command(fds[0].get(), r.inlen, &cmd, &why) != 0) {
		/* Answered (the request itself was well formed); refused and
		 * counted. */
		lib.refused(what, why + ", " + from(), l.who.pid);
		(void)answer_status(*l.fd, r.seq, -EINVAL);
		return true;
	}
	return PeerRequests::get().create(l.who, r, std::move(cmd), l.fd);
}

} // namespace dvs
