/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A hostile process of the same uid, for the fault suite: it speaks
 * rte_mp on DPDK's sockets and dvshare's channel directly, without EAL,
 * lying about who it is, sending what it should not and dying half-way.
 * It prints one line per thing it did, and last "forged N": how many of
 * its messages a sound receiver must refuse (each counted once in
 * dvshare_stats.refused).
 *
 *   hostile forge RUNTIME_DIR VICTIM_PID     at the primary
 *   hostile forge-secondary RUNTIME_DIR PID  at the secondary PID
 *   hostile storm RUNTIME_DIR PROCS ROUNDS   PROCS children a round that
 *                                            connect, say hello, maybe ask
 *                                            to attach, and die at once
 *   hostile flood RUNTIME_DIR N              a peer asking to attach N
 *                                            times on one token and never
 *                                            reading an answer
 *   hostile squat RUNTIME_DIR N              N connections that never say
 *                                            hello, held until killed
 *   hostile requests RUNTIME_DIR NAME        a real peer (welcomed, attached)
 *                                            attacking the creates and
 *                                            destroys a secondary asks the
 *                                            primary for; NAME is an object
 *                                            the primary published. It ends
 *                                            owning the VAR "hv" and dies
 *                                            (_exit) on a line on its stdin
 *   hostile orphan-line RUNTIME_DIR           a real peer that keeps a primary
 *                                            thread on its line (its timeout
 *                                            lifted) and dies with the line
 *                                            in this process, which speaks
 *                                            on it in its name on a line on
 *                                            its stdin; prints "orphan
 *                                            closed"
 *   hostile request-flood RUNTIME_DIR N [pipe]
 *                                            a real peer sending N creates
 *                                            (UMEMs, or OBJs whose command
 *                                            is in a pipe) without reading
 *                                            its channel; prints "flooded
 *                                            N", reads its channel on a
 *                                            line on its stdin
 *
 * Every check of an answer is the hostile's own: a wrong one ends it with
 * "hostile: FAIL: ..." and exit status 3.
 */
#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdarg>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <initializer_list>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dvshare_prm.h"
#include "hostile_wire.h"

using namespace dvs;

