/* SPDX-License-Identifier: BSD-3-Clause */
/* Sim device list, open, import and close. */
#include "sim_context.h"

#include <array>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>

#include <sys/stat.h>

namespace dvs::sim {

namespace {

constexpr uint64_t kContextMagic = 0x5854'4e43'4d49'5344ull; /* "DSIMCNTX" */


std::array<struct ibv_device, DVS_SIM_NUM_DEVICES> make_devices()
{
	std::array<struct ibv_device, DVS_SIM_NUM_DEVICES> devs{};

	for (unsigned int i = 0; i < devs.size(); i++) {
		devs[i].node_type = IBV_NODE_CA;
		devs[i].transport_type = IBV_TRANSPORT_IB;
		snprintf(devs[i].name, sizeof(devs[i].name), "sim%u", i);
		snprintf(devs[i].dev_name, sizeof(devs[i].dev_name), "uverbs-sim%u", i);
	}
	return devs;
}

std::array<struct ibv_device, DVS_SIM_NUM_DEVICES> &devices()
{
	static auto devs = make_devices();
	return devs;
}

int index_of(const struct ibv_device *dev)
{
	auto &devs = devices();

	for (unsigned int i = 0; i < devs.size(); i++)
		if (dev == &devs[i])
			return static_cast<int>(i);
	return -1;
}

/* A context around a ufile that is already set up, with its UAR. */
struct ibv_context *finish_context(std::unique_ptr<SimContext> sc)
{
	{
		UfileLock lock(sc->ufile.hdr());
		sc->uar = alloc_uar(sc->ufile);
	}
	sc->magic = kContextMagic;
	sc->ibv.device = &devices()[sc->ufile.hdr()->dev_index];
	sc->ibv.cmd_fd = sc->ufile.fd();
	sc->ibv.async_fd = -1;
	sc->ibv.num_comp_vectors = 1;
	pthread_mutex_init(&sc->ibv.mutex, nullptr);
	return &sc.release()->ibv;
}

} // namespace

SimContext *to_sim(const struct ibv_context *ctx)
{
	if (ctx == nullptr || index_of(ctx->device) < 0)
		return nullptr;
	auto *sc = reinterpret_cast<SimContext *>(const_cast<struct ibv_context *>(ctx));
	return sc->magic == kContextMagic ? sc : nullptr;
}

struct ibv_device **get_device_list(int *num)
{
	auto &devs = devices();
	auto **list = static_cast<struct ibv_device **>(
		calloc(devs.size() + 1, sizeof(struct ibv_device *)));

	if (list == nullptr)
		return fail_null<struct ibv_device *>(ENOMEM);
	for (unsigned int i = 0; i < devs.size(); i++)
		list[i] = &devs[i];
	if (num != nullptr)
		*num = static_cast<int>(devs.size());
	return list;
}

void free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *get_device_name(struct ibv_device *dev)
{
	return index_of(dev) >= 0 ? dev->name : nullptr;
}

/* MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY (rdma-core >= 58; older headers lack
 * it): fds handed to the kernel with the context, nothing the sim uses. */
constexpr uint64_t kCtxMaskFdArray = 1u << 0;

/* mlx5dv_open_device (providers/mlx5/mlx5.c, mlx5_alloc_context): flags
 * other than DEVX, or comp_mask bits other than the fd array, give EINVAL.
 * DEVX is asked for whether or not the flag is given (rdma-core >= 29
 * drops it only if the kernel refuses, which a DEVX-capable device, as
 * every sim device is, never does). */
struct ibv_context *dv_open_device(struct ibv_device *dev, struct mlx5dv_context_attr *attr)
{
	int idx = index_of(dev);

	if (idx < 0)
		return fail_null<struct ibv_context>(ENODEV);
	if (attr != nullptr && ((attr->flags & ~MLX5DV_CONTEXT_FLAGS_DEVX) != 0 ||
				(attr->comp_mask & ~kCtxMaskFdArray) != 0))
		return fail_null<struct ibv_context>(EINVAL);
	auto sc = std::make_unique<SimContext>();
	int rc = sc->ufile.create(static_cast<uint32_t>(idx));
	if (rc != 0)
		return fail_null<struct ibv_context>(-rc);
	return finish_context(std::move(sc));
}

/*
 * ibv_import_device: an fd that is not a ufile fails and stays the
 * caller's (libibverbs fails before matching a device): EINVAL, or ENODEV
 * for a character device that is not one of the sim's. Once the
 * device is matched the fd belongs to the new context, and a later
 * failure closes it (verbs_uninit_context), which the caller must not do
 * again.
 */
struct ibv_context *import_device(int cmd_fd)
{
	auto sc = std::make_unique<SimContext>();
	int rc = sc->ufile.adopt(cmd_fd);
	struct stat st;

	/* libibverbs: not a character device is EINVAL; a character device
	 * no RDMA device has (/dev/null) is ENODEV, the device list having
	 * no match for its st_rdev. */
	if (rc != 0 && fstat(cmd_fd, &st) == 0 && S_ISCHR(st.st_mode))
		return fail_null<struct ibv_context>(ENODEV);
	if (rc != 0)
		return fail_null<struct ibv_context>(-rc);
	sc->ufile.take_fd(cmd_fd);
	int err = take_import_failure();
	if (err != 0) {
		sc.reset(); /* closes the fd */
		return fail_null<struct ibv_context>(err);
	}
	return finish_context(std::move(sc));
}

int close_device(struct ibv_context *ctx)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr)
		return fail(EINVAL);
	sc->magic = 0;
	pthread_mutex_destroy(&sc->ibv.mutex);
	{
		UfileLock lock(sc->ufile.hdr());
		free_uar(sc->ufile, sc->uar);
	}
	/* The ufile closes the fd and unmaps; its objects live on while
	 * another process or context holds the memfd, as the kernel's do. */
	std::unique_ptr<SimContext> owned(sc);
	return 0;
}

} // namespace dvs::sim
