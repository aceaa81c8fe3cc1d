/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The primary's view of its secondaries: who attached to which device,
 * identified by the pidfd each sent with its attach request, and watched
 * through it so a dead secondary is reclaimed at once.
 */
#ifndef DVS_PEERS_H
#define DVS_PEERS_H

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <vector>

#include <sys/types.h>

#include "pidfd.h"

namespace dvs {

struct PeerInfo {
	pid_t pid;
	uid_t uid;
	std::vector<std::string> devices;
};

class Peers {
public:
	static Peers &get();

	/* @pid (owning @pidfd) attached @devs. 0 or -errno. */
	int attached(pid_t pid, uid_t uid, Fd pidfd, const std::vector<std::string> &devs);
	void detached(pid_t pid, const std::string &dev);
	/* Secondaries attached to @dev now. */
	std::set<pid_t> attached_to(const std::string &dev);
	std::vector<PeerInfo> list();

private:
	Peers() = default;
	void died(pid_t pid);

	struct Peer {
		uid_t uid = 0;
		std::unique_ptr<PidWatch> watch;
		std::set<std::string> devices;
	};
	std::mutex mu_;
	std::map<pid_t, Peer> peers_;
	/* Watches whose callback fired: freed later, never from inside it. */
	std::vector<std::unique_ptr<PidWatch>> spent_;
};

} // namespace dvs

#endif
