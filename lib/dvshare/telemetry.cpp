/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telemetry under /dvshare/..., in the shape of DPDK's own (/ethdev/list,
 * /ethdev/info,<port>): numbers as numbers, records as dicts, lists as
 * arrays. A missing or bad parameter answers a dict whose "error" says what
 * is expected, rather than DPDK's bare null. Read with DPDK's client
 * (usertools/dpdk-telemetry.py) on the socket in the runtime directory;
 * doc/telemetry.md has every command. Callbacks run on the telemetry thread
 * and only read.
 */
#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <rte_common.h>
#include <rte_debug.h>
#include <rte_eal.h>
#include <rte_telemetry.h>

#include "attach_mode.h"
#include "device.h"
#include "dvs_dpdk_compat.h"
#include "engine_service.h"
#include "library.h"
#include "peers.h"

namespace dvs {

namespace {

/* One reply is at most 16 KiB of JSON (DPDK's buffer): an object record
 * is about 130 bytes, so a page of objects holds this many. */
constexpr int kObjectsPerReply = 100;

const char *primary_state_name(uint32_t st)
{
	return st == DVSHARE_PRIMARY_DIED ? "died" : st == DVSHARE_PRIMARY_EXITED ? "exited" : "alive";
}

const char *primary_state_now()
{
	struct dvshare_stats s;

	return dvshare_stats_get(&s) == 0 ? primary_state_name(s.primary_state) : "alive";
}

const char *type_name(uint32_t t)
{
	return t == DVSHARE_TYPE_VAR ? "var" : t == DVSHARE_TYPE_OBJ ? "obj" : "umem";
}

/* The answer to a bad request: what was wrong and what is expected. */
int bad_request(struct rte_tel_data *d, const std::string &what)
{
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "error", what.substr(0, RTE_TEL_MAX_STRING_LEN - 1).c_str());
	return 0;
}

/* The shared devices' names, space separated, for error messages. */
std::string device_names(const Library &lib)
{
	std::string s;

	for (const auto &dev : lib.devices)
		s += (s.empty() ? "" : " ") + dev->name();
	return s.empty() ? "(none)" : s;
}

/* Split "a,b,c" into at most @n fields; how many there were. */
int split_params(const char *params, std::string out[], int n)
{
	int k = 0;
	std::string p = params != nullptr ? params : "";

	if (p.empty())
		return 0;
	size_t start = 0;
	while (true) {
		size_t comma = p.find(',', start);
		if (k < n)
			out[k] = p.substr(start, comma == std::string::npos ? std::string::npos
									    : comma - start);
		k++;
		if (comma == std::string::npos)
			return k;
		start = comma + 1;
	}
}

/* The device a request names (under lib.mu), or an error answer in @d. */
dvshare_dev *device_param(Library &lib, const std::string &name, const char *usage,
			  struct rte_tel_data *d)
{
	dvshare_dev *dev = name.empty() ? nullptr : lib.find(name.c_str());

