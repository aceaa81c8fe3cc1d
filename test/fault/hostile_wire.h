/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the same-uid attackers of the fault suite (hostile.cpp,
 * exhaust.cpp) share: the prefix's runtime directory, dvshare's channel
 * and DPDK's rte_mp socket spoken directly, without EAL.
 */
#ifndef DVS_HOSTILE_WIRE_H
#define DVS_HOSTILE_WIRE_H

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <unistd.h>

#include "channel.h"
#include "ipc_proto.h"

namespace hostile {

using namespace dvs;

inline std::string rt; /* the EAL runtime directory of the prefix */
inline int forged; /* messages a sound receiver must refuse */

inline void say(const char *what, int n = 1)
{
	forged += n;
	printf("hostile: %s (%d)\n", what, n);
	fflush(stdout);
}

inline int pidfd_of(pid_t pid)
{
	return static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
}

inline pid_t primary_pid()
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
inline void map_config()
{
	int fd = open((rt + "/config").c_str(), O_RDONLY);

	if (fd < 0 || mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0) == MAP_FAILED) {
		perror("hostile: map the config");
		exit(2);
	}
	close(fd);
}

inline int unix_to(int type, const std::string &path)
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

/* @m to DPDK's rte_mp socket @sock as message @type, with @fds attached
 * for real (SCM_RIGHTS) and num_fds saying how many. */
inline void mp_raw(const std::string &sock, int type, const struct rte_mp_msg &m,
		   const std::vector<int> &fds = {})
{
	MpWire w;
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	struct sockaddr_un sa = {};
	char control[CMSG_SPACE(sizeof(int) * RTE_MP_MAX_FD_NUM)] = {};
	struct iovec iov;
	struct msghdr mh = {};

	memset(&w, 0, sizeof(w));
	w.type = type;
	w.msg = m;
	if (!fds.empty())
		w.msg.num_fds = static_cast<int>(fds.size());
	sa.sun_family = AF_UNIX;
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", sock.c_str());
	iov.iov_base = &w;
	iov.iov_len = sizeof(w) - sizeof(w.msg.fds);
	mh.msg_name = &sa;
	mh.msg_namelen = sizeof(sa);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (!fds.empty()) {
		mh.msg_control = control;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * fds.size());
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * fds.size());
		memcpy(CMSG_DATA(c), fds.data(), sizeof(int) * fds.size());
	}
	if (sendmsg(fd, &mh, 0) < 0)
		fprintf(stderr, "hostile: sendmsg %s: %s\n", sock.c_str(), strerror(errno));
	close(fd);
}

inline MpHdr as(pid_t pid)
{
	MpHdr h = mp_hdr();

	h.pid = pid;
	return h;
}

/* A channel that said hello as @claim with @pidfd: the welcome's status,
 * and the open channel in @out (or -1). */
inline int hello(pid_t claim, int pidfd, int *out, uint64_t *token = nullptr)
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

} // namespace hostile

#endif
