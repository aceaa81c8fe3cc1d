/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device's data path: what a ConnectX does with the VIRTIO_NET_Q
 * queues a doorbell names. A kick with value v arms queue index v (DPDK's
 * vdpa/mlx5 and Linux's mlx5_vnet both write the queue index); the engine
 * serves only armed indexes. Serving a TX queue (odd index 2k+1) walks
 * its split ring through the queue's mkey and moves each packet into a
 * buffer of its RX queue (2k, or where dvs_sim_steer() points it),
 * writing both used rings, the hardware indexes, the queue counters and
 * the steering's flow counter. Layout: virtio 1.1 2.6 (split rings,
 * little-endian), a 12-byte virtio_net_hdr_v1 before each packet, no
 * EVENT_IDX, INDIRECT or MRG_RXBUF (the sim's caps offer none of them).
 *
 * The shared half (bindings, steering, the port's MTU, armed indexes,
 * polled pages) lives in the ufile (DpState, sim_datapath_state.cpp);
 * the engine's half (translations, ring pointers, each queue's deficit)
 * in the engine's process (sim_datapath.cpp). An engine reaches a UMEM's memory only in the
 * process that registered it: in dvshare, the primary, which registers
 * every UMEM and runs the engine (doc/sim.md).
 */
#ifndef DVS_SIM_DATAPATH_H
#define DVS_SIM_DATAPATH_H

#include <cstdint>
#include <memory>

#include "sim_ufile.h"

namespace dvs::sim {

/* Shared-state changes, under the ufile lock. */
/* Something a cached translation or binding depends on changed. */
void dp_changed(const Ufile &u);
/* May queue @handle take index @index (free, or already its own)? */
bool dp_can_bind(const Ufile &u, uint16_t index, uint32_t handle);
/* Queue @handle (going RDY) now holds @index. */
void dp_bind(const Ufile &u, uint16_t index, uint32_t handle);
/* Queue @handle is destroyed: its index is free again. */
void dp_unbind(const Ufile &u, uint16_t index, uint32_t handle);
/* Flow counter @id is destroyed: no steering counts into it any more. */
void dp_forget_counter(const Ufile &u, uint32_t id);
/* VAR page @page_id is (not) Owned: the engine polls its doorbell. No
 * lock needed (atomic). */
void dp_poll_page(const Ufile &u, uint32_t page_id, bool on);

/* What an engine did, for its stats. */
struct DpCounts {
	uint64_t kicks = 0;        /* doorbells seen */
	uint64_t packets = 0;      /* packets delivered into an RX buffer */
	uint64_t octets = 0;       /* their bytes (without the virtio-net header) */
	uint64_t dropped = 0;      /* packets sent but not delivered (oversize included) */
	uint64_t oversize = 0;     /* packets longer than the port's largest frame */
	uint64_t errors = 0;       /* queues moved to ERR */
	uint64_t unreachable = 0;  /* armed queues whose memory this process cannot reach */
	uint64_t fenced = 0;       /* turns not taken: a control call held the ufile */
};

/* The engine's half. Not thread-safe: one thread runs an engine. */
class DataPath {
public:
	explicit DataPath(const Ufile &u);
	~DataPath();
	DataPath(const DataPath &) = delete;
	DataPath &operator=(const DataPath &) = delete;

	/* One pass: take the doorbells, give each armed queue one turn
	 * (EngineTurn). Returns the kicks seen. */
	unsigned int pass();
	/* Is any queue armed (the engine has work, or is polling one)? */
	bool active() const;
	const DpCounts &counts() const { return counts_; }

private:
	struct Impl;
	std::unique_ptr<Impl> impl_;
	DpCounts counts_;
};

} // namespace dvs::sim

#endif
