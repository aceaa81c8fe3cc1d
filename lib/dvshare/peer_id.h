/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who a secondary is, for everything the primary keeps about it beyond a
 * single message (what it owns, its quota, its reclaim, its orphans): its
 * pid, for logs and the registry, and the number the primary gave its
 * process at its first hello (peers.h), kept across its reconnects and
 * never given again. A pid is given to another process once its holder
 * is gone; the number is not, so a later process of that pid inherits
 * nothing. See doc/protocol.md, "Peer identity".
 */
#ifndef DVS_PEER_ID_H
#define DVS_PEER_ID_H

#include <compare>
#include <cstdint>

#include <sys/types.h>

namespace dvs {

struct PeerId {
	pid_t pid = 0;   /* 0 (with id 0): the primary, no peer */
	uint64_t id = 0; /* the primary's number for that process */

	bool none() const { return id == 0; }
	bool operator==(const PeerId &) const = default;
	auto operator<=>(const PeerId &) const = default;
};

} // namespace dvs

#endif
