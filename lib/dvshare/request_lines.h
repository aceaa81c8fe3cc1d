/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The primary's end of its secondaries' request lines (ipc_proto.h,
 * LineMsg). A secondary announces each line on its channel; from then on
 * its creates and destroys come on the line, and their answers go back on
 * it. Two threads, "dvshare-req", read the lines themselves (one epoll
 * set, each line armed once at a time) and run a create where they read
 * it, so a secondary's create costs two thread wake-ups (this thread,
 * then the caller), like a bare ping-pong; a destroy goes on to
 * PeerRequests' pool, where it may wait for acks. A line is served one
 * message at a time and then goes to the back of the ready lines, so
 * that a line a peer fills does not keep others waiting for long: a peer
 * has at most kLinesPerPeer lines, and so at most that many requests
 * ahead of anyone else's in a turn. A create that blocks (a firmware
 * command) holds one thread; the other serves the other lines.
 *
 * This thread never reads a channel: a NIC's firmware command run here
 * (a DEVX create) holds up other creates, never the acks a destroy waits
 * for, which DPDK's interrupt thread reads.
 */
#ifndef DVS_REQUEST_LINES_H
#define DVS_REQUEST_LINES_H

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>

#include "dvs_fd.h"
#include "peer_id.h"

namespace dvs {

class RequestLines {
public:
	static RequestLines &get();
	/* Its epoll fd and threads (and PeerRequests' pool), started when the
	 * primary starts listening, so that the first line adds no fd but
	 * itself and no thread: 0 or -errno. */
	int prepare();
	/* @who's channel brought @line (DPDK's interrupt thread): taken if it
	 * is a SOCK_SEQPACKET socket @who made itself and @who has fewer than
	 * kLinesPerPeer; else refused and counted (answered -EMFILE on the
	 * line when it is one @who made). */
	void add(const PeerId &who, Fd line);
	/* @who is gone: its lines are closed, also those it handed to
	 * another process (which speak for it no more). */
	void drop(const PeerId &who);

private:
	struct Line {
		PeerId who;
		std::shared_ptr<const Fd> fd; /* a destroy under way holds it */
		bool linger = false;          /* its SO_RCVTIMEO is set */
	};
	/* What serving a line came to: a request acted on (or nothing to
	 * read), none within the wait, or the line to close. */
	enum class Served { Done, Idle, Closed };

	RequestLines() = default;
	int prepare_locked();
	/* The thread (and its epoll set), at the first line: 0 or -errno. */
	int start_locked();
	void run();
	/* Is line @id listed? Its copy in @l (if not null). */
	bool find(uint64_t id, Line *l);
	/* Read and act on one message of @l: Closed when the line is to be
	 * closed (its end closed, or its sender broke the protocol). With
	 * @waited (its id) the read waits, and what it reads is acted on only
	 * if the line is still listed. */
	Served serve(const Line &l, uint64_t waited);
	/* Stay on line @id after a request while it keeps sending. */
	Served linger(uint64_t id, const Line &l);
	void take_back();
	void remove(uint64_t id);

	std::mutex mu_; /* a leaf: taken by the interrupt thread */
	Fd ep_;
	std::map<uint64_t, Line> lines_;
	std::map<PeerId, size_t> per_peer_;
	uint64_t next_id_ = 0;
	unsigned int running_ = 0; /* threads */
	bool started_ = false;
	std::atomic<bool> lingering_{ false }; /* a thread stays on a line */
	Line lingered_;                        /* that line */
	std::atomic<int64_t> wait_since_{ 0 }; /* its wait's start, ns, or 0 */
};

} // namespace dvs

#endif
