/* SPDX-License-Identifier: BSD-3-Clause */
#include "dpdk_memory.h"

#include <cerrno>
#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include <rte_memory.h>

namespace dvs {

namespace {

struct Cover {
	uint64_t start, end; /* the range asked about */
	uint64_t covered;    /* bytes of it in internal segments */
	bool external;       /* some of it in external memory */
};

/* Segments never overlap: the bytes they cover add up. */
int add_segment(const struct rte_memseg_list *msl, const struct rte_memseg *ms, void *arg)
{
	auto *c = static_cast<Cover *>(arg);
	uint64_t lo = std::max<uint64_t>(c->start, ms->addr_64);
	uint64_t hi = std::min<uint64_t>(c->end, ms->addr_64 + ms->len);

	if (lo >= hi)
		return 0;
	if (msl->external)
		c->external = true;
	else
		c->covered += hi - lo;
	return 0;
}

} // namespace

int dpdk_memory_covers(uint64_t addr, uint64_t size, std::string *why)
{
	Cover c{ addr, addr + size, 0, false };

	if (size == 0 || c.end < addr) {
		*why = "empty or wrapping range";
		return -EINVAL;
	}
	/* Only allocated segments are walked. */
	rte_memseg_walk(add_segment, &c);
	if (c.covered == size)
		return 0;
	char buf[160];
	snprintf(buf, sizeof(buf), "[0x%" PRIx64 ", +%" PRIu64 ") is %s DPDK's shared memory", addr,
		 size, c.external ? "partly external memory, not" : c.covered != 0 ? "not all in" : "not in");
	*why = buf;
	return -EINVAL;
}

} // namespace dvs
