/* SPDX-License-Identifier: BSD-3-Clause */
#include "fd_watch.h"

#include <cerrno>

#include <unistd.h>

#include <rte_errno.h>
#include <rte_interrupts.h>

#include "dvs_log.h"

namespace dvs {

std::unique_ptr<FdWatch> FdWatch::start(Fd fd, std::function<bool()> fn, int *err)
{
	std::unique_ptr<FdWatch> w(new FdWatch());

	w->fd_ = std::move(fd);
	w->on_ready_ = std::move(fn);
	w->ih_ = rte_intr_instance_alloc(RTE_INTR_INSTANCE_F_PRIVATE);
	if (w->ih_ == nullptr || rte_intr_fd_set(w->ih_, w->fd_.get()) != 0 ||
	    rte_intr_type_set(w->ih_, RTE_INTR_HANDLE_EXT) != 0 ||
	    rte_intr_callback_register(w->ih_, on_ready, w.get()) != 0) {
		*err = rte_errno != 0 ? -rte_errno : -ENOMEM;
		rte_intr_instance_free(w->ih_);
		w->ih_ = nullptr;
		return nullptr;
	}
	*err = 0;
	return w;
}

/* DPDK's epoll is level-triggered: an fd that stays readable (a pidfd once
 * its process is gone, a socket at EOF) would call back forever, so a
 * callback that is done unregisters itself, from its own thread. */
void FdWatch::on_ready(void *arg)
{
	auto *w = static_cast<FdWatch *>(arg);

	if (w->stopped_)
		return;
	if (w->on_ready_())
		return;
	w->stopped_ = true;
	rte_intr_callback_unregister_pending(w->ih_, on_ready, arg, on_removed);
}

/* On the interrupt thread, once the callback is off its list: the fd is
 * closed now, not whenever the watch is freed. */
void FdWatch::on_removed(struct rte_intr_handle *, void *arg)
{
	auto *w = static_cast<FdWatch *>(arg);

	w->fd_.reset();
	w->removed_.store(true, std::memory_order_release);
}

FdWatch::~FdWatch()
{
	if (ih_ == nullptr)
		return;
	/* -EAGAIN while the callback runs on the interrupt thread: retry. */
	if (!stopped_) {
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
