/* SPDX-License-Identifier: BSD-3-Clause */
/* Primary side of the IPC: answer attach requests, announce, advertise. */
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

#include <rte_eal.h>

#include "dvs_fd.h"
#include "dvs_log.h"
#include "goodbye.h"
#include "ipc.h"
#include "ipc_proto.h"
#include "library.h"
#include "peers.h"
#include "pidfd.h"

namespace dvs {

namespace {

/* The marker a secondary checks before asking: without it, a request to
 * a primary that never registered our action would wait for a timeout. */
class Marker {
public:
	int write()
	{
		path_ = std::string(rte_eal_get_runtime_dir()) + "/dvshare_primary";
		std::string tmp = path_ + ".tmp";
		Fd fd(::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644));
		if (!fd.valid())
			return -errno;
		std::string pid = std::to_string(getpid()) + "\n";
		if (::write(fd.get(), pid.data(), pid.size()) != static_cast<ssize_t>(pid.size()))
			return -EIO;
		return ::rename(tmp.c_str(), path_.c_str()) == 0 ? 0 : -errno;
	}
	~Marker()
	{
		if (!path_.empty())
			::unlink(path_.c_str());
	}

private:
	std::string path_;
};

Marker marker;
std::mutex init_mu;
bool initialised;

int reply_status(const void *peer, int status)
{
	struct rte_mp_msg msg;
	AttachRep rep{};

	rep.hdr = mp_hdr();
	rep.status = status;
	mp_pack(&msg, kActAttach, rep);
	return rte_mp_reply(&msg, static_cast<const char *>(peer));
}

/* Who sent this request: the pidfd must name the pid the header claims,
 * and its uid decides which devices it may receive. */
int identify(const AttachReq &req, const Fd &pidfd, uid_t *uid)
{
	pid_t pid = pidfd_pid(pidfd.get());

	if (pid != req.hdr.pid) {
		DVS_LOG(ERR, "attach refused: pid %d sent a pidfd of pid %d", req.hdr.pid, pid);
		return -EPERM;
	}
	int rc = pid_euid(pid, uid);
	if (rc != 0 || !pidfd_alive(pidfd.get())) {
		DVS_LOG(ERR, "attach refused: cannot identify pid %d", pid);
		return rc != 0 ? rc : -ESRCH;
	}
	return 0;
}

std::string uid_list(const std::vector<uid_t> &uids)
{
	std::string s;

	for (uid_t u : uids)
		s += (s.empty() ? "" : ",") + std::to_string(u);
	return s;
}

/* Devices @uid may receive, in list order; the refused ones are logged. */
std::vector<const dvshare_dev *> allowed_devices(Library &lib, pid_t pid, uid_t uid)
{
	std::vector<const dvshare_dev *> out;

	for (const auto &d : lib.devices) {
		if (d->uid_allowed(uid)) {
			out.push_back(d.get());
			continue;
		}
		DVS_LOG(WARNING, "%s: refused to pid %d: uid %u is not allowed (allowed: %s)",
			d->name().c_str(), pid, uid, uid_list(d->allowed_uids()).c_str());
	}
	return out;
}

int on_attach(const struct rte_mp_msg *msg, const void *peer)
{
	Library &lib = Library::get();
	Fd pidfd(msg->num_fds >= 1 ? msg->fds[0] : -1);
	for (int i = 1; i < msg->num_fds && i < RTE_MP_MAX_FD_NUM; i++)
		close(msg->fds[i]); /* never ours to keep */
	AttachReq req;
	std::string why;
	uid_t uid = 0;
	int rc = decode_attach_req(*msg, &req, &why);

	if (rc != 0) {
		DVS_LOG(ERR, "attach request refused: %s", why.c_str());
		reply_status(peer, rc);
		return 0;
	}
	rc = identify(req, pidfd, &uid);
	if (rc != 0) {
		reply_status(peer, rc);
		return 0;
	}
	struct rte_mp_msg out;
	AttachRep rep{};
	std::vector<Fd> fds; /* dups: a device closed meanwhile cannot recycle them */
	std::vector<std::string> names;
	rep.hdr = mp_hdr();
	{
		std::lock_guard<std::mutex> lock(lib.mu);
		std::vector<const dvshare_dev *> devs = allowed_devices(lib, req.hdr.pid, uid);
		if (devs.empty() && !lib.devices.empty()) {
			reply_status(peer, -EPERM);
			return 0;
		}
		rep.total = static_cast<uint32_t>(devs.size());
		rep.start = std::min(req.start, rep.total);
		rep.count = std::min(kDevsPerMsg, rep.total - rep.start);
		rep.list_gen = lib.list_gen;
		for (uint32_t i = 0; i < rep.count; i++) {
			const dvshare_dev *d = devs[rep.start + i];
			fds.emplace_back(fcntl(d->cmd_fd(), F_DUPFD_CLOEXEC, 0));
			fds.emplace_back(fcntl(d->registry().ro_fd(), F_DUPFD_CLOEXEC, 0));
			names.push_back(d->name());
		}
	}
	fds.emplace_back(pidfd_self());
	for (const Fd &fd : fds) {
		if (!fd.valid()) {
			DVS_LOG(ERR, "cannot dup device fds for pid %d: %s", req.hdr.pid,
				strerror(errno));
			reply_status(peer, -EMFILE);
			return 0;
		}
	}
	Fd bye_mine, bye_theirs;
	rc = bye_pair(&bye_mine, &bye_theirs);
	if (rc != 0) {
		DVS_LOG(ERR, "cannot make a goodbye socket for pid %d: %s", req.hdr.pid,
			strerror(-rc));
		reply_status(peer, rc);
		return 0;
	}
	/* Known before it holds anything a destroy would wait for. */
	bool fresh = false;
	Peers::get().attached(req.hdr.pid, uid, names, std::move(bye_mine), &fresh);
	if (fresh) {
		rep.flags |= kRepByeSocket;
		fds.push_back(std::move(bye_theirs));
	}
	mp_pack(&out, kActAttach, rep);
	out.num_fds = static_cast<int>(fds.size());
	for (size_t i = 0; i < fds.size(); i++)
		out.fds[i] = fds[i].get();
	bool sent = rte_mp_reply(&out, static_cast<const char *>(peer)) == 0;
	/* Watched even when the reply failed: it is known, and if it is gone
	 * its pidfd says so at once. */
	if (fresh)
		Peers::get().watch(req.hdr.pid, std::move(pidfd));
	if (!sent) {
		DVS_LOG(ERR, "cannot answer attach of pid %d: %s", req.hdr.pid,
			rte_strerror(rte_errno));
		return 0;
	}
	DVS_LOG(INFO, "pid %d (uid %u) attaching to %u of %u device(s)", req.hdr.pid, uid,
		rep.count, rep.total);
	for (const std::string &n : names)
		lib.emit(n.c_str(), DVSHARE_EVENT_PEER_ATTACHED, nullptr, req.hdr.pid, true);
	return 0;
}

int on_detach(const struct rte_mp_msg *msg, const void *)
{
	return on_message<DetachMsg>(msg, decode_detach, "detach message", [](const DetachMsg &m) {
		Library &lib = Library::get();
		Peers::get().detached(m.hdr.pid, m.ibdev);
		lib.peer_gone(m.ibdev, m.hdr.pid); /* a destroy need not wait for it */
		lib.emit(m.ibdev, DVSHARE_EVENT_PEER_DETACHED, nullptr, m.hdr.pid, true);
	});
}

int on_revoke_ack(const struct rte_mp_msg *msg, const void *)
{
	return on_message<RevokeAck>(msg, decode_revoke_ack, "revoke ack", [](const RevokeAck &a) {
		Library::get().revoke_ack(a.ibdev, a.hdr.pid, a.revoke_id, a.slot, a.gen);
	});
}

} // namespace

