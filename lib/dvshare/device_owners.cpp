/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who owns what (primary): an object a secondary created belongs to it
 * (RegEntry::owner, its pid) unless it asked for DVSHARE_CREATE_PERSIST;
 * everything else is the primary's (0). The handle remembers which
 * secondary asked for it (Handle::creator), persistent or not, for the
 * per-secondary limit. See doc/api.md, "Creating in a secondary".
 */
#include "device.h"

#include <cstring>

#include "dvs_log.h"
#include "dvshare_prm.h"

using dvs::EntryState;
using dvs::RegEntry;

uint32_t dvshare_dev::created_by(pid_t pid)
{
	std::lock_guard<std::mutex> lock(ctl_);
	auto it = created_.find(pid);

	return it != created_.end() ? it->second : 0;
}

std::vector<std::string> dvshare_dev::owned_by(pid_t pid) const
{
	std::vector<std::string> out;

	for (uint32_t s = reg_.next_used(0); s < reg_.nslots(); s = reg_.next_used(s + 1)) {
		RegEntry e;
		if (reg_.read(s, &e) == 0 && e.state == static_cast<uint32_t>(EntryState::Live) &&
		    e.owner == pid)
			out.emplace_back(e.name);
	}
	return out;
}

/* Its owner is gone and the destroy of these failed (the device refused,
 * a secondary did not let go): the primary keeps them, and destroys them
 * at its close like its own, rather than leave them to a pid the system
 * may give to another process. */
uint32_t dvshare_dev::adopt(pid_t pid)
{
	std::lock_guard<std::mutex> lock(ctl_);
	uint32_t n = 0;

	for (uint32_t s = reg_.next_used(0); s < reg_.nslots(); s = reg_.next_used(s + 1)) {
		RegEntry e;
		if (reg_.read(s, &e) != 0 || e.state != static_cast<uint32_t>(EntryState::Live) ||
		    e.owner != pid)
			continue;
		reg_.set_owner(s, 0);
		dvs::Handle *h = store_.get(s);
		if (h != nullptr)
			h->creator = 0;
		DVS_LOG(NOTICE, "%s: %s of pid %d, which is gone, is now the primary's",
			name_.c_str(), e.name, pid);
		n++;
	}
	/* Persistent objects it created no longer count against anyone. */
	store_.for_each([pid](dvs::Handle &h) {
		if (h.creator == pid)
			h.creator = 0;
	});
	created_.erase(pid);
	return n;
}

/* May secondary @pid make an object that names the published object of
 * @type (UMEM: umem_id @id; OBJ: the @create_op object of id @id)? Its
 * own, or one made for a secondary and handed to the primary at create
 * (DVSHARE_CREATE_PERSIST: its memory was checked to be DPDK's then);
 * never the primary's own, whose memory may be the primary's alone. */
int dvshare_dev::may_build_on(pid_t pid, enum dvshare_type type, uint32_t id, uint16_t create_op,
			      std::string *why)
{
	std::lock_guard<std::mutex> lock(ctl_);
	const dvs::Handle *found = nullptr;

	store_.any_of([&](const dvs::Handle &h) {
		if (h.type != type)
			return false;
		if (type == DVSHARE_TYPE_UMEM)
			found = static_cast<const dvshare_umem &>(h).dv != nullptr &&
					 static_cast<const dvshare_umem &>(h).dv->umem_id == id
					? &h : nullptr;
		else if (type == DVSHARE_TYPE_OBJ) {
			const auto &o = static_cast<const dvshare_obj &>(h);
			found = o.create_op == create_op && o.obj_id == id ? &h : nullptr;
		}
		return found != nullptr;
	});
	const char *what = type == DVSHARE_TYPE_UMEM ? "UMEM" : "key";
	if (found == nullptr) {
		*why = std::string("no published ") + what + " has id " + std::to_string(id);
		return -EPERM;
	}
	RegEntry e;
	if (reg_.read(found->slot, &e) != 0 || e.state != static_cast<uint32_t>(EntryState::Live)) {
		*why = std::string(what) + " " + found->name + " is going away";
		return -EPERM;
	}
	if (e.owner == pid || (e.owner == 0 && found->for_peer))
		return 0;
	*why = std::string(what) + " " + found->name + " is " +
	       (e.owner == 0 ? "the primary's own" : "pid " + std::to_string(e.owner) + "'s");
	return -EPERM;
}

/* What a secondary's DEVX create names must be its own (may_build_on):
 * the UMEM of a direct key, the keys of an indirect one's entries, the
 * key and UMEMs of a VIRTIO_NET_Q. dvshare's rule, defence in depth: any
 * holder of the command fd can issue the command itself. */
int dvshare_dev::check_peer_create(pid_t pid, const void *in, size_t inlen, std::string *why)
{
	const uint16_t op = dvshare_prm_opcode(in);

	if (op == DVSHARE_PRM_CMD_CREATE_MKEY && inlen >= DVSHARE_PRM_MKEY_SIZE) {
		dvshare_prm_mkey m;
		dvshare_prm_mkey_parse(in, &m);
		if (m.access_mode != DVSHARE_PRM_MKEY_MODE_KLM && m.access_mode != DVSHARE_PRM_MKEY_MODE_KSM)
			return may_build_on(pid, DVSHARE_TYPE_UMEM, m.umem_id, 0, why);
		uint32_t n = dvshare_prm_get32(in, DVSHARE_PRM_MKEY_TRANSLATIONS_ACTUAL);
		for (uint32_t i = 0; i < n && DVSHARE_PRM_MKEY_SIZE + (i + 1) * DVSHARE_PRM_KLM_SIZE <= inlen;
		     i++) {
			dvshare_prm_klm k;
			dvshare_prm_klm_parse(in, i, &k);
			if (k.byte_count == 0)
				continue;
			int rc = may_build_on(pid, DVSHARE_TYPE_OBJ, k.mkey, DVSHARE_PRM_CMD_CREATE_MKEY, why);
			if (rc != 0)
				return rc;
		}
		return 0;
	}
	if (op == DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT && inlen >= DVSHARE_PRM_VIRTQ_SIZE &&
	    dvshare_prm_hdr_decode(in).obj_type == DVSHARE_PRM_OBJ_VIRTIO_NET_Q) {
		dvshare_prm_virtq q;
		dvshare_prm_virtq_parse(in, &q);
		int rc = q.mkey != 0 ? may_build_on(pid, DVSHARE_TYPE_OBJ, q.mkey,
						    DVSHARE_PRM_CMD_CREATE_MKEY, why)
				     : 0;
		for (int i = 0; i < 3 && rc == 0; i++)
			rc = may_build_on(pid, DVSHARE_TYPE_UMEM, q.umem[i].id, 0, why);
		return rc;
	}
	return 0;
}
