/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Process-wide state: the shared devices, the attach result and the event
 * subscribers. One mutex guards it; nothing on a hot path takes it.
 */
#ifndef DVS_LIBRARY_H
#define DVS_LIBRARY_H

#include <atomic>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include <unistd.h>

#include <rte_lcore.h>

#include "device.h"
#include "dvshare.h"

namespace dvs {

struct EventSub {
	dvshare_dev *dev; /* nullptr: every device */
	dvshare_event_cb cb;
	void *arg;
	uint32_t mask;    /* DVSHARE_EVENT_BIT()s wanted */
	int running = 0;  /* callbacks in progress (under Library::mu) */
};

/* A counter each lcore bumps in its own cache line (a plain load and
 * store: one thread per lcore); threads DPDK does not know share one
 * atomic slot. Summed when read. */
class LcoreCounter {
public:
	void inc()
	{
		const unsigned int id = rte_lcore_id();
		if (id < RTE_MAX_LCORE) {
			auto &n = c_[id].n;
			n.store(n.load(std::memory_order_relaxed) + 1, std::memory_order_relaxed);
		} else {
			c_[RTE_MAX_LCORE].n.fetch_add(1, std::memory_order_relaxed);
		}
	}
	uint64_t load() const
	{
		uint64_t sum = 0;
		for (const auto &c : c_)
			sum += c.n.load(std::memory_order_relaxed);
		return sum;
	}

private:
	struct alignas(64) Slot {
		std::atomic<uint64_t> n{0};
	};
	Slot c_[RTE_MAX_LCORE + 1];
};

/* What a batch raises per object. */
constexpr uint32_t kRevokeEvents =
	DVSHARE_EVENT_BIT(DVSHARE_EVENT_REVOKING) | DVSHARE_EVENT_BIT(DVSHARE_EVENT_REVOKED);

class Library {
public:
	/* Never destroyed: DPDK's interrupt thread may still call in while
	 * the process exits. */
	static Library &get();
	/* The process exits normally: let go of everything (library.cpp). */
	void at_exit();

	/* The device as the library holds it: its last reference tears it
	 * down and keeps the shell (retire()), so the application's pointer
	 * stays safe to pass after a close. */
	static std::shared_ptr<dvshare_dev> share(std::unique_ptr<dvshare_dev> dev);

	/* Callers hold mu. */
	dvshare_dev *find(const char *ibdev) const;
	dvshare_dev *find(const dvshare_dev *dev) const;
	void add(std::shared_ptr<dvshare_dev> dev);
	std::shared_ptr<dvshare_dev> remove(dvshare_dev *dev);
	/* Takes mu: a reference that keeps the device alive while an IPC or
	 * interrupt handler works on it, even if it is closed meanwhile. */
	std::shared_ptr<dvshare_dev> hold(const char *ibdev);

	/* Deliver an event to the subscribers (takes mu itself). */
	void emit(dvshare_dev *dev, enum dvshare_event ev, const char *name, pid_t pid);
	/* The same for a device named by a peer; with @need_dev, nothing is
	 * delivered when no such device is shared here. */
	void emit(const char *ibdev, enum dvshare_event ev, const char *name, pid_t pid,
		  bool need_dev);
	int subscribe(dvshare_dev *dev, dvshare_event_cb cb, void *arg,
		      uint32_t mask = DVSHARE_EVENT_ALL);
	/* Remove a subscription and wait until none of its callbacks runs
	 * (but one of this very thread, which is the caller). */
	int unsubscribe(dvshare_dev *dev, dvshare_event_cb cb, void *arg);

	/* Primary: route peer news to the device named @ibdev. */
	void peer_gone(const char *ibdev, pid_t pid);
	void revoke_ack(const char *ibdev, pid_t pid, uint32_t revoke_id, uint32_t slot,
			uint32_t gen);
	/* Secondary: the primary's pid once it died, else 0. */
	pid_t orphaned() const { return orphaned_.load(); }
	void set_orphaned(pid_t primary) { orphaned_.store(primary); }
	/* Secondary: the primary's pid once it exited normally, else 0. */
	pid_t primary_exited() const { return primary_exited_.load(); }
	void set_primary_exited(pid_t primary) { primary_exited_.store(primary); }

	mutable std::mutex mu;
	std::vector<std::shared_ptr<dvshare_dev>> devices;
	uint64_t list_gen = 0; /* bumped whenever the device list changes */
	std::atomic<int> attach_status{0};
	/* Counters behind dvshare_stats_get(). */
	struct Counters {
		std::atomic<uint64_t> attach_ns{0}, attach_cpu_ns{0}, imports{0}, published{0},
			destroyed{0}, destroy_busy{0}, revoked{0}, refused{0};
	} stats;
	/* Successful lookups: per lcore, summed when read (no shared atomic
	 * on the lookup path). */
	LcoreCounter lookups;
	/* A message refused (forged, unverifiable, malformed): counted, and
	 * said, the first few at WARNING, then at DEBUG (a flood of them
	 * must not flood the log). */
	/* Does any event callback want events @mask (DVSHARE_EVENT_BIT()s)
	 * of @dev (it, or every device)? */
	bool has_subscribers(const dvshare_dev *dev, uint32_t mask);
	/* A message refused: counted, and logged (caused by peer @pid: under
	 * its log budget, log_budget.h). */
	void refused(const char *what, const std::string &why, pid_t pid = 0);

private:
	Library() = default;
	static void retire(dvshare_dev *dev);

	std::vector<std::shared_ptr<EventSub>> subs_;
	std::condition_variable subs_cv_;
	std::atomic<pid_t> orphaned_{0};
	std::atomic<pid_t> primary_exited_{0};
	/* Closed devices' shells, freed at exit. */
	std::mutex shells_mu_;
	std::vector<std::unique_ptr<dvshare_dev>> shells_;
	bool exiting_ = false;
	/* The process that made this state: a fork() child exiting says no
	 * goodbye and closes nothing in its parent's name. */
	pid_t owner_pid_ = getpid();
};

} // namespace dvs

#endif
