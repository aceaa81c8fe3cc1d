/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What differs between the DPDK releases net_dvshare builds on (22.11,
 * Debian 12's; 24.11; 25.11), in one place.
 *
 * - 25.11 gives stats_get a third argument, the per-queue counters
 *   (struct eth_queue_stats, may be NULL); before, they are in struct
 *   rte_eth_stats itself.
 * - The log type is the driver's own (RTE_LOG_REGISTER_DEFAULT), never
 *   RTE_LOGTYPE_PMD, which 24.11 no longer has.
 */
#ifndef NET_DVSHARE_COMPAT_H
#define NET_DVSHARE_COMPAT_H

#include <rte_version.h>

#if RTE_VERSION >= RTE_VERSION_NUM(25, 11, 0, 0)
#define DVS_ETH_STATS_ARGS struct rte_eth_dev *dev, struct rte_eth_stats *stats, \
	struct eth_queue_stats *qstats
/* Where queue @i's counter @f goes, or NULL. */
#define DVS_ETH_QSTAT(f) (qstats != NULL ? qstats->f : NULL)
#else
#define DVS_ETH_STATS_ARGS struct rte_eth_dev *dev, struct rte_eth_stats *stats
#define DVS_ETH_QSTAT(f) (stats->f)
#endif

#endif
