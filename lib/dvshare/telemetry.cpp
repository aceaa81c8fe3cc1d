/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry under /dvshare/..., readable with DPDK's telemetry client
 * (usertools/dpdk-telemetry.py) on the socket in the runtime directory.
 * Callbacks run on the telemetry thread and only read.
 */
#include <cstdio>
#include <cstring>
#include <string>

#include <rte_common.h>
#include <rte_eal.h>
#include <rte_telemetry.h>

#include "device.h"
#include "library.h"
#include "peers.h"

namespace dvs {

namespace {

/* Telemetry dicts hold at most this many entries. */
constexpr int kMaxListed = RTE_TEL_MAX_DICT_ENTRIES - 8;

const char *type_name(uint32_t t)
{
	return t == DVSHARE_TYPE_VAR ? "var" : t == DVSHARE_TYPE_OBJ ? "obj" : "umem";
}

int tel_devices(const char *, const char *, struct rte_tel_data *d)
{
	Library &lib = Library::get();

	rte_tel_data_start_dict(d);
	std::lock_guard<std::mutex> lock(lib.mu);
	for (const auto &dev : lib.devices) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		if (c == nullptr)
			return -ENOMEM;
		rte_tel_data_start_dict(c);
		rte_tel_data_add_dict_string(c, "role", dev->primary() ? "primary" : "secondary");
		rte_tel_data_add_dict_string(c, "provider", dev->glue()->provider);
		rte_tel_data_add_dict_u64(c, "objects", dev->registry().hdr()->live);
		rte_tel_data_add_dict_int(c, "closed", dev->registry().closed());
		rte_tel_data_add_dict_int(c, "engine", dev->engine() != nullptr);
		if (dev->engine() != nullptr)
			rte_tel_data_add_dict_u64(c, "engine_kicks", dev->engine()->kicks());
		rte_tel_data_add_dict_container(d, dev->name().c_str(), c, 0);
	}
	return 0;
}

struct ObjectsOut {
	struct rte_tel_data *list;
	int listed;
	int count;
};

int add_object(struct dvshare_dev *, const struct dvshare_info *info, void *arg)
{
	auto *o = static_cast<ObjectsOut *>(arg);
	char v[RTE_TEL_MAX_STRING_LEN];

	o->count++;
	if (o->listed >= kMaxListed)
		return 0;
	snprintf(v, sizeof(v), "%s id=%u size=%lu meta=%u", type_name(info->type), info->id,
		 static_cast<unsigned long>(info->size), info->meta_len);
	rte_tel_data_add_dict_string(o->list, info->name, v);
	o->listed++;
	return 0;
}

/* /dvshare/objects,<dev>: up to kMaxListed objects, and the total. */
int tel_objects(const char *, const char *params, struct rte_tel_data *d)
{
	Library &lib = Library::get();

	if (params == nullptr || params[0] == '\0')
		return -EINVAL;
	std::lock_guard<std::mutex> lock(lib.mu);
	dvshare_dev *dev = lib.find(params);
	if (dev == nullptr)
		return -ENODEV;
	ObjectsOut o = { rte_tel_data_alloc(), 0, 0 };
	if (o.list == nullptr)
		return -ENOMEM;
	rte_tel_data_start_dict(o.list);
	dev->foreach(add_object, &o);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "device", dev->name().c_str());
	rte_tel_data_add_dict_int(d, "count", o.count);
	rte_tel_data_add_dict_int(d, "truncated", o.count > o.listed);
	rte_tel_data_add_dict_container(d, "objects", o.list, 0);
	return 0;
}

/* Primary: each attached secondary and its devices. Secondary: the primary. */
int tel_peers(const char *, const char *, struct rte_tel_data *d)
{
	Library &lib = Library::get();

	rte_tel_data_start_dict(d);
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		std::lock_guard<std::mutex> lock(lib.mu);
		int primary = lib.devices.empty() ? 0 : lib.devices[0]->registry().hdr()->primary_pid;
		rte_tel_data_add_dict_int(d, "primary_pid", primary);
		rte_tel_data_add_dict_int(d, "primary_died", lib.orphaned() != 0);
		return 0;
	}
	int n = 0;
	for (const PeerInfo &p : Peers::get().list()) {
		if (n++ == kMaxListed)
			break;
		std::string devs;
		for (const std::string &x : p.devices)
			devs += (devs.empty() ? "" : " ") + x;
		std::string v = "uid=" + std::to_string(p.uid) + " devices=" + devs;
		rte_tel_data_add_dict_string(d, std::to_string(p.pid).c_str(),
					     v.substr(0, RTE_TEL_MAX_STRING_LEN - 1).c_str());
	}
	return 0;
}

int tel_stats(const char *, const char *, struct rte_tel_data *d)
{
	struct dvshare_stats s;

	dvshare_stats_get(&s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "attach_status", s.attach_status);
	rte_tel_data_add_dict_u64(d, "devices", s.devices);
	rte_tel_data_add_dict_u64(d, "attach_ns", s.attach_ns);
	rte_tel_data_add_dict_u64(d, "imports", s.imports);
	rte_tel_data_add_dict_u64(d, "lookups", s.lookups);
	rte_tel_data_add_dict_u64(d, "published", s.published);
	rte_tel_data_add_dict_u64(d, "destroyed", s.destroyed);
	rte_tel_data_add_dict_u64(d, "destroy_busy", s.destroy_busy);
	rte_tel_data_add_dict_u64(d, "revoked", s.revoked);
	rte_tel_data_add_dict_u64(d, "peers", s.peers);
	rte_tel_data_add_dict_u64(d, "orphaned", s.orphaned);
	return 0;
}

} // namespace

} // namespace dvs

RTE_INIT(dvshare_telemetry)
{
	rte_telemetry_register_cmd("/dvshare/devices", dvs::tel_devices,
				   "Shared devices. Takes no parameters");
	rte_telemetry_register_cmd("/dvshare/objects", dvs::tel_objects,
				   "Objects published on a device. Parameter: ibdev name");
	rte_telemetry_register_cmd("/dvshare/peers", dvs::tel_peers,
				   "Attached secondaries (primary) or the primary (secondary)");
	rte_telemetry_register_cmd("/dvshare/stats", dvs::tel_stats,
				   "dvshare counters of this process. Takes no parameters");
}
