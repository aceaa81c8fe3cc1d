/* SPDX-License-Identifier: BSD-3-Clause */
/* Test helper: pass bytes plus fds over a unix socket (SCM_RIGHTS). */
#ifndef DVS_FDPASS_H
#define DVS_FDPASS_H

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

/* Send @len bytes and @nfds fds (nfds <= 8). Returns 0 or -errno. */
static inline int dvs_send_fds(int sock, const void *buf, size_t len, const int *fds, int nfds)
{
	char ctl[CMSG_SPACE(sizeof(int) * 8)];
	struct iovec iov = { (void *)buf, len };
	struct msghdr m;

	memset(&m, 0, sizeof(m));
	memset(ctl, 0, sizeof(ctl));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	if (nfds > 0) {
		struct cmsghdr *c;

		m.msg_control = ctl;
		m.msg_controllen = CMSG_SPACE(sizeof(int) * nfds);
		c = CMSG_FIRSTHDR(&m);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int) * nfds);
		memcpy(CMSG_DATA(c), fds, sizeof(int) * nfds);
	}
	return sendmsg(sock, &m, 0) == (ssize_t)len ? 0 : -errno;
}

/* Receive up to @len bytes and up to @maxfds fds. Returns bytes or -errno;
 * *nfds gets the number of fds received. */
static inline ssize_t dvs_recv_fds(int sock, void *buf, size_t len, int *fds, int maxfds, int *nfds)
{
	char ctl[CMSG_SPACE(sizeof(int) * 8)];
	struct iovec iov = { buf, len };
	struct msghdr m;
	struct cmsghdr *c;
	ssize_t n;

	memset(&m, 0, sizeof(m));
	m.msg_iov = &iov;
	m.msg_iovlen = 1;
	m.msg_control = ctl;
	m.msg_controllen = sizeof(ctl);
	n = recvmsg(sock, &m, MSG_CMSG_CLOEXEC);
	if (n < 0)
		return -errno;
	*nfds = 0;
	for (c = CMSG_FIRSTHDR(&m); c != NULL; c = CMSG_NXTHDR(&m, c)) {
		if (c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS) {
			int got = (int)((c->cmsg_len - CMSG_LEN(0)) / sizeof(int));
			if (got > maxfds)
				got = maxfds;
			memcpy(fds, CMSG_DATA(c), sizeof(int) * got);
			*nfds = got;
		}
	}
	return n;
}

#endif