	if (dev == nullptr)
		bad_request(d, std::string(name.empty() ? "missing device" : "no device " + name) +
				       "; expects " + usage + ", device one of: " + device_names(lib));
	return dev;
}

/* A dict key: DPDK takes only [0-9A-Za-z_/] in names. */
std::string tel_key(const char *name)
{
	std::string k = name;

	for (char &c : k)
		if (!isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '/')
			c = '_';
	return k;
}

void add_object_fields(struct rte_tel_data *o, const struct dvshare_info *info)
{
	rte_tel_data_add_dict_string(o, "name", info->name);
	rte_tel_data_add_dict_string(o, "type", type_name(info->type));
	dvs_tel_dict_uint(o, "id", info->id);
	dvs_tel_dict_uint(o, "size", info->size);
	dvs_tel_dict_uint(o, "meta_len", info->meta_len);
	/* 0: the primary's; else the pid of the secondary that owns it. */
	rte_tel_data_add_dict_int(o, "owner", info->owner);
	rte_tel_data_add_dict_int(o, "orphan", info->orphan);
	if (info->type == DVSHARE_TYPE_OBJ) {
		dvs_tel_dict_uint(o, "obj_type", info->obj_type);
		dvs_tel_dict_uint(o, "create_op", info->create_op);
	}
}

/* ------------------------------------------------------------- devices */

/* Fill @c with one device's state (under lib.mu). */
void device_info(dvshare_dev *dev, struct rte_tel_data *c)
{
	const RegHeader *h = dev->registry().hdr();

	rte_tel_data_start_dict(c);
	rte_tel_data_add_dict_string(c, "name", dev->name().c_str());
	rte_tel_data_add_dict_string(c, "role", dev->primary() ? "primary" : "secondary");
	rte_tel_data_add_dict_string(c, "provider", dev->glue()->provider);
	dvs_tel_dict_uint(c, "objects", h->live);
	dvs_tel_dict_uint(c, "max_objects", h->max_objects);
	rte_tel_data_add_dict_int(c, "closed", h->closed != 0);
	rte_tel_data_add_dict_int(c, "primary_pid", h->primary_pid);
	dvs_tel_dict_uint(c, "doorbell_offset", h->db_offset);
	if (dev->primary())
		dvs_tel_dict_uint(c, "peers", Peers::get().attached_to(dev->name()).size());
	rte_tel_data_add_dict_int(c, "engine", dev->engine() != nullptr);
	if (dev->engine() != nullptr)
		dvs_tel_dict_uint(c, "engine_kicks", dev->engine()->kicks());
}

/* /dvshare/list: the devices' names. */
/* Every command that takes no parameters refuses some, the same way. */
bool has_params(const char *params)
{
	return params != nullptr && params[0] != '\0';
}

int tel_list(const char *, const char *params, struct rte_tel_data *d)
{
	Library &lib = Library::get();

	if (has_params(params))
		return bad_request(d, "takes no parameters");
	std::lock_guard<std::mutex> lock(lib.mu);

	rte_tel_data_start_array(d, RTE_TEL_STRING_VAL);
	for (const auto &dev : lib.devices)
		rte_tel_data_add_array_string(d, dev->name().c_str());
	return 0;
}

/* /dvshare/info,<dev> */
int tel_info(const char *, const char *params, struct rte_tel_data *d)
{
	Library &lib = Library::get();
	std::string p[2];
	std::lock_guard<std::mutex> lock(lib.mu);

	if (split_params(params, p, 2) > 1)
		return bad_request(d, "too many parameters; expects <device>");
	dvshare_dev *dev = device_param(lib, p[0], "<device>", d);
	if (dev == nullptr)
		return 0;
	/* The reply is the device's dict itself, as /ethdev/info's is. */
	device_info(dev, d);
	return 0;
}

/* /dvshare/devices: every device's info, by name. */
int tel_devices(const char *, const char *params, struct rte_tel_data *d)
{
	Library &lib = Library::get();

	if (has_params(params))
		return bad_request(d, "takes no parameters");
	std::lock_guard<std::mutex> lock(lib.mu);

	rte_tel_data_start_dict(d);
	for (const auto &dev : lib.devices) {
		struct rte_tel_data *c = rte_tel_data_alloc();
		if (c == nullptr)
			return -ENOMEM;
		device_info(dev.get(), c);
		rte_tel_data_add_dict_container(d, tel_key(dev->name().c_str()).c_str(), c, 0);
	}
	return 0;
}

/* ------------------------------------------------------------- objects */

struct ObjectsOut {
	struct rte_tel_data *list;
	int first;  /* index of the first object to list */
	int count;  /* objects seen */
	int listed;
	std::vector<std::string> keys;
};

int add_object(struct dvshare_dev *, const struct dvshare_info *info, void *arg)
{
	auto *o = static_cast<ObjectsOut *>(arg);
	int index = o->count++;

	if (index < o->first || o->listed >= kObjectsPerReply)
		return 0;
	struct rte_tel_data *rec = rte_tel_data_alloc();
	if (rec == nullptr)
		return -ENOMEM;
	rte_tel_data_start_dict(rec);
	add_object_fields(rec, info);
	/* Two names that differ only in bytes a key cannot hold stay apart. */
	std::string key = tel_key(info->name);
	if (std::find(o->keys.begin(), o->keys.end(), key) != o->keys.end())
		key += "_" + std::to_string(index);
	o->keys.push_back(key);
	rte_tel_data_add_dict_container(o->list, key.c_str(), rec, 0);
	o->listed++;
	return 0;
}

/* /dvshare/objects,<dev>[,<first>]: a page of objects in registry order. */
int tel_objects(const char *, const char *params, struct rte_tel_data *d)
{
	static const char usage[] = "<device>[,<first object index>]";
	Library &lib = Library::get();
	std::string p[3];
	std::lock_guard<std::mutex> lock(lib.mu);

	int n = split_params(params, p, 3);
	if (n > 2)
		return bad_request(d, std::string("too many parameters; expects ") + usage);
	dvshare_dev *dev = device_param(lib, p[0], usage, d);
	if (dev == nullptr)
		return 0;
	char *end = nullptr;
	long first = n == 2 ? strtol(p[1].c_str(), &end, 10) : 0;
	if (n == 2 && (p[1].empty() || *end != '\0' || first < 0 || first > INT32_MAX))
		return bad_request(d, "bad first index " + p[1] + "; expects " + usage);
	ObjectsOut o{ rte_tel_data_alloc(), static_cast<int>(first), 0, 0, {} };
	if (o.list == nullptr)
		return -ENOMEM;
	rte_tel_data_start_dict(o.list);
	if (dev->foreach(add_object, &o) < 0) {
		rte_tel_data_free(o.list);
		return -ENOMEM;
	}
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "device", dev->name().c_str());
	dvs_tel_dict_uint(d, "count", o.count);
	dvs_tel_dict_uint(d, "first", o.first);
	dvs_tel_dict_uint(d, "listed", o.listed);
	if (o.first + o.listed < o.count)
		dvs_tel_dict_uint(d, "next", o.first + o.listed);
	rte_tel_data_add_dict_container(d, "objects", o.list, 0);
	return 0;
}

