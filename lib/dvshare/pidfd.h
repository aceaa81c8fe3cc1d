/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process identity and death, through pidfds: who a peer is (pid, uid),
 * and a DPDK interrupt callback when it dies (a pidfd becomes readable when
 * its process exits). No polling thread of our own.
 */
#ifndef DVS_PIDFD_H
#define DVS_PIDFD_H

#include <atomic>
#include <functional>
#include <memory>

#include <sys/types.h>

#include "dvs_fd.h"

struct rte_intr_handle;

namespace dvs {

/* A pidfd for this process, or -errno. */
int pidfd_self();
/* The pid a pidfd refers to (from /proc/self/fdinfo), or -errno. */
pid_t pidfd_pid(int pidfd);
/* Effective uid of @pid (from /proc/<pid>/status): 0 or -errno. */
int pid_euid(pid_t pid, uid_t *uid);
/* Still running? */
bool pidfd_alive(int pidfd);

/* Calls @on_death once, on DPDK's interrupt thread, when the process
 * behind @pidfd exits. Owns the pidfd. */
class PidWatch {
public:
	static std::unique_ptr<PidWatch> start(Fd pidfd, std::function<void()> on_death,
					       int *err);
	~PidWatch();
	PidWatch(const PidWatch &) = delete;
	PidWatch &operator=(const PidWatch &) = delete;

	pid_t pid() const { return pid_; }
	int fd() const { return fd_.get(); }
	/* Fired, and DPDK's interrupt thread no longer refers to it: its fd
	 * is closed and it may be freed. */
	bool spent() const { return removed_.load(std::memory_order_acquire); }

private:
	PidWatch() = default;
	static void on_ready(void *arg);
	static void on_removed(struct rte_intr_handle *ih, void *arg);

	Fd fd_;
	pid_t pid_ = 0;
	struct rte_intr_handle *ih_ = nullptr;
	std::function<void()> on_death_;
	bool fired_ = false;
	std::atomic<bool> removed_{false};
};

} // namespace dvs

#endif
