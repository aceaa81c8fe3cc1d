/* SPDX-License-Identifier: BSD-3-Clause */
#include "library.h"

#include <algorithm>
#include <cstring>
#include <ctime>

#include <rte_bus_vdev.h>
#include <rte_common.h>
#include <rte_eal.h>

#include "dvs_log.h"
#include "log_budget.h"
#include "ipc.h"
#include "peers.h"

namespace dvs {

Library &Library::get()
{
	static Library *lib = new Library;
	return *lib;
}

void Library::at_exit()
{
	/* At process exit every process only lets go of its own view: a
	 * secondary unimports, and a primary destroys nothing either, since its
	 * secondaries hold the cmd_fd and keep using what they imported. A
	 * primary closes its registries to lookups, and both say goodbye, so
	 * the other side reads a normal exit rather than a death. */
	bool ours = getpid() == owner_pid_;
	bool primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	/* Out of the list under its lock: the interrupt thread may be
	 * holding a device for a message right now (it keeps its reference,
	 * and the device's teardown waits for it), but it must never copy a
	 * reference out of a list being cleared, to a device whose last
	 * reference is going and whose registry is being unmapped. */
	std::vector<std::shared_ptr<dvshare_dev>> gone;
	{
		std::lock_guard<std::mutex> lock(mu);
		gone.swap(devices);
		list_gen++;
	}
	for (auto &d : gone) {
		if (ours && primary)
			d->close_primary();
		d->abandon();
	}
	if (ours && primary)
		Peers::get().say_bye();
	else if (ours)
		ipc_secondary_bye();
	{
		std::lock_guard<std::mutex> lock(shells_mu_);
		exiting_ = true;
	}
	gone.clear();
}

std::shared_ptr<dvshare_dev> Library::share(std::unique_ptr<dvshare_dev> dev)
{
	return std::shared_ptr<dvshare_dev>(dev.release(), retire);
}

void Library::retire(dvshare_dev *dev)
{
	Library &lib = get();

	dev->teardown();
	std::lock_guard<std::mutex> lock(lib.shells_mu_);
	if (lib.exiting_)
		delete dev;
	else
		lib.shells_.emplace_back(dev);
}

dvshare_dev *Library::find(const char *ibdev) const
{
	for (const auto &d : devices)
		if (d->name() == ibdev)
			return d.get();
	return nullptr;
}

dvshare_dev *Library::find(const dvshare_dev *dev) const
{
	for (const auto &d : devices)
		if (d.get() == dev)
			return d.get();
	return nullptr;
}

void Library::add(std::shared_ptr<dvshare_dev> dev)
{
	devices.push_back(std::move(dev));
	list_gen++;
}

std::shared_ptr<dvshare_dev> Library::hold(const char *ibdev)
{
	std::lock_guard<std::mutex> lock(mu);

	for (const auto &d : devices)
		if (d->name() == ibdev)
			return d;
	return nullptr;
}

std::shared_ptr<dvshare_dev> Library::remove(dvshare_dev *dev)
{
	for (auto it = devices.begin(); it != devices.end(); ++it) {
		if (it->get() == dev) {
			std::shared_ptr<dvshare_dev> d = std::move(*it);
			devices.erase(it);
			list_gen++;
			std::erase_if(subs_, [dev](const auto &s) { return s->dev == dev; });
			return d;
		}
	}
	return nullptr;
}

namespace {

/* The subscription whose callback this thread is running, if any. */
thread_local const EventSub *in_callback;

} // namespace

void Library::emit(dvshare_dev *dev, enum dvshare_event ev, const char *name, pid_t pid)
{
	std::vector<std::shared_ptr<EventSub>> subs;
	{
		std::lock_guard<std::mutex> lock(mu);
		for (const auto &s : subs_)
			if ((s->dev == nullptr || s->dev == dev) &&
			    (s->mask & DVSHARE_EVENT_BIT(ev)) != 0) {
				s->running++;
				subs.push_back(s);
			}
	}
	/* Outside the lock: a callback may call back into dvshare. */
	for (const auto &s : subs) {
		const EventSub *outer = in_callback;
		in_callback = s.get();
		s->cb(dev, ev, name, pid, s->arg);
		in_callback = outer;
		std::lock_guard<std::mutex> lock(mu);
		s->running--;
	}
	if (!subs.empty())
		subs_cv_.notify_all();
}

bool Library::has_subscribers(const dvshare_dev *dev, uint32_t mask)
{
	std::lock_guard<std::mutex> lock(mu);

	return std::any_of(subs_.begin(), subs_.end(), [dev, mask](const auto &s) {
		return (s->dev == nullptr || s->dev == dev) && (s->mask & mask) != 0;
	});
}

void Library::emit(const char *ibdev, enum dvshare_event ev, const char *name, pid_t pid,
		   bool need_dev)
{
	dvshare_dev *d;
	{
		std::lock_guard<std::mutex> lock(mu);
		d = find(ibdev);
	}
	if (d != nullptr || !need_dev)
		emit(d, ev, name, pid);
}

void Library::refused(const char *what, const std::string &why, pid_t pid)
{
	uint64_t n = ++stats.refused;

	if (pid > 0) {
		bool last = false;
		if (LogBudget::get().take(pid, &last))
			DVS_LOG(WARNING, "%s refused: %s%s", what, why.c_str(),
				last ? " (further refusals caused by this pid logged at debug level)" : "");
		else
			DVS_LOG(DEBUG, "%s refused: %s", what, why.c_str());
		return;
	}
	if (n <= 8)
		DVS_LOG(WARNING, "%s refused: %s%s", what, why.c_str(),
			n == 8 ? " (further refusals logged at debug level)" : "");
	else
		DVS_LOG(DEBUG, "%s refused: %s", what, why.c_str());
}

void Library::peer_gone(const char *ibdev, pid_t pid)
{
	std::lock_guard<std::mutex> lock(mu);
	dvshare_dev *d = find(ibdev);

	if (d != nullptr)
		d->peer_gone(pid);
}

void Library::revoke_ack(const char *ibdev, pid_t pid, uint32_t revoke_id, uint32_t slot,
			 uint32_t gen)
{
	std::lock_guard<std::mutex> lock(mu);
	dvshare_dev *d = find(ibdev);

	if (d != nullptr)
		d->revoke_ack(pid, revoke_id, slot, gen);
}

int Library::subscribe(dvshare_dev *dev, dvshare_event_cb cb, void *arg, uint32_t mask)
{
	std::lock_guard<std::mutex> lock(mu);

	if (dev != nullptr && find(dev) == nullptr)
		return -ENODEV;
	subs_.push_back(std::make_shared<EventSub>(EventSub{ dev, cb, arg, mask }));
	return 0;
}

int Library::unsubscribe(dvshare_dev *dev, dvshare_event_cb cb, void *arg)
{
	std::unique_lock<std::mutex> lock(mu);
	auto it = std::find_if(subs_.begin(), subs_.end(), [&](const auto &s) {
		return s->dev == dev && s->cb == cb && s->arg == arg;
	});

	if (it == subs_.end())
		return -ENOENT;
	std::shared_ptr<EventSub> gone = std::move(*it);
	subs_.erase(it);
	subs_cv_.wait(lock, [&] { return gone->running == (in_callback == gone.get() ? 1 : 0); });
	return 0;
}

RTE_LOG_REGISTER_DEFAULT(logtype, NOTICE);
thread_local bool log_demoted;

namespace {

uint64_t clock_ns(clockid_t clock)
{
	struct timespec t;

	clock_gettime(clock, &t);
	return static_cast<uint64_t>(t.tv_sec) * 1000000000ull + static_cast<uint64_t>(t.tv_nsec);
}

/* Runs inside rte_eal_init() (vdev bus scan), in every process: after the
 * IPC channel is up, before DPDK memory exists. */
void on_bus_scan(void *)
{
	switch (rte_eal_process_type()) {
	case RTE_PROC_PRIMARY:
		ipc_primary_init();
		break;
	case RTE_PROC_SECONDARY: {
		const uint64_t t0 = clock_ns(CLOCK_MONOTONIC), c0 = clock_ns(CLOCK_THREAD_CPUTIME_ID);
		Library::get().attach_status.store(ipc_secondary_attach());
		Library::get().stats.attach_cpu_ns.store(clock_ns(CLOCK_THREAD_CPUTIME_ID) - c0);
		Library::get().stats.attach_ns.store(clock_ns(CLOCK_MONOTONIC) - t0);
		break;
	}
	default:
		break;
	}
}

} // namespace

} // namespace dvs

namespace {

/* Runs the library's exit-time code after every other dvshare static is
 * gone: it is made before any of them. */
struct ExitHook {
	~ExitHook() { dvs::Library::get().at_exit(); }
};

} // namespace

RTE_INIT(dvshare_register_scan)
{
	(void)dvs::Library::get();
	static ExitHook hook;
	if (rte_vdev_add_custom_scan(dvs::on_bus_scan, nullptr) != 0)
		DVS_LOG(ERR, "cannot hook the vdev bus scan: secondaries will not attach");
}
