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

namespace dvs {

/* 0 when every byte of [@addr, @addr + @size) lies in allocated, internal
 * DPDK memory segments; else -EINVAL with the reason in @why. */
int dpdk_memory_covers(uint64_t addr, uint64_t size, std::string *why);

} // namespace dvs

#endif
