/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secondary side of its requests to the primary (creates, destroys of
 * what it owns): sent on this process's channel, answered there. The
 * interrupt thread reads each answer and hands it to the thread waiting
 * for it, matched by sequence number. A create whose caller gave up
 * (timed out) is destroyed when its answer comes after all, so a timeout
 * leaves nothing behind.
 */
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_interrupts.h>

#include "channel.h"
#include "dvs_fd.h"
#include "dvs_log.h"
#include "fault.h"
#include "ipc.h"
#include "ipc_proto.h"
#include "library.h"

namespace dvs {

namespace {

/* How long a create waits for its answer: the primary runs requests one
 * at a time, and one may be a destroy waiting for acks. */
constexpr int kCreateWaitMs = 30000;

struct Waiting {
	bool done = false;
	ReplyMsg rep{};
};

struct Requests {
	std::mutex mu;
	std::condition_variable cv;
	uint32_t seq = 0;
	std::map<uint32_t, Waiting *> waiting;
	/* Creates given up on: their device and name, by sequence number. */
	std::map<uint32_t, std::pair<std::string, std::string>> abandoned;
	int failed = 0; /* the primary is gone: every wait ends with this */
};

/* Leaked: the interrupt thread may answer while the process exits. */
Requests &requests()
{
	static Requests *r = new Requests;
	return *r;
}

DestroyReq destroy_req(uint32_t seq, const char *ibdev, const char *name, unsigned int timeout_ms)
{
	DestroyReq d{};

	d.hdr = mp_hdr();
	d.seq = seq;
	d.timeout_ms = timeout_ms;
	snprintf(d.ibdev, sizeof(d.ibdev), "%s", ibdev);
	snprintf(d.name, sizeof(d.name), "%s", name);
	return d;
}

/* Send @m (request @seq) and wait up to @wait_ms for its answer. With
 * @abandon, a create: remembered if given up on. */
int ask(const struct rte_mp_msg &m, uint32_t seq, int wait_ms, ReplyMsg *rep,
	const std::pair<std::string, std::string> *abandon)
{
	Library &lib = Library::get();
	Requests &r = requests();
	Waiting w;

	if (rte_thread_is_intr() != 0) {
		DVS_LOG(ERR, "no create or destroy from DPDK's interrupt thread (an event "
			     "callback) in a secondary: the primary's answer is read there");
		return -EDEADLK;
	}
	if (lib.orphaned() != 0 || lib.primary_exited() != 0) {
		DVS_LOG(ERR, "the primary (pid %d) is gone: nothing can be created or destroyed",
			lib.orphaned() != 0 ? lib.orphaned() : lib.primary_exited());
		return -ENOTCONN;
	}
	{
		std::lock_guard<std::mutex> lock(r.mu);
		if (r.failed != 0)
			return r.failed;
		r.waiting[seq] = &w;
	}
	int fd = ipc_secondary_channel();
	int rc = fd >= 0 ? channel_send_wait(fd, m, 1000) : -ENOTCONN;
	std::unique_lock<std::mutex> lock(r.mu);
	if (rc == 0 && !r.cv.wait_for(lock, std::chrono::milliseconds(wait_ms),
				      [&] { return w.done || r.failed != 0; }))
		rc = -ETIMEDOUT;
	r.waiting.erase(seq);
	if (rc == 0 && !w.done)
		rc = r.failed;
	if (rc != 0) {
		if (rc == -ETIMEDOUT && abandon != nullptr)
			r.abandoned[seq] = *abandon;
		DVS_LOG(ERR, "%s: no answer from the primary: %s", m.name, strerror(-rc));
		return rc;
	}
	*rep = w.rep;
	return 0;
}

/* A command too long for the request travels in a memfd, sealed so that
 * the primary reads what was written. */
int command_memfd(const void *in, size_t len, Fd *out)
{
	Fd fd(memfd_create("dvshare-cmd", MFD_CLOEXEC | MFD_ALLOW_SEALING));

	if (!fd.valid())
		return -errno;
	if (pwrite(fd.get(), in, len, 0) != static_cast<ssize_t>(len))
		return -EIO;
	if (fcntl(fd.get(), F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
		return -errno;
	*out = std::move(fd);
	return 0;
}

uint32_t next_seq()
{
	std::lock_guard<std::mutex> lock(requests().mu);

	return ++requests().seq;
}

} // namespace

void ipc_on_reply(const ReplyMsg &rep)
{
	Requests &r = requests();
	std::unique_lock<std::mutex> lock(r.mu);
	auto it = r.waiting.find(rep.seq);

	if (it != r.waiting.end()) {
		it->second->rep = rep;
		it->second->done = true;
		r.cv.notify_all();
		return;
	}
	auto ab = r.abandoned.find(rep.seq);
	if (ab == r.abandoned.end())
		return; /* a destroy nobody waits for (see below) */
	std::pair<std::string, std::string> what = std::move(ab->second);
	r.abandoned.erase(ab);
	uint32_t seq = ++r.seq;
	lock.unlock();
	if (rep.status != 0)
		return;
	/* Its caller was told ETIMEDOUT: it must not exist. Never waits
	 * (this is the interrupt thread); its answer is dropped above. */
	struct rte_mp_msg m;
	mp_pack(&m, kActDestroy, destroy_req(seq, what.first.c_str(), what.second.c_str(), 1000));
	int fd = ipc_secondary_channel();
	int rc = fd >= 0 ? channel_send(fd, m) : -ENOTCONN;
	DVS_LOG(NOTICE, "%s: %s was created after its caller gave up: %s", what.first.c_str(),
		what.second.c_str(), rc == 0 ? "destroying it" : "cannot ask to destroy it");
}

void ipc_requests_fail(int err)
{
	Requests &r = requests();
	std::lock_guard<std::mutex> lock(r.mu);

	r.failed = err;
	r.cv.notify_all();
}

int ipc_remote_create(const RemoteCreate &c, uint32_t *slot, uint32_t *gen)
{
	CreateReq q{};

	q.hdr = mp_hdr();
	q.seq = next_seq();
	q.kind = c.kind;
	q.flags = ((c.flags & DVSHARE_CREATE_PERSIST) != 0 ? kCreatePersist : 0) |
		  (c.alloc ? kCreateAlloc : 0);
	q.arg = c.arg & ~DVSHARE_CREATE_PERSIST;
	snprintf(q.ibdev, sizeof(q.ibdev), "%s", c.ibdev);
	snprintf(q.name, sizeof(q.name), "%s", c.name);
	q.addr = c.addr;
	q.size = c.size;
	struct rte_mp_msg m;
	Fd cmd;
	if (c.kind == DVSHARE_TYPE_OBJ) {
		if (c.inlen > kCreateInMax || c.outlen > kCreateInMax) {
			DVS_LOG(ERR, "%s: create of %s: a command of %zu bytes (output %zu) is longer "
				     "than a secondary may send (%u)", c.ibdev, c.name, c.inlen,
				c.outlen, kCreateInMax);
			return -EINVAL;
		}
		q.inlen = static_cast<uint32_t>(c.inlen);
		q.outlen = static_cast<uint32_t>(c.outlen);
		if (c.inlen <= kCreateInline) {
			memcpy(q.cmd, c.in, c.inlen);
		} else if (int rc = command_memfd(c.in, c.inlen, &cmd); rc != 0) {
			DVS_LOG(ERR, "%s: create of %s: cannot pass the command: %s", c.ibdev, c.name,
				strerror(-rc));
			return rc;
		}
	}
	mp_pack(&m, kActCreate, q);
	if (cmd.valid()) {
		m.num_fds = 1;
		m.fds[0] = cmd.get();
	}
	ReplyMsg rep;
	std::pair<std::string, std::string> what(c.ibdev, c.name);
	int rc = ask(m, q.seq, kCreateWaitMs, &rep, &what);
	if (rc != 0)
		return rc;
	if (c.kind == DVSHARE_TYPE_OBJ && c.out != nullptr)
		memcpy(c.out, rep.out, std::min<size_t>(c.outlen, rep.outlen));
	if (rep.status != 0)
		return rep.status;
	*slot = rep.slot;
	*gen = rep.gen;
	fault_point("create-reply");
	return 0;
}

int ipc_remote_destroy(const char *ibdev, const char *name, unsigned int timeout_ms)
{
	uint32_t seq = next_seq();
	struct rte_mp_msg m;
	ReplyMsg rep;

	mp_pack(&m, kActDestroy, destroy_req(seq, ibdev, name, timeout_ms));
	int rc = ask(m, seq, static_cast<int>(std::min(timeout_ms, 10000u)) + kCreateWaitMs, &rep,
		     nullptr);
	return rc != 0 ? rc : rep.status;
}

} // namespace dvs
