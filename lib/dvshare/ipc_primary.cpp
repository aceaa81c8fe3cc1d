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

/* An attach request: answered only to a peer presenting the token its
 * channel gave it (who it is comes from there), once per token, and on
 * that channel, never waiting: nothing goes back over rte_mp, whose sends
 * block on a receiver that does not read. Anything else gets no answer
 * at all. No fd of a request is ever closed: DPDK does not say which it
 * really received, and the slots it did not fill hold numbers of fds this
 * process owns. */
int on_attach(const struct rte_mp_msg *msg, const void *)
{
	Library &lib = Library::get();
	AttachReq req;
	std::string why;
	uid_t uid = 0;

	if (decode_attach_req(*msg, &req, &why) != 0) {
		lib.refused("attach request", why);
		return 0;
	}
	if (!Peers::get().holds(req.token, req.hdr.pid, &uid)) {
		lib.refused("attach request", "pid " + std::to_string(req.hdr.pid) +
						      " holds no such token (no channel, or a stale or "
						      "forged token)");
		return 0;
	}
	AttachRep rep{};
	std::vector<Fd> fds; /* dups: a device closed meanwhile cannot recycle them */
	std::vector<std::string> names;
	rep.hdr = mp_hdr();
	rep.seq = req.seq;
	bool refused = false;
	{
		std::lock_guard<std::mutex> lock(lib.mu);
		std::vector<const dvshare_dev *> devs = allowed_devices(lib, req.hdr.pid, uid);
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
		answer(req.hdr.pid, req.token, rep, {});
		return 0;
	}
	fds.emplace_back(pidfd_self());
	for (const Fd &fd : fds) {
		if (!fd.valid()) {
			DVS_LOG(ERR, "cannot dup device fds for pid %d: %s", req.hdr.pid,
				strerror(errno));
			AttachRep fail{};
			fail.hdr = rep.hdr;
			fail.seq = rep.seq;
			fail.status = -EMFILE;
			answer(req.hdr.pid, req.token, fail, {});
			return 0;
		}
	}
	/* Known before it holds anything a destroy would wait for. */
	Peers::get().attached(req.hdr.pid, names);
	answer(req.hdr.pid, req.token, rep, std::move(fds));
	DVS_LOG(INFO, "pid %d (uid %u) attaching to %u of %u device(s)", req.hdr.pid, uid,
		rep.count, rep.total);
	for (const std::string &n : names)
		lib.emit(n.c_str(), DVSHARE_EVENT_PEER_ATTACHED, nullptr, req.hdr.pid, true);
	return 0;
}

/* What only a secondary's channel carries, sent over rte_mp (forged, or a
 * peer of another release): counted, no effect, no fd touched. */
int on_channel_only(const struct rte_mp_msg *msg, const void *)
{
	Library::get().refused(msg->name, "not taken over rte_mp, which cannot say who sent it "
					  "(only over the sender's own channel)");
	return 0;
}

} // namespace

int ipc_primary_init()
{
	std::lock_guard<std::mutex> lock(init_mu);

	if (initialised)
		return 0;
	if (rte_eal_get_runtime_dir()[0] == '\0') {
		DVS_LOG(ERR, "EAL is not initialised: call rte_eal_init() first");
		return -ENOTCONN;
	}
	/* Optional: --no-shconf / in-memory mode has no secondaries to serve. */
	int rc = register_actions({ { kActAttach, on_attach }, { kActDetach, on_channel_only },
				    { kActRevokeAck, on_channel_only }, { kActHello, on_channel_only },
				    { kActBye, on_channel_only }, { kActCreate, on_channel_only },
				    { kActDestroy, on_channel_only } }, true);
	if (rc == 0)
		rc = Peers::get().listen();
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
	/* Never waits: a secondary that misses a publish imports on first
	 * lookup, and finds a closed registry closed. */
	Peers::get().broadcast(msg);
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
