/* SPDX-License-Identifier: BSD-3-Clause */
#include "dpdk_memory.h"

#include <cerrno>
#include <algorithm>
#include <cinttypes>
#include <cstdio>

#include <mutex>
#include <vector>

#include <rte_memory.h>

#include "dvs_log.h"
#include "dvs_sim.h"

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

namespace dvs {

namespace {

/* The watched contexts. Only the callback and FreeWatch take this lock:
 * the callback runs with DPDK's memory lock held, and nothing under this
 * one allocates DPDK memory. */
std::mutex &watch_mu()
{
	static auto *mu = new std::mutex;
	return *mu;
}

std::vector<struct ibv_context *> &watched()
{
	static auto *v = new std::vector<struct ibv_context *>;
	return *v;
}

void on_mem_event(enum rte_mem_event ev, const void *addr, size_t len, void *)
{
	if (ev != RTE_MEM_EVENT_FREE)
		return;
	std::lock_guard<std::mutex> lock(watch_mu());
	for (struct ibv_context *ctx : watched()) {
		int n = dvs_sim_umem_fence(ctx, addr, len);
		if (n > 0)
			DVS_LOG(WARNING, "%s: DPDK frees [%p, +%zu), the memory of %d UMEM(s): fenced, "
					 "their queues go to ERR (a NIC would keep the pages pinned)",
				ctx->device->name, addr, len, n);
	}
}

} // namespace

FreeWatch::FreeWatch(struct ibv_context *ctx) : ctx_(ctx)
{
	static std::once_flag once;

	std::call_once(once, [] {
		if (rte_mem_event_callback_register("dvshare-sim-pin", on_mem_event, nullptr) != 0)
			DVS_LOG(WARNING, "no DPDK memory events: memory freed under a software "
					 "device's UMEM is not fenced");
	});
	std::lock_guard<std::mutex> lock(watch_mu());
	watched().push_back(ctx);
}

FreeWatch::~FreeWatch()
{
	std::lock_guard<std::mutex> lock(watch_mu());
	std::erase(watched(), ctx_);
}

} // namespace dvs
