/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secondary side of the IPC: connect this process's channel to the
 * primary and attach during rte_eal_init() (libc heap and clock_gettime
 * only: DPDK memory does not exist yet), then hear the primary on that
 * channel (events, revokes, its goodbye) and answer there.
 */
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <unistd.h>

#include <rte_eal.h>

#include "channel.h"
#include "dvs_fd.h"
#include "dvs_log.h"
#include "fault.h"
#include "fd_watch.h"
#include "ipc.h"
#include "ipc_proto.h"
#include "library.h"
#include "pidfd.h"

namespace dvs {

namespace {

constexpr int kAttachTimeoutSec = 5;

/* The primary of this prefix, as the kernel knows it: the process that
 * holds the write lock EAL's primary takes on the config file. 0 if none. */
pid_t primary_by_lock()
{
	return config_lock_holder(std::string(rte_eal_get_runtime_dir()) + "/config");
}

/* Does the live primary advertise dvshare? The advertisement names it;
 * the kernel must agree (a file of the runtime directory proves nothing). */
bool primary_uses_dvshare(pid_t *pid)
{
	std::string path = std::string(rte_eal_get_runtime_dir()) + "/dvshare_primary";
	FILE *f = fopen(path.c_str(), "re");
	long v = 0;

	if (f == nullptr)
		return false;
	bool ok = fscanf(f, "%ld", &v) == 1 && v > 0;
	fclose(f);
	if (!ok)
		return false;
	*pid = static_cast<pid_t>(v);
	pid_t holder = primary_by_lock();
	if (holder != *pid) {
		if (holder != 0)
			DVS_LOG(ERR, "%s names pid %d, but the primary of this prefix is pid %d: not "
				     "attaching", path.c_str(), *pid, holder);
		return false;
	}
	return true;
}

/* The ibdev a registry fd describes, read without mapping it. */
std::string registry_ibdev(int fd)
{
	RegHeader h;

	if (pread(fd, &h, sizeof(h), 0) != static_cast<ssize_t>(sizeof(h)) ||
	    memcmp(h.magic, kRegMagic, sizeof(kRegMagic)) != 0 ||
	    memchr(h.ibdev, '\0', sizeof(h.ibdev)) == nullptr)
		return "";
	return h.ibdev;
}

/* Attach one device unless already attached: 1 new, 0 known, or -errno. */
int attach_one(Fd cmd_fd, Fd reg_fd, const AttachPolicy &policy)
{
	Library &lib = Library::get();
	std::string name = registry_ibdev(reg_fd.get());
	{
		std::lock_guard<std::mutex> lock(lib.mu);
		if (!name.empty() && lib.find(name.c_str()) != nullptr)
			return 0;
	}
	std::unique_ptr<dvshare_dev> dev;
	std::string why;
	int rc = dvshare_dev::attach(std::move(cmd_fd), std::move(reg_fd), policy, &dev, &why);
	if (rc != 0) {
		DVS_LOG(ERR, "cannot attach %s: %s", name.empty() ? "device" : name.c_str(),
			why.c_str());
		return rc;
	}
	DVS_LOG(INFO, "attached %s: %u object(s) imported (%s attach)", dev->name().c_str(),
		dev->attached_objects(), attach_mode_name(policy.mode));
	std::shared_ptr<dvshare_dev> d = Library::share(std::move(dev));
	{
		std::lock_guard<std::mutex> lock(lib.mu);
		lib.add(d);
	}
	/* A revoke that came while we imported found no device to act on:
	 * drop whatever the registry no longer has. */
	d->revalidate();
	return 1;
}

/* The link with the primary. Leaked on purpose: it must outlive EAL
 * cleanup (the goodbye goes out from the library's exit-time code), and
 * the watches are never freed from inside their own callbacks. */
/* An attach answer, read from the channel by the interrupt thread for
 * the walk that waits for it. */
struct Answer {
	AttachRep rep;
	std::vector<Fd> fds;
};

struct Link {
	std::mutex mu;             /* one connect or attach walk at a time */
	std::mutex box_mu;         /* the answer box */
	std::condition_variable box_cv;
	std::unique_ptr<Answer> box;
	uint32_t seq = 0;          /* of the last request */
	std::atomic<int> chan{-1}; /* this process's channel, for sending */
	FdWatch *chan_watch = nullptr; /* reads a dup of it */
	PidWatch *primary_watch = nullptr;
	pid_t primary = 0;         /* the kernel's word (SO_PEERCRED) */
	uint64_t token = 0;        /* for the next attach request */
	std::atomic<bool> said_bye{false};
	/* A primary that runs another dvshare release: refused once, said
	 * once; asking it again would only say it again. */
	pid_t refused_by = 0;
	int refused_rc = 0;
};
Link &link()
{
	static Link *l = new Link;
	return *l;
}

/* The primary closed @d (dvshare_dev_close() or a normal exit): tell the
 * application once. */
void note_closed(dvshare_dev *d, pid_t pid)
{
	if (!d->note_closed())
		return;
	DVS_LOG(NOTICE, "%s: closed by the primary (pid %d): its objects are destroyed, "
		"handles still held revoked", d->name().c_str(), pid);
	Library::get().emit(d, DVSHARE_EVENT_CLOSED, nullptr, pid);
}

std::vector<std::shared_ptr<dvshare_dev>> devices_now()
{
	Library &lib = Library::get();
	std::lock_guard<std::mutex> lock(lib.mu);

	return lib.devices;
}

bool read_channel(int fd);

/* With its primary gone, this process holds the lock a primary of the
 * prefix holds on its EAL config (a read lock: every orphan can hold it),
 * until it exits. EAL refuses a new primary while it is held, before that
 * primary re-makes the shared config under the orphans (which DPDK does
 * not survive: 22.11 dies of SIGFPE in their rte_eal_cleanup()). */
void keep_primaries_out(pid_t pid)
{
	std::string path = std::string(rte_eal_get_runtime_dir()) + "/config";
	int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
	struct flock lk = {};

	lk.l_type = F_RDLCK;
	lk.l_whence = SEEK_SET; /* from 0, to the end and beyond: the whole file */
	if (fd < 0 || fcntl(fd, F_SETLK, &lk) != 0) {
		DVS_LOG(WARNING, "cannot hold %s: a new primary could start beside this orphaned "
				 "process: %s", path.c_str(), strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	/* Never closed: closing any fd of the file would drop the lock. */
	DVS_LOG(INFO, "holding %s while this process runs without its primary (pid %d): a "
			"new primary of this prefix cannot start until it exits", path.c_str(), pid);
}

void on_primary_gone(pid_t pid)
{
	Library &lib = Library::get();

	/* What it said last (a goodbye, a close) is still in the channel. */
	if (link().chan_watch != nullptr && link().chan_watch->fd() >= 0)
		(void)read_channel(link().chan_watch->fd());
	bool clean = link().said_bye.load();
	ipc_requests_fail(-ENOTCONN);
	keep_primaries_out(pid);
	if (clean)
		lib.set_primary_exited(pid);
	else
		lib.set_orphaned(pid);
	/* A device the primary closed before it left was told already (its
	 * objects are gone): the exit itself is news only for the others. */
	bool all_closed = true;
	for (const auto &d : devices_now())
		all_closed &= d->closed_by_primary();
	if (clean && all_closed)
		DVS_LOG(INFO, "the primary (pid %d) exited, its devices closed", pid);
	else if (clean)
		DVS_LOG(NOTICE, "the primary (pid %d) exited: imported objects keep working, "
				"no new lookups", pid);
	else
		DVS_LOG(WARNING, "the primary (pid %d) died: imported objects keep working, "
				 "no new lookups", pid);
	for (const auto &d : devices_now()) {
		if (clean)
			note_closed(d.get(), pid);
		else
			lib.emit(d.get(), DVSHARE_EVENT_PRIMARY_DIED, nullptr, pid);
	}
}

void watch_primary(Fd pidfd)
{
	if (link().primary_watch != nullptr)
		return; /* one primary per process */
	pid_t pid = pidfd_pid(pidfd.get());
	int err = 0;
	link().primary_watch =
		PidWatch::start(std::move(pidfd), [pid] { on_primary_gone(pid); }, &err).release();
}

/* Connect this process's channel and say hello, unless it is there: 0,
 * or -errno (the primary's refusal, or why it could not be asked). */
int connect_channel(pid_t primary)
{
	Link &l = link();

	if (l.refused_by != 0 && l.refused_by == primary)
		return l.refused_rc;
	if (l.chan >= 0) {
		if (l.chan_watch == nullptr || !l.chan_watch->spent())
			return 0;
		/* It ended (the primary closed it): a new one. */
		close(l.chan.exchange(-1));
		delete l.chan_watch;
		l.chan_watch = nullptr;
	}
	Fd fd;
	int rc = channel_connect(&fd);
	if (rc != 0) {
		DVS_LOG(ERR, "cannot connect to the primary at %s: %s", channel_path().c_str(),
			strerror(-rc));
		return rc;
	}
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0 ||
	    cred.pid != primary) {
		DVS_LOG(ERR, "%s is not the primary's (pid %d): refusing to speak to it",
			channel_path().c_str(), primary);
		return -EPERM;
	}
	Fd self(pidfd_self());
	if (!self.valid()) {
		DVS_LOG(ERR, "cannot open a pidfd of this process: %s", strerror(-self.get()));
		return -EMFILE;
	}
	struct rte_mp_msg m;
	HelloMsg h{ mp_hdr() };
	mp_pack(&m, kActHello, h);
	m.num_fds = 1;
	m.fds[0] = self.get();
	rc = channel_send_wait(fd.get(), m, kAttachTimeoutSec * 1000);
	std::vector<Fd> fds;
	if (rc == 0)
		rc = channel_recv_wait(fd.get(), &m, &fds, kAttachTimeoutSec * 1000);
	if (rc < 0) {
		DVS_LOG(ERR, "no answer from the primary on %s: %s", channel_path().c_str(),
			strerror(-rc));
		return rc == -EPIPE ? -ECONNRESET : rc;
	}
	WelcomeMsg w;
	std::string why;
	rc = strcmp(m.name, kActWelcome) == 0 ? decode_welcome(m, &w, &why) : -EBADMSG;
	if (rc == -EPROTO && m.len_param >= static_cast<int>(sizeof(MpHdr))) {
		MpHdr theirs;
		memcpy(&theirs, m.param, sizeof(theirs));
		std::string v = version_str(theirs.lib_version);
		DVS_LOG(ERR, "the primary (pid %d) runs dvshare %s, this process dvshare %s (%s): "
			"rebuild this process against the primary's dvshare %s", (int)cred.pid,
			v.c_str(), version_str(kLibVersion).c_str(), why.c_str(), v.c_str());
		l.refused_by = cred.pid;
		l.refused_rc = rc;
		return rc;
	}
	if (rc != 0) {
		DVS_LOG(ERR, "the primary's answer refused: %s", why.empty() ? m.name : why.c_str());
		return rc;
	}
	if (w.status != 0) {
		DVS_LOG(ERR, "the primary refused this process: %s", strerror(-w.status));
		return w.status;
	}
	int err = 0;
	Fd reader(fcntl(fd.get(), F_DUPFD_CLOEXEC, 0));
	/* Its callback may run before start() returns (the primary may
	 * speak at once): it gets the fd, not the watch, and the link's
	 * primary pid is set first. */
	int rfd = reader.get();
	l.primary = primary;
	l.token = w.token;
	l.chan = fd.get(); /* a revoke read at once is answered there */
	std::unique_ptr<FdWatch> watch =
		reader.valid() ? FdWatch::start(std::move(reader), [rfd] { return read_channel(rfd); },
						&err)
			       : nullptr;
	if (watch == nullptr) {
		l.chan = -1;
		DVS_LOG(ERR, "cannot watch the channel: %s", strerror(err != 0 ? -err : errno));
		return err != 0 ? err : -EMFILE;
	}
	(void)fd.release();
	l.chan_watch = watch.release();
	return 0;
}

/* One round on the channel: the request, then the answer (read by the
 * interrupt thread, handed over in link().box). Fills @rep and takes
 * ownership of the fds it carries. */
int request_page(uint32_t start, AttachRep *rep, std::vector<Fd> *fds)
{
	Link &l = link();
	struct rte_mp_msg msg;
	AttachReq req{};

	req.hdr = mp_hdr();
	req.start = start;
	req.seq = ++l.seq;
	req.token = l.token;
	mp_pack(&msg, kActAttach, req);
	{
		std::lock_guard<std::mutex> lock(l.box_mu);
		l.box.reset();
	}
	int fd = l.chan.load();
	int rc = fd >= 0 ? channel_send_wait(fd, msg, kAttachTimeoutSec * 1000) : -ENOTCONN;
	if (rc != 0) {
		DVS_LOG(ERR, "cannot ask the primary for its devices: %s", strerror(-rc));
		return rc;
	}
	std::unique_lock<std::mutex> lock(l.box_mu);
	if (!l.box_cv.wait_for(lock, std::chrono::seconds(kAttachTimeoutSec), [&] {
		    return l.box != nullptr && l.box->rep.seq == req.seq;
	    })) {
		DVS_LOG(ERR, "no attach answer from the primary: %s", strerror(ETIMEDOUT));
		return -ETIMEDOUT;
	}
	std::unique_ptr<Answer> a = std::move(l.box);
	lock.unlock();
	*rep = a->rep;
	*fds = std::move(a->fds);
	if (rep->status != 0) {
		DVS_LOG(ERR, "the primary refused the attach: %s", strerror(-rep->status));
		return rep->status;
	}
	/* Checked by what it is: a pidfd of the primary this process speaks to. */
	if (pidfd_pid(fds->back().get()) != l.primary) {
		DVS_LOG(ERR, "attach answer refused: its last fd is not a pidfd of the primary (pid %d)",
			l.primary);
		return -EBADMSG;
	}
	watch_primary(std::move(fds->back()));
	fds->pop_back();
	dvs::fault_point("attach-reply");
	return 0;
}

/* On the interrupt thread: an attach answer for the walk waiting for it.
 * Its token is the one to use next, whether or not anyone still waits. */
void on_answer(const struct rte_mp_msg &m, std::vector<Fd> *fds)
{
	Link &l = link();
	auto a = std::make_unique<Answer>();
	std::string why;

	if (decode_attach_rep(m, &a->rep, &why) != 0) {
		Library::get().refused("attach answer", why);
		return;
	}
	if (a->rep.token != 0)
		l.token = a->rep.token;
	a->fds = std::move(*fds);
	std::lock_guard<std::mutex> lock(l.box_mu);
	l.box = std::move(a);
	l.box_cv.notify_all();
}

/* An event from the primary (also for a device not attached yet: global
 * subscribers hear it). */
void on_event(const EventMsg &ev)
{
	Library &lib = Library::get();

	if (ev.event == DVSHARE_EVENT_CLOSED) {
		std::shared_ptr<dvshare_dev> d = lib.hold(ev.ibdev);
		if (d != nullptr)
			note_closed(d.get(), ev.hdr.pid);
		return;
	}
	lib.emit(ev.ibdev, static_cast<enum dvshare_event>(ev.event), ev.name, ev.hdr.pid, false);
}

void send_to_primary(const struct rte_mp_msg &m, const char *what)
{
	int fd = link().chan.load();
	int rc = fd >= 0 ? channel_send_wait(fd, m, 1000) : -ENOTCONN;

	if (rc != 0)
		DVS_LOG(ERR, "cannot send the primary a %s: %s", what, strerror(-rc));
}

void send_ack(const RevokeMsg &r)
{
	struct rte_mp_msg msg;
	RevokeAck a{};

	a.hdr = mp_hdr();
	memcpy(a.ibdev, r.ibdev, sizeof(a.ibdev));
	a.slot = r.slot;
	a.gen = r.gen;
	a.revoke_id = r.revoke_id;
	mp_pack(&msg, kActRevokeAck, a);
	send_to_primary(msg, "revoke answer");
}

void let_go(const RevokeMsg &r)
{
	Library &lib = Library::get();
	std::shared_ptr<dvshare_dev> d = lib.hold(r.ibdev);

	if (r.slot == kRevokeBatch) {
		/* A batch is answered once, whatever it asked of us, as soon as
		 * nothing here can reach its objects; unimports follow. */
		dvshare_dev::BatchLetGo lg;
		const bool names = d != nullptr && lib.has_subscribers(d.get(), dvs::kRevokeEvents);
		if (d != nullptr)
			d->revoke_batch_fence(r.revoke_id, names, &lg);
		send_ack(r);
		dvs::fault_point("revoke-ack");
		if (d != nullptr)
			d->revoke_batch_finish(&lg);
		for (const std::string &n : lg.names)
			lib.emit(d.get(), DVSHARE_EVENT_REVOKED, n.c_str(), r.hdr.pid);
		if (d != nullptr)
			lib.emit(d.get(), DVSHARE_EVENT_BATCH_REVOKED, nullptr, r.hdr.pid);
		return;
	}

	/* No such device here: nothing to let go of (an attach in progress
	 * revalidates when it completes). */
	std::string name;
	if (d != nullptr && !d->revoke_local(r.slot, r.gen, r.revoke_id, &name))
		return;
	send_ack(r);
	dvs::fault_point("revoke-ack");
	if (d != nullptr)
		lib.emit(d.get(), DVSHARE_EVENT_REVOKED, name.c_str(), r.hdr.pid);
}

/* Messages to this process were dropped (it did not read): the
 * registries hold the truth. */
void resync()
{
	DVS_LOG(NOTICE, "missed messages from the primary: re-reading the registries");
	for (const auto &d : devices_now()) {
		d->revalidate();
		if (d->registry().closed())
			note_closed(d.get(), link().primary);
	}
}

/* One message from the primary, on its channel (nobody else holds the
 * other end). */
void on_message(const struct rte_mp_msg &m, std::vector<Fd> *fds)
{
	Library &lib = Library::get();
	std::string why;
	auto from_primary = [&](const MpHdr &h, const char *what) {
		if (h.pid == link().primary)
			return true;
		lib.refused(what, "names pid " + std::to_string(h.pid) + ", not the primary's");
		return false;
	};

	if (strcmp(m.name, kActAttach) == 0) {
		on_answer(m, fds);
	} else if (strcmp(m.name, kActEvent) == 0) {
		EventMsg ev;
		if (decode_event(m, &ev, &why) != 0)
			lib.refused("event", why);
		else if (from_primary(ev.hdr, "event"))
			on_event(ev);
	} else if (strcmp(m.name, kActRevoke) == 0) {
		RevokeMsg r;
		if (decode_revoke(m, &r, &why) != 0)
			lib.refused("revoke", why);
		else if (from_primary(r.hdr, "revoke"))
			let_go(r);
	} else if (strcmp(m.name, kActBye) == 0) {
		ByeMsg b;
		if (decode_bye(m, &b, &why) != 0)
			lib.refused("goodbye", why);
		else if (from_primary(b.hdr, "goodbye"))
			link().said_bye.store(true);
	} else if (strcmp(m.name, kActResync) == 0) {
		ResyncMsg r;
		if (decode_resync(m, &r, &why) != 0)
			lib.refused("resync", why);
		else if (from_primary(r.hdr, "resync"))
			resync();
	} else {
		lib.refused("channel message", std::string(m.name) + " is not taken from the primary");
	}
}

/* On the interrupt thread: what the primary sent on @fd. False at the end
 * of the stream (the primary is gone or closed it). */
bool read_channel(int fd)
{
	for (int i = 0; i < 64; i++) {
		struct rte_mp_msg m;
		std::vector<Fd> fds; /* an attach answer's; any other is closed */
		int rc = channel_recv(fd, &m, &fds);
		if (rc == 0)
			return true;
		if (rc == -EBADMSG) {
			Library::get().refused("channel message", "malformed");
			continue;
		}
		if (rc < 0)
			return false;
		on_message(m, &fds);
	}
	return true;
}

} // namespace

int ipc_secondary_attach()
{
	Library &lib = Library::get();
	pid_t primary = 0;
	uint32_t start = 0;
	uint64_t gen = 0;
	bool first = true;

	AttachPolicy policy;
	std::string why;
	int bad = attach_policy(&policy, &why);
	if (bad != 0) {
		DVS_LOG(ERR, "cannot attach: %s", why.c_str());
		return bad;
	}
	if (!primary_uses_dvshare(&primary)) {
		DVS_LOG(NOTICE, "the primary (pid %d) does not use dvshare: no device to attach",
			(int)primary_by_lock());
		return 0;
	}
	std::lock_guard<std::mutex> walk(link().mu);
	int rc = connect_channel(primary);
	if (rc != 0)
		return rc;
	for (int pages = 0; pages < 1024; pages++) {
		AttachRep rep{};
		std::vector<Fd> fds;
		rc = request_page(start, &rep, &fds);
		if (rc != 0)
			return rc;
		if (!first && rep.list_gen != gen) {
			start = 0; /* the list changed under us: walk it again */
			first = true;
			continue;
		}
		gen = rep.list_gen;
		first = false;
		for (uint32_t i = 0; i < rep.count; i++) {
			rc = attach_one(std::move(fds[2 * i]), std::move(fds[2 * i + 1]), policy);
			if (rc < 0)
				return rc;
		}
		start += rep.count;
		if (start >= rep.total)
			break;
	}
	std::lock_guard<std::mutex> lock(lib.mu);
	return static_cast<int>(lib.devices.size());
}

int ipc_secondary_channel()
{
	return link().chan.load();
}

void ipc_secondary_bye()
{
	struct rte_mp_msg m;
	ByeMsg b{ mp_hdr(), kByeMagic };
	int fd = link().chan.load();

	if (fd < 0)
		return;
	mp_pack(&m, kActBye, b);
	/* At exit: never waits, and nobody listening is fine. */
	(void)channel_send(fd, m);
}

void ipc_send_detach(const dvshare_dev *dev)
{
	struct rte_mp_msg msg;
	DetachMsg m{};

	m.hdr = mp_hdr();
	snprintf(m.ibdev, sizeof(m.ibdev), "%s", dev->name().c_str());
	mp_pack(&msg, kActDetach, m);
	send_to_primary(msg, "detach notice");
}

} // namespace dvs