struct FindOut {
	const char *name;
	struct rte_tel_data *rec;
	bool found;
};

int find_object(struct dvshare_dev *, const struct dvshare_info *info, void *arg)
{
	auto *f = static_cast<FindOut *>(arg);

	if (strcmp(info->name, f->name) != 0)
		return 0;
	add_object_fields(f->rec, info);
	f->found = true;
	return 1; /* stop the walk */
}

/* Printable application metadata as a string, else nothing. */
void add_meta(dvshare_dev *dev, const char *name, struct rte_tel_data *d)
{
	char meta[DVSHARE_META_MAX + 1];
	int len = dev->get_meta(name, meta, DVSHARE_META_MAX);

	if (len <= 0 || len >= RTE_TEL_MAX_STRING_LEN)
		return;
	for (int i = 0; i < len; i++)
		if (!isprint(static_cast<unsigned char>(meta[i])))
			return;
	meta[len] = '\0';
	rte_tel_data_add_dict_string(d, "meta", meta);
}

/* /dvshare/object,<dev>,<name> */
int tel_object(const char *, const char *params, struct rte_tel_data *d)
{
	static const char usage[] = "<device>,<object name>";
	Library &lib = Library::get();
	std::string p[3];
	std::lock_guard<std::mutex> lock(lib.mu);

	int n = split_params(params, p, 3);
	dvshare_dev *dev = device_param(lib, p[0], usage, d);
	if (dev == nullptr)
		return 0;
	if (n != 2 || p[1].empty())
		return bad_request(d, std::string(n < 2 ? "missing object name" : "too many parameters") +
				       "; expects " + usage);
	rte_tel_data_start_dict(d);
	FindOut f{ p[1].c_str(), d, false };
	dev->foreach(find_object, &f);
	if (!f.found)
		return bad_request(d, "no object " + p[1] + " on " + dev->name() +
				       " (/dvshare/objects," + dev->name() + " lists them)");
	add_meta(dev, p[1].c_str(), d);
	return 0;
}

/* --------------------------------------------------------------- peers */

/* Primary: each attached secondary. Secondary: the primary, and whether
 * it is alive, exited (closed) or died. */
