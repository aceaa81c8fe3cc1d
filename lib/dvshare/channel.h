/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A secondary's channel with its primary: a SOCK_SEQPACKET connection to
 * the primary's socket in the EAL runtime directory. Unlike rte_mp, the
 * kernel vouches for the far end (SO_PEERCRED at connect), says exactly
 * which fds a message carried, and lets a sender refuse to wait.
 *
 * A message on it has the shape of an rte_mp message (an action name and
 * up to 256 bytes of body, fds beside), so the decoders of ipc_proto.h
 * check both alike; only the fds really received are counted in num_fds,
 * and they belong to the receiver's Fd vector.
 */
#ifndef DVS_CHANNEL_H
#define DVS_CHANNEL_H

#include <string>
#include <vector>

#include <sys/types.h>

#include <rte_eal.h>

#include "dvs_fd.h"

namespace dvs {

/* The primary's listening socket: <runtime dir>/dvshare_channel. */
std::string channel_path();
/* Listen there (replacing a stale socket of a dead primary): the fd, or
 * -errno. Every message on an accepted connection comes with its sender's
 * credentials (SO_PASSCRED). */
int channel_listen(Fd *out);
/* Accept one pending connection without blocking: 1 with @out and the
 * peer's kernel credentials, 0 when none is pending, or -errno. Out of
 * fds, the connection is accepted and closed (-EMFILE), never left
 * pending for a level-triggered watch to spin on. */
int channel_accept(int lfd, Fd *out, pid_t *pid, uid_t *uid);
/* Connect to the primary's socket (non-blocking fd): 0 or -errno. */
int channel_connect(Fd *out);

/* A request line's pair (ipc_proto.h, LineMsg): @mine stays with the
 * secondary, @theirs goes to the primary. 0 or -errno. */
int channel_line_pair(Fd *mine, Fd *theirs);
/* Is @fd, received from @pid, a line that process made: a SOCK_SEQPACKET
 * Unix socket whose other end was created by @pid? So that a peer cannot
 * make the primary write to someone else's socket with the primary's
 * credentials. 0, or -EINVAL with the reason in @why. */
int channel_line_check(int fd, pid_t pid, std::string *why);

/* Send @m (and m.fds[0..num_fds)) without blocking: 0, -EAGAIN when the
 * peer's queue is full, or -errno (-EPIPE: the peer is gone). */
int channel_send(int fd, const struct rte_mp_msg &m);
/* Send, waiting up to @timeout_ms for room: for a secondary answering its
 * primary (never the other way round). */
int channel_send_wait(int fd, const struct rte_mp_msg &m, int timeout_ms);
/* Receive one message without blocking: 1 with @m filled and the fds it
 * really carried in @fds (m.num_fds == fds.size()), 0 when nothing is
 * queued, -EPIPE at end of stream, -EBADMSG for a malformed one (its fds
 * closed), or -errno. With @sender, the pid of the process that sent it,
 * as the kernel recorded it (0 if the socket does not pass credentials). */
int channel_recv(int fd, struct rte_mp_msg *m, std::vector<Fd> *fds, pid_t *sender = nullptr);
/* Receive one message, waiting for it as long as the socket's
 * SO_RCVTIMEO says (one system call, where a poll() first is two): as
 * channel_recv, 0 when that time passed, -EINTR on a signal. */
int channel_recv_blocking(int fd, struct rte_mp_msg *m, std::vector<Fd> *fds);
/* Wait up to @timeout_ms for a message, then receive it as channel_recv. */
int channel_recv_wait(int fd, struct rte_mp_msg *m, std::vector<Fd> *fds, int timeout_ms);

} // namespace dvs

#endif
