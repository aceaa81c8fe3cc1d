/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secondary side of its requests to the primary (creates, destroys of what
 * it owns): sent on this process's channel, each with the write end of a
 * reply socket pair whose read end the asking thread waits on, so that it
 * reads its own answer (ipc_proto.h, kReplyFd). Each thread keeps its pair
 * from one request to the next. A caller that gives up (timed out) shuts
 * its end for reading, takes what came before that, and drops the pair:
 * the primary's answer fails from then on, and it destroys what it made
 * for the caller, so a timeout leaves nothing behind.
 */
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
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

struct Requests {
	std::mutex mu;
	uint32_t seq = 0;
	/* Read ends of the pairs waited on, by sequence number: shut when
	 * the primary is gone, which wakes their threads. */
	std::map<uint32_t, int> waiting;
	int failed = 0; /* the primary is gone: every wait ends with this */
};

/* Leaked: the interrupt thread may fail the waits while the process
 * exits. */
Requests &requests()
{
	static Requests *r = new Requests;
	return *r;
}

/* This thread's reply socket pair (closed when the thread ends). */
struct ReplyPair {
	Fd rd, wr;
};
thread_local ReplyPair reply_pair;

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

/* One answer on @rd, without waiting: 1 with @rep (the answer to @seq),
 * 0 if none is there, or a negative errno (-EPIPE: shut, the primary is
 * gone). */
int take_reply(int rd, uint32_t seq, ReplyMsg *rep)
{
	struct rte_mp_msg m;
	std::vector<Fd> fds;
	std::string why;
	int rc = channel_recv(rd, &m, &fds);

	if (rc != 1)
		return rc;
	if (strcmp(m.name, kActReply) != 0 || decode_reply(m, rep, &why) != 0) {
		DVS_LOG(ERR, "an answer from the primary refused: %s",
			why.empty() ? "not an answer" : why.c_str());
		return -EBADMSG;
	}
	if (rep->seq != seq) {
		DVS_LOG(ERR, "the primary answered request %u, not %u", rep->seq, seq);
		return -EBADMSG;
	}
	return 1;
}

/* Wait up to @wait_ms for the answer to @seq on @rd. On a timeout, @rd
 * is shut for reading first: an answer sent before that is taken. */
int await_reply(int rd, uint32_t seq, int wait_ms, ReplyMsg *rep)
{
	auto deadline = std::chrono::steady_clock::now() + std::chrono::milliseconds(wait_ms);

	for (;;) {
		auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
			deadline - std::chrono::steady_clock::now());
		struct pollfd p = { rd, POLLIN, 0 };
		int n = poll(&p, 1, static_cast<int>(std::max<int64_t>(left.count(), 0)));
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return -errno;
		if (n == 0) {
			(void)shutdown(rd, SHUT_RD);
			return take_reply(rd, seq, rep) == 1 ? 0 : -ETIMEDOUT;
		}
		int rc = take_reply(rd, seq, rep);
		if (rc == 1)
			return 0;
		if (rc != 0)
			return rc;
	}
}

/* Send @m (request @seq) with this thread's reply socket as fds[0], and
 * wait up to @wait_ms for its answer. */
int ask(struct rte_mp_msg &m, uint32_t seq, int wait_ms, ReplyMsg *rep)
{
	Library &lib = Library::get();
	Requests &r = requests();
	ReplyPair &pair = reply_pair;

	if (lib.orphaned() != 0 || lib.primary_exited() != 0) {
		DVS_LOG(ERR, "the primary (pid %d) is gone: nothing can be created or destroyed",
			lib.orphaned() != 0 ? lib.orphaned() : lib.primary_exited());
		return -ENOTCONN;
	}
	if (!pair.rd.valid()) {
		int rc = channel_reply_pair(&pair.rd, &pair.wr);
		if (rc != 0) {
			DVS_LOG(ERR, "%s: no socket for the answer: %s", m.name, strerror(-rc));
			return rc;
		}
	}
	{
		std::lock_guard<std::mutex> lock(r.mu);
		if (r.failed != 0)
			return r.failed;
		r.waiting[seq] = pair.rd.get();
	}
	for (int i = m.num_fds; i > kReplyFd; i--)
		m.fds[i] = m.fds[i - 1];
	m.fds[kReplyFd] = pair.wr.get();
	m.num_fds++;
	int fd = ipc_secondary_channel();
	int rc = fd >= 0 ? channel_send_wait(fd, m, 1000) : -ENOTCONN;
	bool sent = rc == 0;
	if (sent)
		rc = await_reply(pair.rd.get(), seq, wait_ms, rep);
	{
		std::lock_guard<std::mutex> lock(r.mu);
		r.waiting.erase(seq);
		if (rc != 0 && r.failed != 0)
			rc = r.failed;
	}
	if (rc != 0 && sent)
		pair = ReplyPair{}; /* shut, or an answer may still come: not reused */
	if (rc != 0)
		DVS_LOG(ERR, "%s: no answer from the primary: %s", m.name, strerror(-rc));
	return rc;
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

void ipc_requests_fail(int err)
{
	Requests &r = requests();
	std::lock_guard<std::mutex> lock(r.mu);

	r.failed = err;
	for (const auto &[seq, rd] : r.waiting)
		(void)shutdown(rd, SHUT_RD);
}

int ipc_remote_create(const RemoteCreate &c, uint32_t *slot, uint32_t *gen, pid_t *primary)
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
	int rc = ask(m, q.seq, kCreateWaitMs, &rep);
	if (rc != 0)
		return rc;
	if (c.kind == DVSHARE_TYPE_OBJ && c.out != nullptr)
		memcpy(c.out, rep.out, std::min<size_t>(c.outlen, rep.outlen));
	if (rep.status != 0)
		return rep.status;
	*slot = rep.slot;
	*gen = rep.gen;
	*primary = rep.hdr.pid;
	fault_point("create-reply");
	return 0;
}

int ipc_remote_destroy(const char *ibdev, const char *name, unsigned int timeout_ms)
{
	uint32_t seq = next_seq();
	struct rte_mp_msg m;
	ReplyMsg rep;

	/* The primary's destroy waits for this process's ack too, which
	 * that thread would send. */
	if (rte_thread_is_intr() != 0) {
		DVS_LOG(ERR, "%s: no destroy of %s from DPDK's interrupt thread (an event callback) "
			     "in a secondary: it waits for an answer that thread sends", ibdev, name);
		return -EDEADLK;
	}
	mp_pack(&m, kActDestroy, destroy_req(seq, ibdev, name, timeout_ms));
	int rc = ask(m, seq, static_cast<int>(std::min(timeout_ms, 10000u)) + kCreateWaitMs, &rep);
	return rc != 0 ? rc : rep.status;
}

} // namespace dvs
