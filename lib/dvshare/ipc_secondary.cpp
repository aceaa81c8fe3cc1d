/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secondary side of the IPC: attach during rte_eal_init() (libc heap and
 * clock_gettime only: DPDK memory does not exist yet), then listen for
 * announcements.
 */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <string>
#include <vector>

#include <signal.h>
#include <unistd.h>

#include <rte_eal.h>

#include "dvs_fd.h"
#include "dvs_log.h"
#include "ipc.h"
#include "ipc_proto.h"
#include "fault.h"
#include "goodbye.h"
#include "library.h"
#include "pidfd.h"

namespace dvs {

namespace {

constexpr int kAttachTimeoutSec = 5;

/* Does a live primary advertise dvshare? */
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
	return kill(*pid, 0) == 0 || errno == EPERM;
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

/* The primary's pidfd: when it fires, the primary is gone. Leaked on
 * purpose: it must outlive EAL cleanup and is never freed from inside its
 * own callback. */
PidWatch *primary_watch;
/* This process's end of its goodbye socket with the primary (goodbye.h);
 * kept to the end for the same reason. */
int primary_bye = -1;

/* The primary closed @d (dvshare_dev_close() or a normal exit): tell the
 * application once. */
void note_closed(dvshare_dev *d, pid_t pid)
{
	if (!d->note_closed())
		return;
	DVS_LOG(NOTICE, "%s: closed by the primary (pid %d): no new lookups", d->name().c_str(),
		pid);
	Library::get().emit(d, DVSHARE_EVENT_CLOSED, nullptr, pid);
}

void on_primary_gone(pid_t pid)
{
	Library &lib = Library::get();
	std::vector<std::shared_ptr<dvshare_dev>> devs;
	bool clean = bye_heard(primary_bye, pid);

	if (clean)
		lib.set_primary_exited(pid);
	else
		lib.set_orphaned(pid);
	if (clean)
		DVS_LOG(NOTICE, "the primary (pid %d) exited: imported objects keep working, "
				"no new lookups", pid);
	else
		DVS_LOG(WARNING, "the primary (pid %d) died: imported objects keep working, "
				 "no new lookups", pid);
	{
		std::lock_guard<std::mutex> lock(lib.mu);
		devs = lib.devices;
	}
	for (const auto &d : devs) {
		if (clean)
			note_closed(d.get(), pid);
		else
			lib.emit(d.get(), DVSHARE_EVENT_PRIMARY_DIED, nullptr, pid);
	}
}

void watch_primary(Fd pidfd)
{
	if (primary_watch != nullptr)
		return; /* one primary per process */
	pid_t pid = pidfd_pid(pidfd.get());
	int err = 0;
	primary_watch = PidWatch::start(std::move(pidfd), [pid] { on_primary_gone(pid); }, &err)
				.release();
}

/* One request/reply round: fills @rep and takes ownership of the fds. */
int request_page(uint32_t start, AttachRep *rep, std::vector<Fd> *fds)
{
	struct rte_mp_msg msg;
	struct rte_mp_reply reply = {};
	struct timespec ts = { kAttachTimeoutSec, 0 };
	AttachReq req{ mp_hdr(), start };
	std::string why;

	Fd self(pidfd_self());
	if (!self.valid()) {
		DVS_LOG(ERR, "cannot open a pidfd of this process: %s", strerror(errno));
		return -errno;
	}
	mp_pack(&msg, kActAttach, req);
	msg.num_fds = 1;
	msg.fds[0] = self.get();
	if (rte_mp_request_sync(&msg, &reply, &ts) != 0 || reply.nb_received != 1) {
		int err = reply.nb_received == 0 ? ETIMEDOUT : rte_errno;
		free(reply.msgs);
		DVS_LOG(ERR, "no attach answer from the primary: %s", strerror(err));
		return -err;
	}
	const struct rte_mp_msg &r = reply.msgs[0];
	for (int i = 0; i < r.num_fds && i < RTE_MP_MAX_FD_NUM; i++)
		fds->emplace_back(r.fds[i]);
	int rc = decode_attach_rep(r, rep, &why);
	free(reply.msgs);
	if (rc != 0) {
		DVS_LOG(ERR, "attach answer refused: %s", why.c_str());
		return rc;
	}
	if (rep->status != 0) {
		DVS_LOG(ERR, "the primary refused the attach: %s", strerror(-rep->status));
		return rep->status;
	}
	if (rep->flags & kRepByeSocket) {
		if (primary_bye < 0)
			primary_bye = fds->back().release();
		fds->pop_back();
	}
	watch_primary(std::move(fds->back()));
	fds->pop_back();
	dvs::fault_point("attach-reply");
	return 0;
}

int on_event(const struct rte_mp_msg *msg, const void *)
{
	/* Also for a device not attached yet: global subscribers hear it. */
	return on_message<EventMsg>(msg, decode_event, "event message", [](const EventMsg &ev) {
		Library &lib = Library::get();
		if (ev.event == DVSHARE_EVENT_CLOSED) {
			std::shared_ptr<dvshare_dev> d = lib.hold(ev.ibdev);
			if (d != nullptr)
				note_closed(d.get(), ev.hdr.pid);
			return;
		}
		lib.emit(ev.ibdev, static_cast<enum dvshare_event>(ev.event), ev.name, ev.hdr.pid,
			 false);
	});
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
	if (rte_mp_sendmsg(&msg) != 0)
		DVS_LOG(ERR, "cannot answer a revoke: %s", rte_strerror(rte_errno));
}

void let_go(const RevokeMsg &r)
{
	Library &lib = Library::get();
	std::shared_ptr<dvshare_dev> d = lib.hold(r.ibdev);

	if (r.slot == kRevokeBatch) {
		/* A batch is answered once, whatever it asked of us. */
		std::vector<std::string> names;
		if (d != nullptr)
			d->revoke_local_batch(r.revoke_id, &names);
		send_ack(r);
		dvs::fault_point("revoke-ack");
		for (const std::string &n : names)
			lib.emit(d.get(), DVSHARE_EVENT_REVOKED, n.c_str(), r.hdr.pid);
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

int on_revoke(const struct rte_mp_msg *msg, const void *)
{
	return on_message<RevokeMsg>(msg, decode_revoke, "revoke message", let_go);
}

std::mutex init_mu;
bool initialised;

} // namespace

int ipc_secondary_init()
{
	std::lock_guard<std::mutex> lock(init_mu);

	if (initialised)
		return 0;
	int rc = register_actions({ { kActEvent, on_event }, { kActRevoke, on_revoke } }, false);
	if (rc != 0)
		return rc;
	initialised = true;
	return 0;
}

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
		DVS_LOG(INFO, "the primary does not use dvshare: no device to attach");
		return 0;
	}
	for (int pages = 0; pages < 1024; pages++) {
		AttachRep rep;
		std::vector<Fd> fds;
		int rc = request_page(start, &rep, &fds);
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

void ipc_secondary_bye()
{
	bye_send(primary_bye);
}

void ipc_send_detach(const dvshare_dev *dev)
{
	struct rte_mp_msg msg;
	DetachMsg m{};

	m.hdr = mp_hdr();
	snprintf(m.ibdev, sizeof(m.ibdev), "%s", dev->name().c_str());
	mp_pack(&msg, kActDetach, m);
	/* Delivered to the primary only: secondaries do not register it. */
	if (rte_mp_sendmsg(&msg) != 0)
		DVS_LOG(DEBUG, "detach notice not sent: %s", rte_strerror(rte_errno));
}

} // namespace dvs
