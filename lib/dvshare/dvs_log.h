/* SPDX-License-Identifier: BSD-3-Clause */
/* Logging and the error convention of the C API. */
#ifndef DVS_LOG_H
#define DVS_LOG_H

#include <rte_errno.h>
#include <rte_log.h>

namespace dvs {

/* The "lib.dvshare" logtype (RTE_LOG_REGISTER_DEFAULT, library.cpp). */
extern int logtype;

} // namespace dvs

#define DVS_LOG(level, fmt, ...)                                              \
	rte_log(RTE_LOG_##level, dvs::logtype, "dvshare: " fmt "\n", ##__VA_ARGS__)

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
