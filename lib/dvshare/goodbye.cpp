/* SPDX-License-Identifier: BSD-3-Clause */
#include "goodbye.h"

#include <cerrno>

#include <sys/socket.h>
#include <unistd.h>

#include "ipc_proto.h"

namespace dvs {

int bye_pair(Fd *mine, Fd *theirs)
{
	int sv[2];

	/* Datagrams keep a goodbye whole; the reader's end outlives the
	 * writer, and what was queued stays readable after it exits. */
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv) != 0)
		return -errno;
	*mine = Fd(sv[0]);
	*theirs = Fd(sv[1]);
	return 0;
}

void bye_send(int fd)
{
	ByeMsg b{};

	if (fd < 0)
		return;
	b.hdr = mp_hdr();
	b.magic = kByeMagic;
	/* Nobody listening (the peer is gone) is fine: there is no one to tell. */
	(void)send(fd, &b, sizeof(b), MSG_DONTWAIT | MSG_NOSIGNAL);
}

bool bye_heard(int fd, pid_t pid)
{
	char buf[sizeof(ByeMsg) + 1];
	bool heard = false;
	ssize_t n;

	if (fd < 0)
		return false;
	/* A child of the peer inheriting the fd across fork() could have
	 * written too: only the peer's own goodbye counts. */
	while ((n = recv(fd, buf, sizeof(buf), MSG_DONTWAIT)) > 0)
		heard |= is_bye(buf, n, pid);
	return heard;
}

} // namespace dvs
