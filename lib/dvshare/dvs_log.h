/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging and the error convention of the C API. */
#ifndef DVS_LOG_H
#define DVS_LOG_H

#include <rte_errno.h>
#include <rte_log.h>

#include <cstdint>

namespace dvs {

/* The "lib.dvshare" logtype (RTE_LOG_REGISTER_DEFAULT, library.cpp). */
extern int logtype;

/* Set on a thread running a request of a peer whose requests keep
 * failing: what the request logs goes at debug level, so that a peer
 * cannot fill the primary's log by asking (peer_requests.cpp). */
extern thread_local bool log_demoted;

inline uint32_t log_level(uint32_t level)
{
	return log_demoted ? RTE_LOG_DEBUG : level;
}

} // namespace dvs

#define DVS_LOG(level, fmt, ...)                                              \
	rte_log(dvs::log_level(RTE_LOG_##level), dvs::logtype, "dvshare: " fmt "\n", \
		##__VA_ARGS__)

namespace dvs {

/* Set rte_errno and return the negative errno: the int convention. */
inline int fail(int err)
{
	rte_errno = err;
	return -err;
}

/* Set rte_errno and return nullptr: the pointer convention. */
template <typename T> T *fail_null(int err)
{
	rte_errno = err;
	return nullptr;
}

} // namespace dvs

#endif