int tel_peers(const char *, const char *params, struct rte_tel_data *d)
{
	Library &lib = Library::get();

	if (has_params(params))
		return bad_request(d, "takes no parameters");
	rte_tel_data_start_dict(d);
	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		std::lock_guard<std::mutex> lock(lib.mu);
		int primary = lib.devices.empty() ? 0 : lib.devices[0]->registry().hdr()->primary_pid;
		rte_tel_data_add_dict_string(d, "role", "secondary");
		rte_tel_data_add_dict_int(d, "primary_pid", primary);
		rte_tel_data_add_dict_string(d, "primary", primary_state_now());
		return 0;
	}
	std::vector<PeerInfo> peers = Peers::get().list();
	struct rte_tel_data *all = rte_tel_data_alloc();
	if (all == nullptr)
		return -ENOMEM;
	rte_tel_data_start_dict(all);
	int listed = 0;
	for (const PeerInfo &p : peers) {
		if (listed == RTE_TEL_MAX_DICT_ENTRIES)
			break;
		struct rte_tel_data *rec = rte_tel_data_alloc();
		struct rte_tel_data *devs = rte_tel_data_alloc();
		if (rec == nullptr || devs == nullptr) {
			rte_tel_data_free(rec);
			rte_tel_data_free(devs);
			rte_tel_data_free(all);
			return -ENOMEM;
		}
		rte_tel_data_start_array(devs, RTE_TEL_STRING_VAL);
		for (const std::string &x : p.devices)
			rte_tel_data_add_array_string(devs, x.c_str());
		rte_tel_data_start_dict(rec);
		rte_tel_data_add_dict_int(rec, "pid", p.pid);
		dvs_tel_dict_uint(rec, "uid", p.uid);
		rte_tel_data_add_dict_container(rec, "devices", devs, 0);
		dvs_tel_dict_uint(rec, "queued", p.queued);
		rte_tel_data_add_dict_container(all, std::to_string(p.pid).c_str(), rec, 0);
		listed++;
	}
	rte_tel_data_add_dict_string(d, "role", "primary");
	dvs_tel_dict_uint(d, "count", peers.size());
	rte_tel_data_add_dict_container(d, "peers", all, 0);
	return 0;
}

/* --------------------------------------------------------------- stats */

int tel_stats(const char *, const char *params, struct rte_tel_data *d)
{
	struct dvshare_stats s;

	if (has_params(params))
		return bad_request(d, "takes no parameters");
	dvshare_stats_get(&s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_int(d, "attach_status", s.attach_status);
	dvs_tel_dict_uint(d, "devices", s.devices);
	dvs_tel_dict_uint(d, "attach_ns", s.attach_ns);
	dvs_tel_dict_uint(d, "attach_cpu_ns", s.attach_cpu_ns);
	dvs_tel_dict_uint(d, "imports", s.imports);
	dvs_tel_dict_uint(d, "lookups", s.lookups);
	dvs_tel_dict_uint(d, "published", s.published);
	dvs_tel_dict_uint(d, "destroyed", s.destroyed);
	dvs_tel_dict_uint(d, "destroy_busy", s.destroy_busy);
	dvs_tel_dict_uint(d, "revoked", s.revoked);
	dvs_tel_dict_uint(d, "peers", s.peers);
	dvs_tel_dict_uint(d, "orphaned", s.orphaned);
	rte_tel_data_add_dict_string(d, "primary", primary_state_name(s.primary_state));
	dvs_tel_dict_uint(d, "refused", s.refused);
	rte_tel_data_add_dict_string(d, "attach_mode",
				     attach_mode_name(static_cast<enum dvshare_attach_mode>(s.attach_mode)));
	return 0;
}

} // namespace

} // namespace dvs

RTE_INIT(dvshare_telemetry)
{
	static const struct {
		const char *cmd;
		telemetry_cb fn;
		const char *help;
	} cmds[] = {
		{ "/dvshare/list", dvs::tel_list,
		  "Returns the names of the shared devices. Takes no parameters" },
		{ "/dvshare/info", dvs::tel_info,
		  "Returns a device's state. Parameters: string device" },
		{ "/dvshare/devices", dvs::tel_devices,
		  "Returns every device's state, by name. Takes no parameters" },
		{ "/dvshare/objects", dvs::tel_objects,
		  "Returns up to 100 objects of a device from index first (default 0). "
		  "Parameters: string device, int first" },
		{ "/dvshare/object", dvs::tel_object,
		  "Returns one object and its metadata. Parameters: string device, string name" },
		{ "/dvshare/peers", dvs::tel_peers,
		  "Returns the attached secondaries, or the primary's state. Takes no parameters" },
		{ "/dvshare/stats", dvs::tel_stats,
		  "Returns this process's dvshare counters. Takes no parameters" },
	};

	/* DPDK refuses a help text of RTE_TEL_MAX_STRING_LEN bytes or more. */
	for (const auto &c : cmds)
		RTE_VERIFY(rte_telemetry_register_cmd(c.cmd, c.fn, c.help) == 0);
}
