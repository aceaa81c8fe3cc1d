/* SPDX-License-Identifier: BSD-3-Clause */
/* Which provider serves a device name, and whether it can export. */
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

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
			 "%s provider cannot share objects: rdma-core >= 63 is required, "
			 "this process has %s (missing: %s)", glue->provider ? glue->provider : "?",
			 glue->origin[0] ? glue->origin : "an unknown release",
			 glue->missing[0] ? glue->missing : "_mlx5dv_get_export_sizes");
	return -ENOTSUP;
}

namespace {

void say(char *err, size_t errlen, const std::string &msg)
{
	if (err != nullptr && errlen > 0)
		snprintf(err, errlen, "%s", msg.c_str());
}

} // namespace

extern "C" struct ibv_context *dvs_glue_open_device(const struct dvs_glue *glue, const char *ibdev,
						    char *err, size_t errlen)
{
	int n = 0;
	struct ibv_device **list = glue->get_device_list(&n);

	if (list == nullptr) {
		int e = errno != 0 ? errno : ENODEV;
		if (e == ENOSYS)
			say(err, errlen, "no RDMA support in the kernel (no /sys/class/infiniband_verbs): "
					 "load ib_uverbs and mlx5_ib");
		else
			say(err, errlen, std::string("cannot list RDMA devices: ") + strerror(e));
		errno = e;
		return nullptr;
	}
	struct ibv_device *dev = nullptr;
	std::string names;
	for (int i = 0; list[i] != nullptr; i++) {
		const char *name = glue->get_device_name(list[i]);
		if (name == nullptr)
			continue;
		names += (names.empty() ? "" : " ") + std::string(name);
		if (strcmp(name, ibdev) == 0)
			dev = list[i];
	}
	struct ibv_context *ctx = nullptr;
	int e = ENODEV;
	if (dev != nullptr) {
		struct mlx5dv_context_attr attr = {};
		attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
		ctx = glue->dv_open_device(dev, &attr);
		e = errno;
		if (ctx == nullptr)
			say(err, errlen, std::string("cannot open it with DEVX: ") + strerror(e));
	} else {
		say(err, errlen, "no such RDMA device (there are: " +
				 (names.empty() ? std::string("none") : names) + ")");
	}
	glue->free_device_list(list);
	errno = e;
	return ctx;
}
