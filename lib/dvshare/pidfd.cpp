/* SPDX-License-Identifier: BSD-3-Clause */
#include "pidfd.h"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>

#include <sys/syscall.h>
#include <unistd.h>

#include <rte_errno.h>
#include <rte_interrupts.h>

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

std::unique_ptr<PidWatch> PidWatch::start(Fd pidfd, std::function<void()> on_death, int *err)
{
	std::unique_ptr<PidWatch> w(new PidWatch());

	w->pid_ = pidfd_pid(pidfd.get());
	w->fd_ = std::move(pidfd);
	w->on_death_ = std::move(on_death);
	w->ih_ = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (w->ih_ == nullptr || rte_intr_fd_set(w->ih_, w->fd_.get()) != 0 ||
	    rte_intr_type_set(w->ih_, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(w->ih_, on_ready, w.get()) != 0) {
		*err = rte_errno != 0 ? -rte_errno : -ENOMEM;
		DVS_LOG(ERR, "cannot watch pid %d: %s", w->pid_, rte_strerror(-*err));
		rte_intr_instance_free(w->ih_);
		w->ih_ = nullptr;
		return nullptr;
	}
	*err = 0;
	return w;
}

/* The pidfd stays readable once its process is gone (level-triggered), so
 * the callback unregisters itself and runs @on_death only once. */
void PidWatch::on_ready(void *arg)
{
	auto *w = static_cast<PidWatch *>(arg);

	if (w->fired_)
		return;
	w->fired_ = true;
	rte_intr_callback_unregister_pending(w->ih_, on_ready, arg, on_removed);
	w->on_death_();
}

/* On the interrupt thread, once the callback is off its list: the pidfd
 * is closed now, not whenever the watch is freed. */
void PidWatch::on_removed(struct rte_intr_handle *, void *arg)
{
	auto *w = static_cast<PidWatch *>(arg);

	w->fd_.reset();
	w->removed_.store(true, std::memory_order_release);
}

PidWatch::~PidWatch()
{
	if (ih_ == nullptr)
		return;
	/* -EAGAIN while the callback runs on the interrupt thread: retry. */
	if (!fired_) {
		for (int i = 0; i < 1000; i++) {
			int rc = rte_intr_callback_unregister(ih_, on_ready, this);
			if (rc != -EAGAIN)
				break;
			usleep(1000);
		}
	}
	rte_intr_instance_free(ih_);
}

} // namespace dvs
