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
 */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "channel.h"
#include "ipc_proto.h"

using namespace dvs;

namespace {

std::string rt; /* the EAL runtime directory of the prefix */
int forged;

void say(const char *what, int n = 1)
{
	forged += n;
	printf("hostile: %s (%d)\n", what, n);
	fflush(stdout);
}

int pidfd_of(pid_t pid)
{
	return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

pid_t primary_pid()
{
	FILE *f = fopen((rt + "/dvshare_primary").c_str(), "r");
	int pid = 0;

	if (f == nullptr || fscanf(f, "%d", &pid) != 1)
		pid = 0;
	if (f != nullptr)
		fclose(f);
	return pid;
}

/* What every process of the prefix maps: the primary checks for it. */
void map_config()
{
	int fd = open((rt + "/config").c_str(), O_RDONLY);

	if (fd < 0 || mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
		perror("hostile: map the config");
		exit(2);
	}
	close(fd);
}

int unix_to(int type, const std::string &path)
{
	struct sockaddr_un sa = {};
	int fd = socket(AF_UNIX, type | SOCK_CLOEXEC, 0);

	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path.c_str());
	if (fd < 0 || connect(fd, reinterpret_cast<struct sockaddr *>(&sa), sizeof(sa)) != 0) {
		fprintf(stderr, "hostile: connect %s: %s\n", path.c_str(), strerror(errno));
		exit(2);
	}
	return fd;
}

/* DPDK's datagram on an mp socket: its type, then the message without its
 * fd slots; num_fds is whatever the sender writes. */
struct MpWire {
	int type;
	struct rte_mp_msg msg;
};
constexpr int kMpMsg = 0, kMpReq = 1;

void mp_raw(const std::string &sock, int type, const struct rte_mp_msg &m)
{
	MpWire w;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {};

	memset(&w, 0, sizeof(w));
	w.type = type;
	w.msg = m;
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock.c_str());
	if (sendto(fd, &w, sizeof(w) - sizeof(w.msg.fds), 0,
		   reinterpret_cast<struct sockaddr *>(&sa), sizeof(sa)) < 0)
		fprintf(stderr, "hostile: sendto %s: %s\n", sock.c_str(), strerror(errno));
	close(fd);
}

MpHdr as(pid_t pid)
{
	MpHdr h = mp_hdr();

	h.pid = pid;
	return h;
}

/* A channel that said hello as @claim with @pidfd: the welcome's status,
 * and the open channel in @out (or -1). */
int hello(pid_t claim, int pidfd, int *out, uint64_t *token = nullptr)
{
	int fd = unix_to(SOCK_SEQPACKET, rt + "/dvshare_channel");
	struct rte_mp_msg m;
	HelloMsg h{ as(claim) };
	std::vector<Fd> fds;
	WelcomeMsg w{};
	std::string why;

	mp_pack(&m, kActHello, h);
	m.num_fds = 1;
	m.fds[0] = pidfd;
	if (channel_send_wait(fd, m, 2000) != 0 || channel_recv_wait(fd, &m, &fds, 5000) != 1 ||
	    decode_welcome(m, &w, &why) != 0) {
		close(fd);
		*out = -1;
		return -EPIPE;
	}
	if (token != nullptr)
		*token = w.token;
	*out = fd;
	return w.status;
}

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

	/* Over rte_mp, which says nothing of the sender. */
	for (uint32_t rid = 1; rid <= 8; rid++)
		ack_for(-1, prim, victim, rid);
	say("rte_mp: revoke acks naming the victim", 8);
	detach_for(-1, prim, victim);
	say("rte_mp: a detach naming the victim");
	AttachReq req{ as(victim), 0, 0, 0x1234 };
	mp_pack(&m, kActAttach, req);
	mp_raw(prim, kMpReq, m);
	say("rte_mp: an attach with a made-up token");
	req.hdr = as(1);
	mp_pack(&m, kActAttach, req);
	m.num_fds = 3; /* and no fd sent: the slots hold the primary's own */
	mp_raw(prim, kMpReq, m);
	say("rte_mp: an attach as pid 1 claiming 3 fds it did not send");
	HelloMsg h{ as(getpid()) };
	mp_pack(&m, kActHello, h);
	mp_raw(prim, kMpMsg, m);
	ByeMsg b{ as(victim), kByeMagic };
	mp_pack(&m, kActBye, b);
	mp_raw(prim, kMpMsg, m);
	say("rte_mp: a hello and a goodbye", 2);

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
	say("rte_mp: CLOSED, PRIMARY_DIED and PUBLISHED as the primary", 3);
	r.hdr = as(primary_pid());
	snprintf(r.ibdev, sizeof(r.ibdev), "sim0");
	r.slot = kRevokeBatch;
	r.revoke_id = 1;
	mp_pack(&m, kActRevoke, r);
	mp_raw(socks[0], kMpMsg, m);
	mp_pack(&m, kActBye, b);
	mp_raw(socks[0], kMpMsg, m);
	say("rte_mp: a batch revoke and a goodbye as the primary", 2);
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
	mp_raw(rt + "/mp_socket", kMpReq, m);
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

/* A peer that asks to attach @n times on one token from a socket it
 * never reads: one answer at most may wait in that socket's queue. */
int flood(int n)
{
	int self = pidfd_of(getpid()), fd;
	uint64_t token = 0;
	struct sockaddr_un sa = {};
	std::string mine = rt + "/hostile_" + std::to_string(getpid());
	int s = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	map_config();
	if (hello(getpid(), self, &fd, &token) != 0)
		return 3;
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", mine.c_str());
	if (bind(s, reinterpret_cast<struct sockaddr *>(&sa), sizeof(sa)) != 0)
		return 2;
	struct rte_mp_msg m;
	AttachReq req{ mp_hdr(), 0, 0, token };
	mp_pack(&m, kActAttach, req);
	MpWire w;
	memset(&w, 0, sizeof(w));
	w.type = kMpReq;
	w.msg = m;
	struct sockaddr_un to = {};
	to.sun_family = AF_UNIX;
	snprintf(to.sun_path, sizeof(to.sun_path), "%s/mp_socket", rt.c_str());
	for (int i = 0; i < n; i++)
		(void)sendto(s, &w, sizeof(w) - sizeof(w.msg.fds), 0,
			     reinterpret_cast<struct sockaddr *>(&to), sizeof(to));
	/* All but the first are refused: the token is spent. */
	say("rte_mp: attach requests on a spent token", n - 1);
	printf("hostile: flooding done, holding on\nforged %d\n", forged);
	fflush(stdout);
	pause(); /* killed by the test, never having read a thing */
	unlink(mine.c_str());
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

} // namespace

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc < 3) {
		fprintf(stderr, "usage: %s forge|forge-secondary|storm|flood|squat RUNTIME_DIR ...\n",
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
	printf("forged %d\n", forged);
	return rc;
}
