/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The primary's view of its secondaries: who attached to which device,
 * identified by the pidfd each sent with its attach request, and watched
 * through it so a secondary that is gone is reclaimed at once; its
 * goodbye socket (goodbye.h) tells a normal exit from a death.
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

/* "12 345 6789", for logs. */
std::string pid_list(const std::set<pid_t> &pids);

struct PeerInfo {
	pid_t pid;
	uid_t uid;
	std::vector<std::string> devices;
};

class Peers {
public:
	static Peers &get();

	/* @pid attached @devs: from now on destroys wait for it. A new peer
	 * keeps @bye, our end of its goodbye socket, and *fresh says so (then
	 * the other end is sent to it, and watch() follows). */
	void attached(pid_t pid, uid_t uid, const std::vector<std::string> &devs, Fd bye,
		      bool *fresh);
	/* Watch a new peer's death through @pidfd. Called after the attach
	 * reply is sent, off the secondary's critical path: a peer that died
	 * meanwhile has a readable pidfd, and is seen gone at once. */
	void watch(pid_t pid, Fd pidfd);
	void detached(pid_t pid, const std::string &dev);
	/* Secondaries attached to @dev now. */
	std::set<pid_t> attached_to(const std::string &dev);
	std::vector<PeerInfo> list();
	/* This primary exits normally: tell every secondary. */
	void say_bye();

private:
	Peers() = default;
	void gone(pid_t pid);

	struct Peer {
		uid_t uid = 0;
		std::unique_ptr<PidWatch> watch;
		Fd bye;
		std::set<std::string> devices;
	};
	std::mutex mu_;
	std::map<pid_t, Peer> peers_;
	/* Watches whose callback fired: freed once DPDK let go of them
	 * (PidWatch::spent()), never from inside the callback. */
	std::vector<std::unique_ptr<PidWatch>> spent_;
};

} // namespace dvs

#endif
