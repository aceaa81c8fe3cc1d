/* SPDX-License-Identifier: BSD-3-Clause */
#include "pidfd.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <dirent.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include <rte_errno.h>

#include "dvs_log.h"

namespace dvs {

pid_t config_lock_holder(const std::string &path)
{
	Fd fd(open(path.c_str(), O_RDONLY | O_CLOEXEC));
	struct flock lk = {};

	lk.l_type = F_RDLCK; /* conflicts with a write lock only */
	lk.l_whence = SEEK_SET;
	if (!fd.valid() || fcntl(fd.get(), F_GETLK, &lk) != 0 || lk.l_type == F_UNLCK)
		return 0;
	return lk.l_pid;
}

int pidfd_self()
{
	long fd = syscall(SYS_pidfd_open, getpid(), 0);

	return fd < 0 ? -errno : static_cast<int>(fd);
}

namespace {

/* Run @match on each line of a /proc file until it returns true. */
template <typename F> int scan_proc(const char *path, F &&match)
{
	char line[256];
	FILE *f = fopen(path, "re");
	int rc = -ENOENT;

	if (f == nullptr)
		return -errno;
	while (rc != 0 && fgets(line, sizeof(line), f) != nullptr)
		if (match(line))
			rc = 0;
	fclose(f);
	return rc;
}

} // namespace

pid_t pidfd_pid(int pidfd)
{
	char path[64];
	int pid = 0;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", pidfd);
	int rc = scan_proc(path, [&](const char *l) { return sscanf(l, "Pid: %d", &pid) == 1; });
	if (rc != 0)
		return rc;
	return pid > 0 ? pid : -ESRCH; /* -1: the process is gone */
}

int pid_euid(pid_t pid, uid_t *uid)
{
	char path[64];
	unsigned int real, eff;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	int rc = scan_proc(path, [&](const char *l) { return sscanf(l, "Uid: %u %u", &real, &eff) == 2; });
	if (rc == 0)
		*uid = eff;
	return rc;
}

bool pidfd_alive(int pidfd)
{
	return syscall(SYS_pidfd_send_signal, pidfd, 0, nullptr, 0) == 0;
}

int maps_have_file(FILE *maps, dev_t dev, ino_t ino)
{
	char *line = nullptr;
	size_t cap = 0;
	int rc = -ENOENT;

	/* Whole lines (a path may be longer than any fixed buffer, and what
	 * follows a cut would read as a line of its own); each starts with
	 * the kernel's fields: "start-end perms offset major:minor inode". */
	while (rc != 0 && getline(&line, &cap, maps) > 0) {
		unsigned int maj = 0, min = 0;
		unsigned long long i = 0;
		if (sscanf(line, "%*x-%*x %*s %*x %x:%x %llu", &maj, &min, &i) == 3 &&
		    makedev(maj, min) == dev && i == static_cast<unsigned long long>(ino) && i != 0)
			rc = 0;
	}
	if (ferror(maps))
		rc = -EIO;
	free(line);
	return rc;
}

namespace {

/* By the kernel's link to each mapped file (/proc/<pid>/map_files/):
 * 0, -ENOENT, or -errno (-EPERM: following those links takes
 * CAP_CHECKPOINT_RESTORE or CAP_SYS_ADMIN). */
int map_files_have(pid_t pid, dev_t dev, ino_t ino)
{
	char dir[64];

	snprintf(dir, sizeof(dir), "/proc/%d/map_files", pid);
	Fd dfd(open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC));
	if (!dfd.valid())
		return -errno;
	DIR *d = fdopendir(dfd.get());
	if (d == nullptr)
		return -errno;
	(void)dfd.release(); /* closedir() closes it */
	int rc = -ENOENT;
	for (struct dirent *e; rc == -ENOENT && (e = readdir(d)) != nullptr;) {
		struct stat st;
		if (e->d_name[0] == '.')
			continue;
		if (fstatat(dirfd(d), e->d_name, &st, 0) != 0) {
			if (errno == EPERM || errno == EACCES)
				rc = -errno;
			continue; /* unmapped meanwhile */
		}
		if (st.st_dev == dev && st.st_ino == ino)
			rc = 0;
	}
	closedir(d);
	return rc;
}

} // namespace

int pid_maps_file(pid_t pid, const std::string &path, bool lines_only)
{
	struct stat want;

	if (stat(path.c_str(), &want) != 0)
		return -errno;
	if (!lines_only) {
		int rc = map_files_have(pid, want.st_dev, want.st_ino);
		if (rc != -EPERM && rc != -EACCES)
			return rc;
	}
	char maps[64];
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	FILE *f = fopen(maps, "re");
	if (f == nullptr)
		return -errno;
	int rc = maps_have_file(f, want.st_dev, want.st_ino);
	fclose(f);
	return rc;
}

bool PidWatch::alive() const
{
	return w_->fd() >= 0 && pidfd_alive(w_->fd());
}

std::unique_ptr<PidWatch> PidWatch::start(Fd pidfd, std::function<void()> on_death, int *err)
{
	std::unique_ptr<PidWatch> w(new PidWatch());

	w->pid_ = pidfd_pid(pidfd.get());
	/* A pidfd stays readable once its process is gone: once is enough. */
	w->w_ = FdWatch::start(std::move(pidfd), [fn = std::move(on_death)] {
		fn();
		return false;
	}, err);
	if (w->w_ == nullptr) {
		DVS_LOG(ERR, "cannot watch pid %d: %s", w->pid_, rte_strerror(-*err));
		return nullptr;
	}
	return w;
}

} // namespace dvs
