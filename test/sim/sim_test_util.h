/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers shared by the sim suite: open, import and map through the glue. */
#ifndef SIM_TEST_UTIL_H
#define SIM_TEST_UTIL_H

#include <errno.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dvs_cunit.h"
#include "dvs_prm.h"
#include "dvs_sim.h"

#define G (dvs_sim_glue())

/* Open simN by walking the device list, as an application would. */
static inline struct ibv_context *sim_open(const char *name, int devx)
{
	struct mlx5dv_context_attr attr = { devx ? MLX5DV_CONTEXT_FLAGS_DEVX : 0, 0 };
	struct ibv_device **list = G->get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list != NULL && list[i] != NULL; i++)
		if (strcmp(G->get_device_name(list[i]), name) == 0)
			ctx = G->dv_open_device(list[i], &attr);
	G->free_device_list(list);
	return ctx;
}

/* A second context on the same ufile, as ibv_import_device(dup(fd)). */
static inline struct ibv_context *sim_import(struct ibv_context *ctx)
{
	int fd = dup(ctx->cmd_fd);
	struct ibv_context *imp = G->import_device(fd);

	if (imp == NULL)
		close(fd);
	return imp;
}

/* Map a VAR page the way the library does. */
static inline volatile uint32_t *sim_map_var(struct ibv_context *ctx, const struct mlx5dv_var *v)
{
	void *p = mmap(NULL, v->length, PROT_READ | PROT_WRITE, MAP_SHARED, ctx->cmd_fd, v->mmap_off);

	return p == MAP_FAILED ? NULL : (volatile uint32_t *)p;
}

#ifdef SIM_TEST_PAIR
/* The pair most tests work on: an opened context and one imported from it. */
static struct ibv_context *ctx, *imp;

static inline void setup(void)
{
	ctx = sim_open("sim0", 1);
	imp = sim_import(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(imp);
}

static inline void teardown(void)
{
	G->close_device(imp);
	G->close_device(ctx);
}
#endif

static inline struct dvs_sim_stats sim_stats(struct ibv_context *ctx)
{
	struct dvs_sim_stats s;

	memset(&s, 0, sizeof(s));
	dvs_sim_stats(ctx, &s);
	return s;
}

/* Create a virtio queue; returns the object, obj_id in *id. */
static inline struct mlx5dv_devx_obj *sim_virtq(struct ibv_context *ctx, uint16_t qidx,
						uint32_t umem_id, uint32_t *id)
{
	uint8_t in[DVS_PRM_CMD_MAX], out[DVS_PRM_HDR_SIZE];
	size_t n = dvs_prm_virtq_create(in, qidx, 256, umem_id);
	struct mlx5dv_devx_obj *o = G->devx_obj_create(ctx, in, n, out, sizeof(out));

	if (o != NULL && id != NULL)
		*id = dvs_prm_out_obj_id(out);
	return o;
}

#endif