namespace {

using namespace hostile;

void expect_refused_hello(const char *what, pid_t claim, int pidfd)
{
	int fd;
	int rc = hello(claim, pidfd, &fd);

	if (rc == 0) {
		fprintf(stderr, "hostile: %s was welcomed\n", what);
		exit(3);
	}
	if (fd >= 0)
		close(fd);
	say(what);
}

void ack_for(int fd_or_neg, const std::string &mp_sock, pid_t victim, uint32_t rid)
{
	struct rte_mp_msg m;
	RevokeAck a{};

	a.hdr = as(victim);
	snprintf(a.ibdev, sizeof(a.ibdev), "sim0");
	a.slot = 0;
	a.gen = 1;
	a.revoke_id = rid;
	mp_pack(&m, kActRevokeAck, a);
	if (fd_or_neg >= 0)
		(void)channel_send(fd_or_neg, m);
	else
		mp_raw(mp_sock, kMpMsg, m);
}

void detach_for(int fd_or_neg, const std::string &mp_sock, pid_t victim)
{
	struct rte_mp_msg m;
	DetachMsg d{};

	d.hdr = as(victim);
	snprintf(d.ibdev, sizeof(d.ibdev), "sim0");
	mp_pack(&m, kActDetach, d);
	if (fd_or_neg >= 0)
		(void)channel_send(fd_or_neg, m);
	else
		mp_raw(mp_sock, kMpMsg, m);
}

int forge(pid_t victim)
{
	std::string prim = rt + "/mp_socket";
	struct rte_mp_msg m;
	int self = pidfd_of(getpid());

	/* Over rte_mp, which says nothing of the sender: dvshare registers
	 * nothing there, so DPDK drops them (never counted by dvshare), and
	 * they change nothing. (None claims more fds than it sends: DPDK
	 * would close whatever its slots hold, dvshare or not.) */
	for (uint32_t rid = 1; rid <= 8; rid++)
		ack_for(-1, prim, victim, rid);
	say("rte_mp: revoke acks naming the victim (DPDK's to drop)", 0);
	detach_for(-1, prim, victim);
	say("rte_mp: a detach naming the victim (DPDK's to drop)", 0);
	AttachReq req{ as(victim), 0, 0, 0x1234 };
	mp_pack(&m, kActAttach, req);
	mp_raw(prim, kMpReq, m);
	say("rte_mp: an attach with a made-up token (DPDK's to drop)", 0);
	HelloMsg h{ as(getpid()) };
	mp_pack(&m, kActHello, h);
	mp_raw(prim, kMpMsg, m);
	ByeMsg b{ as(victim), kByeMagic };
	mp_pack(&m, kActBye, b);
	mp_raw(prim, kMpMsg, m);
	say("rte_mp: a hello and a goodbye (DPDK's to drop)", 0);

	/* The channel, as something that is no DPDK process of the prefix. */
	expect_refused_hello("channel: a hello from a process mapping no config", getpid(), self);
	map_config();
	/* Lies the kernel catches. */
	expect_refused_hello("channel: a hello naming the victim", victim, self);
	expect_refused_hello("channel: a hello naming pid 1", 1, self);
	expect_refused_hello("channel: a hello naming the primary", primary_pid(), self);
	int vfd = pidfd_of(victim);
	expect_refused_hello("channel: a hello with the victim's pidfd", getpid(), vfd);
	close(vfd);
	/* A pidfd of this process's main thread only (PIDFD_THREAD, Linux
	 * 6.9): its exit is not the process's. */
	int tfd = static_cast<int>(syscall(SYS_pidfd_open, getpid(), O_EXCL));
	if (tfd >= 0) {
		expect_refused_hello("channel: a hello with a thread pidfd", getpid(), tfd);
		close(tfd);
	} else {
		printf("hostile: no PIDFD_THREAD on this kernel: not tried\n");
	}
	/* Someone else's connection (as after pid reuse: the connector gone
	 * or not, another process speaks on its socket), in its name. */
	{
		int pipefd[2];
		if (pipe(pipefd) != 0)
			return 2;
		pid_t kid = fork();
		if (kid == 0) {
			int c = unix_to(SOCK_SEQPACKET, rt + "/dvshare_channel");
			if (write(pipefd[1], &c, sizeof(c)) != sizeof(c))
				_exit(1);
			pause(); /* holds its connection; the parent sends on it */
			_exit(0);
		}
		int c = -1;
		if (read(pipefd[0], &c, sizeof(c)) != sizeof(c))
			return 2;
		/* The child's socket, taken with pidfd_getfd() (as a process of
		 * the same uid may). */
		int kfd = pidfd_of(kid);
		int theirs = static_cast<int>(syscall(SYS_pidfd_getfd, kfd, c, 0));
		HelloMsg kh{ as(kid) };
		mp_pack(&m, kActHello, kh);
		m.num_fds = 1;
		m.fds[0] = kfd;
		std::vector<Fd> kfds;
		int rc = theirs >= 0 ? channel_send(theirs, m) : -errno;
		if (rc != 0) {
			fprintf(stderr, "hostile: cannot speak on the child's socket: %s\n",
				strerror(-rc));
			return 2;
		}
		if (rc == 0 && channel_recv_wait(theirs, &m, &kfds, 1000) == 1) {
			WelcomeMsg w{};
			std::string why;
			if (decode_welcome(m, &w, &why) == 0 && w.status == 0) {
				fprintf(stderr, "hostile: a hello on another's socket was welcomed\n");
				return 3;
			}
		}
		say("channel: a hello sent on another process's connection, in its name");
		kill(kid, SIGKILL);
		waitpid(kid, nullptr, 0);
		close(kfd);
		if (theirs >= 0)
			close(theirs);
	}

	/* A peer in good standing, then forging on its own channel. */
	int fd;
	if (hello(getpid(), self, &fd) != 0) {
		fprintf(stderr, "hostile: a proper hello was refused\n");
		return 3;
	}
	printf("hostile: welcomed as pid %d\n", getpid());
	for (uint32_t rid = 1; rid <= 8; rid++)
		ack_for(fd, "", victim, rid);
	say("channel: revoke acks naming the victim", 8);
	detach_for(fd, "", victim);
	mp_pack(&m, kActBye, b);
	(void)channel_send(fd, m);
	say("channel: a detach and a goodbye naming the victim", 2);
	mp_pack(&m, kActHello, h);
	m.num_fds = 1;
	m.fds[0] = self;
	(void)channel_send(fd, m);
	say("channel: a second hello");
	(void)send(fd, "junk", 4, 0);
	say("channel: a malformed frame");
	RevokeAck a{};
	a.hdr = as(getpid());
	snprintf(a.ibdev, sizeof(a.ibdev), "sim0");
	a.gen = 1;
	a.revoke_id = 1;
	mp_pack(&m, kActRevokeAck, a);
	m.num_fds = kMpMaxFds;
	for (int i = 0; i < kMpMaxFds; i++)
		m.fds[i] = self;
	(void)channel_send(fd, m);
	say("channel: an ack carrying 8 fds");
	EventMsg ev{};
	ev.hdr = as(getpid());
	ev.event = DVSHARE_EVENT_CLOSED;
	snprintf(ev.ibdev, sizeof(ev.ibdev), "sim0");
	mp_pack(&m, kActEvent, ev);
	(void)channel_send(fd, m);
	say("channel: an event, which only a primary says");
	AttachReq fake{ as(getpid()), 0, 1, 0x1234 };
	mp_pack(&m, kActAttach, fake);
	(void)channel_send(fd, m);
	say("channel: an attach with a made-up token");
	fake.hdr = as(victim);
	mp_pack(&m, kActAttach, fake);
	(void)channel_send(fd, m);
	say("channel: an attach naming the victim");
	/* A child inheriting this channel speaks on it: not the connector. */
	pid_t kid = fork();
	if (kid == 0) {
		ack_for(fd, "", getppid(), 1);
		_exit(0);
	}
	waitpid(kid, nullptr, 0);
	say("channel: an ack from a forked child on its parent's channel");
	expect_refused_hello("channel: a second channel of the same pid", getpid(), self);
	/* Let the primary read everything before this process goes. */
	usleep(300000);
	close(fd);
	return 0;
}

/* Entries of the directory @path (fds, threads of a process in /proc),
 * or -1. */
int count_dir(const std::string &path)
{
	DIR *d = opendir(path.c_str());
	int n = 0;

	if (d == nullptr)
		return -1;
	while (struct dirent *e = readdir(d))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

/* The sockets DPDK's secondary @pid receives rte_mp on. */
std::vector<std::string> sockets_of(pid_t pid)
{
	std::vector<std::string> out;
	std::string pre = "mp_socket_" + std::to_string(pid) + "_";
	DIR *d = opendir(rt.c_str());

	for (struct dirent *e; d != nullptr && (e = readdir(d)) != nullptr;)
		if (strncmp(e->d_name, pre.c_str(), pre.size()) == 0)
			out.push_back(rt + "/" + e->d_name);
	if (d != nullptr)
		closedir(d);
	return out;
}

int forge_secondary(pid_t pid)
{
	std::vector<std::string> socks = sockets_of(pid);
	struct rte_mp_msg m;
	EventMsg ev{};
	RevokeMsg r{};
	ByeMsg b{ as(primary_pid()), kByeMagic };

	if (socks.size() != 1) {
		fprintf(stderr, "hostile: %zu rte_mp sockets of pid %d\n", socks.size(), pid);
		return 2;
	}
	ev.hdr = as(primary_pid());
	snprintf(ev.ibdev, sizeof(ev.ibdev), "sim0");
	for (uint32_t e : { DVSHARE_EVENT_CLOSED, DVSHARE_EVENT_PRIMARY_DIED, DVSHARE_EVENT_PUBLISHED }) {
		ev.event = e;
		mp_pack(&m, kActEvent, ev);
		mp_raw(socks[0], kMpMsg, m);
	}
	say("rte_mp: CLOSED, PRIMARY_DIED and PUBLISHED as the primary (DPDK's to drop)", 0);
	r.hdr = as(primary_pid());
	snprintf(r.ibdev, sizeof(r.ibdev), "sim0");
	r.slot = kRevokeBatch;
	r.revoke_id = 1;
	mp_pack(&m, kActRevoke, r);
	mp_raw(socks[0], kMpMsg, m);
	mp_pack(&m, kActBye, b);
	mp_raw(socks[0], kMpMsg, m);
	say("rte_mp: a batch revoke and a goodbye as the primary (DPDK's to drop)", 0);
	usleep(300000);
	return 0;
}

/* One child of a storm: as far as it gets before it dies. */
void storm_child(int step)
{
	int self = pidfd_of(getpid());
	int fd = unix_to(SOCK_SEQPACKET, rt + "/dvshare_channel");
	struct rte_mp_msg m;
	HelloMsg h{ as(getpid()) };

	map_config();
	if (step == 0)
		_exit(0); /* connected, said nothing */
	mp_pack(&m, kActHello, h);
	m.num_fds = 1;
	m.fds[0] = self;
	(void)channel_send(fd, m);
	if (step == 1)
		_exit(0); /* hello said, the welcome not waited for */
	std::vector<Fd> fds;
	WelcomeMsg w{};
	std::string why;
	if (channel_recv_wait(fd, &m, &fds, 5000) != 1 || decode_welcome(m, &w, &why) != 0)
		_exit(1);
	AttachReq req{ mp_hdr(), 0, 0, w.token };
	mp_pack(&m, kActAttach, req);
	(void)channel_send(fd, m);
	_exit(0); /* asked to attach, gone before the answer */
}

int storm(int procs, int rounds)
{
	for (int r = 0; r < rounds; r++) {
		std::vector<pid_t> kids;
		for (int i = 0; i < procs; i++) {
			pid_t p = fork();
			if (p == 0)
				storm_child(i % 3);
			if (p > 0)
				kids.push_back(p);
		}
		for (pid_t p : kids)
			waitpid(p, nullptr, 0);
		printf("hostile: storm round %d: %zu processes\n", r, kids.size());
		fflush(stdout);
	}
	return 0;
}

/* A peer that asks to attach @n times on one token and never reads its
 * channel: one answer at most waits for it there, the rest are refused. */
int flood(int n)
{
	int self = pidfd_of(getpid()), fd;
	uint64_t token = 0;

	map_config();
	if (hello(getpid(), self, &fd, &token) != 0)
		return 3;
	struct rte_mp_msg m;
	AttachReq req{ mp_hdr(), 0, 0, token };
	mp_pack(&m, kActAttach, req);
	int sent = 0;
	for (int i = 0; i < n; i++)
		sent += channel_send_wait(fd, m, 2000) == 0;
	if (sent != n) {
		fprintf(stderr, "hostile: only %d of %d attach requests went out\n", sent, n);
		return 2;
	}
	/* All but the first are refused: the token is spent. */
	say("channel: attach requests on a spent token", n - 1);
	printf("hostile: flooding done, holding on\nforged %d\n", forged);
	fflush(stdout);
	pause(); /* killed by the test, never having read a thing */
	return 0;
}

/* Connections that never say hello: the primary must not keep them. */
int squat(int n)
{
	std::vector<int> fds;

	for (int i = 0; i < n; i++)
		fds.push_back(unix_to(SOCK_SEQPACKET, rt + "/dvshare_channel"));
	printf("hostile: %d connections, no hello\nforged 0\n", n);
	fflush(stdout);
	pause();
	return 0;
}

/* ------------------------------------------ creates and destroys (proto 5) */

using Clock = std::chrono::steady_clock;

[[noreturn]] void fail(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "hostile: FAIL: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, "\n");
	va_end(ap);
	exit(3);
}

/* A peer in good standing (welcomed, attached) reading its own channel:
 * the primary's answers kept by request, revokes answered as they come
 * unless held back. Its requests go on one request line, or each on a
 * line of its own (to see the primary close it). */
struct Requester {
	int fd = -1;
	uint64_t token = 0;
	uint32_t seq = 0;               /* the last request sent */
	std::map<uint32_t, ReplyMsg> replies;
	Fd line;                        /* most requests go here */
	std::map<uint32_t, Fd> alone;   /* lines of one request, not answered or closed yet */
	std::set<uint32_t> closed;      /* their lines closed by the primary unanswered */
	std::set<uint32_t> silent;      /* requests that must get no answer */
	bool acking = true;
	std::vector<RevokeMsg> revokes; /* not answered yet */
	bool attach_answered = false;
	AttachRep attach{};
	std::vector<Fd> attach_fds;     /* the devices' fds: held, never used */
};

void ack_revokes(Requester &r)
{
	for (const RevokeMsg &rv : r.revokes) {
		struct rte_mp_msg m;
		RevokeAck a{};
		a.hdr = mp_hdr();
		memcpy(a.ibdev, rv.ibdev, sizeof(a.ibdev));
		a.slot = rv.slot;
		a.gen = rv.gen;
		a.revoke_id = rv.revoke_id;
		mp_pack(&m, kActRevokeAck, a);
		if (channel_send_wait(r.fd, m, 2000) != 0)
			fail("cannot answer a revoke");
	}
	r.revokes.clear();
}

/* An answer read from a line: one per request, never to one that had to
 * be refused unanswered. */
uint32_t take_answer(Requester &r, const struct rte_mp_msg &m)
{
	ReplyMsg rep;
	std::string why;

	if (strcmp(m.name, kActReply) != 0 || decode_reply(m, &rep, &why) != 0)
		fail("an answer that does not decode: %s", why.c_str());
	if (r.silent.count(rep.seq) != 0)
		fail("request %u was answered (%d, %s): it had to be refused unanswered", rep.seq,
		     rep.status, strerror(-rep.status));
	if (rep.seq == 0 || rep.seq > r.seq || !r.replies.emplace(rep.seq, rep).second)
		fail("an answer to request %u, never sent or answered already", rep.seq);
	return rep.seq;
}

/* Whatever the lines hold, without waiting: true if anything. */
bool read_replies(Requester &r)
{
	struct rte_mp_msg m;
	std::vector<Fd> fds;
	bool any = false;

	for (auto it = r.alone.begin(); it != r.alone.end();) {
		int rc = channel_recv(it->second.get(), &m, &fds);
		if (rc == 0) {
			++it;
			continue;
		}
		any = true;
		if (rc == 1) {
			if (take_answer(r, m) != it->first)
				fail("request %u: another's answer on its socket", it->first);
		} else if (rc == -EPIPE) {
			r.closed.insert(it->first);
		} else {
			fail("reading the answer to %u: %s", it->first, strerror(-rc));
		}
		it = r.alone.erase(it);
	}
	int rc;
	while (r.line.valid() && (rc = channel_recv(r.line.get(), &m, &fds)) != 0) {
		if (rc != 1)
			fail("its request line: %s", strerror(-rc));
		take_answer(r, m);
		any = true;
	}
	return any;
}

/* One message from the primary, waiting up to @timeout_ms: false if none
 * came. An answer to a request never sent, answered already, or that had
 * to be refused unanswered ends the hostile. */
bool pump(Requester &r, int timeout_ms)
{
	struct rte_mp_msg m;
	std::vector<Fd> fds;
	std::string why;
	std::vector<struct pollfd> pfds{ { r.fd, POLLIN, 0 } };

	if (read_replies(r))
		return true;
	for (const auto &[seq, l] : r.alone)
		pfds.push_back({ l.get(), POLLIN, 0 });
	if (r.line.valid())
		pfds.push_back({ r.line.get(), POLLIN, 0 });
	if (poll(pfds.data(), pfds.size(), timeout_ms) <= 0)
		return false;
	if (read_replies(r))
		return true;
	int rc = channel_recv(r.fd, &m, &fds);
	if (rc == 0)
		return false;
	if (rc != 1)
		fail("reading the channel: %s", strerror(-rc));
	if (strcmp(m.name, kActReply) == 0) {
		fail("an answer on the channel: answers go on the request lines");
	} else if (strcmp(m.name, kActRevoke) == 0) {
		RevokeMsg rv;
		if (decode_revoke(m, &rv, &why) != 0)
			fail("a revoke that does not decode: %s", why.c_str());
		r.revokes.push_back(rv);
		if (r.acking)
			ack_revokes(r);
	} else if (strcmp(m.name, kActAttach) == 0) {
		if (decode_attach_rep(m, &r.attach, &why) != 0)
			fail("an attach answer that does not decode: %s", why.c_str());
		r.attach_answered = true;
		r.attach_fds = std::move(fds);
	}
	/* Events and resyncs: nothing to do for a peer that imports nothing. */
	return true;
}

/* 15 s: a request may wait behind a destroy (10 s at most). */
ReplyMsg await(Requester &r, uint32_t seq)
{
	auto deadline = Clock::now() + std::chrono::seconds(15);

	while (r.replies.count(seq) == 0) {
		if (r.closed.count(seq) != 0)
			fail("request %u: its line closed unanswered", seq);
		if (!pump(r, 100) && Clock::now() > deadline)
			fail("no answer to request %u in 15 s", seq);
	}
	return r.replies[seq];
}

/* Hand the primary @fd as a request line, on the channel. */
void announce(Requester &r, int fd)
{
	struct rte_mp_msg m;
	LineMsg l{ mp_hdr() };

	mp_pack(&m, kActLine, l);
	m.num_fds = 1;
	m.fds[0] = fd;
	if (channel_send_wait(r.fd, m, 2000) != 0)
		fail("cannot hand the primary a line");
}

/* A new request line, as a secondary makes one. */
Fd new_line(Requester &r)
{
	Fd mine, theirs;

	if (channel_line_pair(&mine, &theirs) != 0)
		fail("a line's socket pair: %s", strerror(errno));
	announce(r, theirs.get());
	return mine;
}

/* Send @q (its sequence number set here) with @fds on @line. */
template <typename T>
uint32_t send_on(Requester &r, int line, const char *act, T q, const std::vector<int> &fds)
{
	struct rte_mp_msg m;

	q.seq = ++r.seq;
	mp_pack(&m, act, q);
	for (int f : fds)
		m.fds[m.num_fds++] = f;
	int rc = channel_send_wait(line, m, 2000);
	if (rc != 0)
		fail("cannot send request %u: %s", q.seq, strerror(-rc));
	return q.seq;
}

/* Send @q with @fds on its request line, as a secondary does. */
template <typename T>
uint32_t send_req(Requester &r, const char *act, T q, std::initializer_list<int> fds = {})
{
	if (!r.line.valid())
		r.line = new_line(r);
	return send_on(r, r.line.get(), act, q, fds);
}

/* The same on a new line of its own, to see what the primary does with
 * that line. */
template <typename T>
uint32_t send_alone(Requester &r, const char *act, T q, std::initializer_list<int> fds = {})
{
	Fd l = new_line(r);
	uint32_t seq = send_on(r, l.get(), act, q, fds);

	r.alone[seq] = std::move(l);
	return seq;
}

CreateReq create_req(uint32_t kind, const char *dev, const char *name)
{
	CreateReq q{};

	q.hdr = mp_hdr();
	q.kind = kind;
	snprintf(q.ibdev, sizeof(q.ibdev), "%s", dev);
	snprintf(q.name, sizeof(q.name), "%s", name);
	return q;
}

CreateReq var_req(const char *dev, const char *name)
{
	return create_req(DVSHARE_TYPE_VAR, dev, name);
}

CreateReq umem_req(const char *name, uint64_t addr, uint64_t size)
{
	CreateReq q = create_req(DVSHARE_TYPE_UMEM, "sim0", name);

	q.addr = addr;
	q.size = size;
	return q;
}

/* The commands of its OBJ creates: a header and zeros, longer than any
 * a request carries in itself, so that each comes in the fd beside it. */
constexpr uint32_t kCmdLen = 64;
static_assert(kCmdLen > kCreateInline);

CreateReq obj_req(const char *name)
{
	CreateReq q = create_req(DVSHARE_TYPE_OBJ, "sim0", name);

	q.inlen = kCmdLen;
	q.outlen = DVSHARE_PRM_HDR_SIZE;
	return q;
}

/* An OBJ create whose @len bytes of command travel in the request. */
CreateReq inline_req(const char *name, const uint8_t *cmd, uint32_t len)
{
	CreateReq q = create_req(DVSHARE_TYPE_OBJ, "sim0", name);

	q.inlen = len;
	q.outlen = DVSHARE_PRM_HDR_SIZE;
	memcpy(q.cmd, cmd, std::min<size_t>(len, sizeof(q.cmd)));
	return q;
}

DestroyReq destroy_req(const char *dev, const char *name, uint32_t timeout_ms)
{
	DestroyReq d{};

	d.hdr = mp_hdr();
	d.timeout_ms = timeout_ms;
	snprintf(d.ibdev, sizeof(d.ibdev), "%s", dev);
	snprintf(d.name, sizeof(d.name), "%s", name);
	return d;
}


/* @len bytes of @cmd in a sealed memfd, as a secondary sends a command. */
Fd command_fd(const void *cmd, size_t len)
{
	Fd fd(memfd_create("hostile-cmd", MFD_CLOEXEC | MFD_ALLOW_SEALING));

	if (!fd.valid() || write(fd.get(), cmd, len) != static_cast<ssize_t>(len) ||
	    fcntl(fd.get(), F_ADD_SEALS,
		  F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) != 0)
		fail("a memfd for a command: %s", strerror(errno));
	return fd;
}

/* Request @seq must be answered @status; @counted: and counted refused
 * (said so, for "forged"). */
void expect(Requester &r, uint32_t seq, int status, const std::string &what, bool counted = false)
{
	ReplyMsg rep = await(r, seq);

	if (rep.status != status)
		fail("%s: answered %d (%s), not %d (%s)", what.c_str(), rep.status,
		     strerror(-rep.status), status, strerror(-status));
	if (counted) {
		say((what + ": " + strerror(-status) + ", counted").c_str());
		return;
	}
	printf("hostile: %s: %s\n", what.c_str(), status == 0 ? "done" : strerror(-status));
	fflush(stdout);
}

/* A new line whose read timeout this process lifts, through @theirs (a
 * dup of the primary's end, kept): two requests answered there, and a
 * primary thread stays on it for good after the second (the other may
 * take it back, request_lines.cpp). Returns this process's end. */
Fd pinned_line(Requester &r, Fd *theirs)
{
	Fd mine;

	if (channel_line_pair(&mine, theirs) != 0)
		fail("a line's socket pair: %s", strerror(errno));
	announce(r, theirs->get());
	uint32_t seq = send_on(r, mine.get(), kActDestroy, destroy_req("sim0", "nope", 1000), {});
	r.alone[seq] = Fd(dup(mine.get()));
	expect(r, seq, -ENOENT, "a request on a line whose timeout is lifted next");
	struct timeval forever = {};
	if (setsockopt(theirs->get(), SOL_SOCKET, SO_RCVTIMEO, &forever, sizeof(forever)) != 0)
		fail("SO_RCVTIMEO: %s", strerror(errno));
	/* Any thread's wait on a line (1 ms) is over: the next one to serve
	 * this line stays on it, with no timeout now. */
	usleep(50 * 1000);
	seq = send_on(r, mine.get(), kActDestroy, destroy_req("sim0", "nope", 1000), {});
	r.alone[seq] = Fd(dup(mine.get()));
	expect(r, seq, -ENOENT, "a request on a line whose timeout was lifted");
	return mine;
}


/* Requests @seqs, each sent alone, the primary must refuse unanswered
 * (and count): it closes their lines, and never answers. */
void unanswered(Requester &r, std::initializer_list<uint32_t> seqs, const char *what)
{
	auto deadline = Clock::now() + std::chrono::seconds(10);
	auto open = [&] {
		return std::any_of(seqs.begin(), seqs.end(),
				   [&](uint32_t seq) { return r.closed.count(seq) == 0; });
	};

	r.silent.insert(seqs);
	while (open())
		if (!pump(r, 100) && Clock::now() > deadline)
			fail("requests refused unanswered: lines still open after 10 s");
	say(what, static_cast<int>(seqs.size()));
}

/* Welcomed as itself (a DPDK process of the prefix to the primary: it
 * maps the config). */
void join(Requester &r)
{
	int self = pidfd_of(getpid());

	map_config();
	if (hello(getpid(), self, &r.fd, &r.token) != 0)
		fail("a proper hello was refused");
	close(self);
}

/* Attached to every device the primary shares, as a secondary does it:
 * the request with its channel's token, the answer (and the devices'
 * fds), both on the channel. */
void attach(Requester &r)
{
	struct rte_mp_msg m;
	AttachReq req{ mp_hdr(), 0, 1, r.token };
	auto deadline = Clock::now() + std::chrono::seconds(10);

	mp_pack(&m, kActAttach, req);
	if (channel_send_wait(r.fd, m, 2000) != 0)
		fail("cannot ask to attach");
	while (!r.attach_answered)
		if (!pump(r, 100) && Clock::now() > deadline)
			fail("no answer to the attach in 10 s");
	if (r.attach.status != 0 || r.attach.count == 0 || r.attach.count != r.attach.total)
		fail("attach answered %d, %u of %u device(s)", r.attach.status, r.attach.count,
		     r.attach.total);
	printf("hostile: attached to %u device(s) as pid %d\n", r.attach.count, getpid());
	fflush(stdout);
}

/* What a secondary may ask of the primary, asked wrongly by a real peer
 * of its own right. It ends owning the VAR "hv", and dies without a
 * goodbye when the test says so: the primary must reclaim it. */
int requests(const char *published, uint32_t primary_umem_id)
{
	Requester r;

	join(r);
	/* A peer, attached to nothing yet: nothing to create on. */
	expect(r, send_req(r, kActCreate, var_req("sim0", "early")), -ENODEV,
	       "a create before attaching");
	attach(r);

	/* An OBJ's command must be memory of exactly the length said: else
	 * refused (counted) and answered, the request being well formed. The
	 * command is a real one (ALLOC_PD): only how it comes is wrong. */
	uint8_t pd[2 * kCmdLen] = {};
	dvshare_prm_obj_cmd(pd, DVSHARE_PRM_CMD_ALLOC_PD, 0, 0);
	int pfd[2];
	if (pipe2(pfd, O_CLOEXEC) != 0 ||
	    write(pfd[1], pd, kCmdLen) != static_cast<ssize_t>(kCmdLen))
		fail("pipe: %s", strerror(errno));
	expect(r, send_req(r, kActCreate, obj_req("o1"), { pfd[0] }), -EINVAL,
	       "an OBJ create whose command is in a pipe", true);
	close(pfd[0]);
	close(pfd[1]);
	Fd big = command_fd(pd, sizeof(pd));
	expect(r, send_req(r, kActCreate, obj_req("o2"), { big.get() }), -EINVAL,
	       "an OBJ create of 64 bytes whose memfd holds 128", true);

	/* Refused by the decoder: counted, never answered, the line closed. */
	Fd cmd = command_fd(pd, kCmdLen);
	uint32_t nofd = send_alone(r, kActCreate, obj_req("o3"));
	uint32_t twofds = send_alone(r, kActCreate, obj_req("o4"), { cmd.get(), cmd.get() });
	uint32_t varfd = send_alone(r, kActCreate, var_req("sim0", "o5"), { cmd.get() });
	uint32_t kind = send_alone(r, kActCreate, create_req(7, "sim0", "o6"));
	uint32_t at0 = send_alone(r, kActCreate, umem_req("o7", 0, 4096));
	uint32_t inlinefd = send_alone(r, kActCreate, inline_req("o8", pd, DVSHARE_PRM_HDR_SIZE),
				     { cmd.get() });
	uint32_t tiny = send_alone(r, kActCreate, inline_req("o9", pd, 8));
	unanswered(r, { nofd, twofds, varfd, kind, at0, inlinefd, tiny },
		   "creates the decoder refuses: an OBJ without its fd, one with two, a VAR with "
		   "one, kind 7, a UMEM at 0, a command in the request with an fd too, one of 8 "
		   "bytes");

	/* In another's name, on its own line: counted, never answered. */
	pid_t prim = primary_pid();
	if (prim <= 0)
		fail("no primary pid in %s/dvshare_primary", rt.c_str());
	CreateReq as_prim = var_req("sim0", "fv1"), as_init = var_req("sim0", "fv2");
	as_prim.hdr.pid = prim;
	as_init.hdr.pid = 1;
	DestroyReq kill_as_prim = destroy_req("sim0", published, 1000);
	kill_as_prim.hdr.pid = prim;
	unanswered(r, { send_alone(r, kActCreate, as_prim), send_alone(r, kActCreate, as_init),
			send_alone(r, kActDestroy, kill_as_prim) },
		   "requests naming another pid: creates as the primary and as pid 1, a destroy "
		   "as the primary");

	/* Lines that would take answers elsewhere than to a socket it made:
	 * a pipe, a stream socket, its connection to the primary itself
	 * (whose far end is the primary's). Counted, never written to. */
	int pp[2], sp[2];
	Fd to_primary(unix_to(SOCK_SEQPACKET, rt + "/dvshare_channel"));
	if (pipe2(pp, O_CLOEXEC) != 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp) != 0 ||
	    !to_primary.valid())
		fail("pipes and sockets: %s", strerror(errno));
	announce(r, pp[1]);
	announce(r, sp[1]);
	announce(r, to_primary.get());
	/* The channel is read in order: once a line sent after them is
	 * served, they were handled. */
	expect(r, send_alone(r, kActDestroy, destroy_req("sim0", "nope", 1000)), -ENOENT,
	       "a request on a line announced after them");
	struct pollfd pp0 = { pp[0], POLLIN, 0 };
	if (poll(&pp0, 1, 0) != 0)
		fail("the primary wrote to a pipe given as a line");
	say("lines that are a pipe, a stream socket, a socket to the primary", 3);
	for (int f : { pp[0], pp[1], sp[0], sp[1] })
		close(f);
	to_primary.reset();

	/* A caller that gives up (shuts its line before the answer comes):
	 * what was made for it is destroyed, not left behind. */
	{
		Fd gave_up = new_line(r);
		if (shutdown(gave_up.get(), SHUT_RD) != 0)
			fail("shutdown: %s", strerror(errno));
		(void)send_on(r, gave_up.get(), kActCreate, var_req("sim0", "gaveup"), {});
		auto until = Clock::now() + std::chrono::seconds(10);
		int st;
		while ((st = await(r, send_req(r, kActCreate, var_req("sim0", "gaveup"))).status) ==
			       -EEXIST &&
		       Clock::now() < until)
			(void)pump(r, 100);
		if (st != 0)
			fail("a VAR made for a caller that gave up: made again %d (%s)", st,
			     strerror(-st));
		expect(r, send_req(r, kActDestroy, destroy_req("sim0", "gaveup", 1000)), 0,
		       "a VAR made for a caller that gave up, destroyed by the primary, made again "
		       "and destroyed");
	}

	/* A line handed over twice: two registrations of one socket (both
	 * count towards its 16), and a request on it answered once. */
	{
		Fd twice, theirs;
		if (channel_line_pair(&twice, &theirs) != 0)
			fail("a line's socket pair: %s", strerror(errno));
		announce(r, theirs.get());
		announce(r, theirs.get());
		theirs.reset();
		Fd keep(dup(twice.get()));
		uint32_t seq = send_on(r, twice.get(), kActDestroy, destroy_req("sim0", "nope", 1000),
				       {});
		r.alone[seq] = std::move(twice);
		expect(r, seq, -ENOENT, "a request on a line handed over twice");
		struct rte_mp_msg m;
		std::vector<Fd> fds;
		if (channel_recv_wait(keep.get(), &m, &fds, 300) != -ETIMEDOUT)
			fail("a request on a line handed over twice: answered twice");
	}

	/* A line whose read timeout its sender lifts (it kept a dup of the
	 * primary's end): the primary's thread that stays on a line after a
	 * request would wait on it for good. The other thread takes it back
	 * at its next wake-up past 2 s: the line is shut and closed (the
	 * primary holds its socket no more), counted, and requests go on. */
	{
		Fd theirs;
		Fd keep = pinned_line(r, &theirs);
		struct stat st;
		if (fstat(theirs.get(), &st) != 0)
			fail("fstat: %s", strerror(errno));
		const std::string sock = "socket:[" + std::to_string(st.st_ino) + "]";
		const std::string proc = "/proc/" + std::to_string(primary_pid());
		const std::string pfd = proc + "/fd";
		const int threads0 = count_dir(proc + "/task");
		auto holds = [&] {
			DIR *d = opendir(pfd.c_str());
			bool found = false;
			char link[64];
			for (struct dirent *e; d != nullptr && (e = readdir(d)) != nullptr;) {
				ssize_t n = readlinkat(dirfd(d), e->d_name, link, sizeof(link) - 1);
				found |= n > 0 && sock.compare(0, sock.size(), link, n) == 0 &&
					 static_cast<size_t>(n) == sock.size();
			}
			if (d != nullptr)
				closedir(d);
			return found;
		};
		if (!holds())
			fail("the primary does not hold the line it was given");
		usleep(2200 * 1000);
		expect(r, send_req(r, kActDestroy, destroy_req("sim0", "nope", 1000)), -ENOENT,
		       "a request on another line past 2 s");
		auto until = Clock::now() + std::chrono::seconds(5);
		while (holds() && Clock::now() < until)
			usleep(10 * 1000);
		if (holds())
			fail("a line whose timeout was lifted: still held 5 s after the take-back");
		if (count_dir(proc + "/task") != threads0)
			fail("a line whose timeout was lifted: the primary's threads %d -> %d", threads0,
			     count_dir(proc + "/task"));
		say("a line whose read timeout was lifted: its thread taken back, the line closed");
	}

	/* At most kLinesPerPeer lines: past them a line is answered once
	 * (-EMFILE, sequence 0) and closed, counted. Each line is asked a
	 * destroy of nothing: a line taken answers it. The primary's fds and
	 * threads (/proc, same uid) grow by its 16 lines at most, and come
	 * back once they are closed. */
	{
		constexpr int kTries = 200;
		const pid_t prim = primary_pid();
		const std::string pfd = "/proc/" + std::to_string(prim) + "/fd";
		const std::string ptask = "/proc/" + std::to_string(prim) + "/task";
		const int fds0 = count_dir(pfd), threads0 = count_dir(ptask);
		std::vector<Fd> extra;
		std::vector<uint32_t> seqs;
		int taken = 0, refused = 0;
		for (int i = 0; i < kTries; i++)
			extra.push_back(new_line(r));
		for (Fd &l : extra) {
			struct rte_mp_msg m;
			DestroyReq d = destroy_req("sim0", "nope", 1000);
			d.seq = ++r.seq;
			mp_pack(&m, kActDestroy, d);
			(void)channel_send_wait(l.get(), m, 2000); /* EPIPE once refused */
			seqs.push_back(d.seq);
		}
		for (size_t i = 0; i < extra.size(); i++) {
			struct rte_mp_msg m;
			std::vector<Fd> fds;
			ReplyMsg rep;
			std::string why;
			int rc = channel_recv_wait(extra[i].get(), &m, &fds, 5000);
			/* Closed with its request unread: the kernel says so
			 * first, then gives what was sent before. */
			if (rc == -ECONNRESET)
				rc = channel_recv_wait(extra[i].get(), &m, &fds, 5000);
			if (rc != 1 || decode_reply(m, &rep, &why) != 0)
				fail("line %zu of %d: no answer and no refusal (%s)", i, kTries,
				     rc != 1 ? strerror(-rc) : why.c_str());
			if (rep.seq == seqs[i] && rep.status == -ENOENT) {
				taken++;
				continue;
			}
			if (rep.seq != 0 || rep.status != -EMFILE)
				fail("line %zu: answered %u %d, not a refusal", i, rep.seq, rep.status);
			rc = channel_recv_wait(extra[i].get(), &m, &fds, 5000);
			if (rc != -EPIPE && rc != -ECONNRESET)
				fail("line %zu: refused but not closed (%d)", i, rc);
			refused++;
		}
		if (taken > static_cast<int>(kLinesPerPeer) - 1 || taken + refused != kTries)
			fail("%d more lines: %d taken beside its first, %d refused", kTries, taken,
			     refused);
		const int fds1 = count_dir(pfd), threads1 = count_dir(ptask);
		extra.clear();
		int fds2 = count_dir(pfd);
		for (int i = 0; i < 300 && fds2 > fds0; i++, usleep(10000))
			fds2 = count_dir(pfd);
		printf("hostile: %d more lines: primary fds %d -> %d with %d taken -> %d once "
		       "closed; threads %d -> %d\n", kTries, fds0, fds1, taken, fds2, threads0,
		       threads1);
		if (fds1 > fds0 + taken || fds2 > fds0 || threads1 != threads0)
			fail("the primary kept what it refused: fds %d -> %d -> %d, threads %d -> %d",
			     fds0, fds1, fds2, threads0, threads1);
		say("lines past 16: -EMFILE, closed, counted", refused);
	}

	/* Well formed, refused by what they ask: answered, not counted. */
	uint8_t cq[kCmdLen] = {};
	dvshare_prm_obj_cmd(cq, 0x0400 /* CREATE_CQ */, 0, 0);
	Fd cqf = command_fd(cq, sizeof(cq));
	expect(r, send_req(r, kActCreate, obj_req("cq"), { cqf.get() }), -EOPNOTSUPP,
	       "an OBJ create of CREATE_CQ, not a create dvshare takes");
	expect(r, send_req(r, kActCreate, inline_req("cq2", cq, DVSHARE_PRM_HDR_SIZE)), -EOPNOTSUPP,
	       "the same, its command in the request");
	/* A key over a UMEM that is not its own (the primary's): dvshare's
	 * rule, before the device. */
	uint8_t mkey[DVSHARE_PRM_MKEY_SIZE];
	struct dvshare_prm_mkey m = {};
	m.lr = m.lw = 1;
	m.len = 4096;
	m.umem_id = primary_umem_id;
	dvshare_prm_mkey_create_direct(mkey, &m);
	Fd mk = command_fd(mkey, sizeof(mkey));
	CreateReq mreq = obj_req("mkey");
	mreq.inlen = sizeof(mkey);
	expect(r, send_req(r, kActCreate, mreq, { mk.get() }), -EPERM,
	       "a key over the primary's own UMEM");
	expect(r, send_req(r, kActCreate, inline_req("mkey2", mkey, DVSHARE_PRM_HDR_SIZE)), -EINVAL,
	       "a CREATE_MKEY shorter than its mkc (the kernel's refusal)");
	static uint8_t own[8192] __attribute__((aligned(4096)));
	expect(r, send_req(r, kActCreate, umem_req("u1", 0x10000, 4096)), -EINVAL,
	       "a UMEM at 0x10000, no DPDK memory");
	CreateReq in_own = umem_req("u2", reinterpret_cast<uintptr_t>(own), sizeof(own));
	expect(r, send_req(r, kActCreate, in_own), -EINVAL, "a UMEM in its own memory");
	std::string name = published;
	expect(r, send_req(r, kActDestroy, destroy_req("sim0", published, 1000)), -EPERM,
	       "a destroy of " + name + ", the primary's");
	expect(r, send_req(r, kActCreate, var_req("sim0", published)), -EEXIST,
	       "a VAR named " + name + ", which is still there");
	expect(r, send_req(r, kActDestroy, destroy_req("sim0", "nope", 1000)), -ENOENT,
	       "a destroy of a name nobody published");
	expect(r, send_req(r, kActCreate, var_req("nosuch", "n1")), -ENODEV,
	       "a create on a device that does not exist");
	expect(r, send_req(r, kActDestroy, destroy_req("nosuch", "n1", 1000)), -ENODEV,
	       "a destroy on a device that does not exist");

	/* Its own objects: 16 it may destroy, one it gave the primary. */
	constexpr int kUnderWay = 16; /* PeerRequests::kPerPeer */
	std::vector<std::string> mine;
	for (int i = 0; i < kUnderWay; i++) {
		mine.push_back("hb" + std::to_string(i));
		const char *n = mine.back().c_str();
		ReplyMsg rep = await(r, send_req(r, kActCreate, var_req("sim0", n)));
		if (rep.status != 0)
			fail("a VAR %s of its own: answered %d (%s)", n, rep.status,
			     strerror(-rep.status));
	}
	printf("hostile: VARs hb0 to hb%d of its own: done\n", kUnderWay - 1);
	CreateReq hp = var_req("sim0", "hp");
	hp.flags = kCreatePersist;
	expect(r, send_req(r, kActCreate, hp), 0, "a persistent VAR hp, the primary's");
	expect(r, send_req(r, kActDestroy, destroy_req("sim0", "hp", 1000)), -EPERM,
	       "a destroy of hp, given away");

	/* At most 16 requests under way. Its destroys of hb0 to hb15 each
	 * wait for the ack of every process attached, its own included, which
	 * it holds back: they are the 16, and what it asks past them is
	 * answered -EAGAIN at once (counted). The primary runs one destroy of
	 * a peer at a time, so one revoke comes while the others wait: a peer
	 * holds one of the primary's destroy threads, not 16. Each create was
	 * let go of just after its answer: a moment for that. */
	usleep(100000);
	r.acking = false;
	std::vector<uint32_t> held, past;
	for (const std::string &n : mine)
		held.push_back(send_req(r, kActDestroy, destroy_req("sim0", n.c_str(), 10000)));
	for (int i = 0; i < 4; i++)
		past.push_back(send_req(r, kActCreate, umem_req("u3", 0x10000, 4096)));
	auto busy = [&] {
		int n = 0;
		for (uint32_t seq : past)
			n += r.replies.count(seq) != 0 && r.replies[seq].status == -EAGAIN;
		return n;
	};
	auto deadline = Clock::now() + std::chrono::seconds(5);
	while ((r.revokes.empty() || busy() < 4) && Clock::now() < deadline)
		(void)pump(r, 100);
	while (pump(r, 300)) /* and any more there are */
		;
	for (size_t i = 0; i < held.size(); i++)
		if (r.replies.count(held[i]) != 0)
			fail("its destroy of %s was answered %d (%s) before it acked the revoke",
			     mine[i].c_str(), r.replies[held[i]].status,
			     strerror(-r.replies[held[i]].status));
	if (r.revokes.size() != 1 || busy() != 4)
		fail("%zu destroys held, 4 requests past them: %zu revokes (1 expected: one "
		     "destroy of a peer at a time), %d answered -EAGAIN",
		     held.size(), r.revokes.size(), busy());
	say("requests past 16 under way: -EAGAIN at once, counted", busy());
	r.acking = true;
	ack_revokes(r);
	for (size_t i = 0; i < held.size(); i++)
		if (await(r, held[i]).status != 0)
			fail("its destroy of %s, once it let go: answered %d (%s)", mine[i].c_str(),
			     r.replies[held[i]].status, strerror(-r.replies[held[i]].status));
	printf("hostile: its %zu destroys, once it let go: done\n", held.size());

	/* One it owns, and dies holding. */
	expect(r, send_req(r, kActCreate, var_req("sim0", "hv")), 0, "a VAR hv of its own");
	/* A child holds its request line past its death: the primary closes
	 * its end then (a line speaks for its peer only), which the child
	 * tells with "holder closed", or "holder open" after 20 s. */
	pid_t holder = fork();
	if (holder < 0)
		fail("fork: %s", strerror(errno));
	if (holder == 0) {
		struct pollfd pl = { r.line.get(), POLLIN, 0 };
		int n = poll(&pl, 1, 20000);
		printf("holder %s\n", n == 1 ? "closed" : "open");
		fflush(stdout);
		_exit(0);
	}
	printf("hostile: holding hv; dying (_exit, no goodbye) on a line on stdin\nforged %d\n",
	       forged);
	fflush(stdout);
	char c;
	(void)!read(0, &c, 1);
	_exit(0);
}

/* A peer that dies with its line in another process (this one), while
 * a primary thread waits on that line: the peer lifted the line's read
 * timeout, so the thread stays there past the peer's death. What comes on
 * the line then speaks for nobody: it must not be acted on (no answer,
 * not even a refusal), and the line must be closed. */
int orphan_line()
{
	int pass[2];
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, pass) != 0)
		fail("socketpair: %s", strerror(errno));
	pid_t k = fork();
	if (k < 0)
		fail("fork: %s", strerror(errno));
	if (k == 0) {
		close(pass[0]);
		Requester r;
		join(r);
		attach(r);
		Fd theirs;
		Fd keep = pinned_line(r, &theirs);
		struct rte_mp_msg m = {};
		snprintf(m.name, sizeof(m.name), "line");
		m.num_fds = 1;
		m.fds[0] = keep.get();
		if (channel_send(pass[1], m) != 0)
			fail("cannot hand the line over");
		_exit(0); /* no goodbye */
	}
	close(pass[1]);
	struct rte_mp_msg m;
	std::vector<Fd> fds;
	if (channel_recv_wait(pass[0], &m, &fds, 15000) != 1 || fds.size() != 1)
		fail("the line's sender handed nothing over");
	close(pass[0]);
	int st = 0;
	if (waitpid(k, &st, 0) != k || !WIFEXITED(st) || WEXITSTATUS(st) != 0)
		fail("the line's sender failed");
	/* The test tells when the primary has seen it die. */
	printf("hostile: the line's sender is dead; speaking on its line on a line on stdin\n"
	       "forged %d\n",
	       forged);
	fflush(stdout);
	char c;
	if (read(0, &c, 1) != 1)
		fail("no word on stdin");
	CreateReq q = var_req("sim0", "orphan");
	q.hdr = as(k); /* in the dead sender's name, as its line is */
	q.seq = 1;
	mp_pack(&m, kActCreate, q);
	int rc = channel_send_wait(fds[0].get(), m, 2000);
	if (rc == 0) {
		rc = channel_recv_wait(fds[0].get(), &m, &fds, 5000);
		if (rc == 1)
			fail("a request on a dead peer's line was answered (%s)", m.name);
	}
	if (rc != -EPIPE && rc != -ECONNRESET)
		fail("a dead peer's line: not closed (%s)", strerror(-rc));
	printf("orphan closed\n");
	fflush(stdout);
	_exit(0); /* "forged" was said */
}

