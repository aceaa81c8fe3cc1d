/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A callback on DPDK's interrupt thread whenever an fd is readable: how
 * dvshare hears a peer die (pidfd) or speak (its channel), with no thread
 * of its own.
 */
#ifndef DVS_FD_WATCH_H
#define DVS_FD_WATCH_H

#include <atomic>
#include <functional>
#include <memory>

#include "dvs_fd.h"

struct rte_intr_handle;

namespace dvs {

class FdWatch {
public:
	/* Calls @on_ready on DPDK's interrupt thread each time @fd is
	 * readable, until it returns false. Owns @fd. NULL and *err (-errno)
	 * if DPDK cannot watch it. */
	static std::unique_ptr<FdWatch> start(Fd fd, std::function<bool()> on_ready, int *err);
	/* Stops the callback (waiting for a run in progress on another
	 * thread). Never from inside the callback (return false there), and
	 * once the callback returned false, only when spent(). */
	~FdWatch();
	FdWatch(const FdWatch &) = delete;
	FdWatch &operator=(const FdWatch &) = delete;

	int fd() const { return fd_.get(); }
	/* The callback said stop and DPDK's interrupt thread no longer refers
	 * to it: the fd is closed, and the watch may be freed. */
	bool spent() const { return removed_.load(std::memory_order_acquire); }

private:
	FdWatch() = default;
	static void on_ready(void *arg);
	static void on_removed(struct rte_intr_handle *ih, void *arg);

	Fd fd_;
	struct rte_intr_handle *ih_ = nullptr;
	std::function<bool()> on_ready_;
	std::atomic<bool> stopped_{false};
	std::atomic<bool> removed_{false};
};

} // namespace dvs

#endif
