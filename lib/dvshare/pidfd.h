/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process identity and death, through pidfds: who a peer is (pid, uid),
 * and a DPDK interrupt callback when it dies (a pidfd becomes readable when
 * its process exits). No polling thread of our own.
 */
#ifndef DVS_PIDFD_H
#define DVS_PIDFD_H

#include <cstdio>
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
/* The process holding a write lock on EAL's config file @path (a
 * primary's; the read locks of orphaned secondaries do not count), or 0. */
pid_t config_lock_holder(const std::string &path);
/* Does @pid map the file @path? Decided by what the file is (its device
 * and inode), never by a name: through /proc/<pid>/map_files/ (each
 * link stat'ed), or where this process may not follow those links, by
 * the device and inode fields of each whole line of /proc/<pid>/maps
 * (@lines_only: that way only). 0, -ENOENT when it does not, or -errno
 * (-EACCES: another uid's process and no right to read its maps). */
int pid_maps_file(pid_t pid, const std::string &path, bool lines_only = false);
/* The maps-line way on a stream of /proc/<pid>/maps: 0 if a line maps
 * the file @dev/@ino, -ENOENT, or -EIO. */
int maps_have_file(FILE *maps, dev_t dev, ino_t ino);

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
