/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Is a range DPDK's shared memory? A secondary's UMEM is registered by the
 * primary through the primary's own mapping, which is the same pages at
 * the same address only for DPDK's memory segments (every process of a
 * prefix maps each allocated segment at its address).
 */
#ifndef DVS_DPDK_MEMORY_H
#define DVS_DPDK_MEMORY_H

#include <cstdint>
#include <string>

struct ibv_context;

namespace dvs {

/* 0 when every byte of [@addr, @addr + @size) lies in allocated, internal
 * DPDK memory segments; else -EINVAL with the reason in @why. */
int dpdk_memory_covers(uint64_t addr, uint64_t size, std::string *why);

/*
 * The software device pins no memory, where a NIC keeps the pages a UMEM
 * was given: a secondary that frees the DPDK memory under its UMEM could
 * make the primary's engine touch unmapped pages. While a FreeWatch of a
 * software device's context lives, DPDK's memory events fence the UMEMs
 * over pages being freed (dvs_sim_umem_fence(), before the unmap): their
 * queues go to ERR, the primary goes on. RAII; the primary's.
 */
class FreeWatch {
public:
	explicit FreeWatch(struct ibv_context *ctx);
	~FreeWatch();
	FreeWatch(const FreeWatch &) = delete;
	FreeWatch &operator=(const FreeWatch &) = delete;

private:
	struct ibv_context *ctx_;
};

} // namespace dvs

#endif
