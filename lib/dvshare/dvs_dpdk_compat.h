/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where DPDK moved between the releases dvshare builds on (22.11, 24.11,
 * 25.11 LTS): the one place that knows. Everything else uses the dvs_ and
 * DVS_ names below and never tests RTE_VERSION itself. Internal: not
 * installed. C and C++.
 */
#ifndef DVS_DPDK_COMPAT_H
#define DVS_DPDK_COMPAT_H

#include <stdint.h>

#include <rte_telemetry.h>
#include <rte_version.h>

/*
 * Telemetry: rte_tel_data_add_dict_uint() came in 23.03; 25.11 removed
 * rte_tel_data_add_dict_u64(), which is all 22.11 has.
 */
static inline int dvs_tel_dict_uint(struct rte_tel_data *d, const char *name, uint64_t val)
{
#if RTE_VERSION >= RTE_VERSION_NUM(23, 3, 0, 0)
	return rte_tel_data_add_dict_uint(d, name, val);
#else
	return rte_tel_data_add_dict_u64(d, name, val);
#endif
}

/*
 * Words EAL's own usage (-h) always prints: argparse writes it in 25.11,
 * which starts it with this usage line; before, it has "EAL common options:".
 */
#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)
#define DVS_EAL_USAGE_MARK "<DPDK EAL options> -- <App options>"
#else
#define DVS_EAL_USAGE_MARK "EAL common options:"
#endif

#endif