int ipc_primary_init()
{
	std::lock_guard<std::mutex> lock(init_mu);

	if (initialised)
		return 0;
	/* Optional: --no-shconf / in-memory mode has no secondaries to serve. */
	int rc = register_actions({ { kActAttach, on_attach }, { kActDetach, on_detach },
				    { kActRevokeAck, on_revoke_ack } }, true);
	if (rc != 0)
		return rc;
	rc = marker.write();
	if (rc != 0) {
		DVS_LOG(ERR, "cannot advertise dvshare in %s: %s", rte_eal_get_runtime_dir(),
			strerror(-rc));
		return rc;
	}
	initialised = true;
	return 0;
}

void ipc_announce(const dvshare_dev *dev, enum dvshare_event event, const char *name)
{
	struct rte_mp_msg msg;
	EventMsg ev{};

	ev.hdr = mp_hdr();
	ev.event = event;
	snprintf(ev.ibdev, sizeof(ev.ibdev), "%s", dev->name().c_str());
	snprintf(ev.name, sizeof(ev.name), "%s", name != nullptr ? name : "");
	mp_pack(&msg, kActEvent, ev);
	/* Best effort: a secondary that misses a publish imports on first
	 * lookup, and finds a closed registry closed. */
	if (rte_mp_sendmsg(&msg) != 0)
		DVS_LOG(DEBUG, "%s of %s not sent: %s", dvshare_event_name(event),
			name != nullptr ? name : dev->name().c_str(), rte_strerror(rte_errno));
}

void ipc_revoke(const dvshare_dev *dev, uint32_t slot, uint32_t gen, uint32_t revoke_id)
{
	struct rte_mp_msg msg;
	RevokeMsg r{};

	r.hdr = mp_hdr();
	snprintf(r.ibdev, sizeof(r.ibdev), "%s", dev->name().c_str());
	r.slot = slot;
	r.gen = gen;
	r.revoke_id = revoke_id;
	mp_pack(&msg, kActRevoke, r);
	/* Nobody to tell is fine: then nobody is waited for either. */
	if (rte_mp_sendmsg(&msg) != 0)
		DVS_LOG(DEBUG, "revoke not broadcast: %s", rte_strerror(rte_errno));
}

} // namespace dvs
