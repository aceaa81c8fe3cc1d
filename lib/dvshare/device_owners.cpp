/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Who owns what (primary): an object a secondary created belongs to it
 * (RegEntry::owner, its pid) unless it asked for DVSHARE_CREATE_PERSIST;
 * everything else is the primary's (0). The handle remembers which
 * secondary asked for it (Handle::creator), persistent or not, for the
 * per-secondary limit. See doc/api.md, "Creating in a secondary".
 */
#include "device.h"

#include "dvs_log.h"

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
