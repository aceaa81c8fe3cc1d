/* SPDX-License-Identifier: BSD-3-Clause */
#include "channel.h"

#include <cerrno>
#include <chrono>
#include <cstring>

#include <fcntl.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ipc_proto.h"

namespace dvs {

namespace {

/* One fd kept aside from the listener's start, to take a connection off
 * the queue when the process has none left. */
int spare = -1;

/* What travels: the action name, the body's length, the body. */
struct Frame {
	char name[RTE_MP_MAX_NAME_LEN];
	int32_t len;
	uint8_t param[RTE_MP_MAX_PARAM_LEN];
};
constexpr size_t kFrameHead = offsetof(Frame, param);

/* A non-blocking SOCK_SEQPACKET socket and the channel's address. */
int channel_socket(struct sockaddr_un *sa, Fd *fd)
{
	std::string path = channel_path();

	memset(sa, 0, sizeof(*sa));
	sa->sun_family = AF_UNIX;
	if (path.size() >= sizeof(sa->sun_path))
		return -ENAMETOOLONG;
	memcpy(sa->sun_path, path.c_str(), path.size() + 1);
	*fd = Fd(socket(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC | SOCK_NONBLOCK, 0));
	return fd->valid() ? 0 : -errno;
}

int wait_for(int fd, short events, int timeout_ms)
{
	struct pollfd p = { fd, events, 0 };
	int rc;

	do
		rc = poll(&p, 1, timeout_ms);
	while (rc < 0 && errno == EINTR);
	if (rc < 0)
		return -errno;
	return rc == 0 ? -ETIMEDOUT : 0;
}

} // namespace

std::string channel_path()
{
	return std::string(rte_eal_get_runtime_dir()) + "/dvshare_channel";
}

int channel_listen(Fd *out)
{
	struct sockaddr_un sa;
	Fd fd;
	int rc = channel_socket(&sa, &fd);

	if (rc != 0)
		return rc;
	/* A socket file left by a primary of this prefix that died: EAL let
	 * this process be the primary, so nobody listens there. */
	unlink(sa.sun_path);
	/* Inherited by every connection it accepts: each message then says
	 * which process sent it, whoever holds the socket. */
	int on = 1;
	if (spare < 0)
		spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
	if (setsockopt(fd.get(), SOL_SOCKET, SO_PASSCRED, &on, sizeof(on)) != 0 ||
	    bind(fd.get(), reinterpret_cast<struct sockaddr *>(&sa), sizeof(sa)) != 0 ||
	    listen(fd.get(), SOMAXCONN) != 0)
		return -errno;
	*out = std::move(fd);
	return 0;
}

int channel_accept(int lfd, Fd *out, pid_t *pid, uid_t *uid)
{
	Fd fd(accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK));

	if (!fd.valid() && (errno == EMFILE || errno == ENFILE) && spare >= 0) {
		close(spare);
		close(accept4(lfd, nullptr, nullptr, SOCK_CLOEXEC));
		spare = open("/dev/null", O_RDONLY | O_CLOEXEC);
		return -EMFILE;
	}
	if (!fd.valid())
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	struct ucred cred;
	socklen_t len = sizeof(cred);
	if (getsockopt(fd.get(), SOL_SOCKET, SO_PEERCRED, &cred, &len) != 0)
		return -errno;
	*pid = cred.pid;
	*uid = cred.uid;
	*out = std::move(fd);
	return 1;
}

int channel_connect(Fd *out)
{
	struct sockaddr_un sa;
	Fd fd;
	int rc = channel_socket(&sa, &fd);

	if (rc != 0)
		return rc;
	/* A full backlog (a primary that stopped accepting) is EAGAIN:
	 * retried for a while, never waited on for good. */
	auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(2);
	while (connect(fd.get(), reinterpret_cast<struct sockaddr *>(&sa), sizeof(sa)) != 0) {
		if (errno != EAGAIN || std::chrono::steady_clock::now() > deadline)
			return -errno;
		usleep(1000);
	}
	*out = std::move(fd);
	return 0;
}

int channel_line_pair(Fd *rd, Fd *wr)
{
	int sv[2];

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -errno;
	*rd = Fd(sv[0]);
	*wr = Fd(sv[1]);
	return 0;
}

int channel_line_check(int fd, pid_t pid, std::string *why)
{
	int type = 0;
	socklen_t len = sizeof(type);
	struct ucred cred = {};
	socklen_t clen = sizeof(cred);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &len) != 0) {
		*why = std::string("line is not a socket (") + strerror(errno) + ")";
		return -EINVAL;
	}
	if (type != SOCK_SEQPACKET) {
		*why = "line is not a SOCK_SEQPACKET socket";
		return -EINVAL;
	}
	/* Only a Unix socket has a peer pid: any other family reads 0. */
	if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &clen) != 0 || cred.pid != pid) {
		*why = "line leads to pid " + std::to_string(cred.pid) + ", not the sender";
		return -EINVAL;
	}
	return 0;
}

