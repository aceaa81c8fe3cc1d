/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who owns what (primary): an object a secondary created belongs to it
 * (Handle::peer, its peer id; RegEntry::owner shows its pid) unless it
 * asked for DVSHARE_CREATE_PERSIST; everything else is the primary's.
 * The handle remembers which secondary asked for it (Handle::creator),
 * persistent or not, for the limits. What a secondary owns stays its
 * own, and charged to it, until it is destroyed: never handed to the
 * primary. See doc/api.md, "Creating in a secondary".
 */
#include "device.h"

#include <cstring>

#include "dvs_log.h"
#include "dvshare_prm.h"

using dvs::EntryState;
using dvs::RegEntry;

uint32_t dvshare_dev::created_by(const dvs::PeerId &who)
{
	std::lock_guard<std::mutex> lock(ctl_);
	auto it = created_.find(who);

	return it != created_.end() ? it->second : 0;
}

/* Two limits, so that no secondary, nor all of them together, can take
 * the registry room the primary needs: its own count (what it created
 * and holds, persistent ones while it runs, orphans after a reclaim
 * that could not finish), and the count of everything created for any
 * secondary, persistent and orphaned included. */
int dvshare_dev::may_create(const dvs::PeerId &who, std::string *why)
{
	std::lock_guard<std::mutex> lock(ctl_);
	auto it = created_.find(who);
	uint32_t mine = it != created_.end() ? it->second : 0;

	if (mine >= max_per_secondary_) {
		*why = "it has " + std::to_string(mine) +
		       " object(s), its limit (max_objects_per_secondary)";
		return -EDQUOT;
	}
	if (for_peers_ >= max_secondaries_) {
		*why = "secondaries hold " + std::to_string(for_peers_) +
		       " object(s), their limit (max_objects_secondaries)";
		return -EDQUOT;
	}
	return 0;
}

void dvshare_dev::forget_creator(const dvs::PeerId &who)
{
	std::lock_guard<std::mutex> lock(ctl_);

	store_.for_each([&](dvs::Handle &h) {
		if (h.creator != who || !h.peer.none())
			return; /* its own: charged to it until destroyed */
		h.creator = {};
		if (--created_[who] == 0)
			created_.erase(who);
	});
}

/* May secondary @who make an object that names the published object of
 * @type (UMEM: umem_id @id; OBJ: the @create_op object of id @id)? Its
 * own, or one made for a secondary and handed to the primary at create
 * (DVSHARE_CREATE_PERSIST: its memory was checked to be DPDK's then);
 * never the primary's own, whose memory may be the primary's alone. */
int dvshare_dev::may_build_on(const dvs::PeerId &who, enum dvshare_type type, uint32_t id, uint16_t create_op,
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
	if (found->peer == who || (found->peer.none() && found->for_peer))
		return 0;
	*why = std::string(what) + " " + found->name + " is " +
	       (e.owner == 0 ? "the primary's own" : "pid " + std::to_string(e.owner) + "'s");
	return -EPERM;
}

/* What a secondary's DEVX create names must be its own (may_build_on):
 * the UMEM of a direct key, the keys of an indirect one's entries, the
 * key and UMEMs of a VIRTIO_NET_Q. dvshare's rule, defence in depth: any
 * holder of the command fd can issue the command itself. */
int dvshare_dev::check_peer_create(const dvs::PeerId &who, const void *in, size_t inlen, std::string *why)
{
	const uint16_t op = dvshare_prm_opcode(in);

	if (op == DVSHARE_PRM_CMD_CREATE_MKEY && inlen >= DVSHARE_PRM_MKEY_SIZE) {
		dvshare_prm_mkey m;
		dvshare_prm_mkey_parse(in, &m);
		if (m.access_mode != DVSHARE_PRM_MKEY_MODE_KLM && m.access_mode != DVSHARE_PRM_MKEY_MODE_KSM)
			return may_build_on(who, DVSHARE_TYPE_UMEM, m.umem_id, 0, why);
		uint32_t n = dvshare_prm_get32(in, DVSHARE_PRM_MKEY_TRANSLATIONS_ACTUAL);
		for (uint32_t i = 0; i < n && DVSHARE_PRM_MKEY_SIZE + (i + 1) * DVSHARE_PRM_KLM_SIZE <= inlen;
		     i++) {
			dvshare_prm_klm k;
			dvshare_prm_klm_parse(in, i, &k);
			if (k.byte_count == 0)
				continue;
			int rc = may_build_on(who, DVSHARE_TYPE_OBJ, k.mkey, DVSHARE_PRM_CMD_CREATE_MKEY, why);
			if (rc != 0)
				return rc;
		}
		return 0;
	}
	if (op == DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT && inlen >= DVSHARE_PRM_VIRTQ_SIZE &&
	    dvshare_prm_hdr_decode(in).obj_type == DVSHARE_PRM_OBJ_VIRTIO_NET_Q) {
		dvshare_prm_virtq q;
		dvshare_prm_virtq_parse(in, &q);
		int rc = q.mkey != 0 ? may_build_on(who, DVSHARE_TYPE_OBJ, q.mkey,
						    DVSHARE_PRM_CMD_CREATE_MKEY, why)
				     : 0;
		for (int i = 0; i < 3 && rc == 0; i++)
			rc = may_build_on(who, DVSHARE_TYPE_UMEM, q.umem[i].id, 0, why);
		return rc;
	}
	return 0;
}
