/* SPDX-License-Identifier: BSD-3-Clause */
/* A secondary's wait for the answer to its request, on the request line
 * it holds alone (ipc_requests.cpp): reply_wait.h. */
#include "reply_wait.h"

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <vector>

#include <sys/socket.h>
#include <sys/time.h>

#include "channel.h"
#include "dvs_log.h"

namespace dvs {

namespace {

/* Is @m the answer to @seq? 0 with @rep, or a negative errno: a line the
 * primary refused (its status), or a message that is not that answer. */
int check_reply(const struct rte_mp_msg &m, uint32_t seq, ReplyMsg *rep)
{
	std::string why;

	if (strcmp(m.name, kActReply) != 0 || decode_reply(m, rep, &why) != 0) {
		DVS_LOG(ERR, "an answer from the primary refused: %s",
			why.empty() ? "not an answer" : why.c_str());
		return -EBADMSG;
	}
	if (rep->seq == 0 && rep->status < 0) {
		DVS_LOG(ERR, "the primary refused a request line: %s", strerror(-rep->status));
		return rep->status;
	}
	if (rep->seq != seq) {
		DVS_LOG(ERR, "the primary answered request %u, not %u", rep->seq, seq);
		return -EBADMSG;
	}
	return 0;
}

/* One answer on @rd, without waiting: 1 with @rep (the answer to @seq),
 * 0 if none is there, or a negative errno (-EPIPE: shut, the primary is
 * gone or closed the line). */
int take_reply(int rd, uint32_t seq, ReplyMsg *rep)
{
	struct rte_mp_msg m;
	std::vector<Fd> fds;
	int rc = channel_recv(rd, &m, &fds);

	if (rc != 1)
		return rc;
	rc = check_reply(m, seq, rep);
	return rc == 0 ? 1 : rc;
}

/* Make the line's receive timeout @ms (never 0: that is no timeout), or
 * keep a shorter one unless @exact. A longer wait reuses a shorter timeout
 * and, when it runs out, waits once more for what is left (@exact), so
 * requests that alternate between two waits (a create's, a destroy's)
 * make no system call for it. */
int set_timeout(ReplyLine &line, int ms, bool exact)
{
	ms = std::max(ms, 1);
	if (line.timeout_ms == ms || (!exact && line.timeout_ms != 0 && line.timeout_ms < ms))
		return 0;
	struct timeval tv = { ms / 1000, (ms % 1000) * 1000 };
	if (setsockopt(line.fd.get(), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) != 0)
		return -errno;
	line.timeout_ms = ms;
	return 0;
}

} // namespace

/* Wait up to @wait_ms for the answer to @seq on @line. On a timeout, the
 * line is shut for reading first: an answer sent before that is taken. */
int await_reply(ReplyLine &line, uint32_t seq, int wait_ms, ReplyMsg *rep)
{
	using namespace std::chrono;
	const int rd = line.fd.get();
	const auto deadline = steady_clock::now() + milliseconds(wait_ms);

	if (int rc = set_timeout(line, wait_ms, false); rc != 0)
		return rc;
	for (;;) {
		struct rte_mp_msg m;
		std::vector<Fd> fds;
		int rc = channel_recv_blocking(rd, &m, &fds);
		if (rc == 1)
			return check_reply(m, seq, rep);
		/* Closed with the request unread (the primary refused the line,
		 * or this request): the kernel says so before it gives what
		 * was sent first, a refusal's reason. */
		if (rc == -ECONNRESET) {
			int got = take_reply(rd, seq, rep);
			return got == 1 ? 0 : got < 0 ? got : rc;
		}
		if (rc != 0 && rc != -EINTR)
			return rc;
		/* Rounded up: a signal less than 1 ms before the deadline does
		 * not end the wait early. */
		const auto left = deadline - steady_clock::now();
		if (left <= steady_clock::duration::zero())
			break;
		if ((rc = set_timeout(line, static_cast<int>(ceil<milliseconds>(left).count()),
				      true)) != 0)
			return rc;
	}
	(void)shutdown(rd, SHUT_RD);
	return take_reply(rd, seq, rep) == 1 ? 0 : -ETIMEDOUT;
}

} // namespace dvs
