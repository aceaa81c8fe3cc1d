/* SPDX-License-Identifier: BSD-3-Clause */
#include "library.h"

#include <cstring>
#include <ctime>

#include <rte_bus_vdev.h>
#include <rte_common.h>
#include <rte_eal.h>

#include "dvs_log.h"
#include "ipc.h"

namespace dvs {

Library &Library::get()
{
	static Library lib;
	return lib;
}

Library::~Library()
{
	/* At process exit every process only lets go of its own view: a
	 * secondary unimports, and a primary destroys nothing either, since its
	 * secondaries hold the cmd_fd and keep using what they imported. */
	for (auto &d : devices)
		d->abandon();
	devices.clear();
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
			std::erase_if(subs_, [dev](const EventSub &s) { return s.dev == dev; });
			return d;
		}
	}
	return nullptr;
}

void Library::emit(dvshare_dev *dev, enum dvshare_event ev, const char *name, pid_t pid)
{
	std::vector<EventSub> subs;
	{
		std::lock_guard<std::mutex> lock(mu);
		for (const auto &s : subs_)
			if (s.dev == nullptr || s.dev == dev)
				subs.push_back(s);
	}
	/* Outside the lock: a callback may call back into dvshare. */
	for (const auto &s : subs)
		s.cb(dev, ev, name, pid, s.arg);
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

int Library::subscribe(dvshare_dev *dev, dvshare_event_cb cb, void *arg)
{
	std::lock_guard<std::mutex> lock(mu);

	if (dev != nullptr && find(dev) == nullptr)
		return -ENODEV;
	subs_.push_back({ dev, cb, arg });
	return 0;
}

int logtype = -1;

void log_init()
{
	if (logtype < 0)
		logtype = rte_log_register_type_and_pick_level("lib.dvshare", RTE_LOG_NOTICE);
	if (logtype < 0)
		logtype = RTE_LOGTYPE_USER1;
}

namespace {

/* Runs inside rte_eal_init() (vdev bus scan), in every process: after the
 * IPC channel is up, before DPDK memory exists. */
void on_bus_scan(void *)
{
	log_init();
	switch (rte_eal_process_type()) {
	case RTE_PROC_PRIMARY:
		ipc_primary_init();
		break;
	case RTE_PROC_SECONDARY: {
		struct timespec t0, t1;
		clock_gettime(CLOCK_MONOTONIC, &t0);
		ipc_secondary_init();
		Library::get().attach_status.store(ipc_secondary_attach());
		clock_gettime(CLOCK_MONOTONIC, &t1);
		Library::get().stats.attach_ns.store(
			static_cast<uint64_t>(t1.tv_sec - t0.tv_sec) * 1000000000ull +
			static_cast<uint64_t>(t1.tv_nsec) - static_cast<uint64_t>(t0.tv_nsec));
		break;
	}
	default:
		break;
	}
}

} // namespace

} // namespace dvs

RTE_INIT(dvshare_register_scan)
{
	dvs::log_init();
	/* Make sure the singleton outlives everything that may use it at
	 * exit, by constructing it before any other dvshare static. */
	(void)dvs::Library::get();
	if (rte_vdev_add_custom_scan(dvs::on_bus_scan, nullptr) != 0)
		DVS_LOG(ERR, "cannot hook the vdev bus scan: secondaries will not attach");
}
