/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The data path's shared half (sim_datapath.h): what control calls change
 * under the ufile lock (bindings, steering, the port's MTU) and the
 * device's per-index counts, read without it.
 */
#include <atomic>

#include "dvs_sim.h"
#include "sim_context.h"
#include "sim_datapath.h"
#include "sim_firmware.h"

namespace dvs::sim {

void dp_changed(const Ufile &u)
{
	std::atomic_ref<uint64_t>(u.dp().gen).fetch_add(1, std::memory_order_relaxed);
}

bool dp_can_bind(const Ufile &u, uint16_t index, uint32_t handle)
{
	uint32_t h = u.dp().vq[index].handle;

	return h == HandleTable::kNone || h == handle;
}

void dp_bind(const Ufile &u, uint16_t index, uint32_t handle)
{
	u.dp().vq[index].handle = handle;
	dp_changed(u);
}

void dp_unbind(const Ufile &u, uint16_t index, uint32_t handle)
{
	if (index < kMaxVirtq && u.dp().vq[index].handle == handle)
		u.dp().vq[index].handle = HandleTable::kNone;
	dp_changed(u);
}

void dp_forget_counter(const Ufile &u, uint32_t id)
{
	for (VqSlot &s : u.dp().vq)
		if (s.flow_counter == id)
			s.flow_counter = 0;
	dp_changed(u);
}

void dp_poll_page(const Ufile &u, uint32_t page_id, bool on)
{
	std::atomic_ref<uint64_t> w(u.dp().var_pages[page_id / 64]);
	const uint64_t bit = 1ull << (page_id % 64);

	if (on)
		w.fetch_or(bit, std::memory_order_release);
	else
		w.fetch_and(~bit, std::memory_order_release);
}

} // namespace dvs::sim

using namespace dvs::sim;

int dvs_sim_steer(struct ibv_context *ctx, uint16_t tx_index, uint16_t rx_index,
		  uint32_t flow_counter_id)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || tx_index >= kMaxVirtq || tx_index % 2 != 1 ||
	    (rx_index != UINT16_MAX && (rx_index >= kMaxVirtq || rx_index % 2 != 0)))
		return -EINVAL;
	UfileLock lock(sc->ufile.hdr());
	if (flow_counter_id != 0 &&
	    find_devx(sc->ufile, flow_counter_id, DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER, 0) == nullptr)
		return -ENOENT;
	VqSlot &s = sc->ufile.dp().vq[tx_index];
	s.route = rx_index == UINT16_MAX ? kNoRoute : rx_index;
	s.flow_counter = flow_counter_id;
	dp_changed(sc->ufile);
	return 0;
}

int dvs_sim_vq_stats(struct ibv_context *ctx, uint16_t index, struct dvs_sim_vq_counts *counts)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || index >= kMaxVirtq || counts == nullptr)
		return -EINVAL;
	const VqSlot &s = sc->ufile.dp().vq[index];
	auto get = [](const uint64_t &v) {
		return std::atomic_ref<const uint64_t>(v).load(std::memory_order_relaxed);
	};
	counts->kicks = get(s.kicks);
	counts->rx_dropped = get(s.rx_dropped);
	counts->tx_oversize = get(s.tx_oversize);
	return 0;
}

int dvs_sim_set_mtu(struct ibv_context *ctx, uint32_t mtu)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr || mtu < DVS_SIM_MIN_MTU || mtu > DVS_SIM_MAX_MTU)
		return -EINVAL;
	UfileLock lock(sc->ufile.hdr());
	std::atomic_ref<uint32_t>(sc->ufile.dp().mtu).store(mtu, std::memory_order_relaxed);
	dp_changed(sc->ufile);
	return 0;
}

uint32_t dvs_sim_mtu(struct ibv_context *ctx)
{
	SimContext *sc = to_sim(ctx);

	return sc == nullptr ? 0
			     : std::atomic_ref<uint32_t>(sc->ufile.dp().mtu).load(std::memory_order_relaxed);
}
