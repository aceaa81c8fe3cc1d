/* SPDX-License-Identifier: BSD-3-Clause */
#include "pidfd.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_errno.h>

#include "dvs_log.h"

namespace dvs {

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

int pid_maps_file(pid_t pid, const std::string &path)
{
	struct stat st;
	char maps[64];
	/* /proc shows the path resolved (/var/run is a link to /run). */
	char *real = realpath(path.c_str(), nullptr);

	if (real == nullptr)
		return -errno;
	std::string want = real;
	free(real);
	if (stat(want.c_str(), &st) != 0)
		return -errno;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	FILE *f = fopen(maps, "re");
	if (f == nullptr)
		return -errno;
	/* "start-end perms offset dev inode path": the inode, then the path
	 * (a line is longer than any buffer only past the path we want). */
	char line[512];
	int rc = -ENOENT;
	while (rc != 0 && fgets(line, sizeof(line), f) != nullptr) {
		unsigned long long ino = 0;
		int at = 0;
		if (sscanf(line, "%*s %*s %*s %*s %llu %n", &ino, &at) < 1 || at == 0 ||
		    ino != static_cast<unsigned long long>(st.st_ino))
			continue;
		char *p = line + at;
		p[strcspn(p, "\n")] = '\0';
		if (want == p)
			rc = 0;
	}
	if (ferror(f))
		rc = -EIO;
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
