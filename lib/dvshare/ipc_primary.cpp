/* SPDX-License-Identifier: BSD-3-Clause */
/* Primary side of the IPC: advertise, answer attach requests from peers
 * (peers.h says who they are), announce to them. */
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
#include "ipc.h"
#include "ipc_proto.h"
#include "library.h"
#include "peers.h"
#include "pidfd.h"

namespace dvs {

namespace {

/* The marker a secondary checks before it connects: the primary's pid,
 * written once its channel socket listens (a primary without dvshare
 * has none, and its secondaries attach nothing, at once). */
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

/* Send @pid its answer (an AttachRep with @fds) on its channel. */
void answer(pid_t pid, uint64_t token, const AttachRep &rep, std::vector<Fd> fds)
{
	struct rte_mp_msg m;

	mp_pack(&m, kActAttach, rep);
	if (Peers::get().answer(pid, token, &m, std::move(fds)) != 0)
		DVS_LOG(DEBUG, "attach of pid %d not answered: its token is spent, or it is gone",
			pid);
}

} // namespace

/* An attach request, from @pid's own channel: answered only if it
 * presents the token that channel holds, once per token, on that
 * channel, never waiting. Anything else gets no answer at all. */
void ipc_on_attach(pid_t pid, const AttachReq &req)
{
	Library &lib = Library::get();
	uid_t uid = 0;

	if (!Peers::get().holds(req.token, pid, &uid)) {
		lib.refused("attach request", "pid " + std::to_string(pid) +
						      " holds no such token (a stale or forged one)", pid);
		return;
	}
	AttachRep rep{};
	std::vector<Fd> fds; /* dups: a device closed meanwhile cannot recycle them */
	std::vector<std::string> names;
	rep.hdr = mp_hdr();
	rep.seq = req.seq;
	bool refused = false;
	{
		std::lock_guard<std::mutex> lock(lib.mu);
		std::vector<const dvshare_dev *> devs = allowed_devices(lib, pid, uid);
		refused = devs.empty() && !lib.devices.empty();
		rep.total = static_cast<uint32_t>(devs.size());
		rep.start = std::min(req.start, rep.total);
		rep.count = refused ? 0 : std::min(kDevsPerMsg, rep.total - rep.start);
		rep.list_gen = lib.list_gen;
		for (uint32_t i = 0; i < rep.count; i++) {
			const dvshare_dev *d = devs[rep.start + i];
			fds.emplace_back(fcntl(d->cmd_fd(), F_DUPFD_CLOEXEC, 0));
			fds.emplace_back(fcntl(d->registry().ro_fd(), F_DUPFD_CLOEXEC, 0));
			names.push_back(d->name());
		}
	}
	if (refused) {
		rep.status = -EPERM;
		rep.total = 0;
		answer(pid, req.token, rep, {});
		return;
	}
	fds.emplace_back(pidfd_self());
	for (const Fd &fd : fds) {
		if (!fd.valid()) {
			DVS_LOG(ERR, "cannot dup device fds for pid %d: %s", pid, strerror(errno));
			AttachRep fail{};
			fail.hdr = rep.hdr;
			fail.seq = rep.seq;
			fail.status = -EMFILE;
			answer(pid, req.token, fail, {});
			return;
		}
	}
	/* Known before it holds anything a destroy would wait for. */
	Peers::get().attached(pid, names);
	answer(pid, req.token, rep, std::move(fds));
	DVS_LOG(INFO, "pid %d (uid %u) attaching to %u of %u device(s)", pid, uid, rep.count,
		rep.total);
	for (const std::string &n : names)
		lib.emit(n.c_str(), DVSHARE_EVENT_PEER_ATTACHED, nullptr, pid, true);
}

int ipc_primary_init()
{
	std::lock_guard<std::mutex> lock(init_mu);

	if (initialised)
		return 0;
	if (rte_eal_get_runtime_dir()[0] == '\0') {
		DVS_LOG(ERR, "EAL is not initialised: call rte_eal_init() first");
		return -ENOTCONN;
	}
	/* Nothing is registered with rte_mp: a message sent there under a
	 * dvshare name is DPDK's to drop (and its fds DPDK's to close). */
	int rc = Peers::get().listen();
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

void ipc_announce(const dvshare_dev *dev, enum dvshare_event event, const char *name,
		  pid_t except)
{
	struct rte_mp_msg msg;
	EventMsg ev{};

	ev.hdr = mp_hdr();
	ev.event = event;
	snprintf(ev.ibdev, sizeof(ev.ibdev), "%s", dev->name().c_str());
	snprintf(ev.name, sizeof(ev.name), "%s", name != nullptr ? name : "");
	mp_pack(&msg, kActEvent, ev);
	/* Never waits: a secondary that misses a publish imports on first
	 * lookup, and finds a closed registry closed. */
	Peers::get().broadcast(msg, except);
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
	Peers::get().revoke_begins(dev->name(), revoke_id);
	Peers::get().broadcast(msg);
}

} // namespace dvs