/* A real peer sending @n creates without reading a thing: UMEMs out of
 * DPDK memory (cheap for the worker to refuse) or, with @pipes, OBJs
 * whose command is in a pipe (refused by the channel's reader itself).
 * All go on one request line, which it does not read either. The primary
 * reads and answers them one at a time (-EINVAL: refused by what they
 * ask); what the kernel's queue of that line cannot take is dropped
 * (counted), and the primary keeps nothing of it. Told on stdin, it reads at last:
 * each request answered once at most; "forged" = the -EAGAIN ones, the
 * unanswered ones, and with @pipes the -EINVAL ones (counted too). */
int request_flood(int n, bool pipes)
{
	Requester r;
	int pfd[2];

	join(r);
	attach(r);
	if (pipe2(pfd, O_CLOEXEC) != 0)
		fail("pipe: %s", strerror(errno));
	for (int i = 0; i < n; i++)
		(void)(pipes ? send_req(r, kActCreate, obj_req("f"), { pfd[0] })
			     : send_req(r, kActCreate, umem_req("f", 0x10000, 4096)));
	printf("hostile: %d %s creates sent, its channel not read\nflooded %d\n", n,
	       pipes ? "OBJ (command in a pipe)" : "UMEM", n);
	fflush(stdout);
	char c;
	(void)!read(0, &c, 1);
	while (pump(r, 1000))
		;
	int refused = 0, busy = 0;
	for (const auto &[seq, rep] : r.replies) {
		if (rep.status == -EINVAL)
			refused++;
		else if (rep.status == -EAGAIN)
			busy++;
		else
			fail("request %u answered %d (%s)", seq, rep.status, strerror(-rep.status));
	}
	int dropped = n - static_cast<int>(r.replies.size());
	printf("hostile: of %d: %d -EINVAL, %d -EAGAIN, %d dropped unanswered\n", n, refused, busy,
	       dropped);
	if (pipes)
		say("requests answered -EINVAL, their command not in a memfd", refused);
	say("requests answered -EAGAIN, too many under way", busy);
	say("requests dropped unanswered, its line full", dropped);
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc < 3) {
		fprintf(stderr, "usage: %s forge|forge-secondary|storm|flood|squat|requests|"
				"orphan-line|request-flood RUNTIME_DIR ...\n",
			argv[0]);
		return 2;
	}
	rt = argv[2];
	std::string cmd = argv[1];
	int rc = 2;
	if (cmd == "forge" && argc == 4)
		rc = forge(atoi(argv[3]));
	else if (cmd == "forge-secondary" && argc == 4)
		rc = forge_secondary(atoi(argv[3]));
	else if (cmd == "storm" && argc == 5)
		rc = storm(atoi(argv[3]), atoi(argv[4]));
	else if (cmd == "flood" && argc == 4)
		rc = flood(atoi(argv[3]));
	else if (cmd == "squat" && argc == 4)
		rc = squat(atoi(argv[3]));
	else if (cmd == "requests" && argc == 5)
		rc = requests(argv[3], argc > 4 ? static_cast<uint32_t>(atol(argv[4])) : 0);
	else if (cmd == "orphan-line" && argc == 3)
		rc = orphan_line();
	else if (cmd == "request-flood" && argc == 4)
		rc = request_flood(atoi(argv[3]), false);
	else if (cmd == "request-flood" && argc == 5 && strcmp(argv[4], "pipe") == 0)
		rc = request_flood(atoi(argv[3]), true);
	printf("forged %d\n", forged);
	return rc;
}