int channel_send(int fd, const struct rte_mp_msg &m)
{
	Frame f;
	union {
		char buf[CMSG_SPACE(sizeof(int) * kMpMaxFds)];
		struct cmsghdr align;
	} ctl;
	struct iovec iov;
	struct msghdr mh = {};

	if (m.len_param < 0 || m.len_param > RTE_MP_MAX_PARAM_LEN || m.num_fds < 0 ||
	    m.num_fds > kMpMaxFds)
		return -EINVAL;
	memcpy(f.name, m.name, sizeof(f.name));
	f.len = m.len_param;
	memcpy(f.param, m.param, static_cast<size_t>(m.len_param));
	iov.iov_base = &f;
	iov.iov_len = kFrameHead + static_cast<size_t>(m.len_param);
	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	if (m.num_fds > 0) {
		memset(&ctl, 0, sizeof(ctl));
		mh.msg_control = ctl.buf;
		mh.msg_controllen = CMSG_SPACE(sizeof(int) * m.num_fds);
		struct cmsghdr *c = CMSG_FIRSTHDR(&mh);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * m.num_fds);
		memcpy(CMSG_DATA(c), m.fds, sizeof(int) * m.num_fds);
	}
	ssize_t n = sendmsg(fd, &mh, MSG_DONTWAIT | MSG_NOSIGNAL);
	if (n < 0)
		return errno == EWOULDBLOCK ? -EAGAIN : -errno;
	return n == static_cast<ssize_t>(iov.iov_len) ? 0 : -EIO;
}

int channel_send_wait(int fd, const struct rte_mp_msg &m, int timeout_ms)
{
	int rc = channel_send(fd, m);

	if (rc == -EAGAIN && wait_for(fd, POLLOUT, timeout_ms) == 0)
		rc = channel_send(fd, m);
	return rc;
}

namespace {

int recv_one(int fd, struct rte_mp_msg *m, std::vector<Fd> *fds, pid_t *sender, int flags)
{
	Frame f;
	union {
		char buf[CMSG_SPACE(sizeof(int) * kMpMaxFds) + CMSG_SPACE(sizeof(struct ucred))];
		struct cmsghdr align;
	} ctl;
	struct iovec iov = { &f, sizeof(f) };
	struct msghdr mh = {};

	mh.msg_iov = &iov;
	mh.msg_iovlen = 1;
	mh.msg_control = ctl.buf;
	mh.msg_controllen = sizeof(ctl.buf);
	ssize_t n = recvmsg(fd, &mh, flags | MSG_CMSG_CLOEXEC);
	if (n < 0)
		return errno == EAGAIN || errno == EWOULDBLOCK ? 0 : -errno;
	if (n == 0)
		return -EPIPE;
	/* Every fd the kernel installed is ours now, whatever else is wrong
	 * with the message: held by @fds, closed if it is refused. */
	fds->clear();
	if (sender != nullptr)
		*sender = 0;
	for (struct cmsghdr *c = CMSG_FIRSTHDR(&mh); c != nullptr; c = CMSG_NXTHDR(&mh, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_CREDENTIALS &&
		    c->cmsg_len >= CMSG_LEN(sizeof(struct ucred)) && sender != nullptr) {
			struct ucred cred;
			memcpy(&cred, CMSG_DATA(c), sizeof(cred));
			*sender = cred.pid;
		}
		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		size_t k = (c->cmsg_len - CMSG_LEN(0)) / sizeof(int);
		for (size_t i = 0; i < k; i++) {
			int v;
			memcpy(&v, CMSG_DATA(c) + i * sizeof(int), sizeof(v));
			fds->emplace_back(v);
		}
	}
	memset(m, 0, sizeof(*m));
	if ((mh.msg_flags & (MSG_TRUNC | MSG_CTRUNC)) != 0 ||
	    n < static_cast<ssize_t>(kFrameHead) || f.len < 0 ||
	    f.len > RTE_MP_MAX_PARAM_LEN || n != static_cast<ssize_t>(kFrameHead) + f.len ||
	    memchr(f.name, '\0', sizeof(f.name)) == nullptr || fds->size() > kMpMaxFds) {
		fds->clear();
		return -EBADMSG;
	}
	memcpy(m->name, f.name, sizeof(m->name));
	m->len_param = f.len;
	memcpy(m->param, f.param, static_cast<size_t>(f.len));
	m->num_fds = static_cast<int>(fds->size());
	for (size_t i = 0; i < fds->size(); i++)
		m->fds[i] = (*fds)[i].get();
	return 1;
}

} // namespace

int channel_recv(int fd, struct rte_mp_msg *m, std::vector<Fd> *fds, pid_t *sender)
{
	return recv_one(fd, m, fds, sender, MSG_DONTWAIT);
}

int channel_recv_blocking(int fd, struct rte_mp_msg *m, std::vector<Fd> *fds)
{
	return recv_one(fd, m, fds, nullptr, 0);
}

int channel_recv_wait(int fd, struct rte_mp_msg *m, std::vector<Fd> *fds, int timeout_ms)
{
	int rc = channel_recv(fd, m, fds);

	if (rc == 0) {
		rc = wait_for(fd, POLLIN, timeout_ms);
		if (rc == 0)
			rc = channel_recv(fd, m, fds);
		if (rc == 0)
			rc = -ETIMEDOUT;
	}
	return rc;
}

} // namespace dvs
