/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A secondary's wait for the answer to one request, on the request line
 * the asking thread holds alone: one blocking recvmsg() under the line's
 * SO_RCVTIMEO, which is only lowered (a create's and a destroy's waits in
 * turn set nothing), and waited again for what is left when a shorter
 * timeout runs out.
 */
#ifndef DVS_REPLY_WAIT_H
#define DVS_REPLY_WAIT_H

#include <cstdint>

#include "dvs_fd.h"
#include "ipc_proto.h"

namespace dvs {

/* A request line, and the receive timeout set on it (0: none yet). */
struct ReplyLine {
	Fd fd;
	int timeout_ms = 0;
};

/* Wait up to @wait_ms for the answer to @seq on @line: 0 with @rep, the
 * status of a refusal of the line (sequence 0), -EBADMSG for a message
 * that is not that answer, -ECONNRESET or -EPIPE when the line closed
 * without one, or -ETIMEDOUT. On a timeout the line is shut for reading
 * first, and an answer sent before that is taken. */
int await_reply(ReplyLine &line, uint32_t seq, int wait_ms, ReplyMsg *rep);

} // namespace dvs

#endif
