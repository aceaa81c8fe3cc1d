/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Secondary side of its requests to the primary (creates, destroys of what
 * it owns): each goes on a request line (ipc_proto.h, LineMsg) the asking
 * thread holds alone until its answer comes back there, so that it reads
 * its own answer and the primary's request thread reads the request
 * itself. Lines are kept in a pool for the process, up to kLinesPerPeer
 * (a thread past that waits for one). A caller that gives up (timed out)
 * shuts its line for reading, takes what came before that, and drops the
 * line: the primary's answer fails from then on, and it destroys what it
 * made for the caller, so a timeout leaves nothing behind.
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
#include <vector>

#include <fcntl.h>
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
#include "reply_wait.h"

namespace dvs {

namespace {

/* How long a create waits for its answer: the primary runs requests one
 * at a time, and one may be a destroy waiting for acks. */
constexpr int kCreateWaitMs = 30000;

using Line = ReplyLine;

struct Requests {
	std::mutex mu;
	std::condition_variable line_freed;
	uint32_t seq = 0;
	/* Lines no request holds, and lines open in all. */
	std::vector<Line> idle;
	unsigned int lines = 0;
	/* Lines waited on, by sequence number: shut when the primary is
	 * gone, which wakes their threads. */
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

/* A new line, announced to the primary on the channel. */
int open_line(Line *line)
{
	Fd theirs;
	struct rte_mp_msg m;
	LineMsg l{};
	int rc = channel_line_pair(&line->fd, &theirs);

	if (rc != 0)
		return rc;
	l.hdr = mp_hdr();
	mp_pack(&m, kActLine, l);
	m.num_fds = 1;
	m.fds[0] = theirs.get();
	int fd = ipc_secondary_channel();
	return fd >= 0 ? channel_send_wait(fd, m, 1000) : -ENOTCONN;
}

/* A line for one request: an idle one, a new one while there are fewer
 * than kLinesPerPeer, else the first one freed before @deadline. */
int take_line(Line *line, std::chrono::steady_clock::time_point deadline)
{
	Requests &r = requests();
	std::unique_lock<std::mutex> lock(r.mu);

	for (;;) {
		if (r.failed != 0)
			return r.failed;
		if (!r.idle.empty()) {
			*line = std::move(r.idle.back());
			r.idle.pop_back();
			return 0;
		}
		if (r.lines < kLinesPerPeer) {
			r.lines++;
			lock.unlock();
			int rc = open_line(line);
			if (rc != 0) {
				*line = Line();
				lock.lock();
				r.lines--;
				r.line_freed.notify_one();
			}
			return rc;
		}
		if (r.line_freed.wait_until(lock, deadline) == std::cv_status::timeout)
			return -ETIMEDOUT;
	}
}

/* @line back to the pool, or (@keep false: it failed, or an answer may
 * still come on it) closed. */
void give_line(Line line, bool keep)
{
	Requests &r = requests();
	std::lock_guard<std::mutex> lock(r.mu);

	if (keep && r.failed == 0)
		r.idle.push_back(std::move(line));
	else
		r.lines--;
	r.line_freed.notify_one();
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

/* Send @m (request @seq) on a line of its own, and wait up to @wait_ms
 * for its answer there. */
int ask(const struct rte_mp_msg &m, uint32_t seq, int wait_ms, ReplyMsg *rep)
{
	Library &lib = Library::get();
	Requests &r = requests();
	Line line;

	if (lib.orphaned() != 0 || lib.primary_exited() != 0) {
		DVS_LOG(ERR, "the primary (pid %d) is gone: nothing can be created or destroyed",
			lib.orphaned() != 0 ? lib.orphaned() : lib.primary_exited());
		return -ENOTCONN;
	}
	int rc = take_line(&line, std::chrono::steady_clock::now() +
					  std::chrono::milliseconds(wait_ms));
	if (rc != 0) {
		DVS_LOG(ERR, "%s: no request line to the primary: %s", m.name, strerror(-rc));
		return rc;
	}
	{
		std::lock_guard<std::mutex> lock(r.mu);
		r.waiting[seq] = line.fd.get();
	}
	rc = channel_send_wait(line.fd.get(), m, 1000);
	if (rc == 0)
		rc = await_reply(line, seq, wait_ms, rep);
	{
		std::lock_guard<std::mutex> lock(r.mu);
		r.waiting.erase(seq);
		if (rc != 0 && r.failed != 0)
			rc = r.failed;
	}
	give_line(std::move(line), rc == 0);
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
	r.lines -= static_cast<unsigned int>(r.idle.size());
	r.idle.clear();
	r.line_freed.notify_all();
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
