/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process identity and death, through pidfds: who a peer is (pid, uid),
 * and a DPDK interrupt callback when it dies (a pidfd becomes readable when
 * its process exits). No polling thread of our own.
 */
#ifndef DVS_PIDFD_H
#define DVS_PIDFD_H

#include <functional>
#include <memory>
#include <string>

#include <sys/types.h>

#include "dvs_fd.h"
#include "fd_watch.h"

namespace dvs {

/* A pidfd for this process, or -errno. */
int pidfd_self();
/* The pid a pidfd refers to (from /proc/self/fdinfo), or -errno. */
pid_t pidfd_pid(int pidfd);
/* Effective uid of @pid (from /proc/<pid>/status): 0 or -errno. */
int pid_euid(pid_t pid, uid_t *uid);
/* Still running? */
bool pidfd_alive(int pidfd);
/* Does @pid map the file @path (the same inode, by /proc/<pid>/maps)?
 * 0, -ENOENT when it does not, or -errno (-EACCES: another uid's process
 * and no right to read its maps). */
int pid_maps_file(pid_t pid, const std::string &path);

/* Calls @on_death once, on DPDK's interrupt thread, when the process
 * behind @pidfd exits. Owns the pidfd. */
class PidWatch {
public:
	static std::unique_ptr<PidWatch> start(Fd pidfd, std::function<void()> on_death,
					       int *err);

	pid_t pid() const { return pid_; }
	/* Is the process still running (its pidfd not readable yet)? */
	bool alive() const;
	/* Fired, and DPDK's interrupt thread no longer refers to it: its fd
	 * is closed and it may be freed. */
	bool spent() const { return w_->spent(); }

private:
	PidWatch() = default;

	pid_t pid_ = 0;
	std::unique_ptr<FdWatch> w_;
};

} // namespace dvs

#endif
