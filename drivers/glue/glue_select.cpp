/* SPDX-License-Identifier: BSD-3-Clause */
/* Which provider serves a device name, and whether it can export. */
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include "dvs_glue.h"
#include "dvs_mlx5_glue.h"
#include "dvs_sim.h"

extern "C" int dvs_glue_is_sim_name(const char *ibdev)
{
	if (ibdev == nullptr || strncmp(ibdev, "sim", 3) != 0 || ibdev[3] == '\0')
		return 0;
	for (const char *p = ibdev + 3; *p != '\0'; p++)
		if (!isdigit(static_cast<unsigned char>(*p)))
			return 0;
	return 1;
}

extern "C" const struct dvs_glue *dvs_glue_select(const char *ibdev, char *err, size_t errlen)
{
	if (ibdev == nullptr || ibdev[0] == '\0') {
		if (err != nullptr && errlen > 0)
			snprintf(err, errlen, "no device name given");
		errno = EINVAL;
		return nullptr;
	}
	if (dvs_glue_is_sim_name(ibdev))
		return dvs_sim_glue();
	return dvs_mlx5_glue(err, errlen);
}

extern "C" int dvs_glue_require_export(const struct dvs_glue *glue, char *err, size_t errlen)
{
	if (glue->missing[0] == '\0' && glue->get_export_sizes != nullptr)
		return 0;
	if (err != nullptr && errlen > 0)
		snprintf(err, errlen,
			 "%s provider cannot share objects: rdma-core >= 63 is required "
			 "(missing: %s)", glue->provider ? glue->provider : "?",
			 glue->missing[0] ? glue->missing : "_mlx5dv_get_export_sizes");
	return -ENOTSUP;
}
