/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Sim contexts and the user-space halves of sim objects. A context is an
 * ibv_context (first member, so rdma-core's type is what callers hold) plus
 * the ufile it opened or imported. Objects are local structs naming a
 * uverbs object by handle, as libmlx5's are (providers/mlx5/mlx5.h).
 */
#ifndef DVS_SIM_CONTEXT_H
#define DVS_SIM_CONTEXT_H

#include <cerrno>
#include <cstdint>

#include "dvs_glue.h"
#include "sim_ufile.h"

namespace dvs::sim {

struct SimContext {
	struct ibv_context ibv; /* must stay first */
	uint64_t magic;
	Ufile ufile;
	uint32_t uar = HandleTable::kNone; /* this context's UAR (sim_uar.cpp) */
};

struct SimVar {
	struct mlx5dv_var dv; /* must stay first */
	SimContext *ctx;
	uint32_t handle;
};

/* libmlx5's struct mlx5dv_devx_obj, field for field. */
struct SimDevxObj {
	SimContext *ctx;
	uint32_t handle;
	uint32_t type;          /* libmlx5's enum mlx5_devx_obj_type */
	uint32_t object_id;
	uint64_t rx_icm_addr;
	uint8_t log_obj_range;
};

/* libmlx5's type for a flow counter (enum mlx5_devx_obj_type). */
constexpr uint32_t kLibFlowCounter = 2;

struct SimUmem {
	struct mlx5dv_devx_umem dv; /* must stay first */
	SimContext *ctx;
	uint32_t handle;
};

/* The sim context behind @ctx, or nullptr when it is not one. */
SimContext *to_sim(const struct ibv_context *ctx);

/* Set errno to @err and return it: rdma-core's int-call convention. */
inline int fail(int err)
{
	errno = err;
	return err;
}

/* Set errno to @err and return nullptr: rdma-core's pointer convention. */
template <typename T> T *fail_null(int err)
{
	errno = err;
	return nullptr;
}

/* Context calls. */
struct ibv_device **get_device_list(int *num);
void free_device_list(struct ibv_device **list);
const char *get_device_name(struct ibv_device *dev);
struct ibv_context *dv_open_device(struct ibv_device *dev, struct mlx5dv_context_attr *attr);
struct ibv_context *import_device(int cmd_fd);
int close_device(struct ibv_context *ctx);
/* The errno armed by dvs_sim_fail_next_destroy(), disarmed by the call,
 * or 0: the next DEVX object destroy or UMEM dereg fails with it. The
 * same for dvs_sim_fail_next_import() and an import. Both are 0 always
 * (sim_faults_off.cpp) but in the test-only build that links the hooks
 * (sim_faults.cpp): no installed library carries them. */
int take_destroy_failure();
int take_import_failure();
int take_mmap_failure(); /* dvs_sim_fail_next_mmap() */

/* A context's UAR (a handle and an mmap entry; HandleTable::kNone when
 * none could be had), and its destroy. Under the ufile lock. */
uint32_t alloc_uar(const Ufile &u);
void free_uar(const Ufile &u, uint32_t handle);

/* VAR calls, and the kernel's mmap handler of a cmd_fd. */
struct mlx5dv_var *alloc_var(struct ibv_context *ctx, uint32_t flags);
void free_var(struct mlx5dv_var *var);
int var_export(struct mlx5dv_var *var, void *data);
struct mlx5dv_var *var_import(struct ibv_context *ctx, void *data);
void var_unimport(struct mlx5dv_var *var);
void *mmap_cmd(struct ibv_context *ctx, void *addr, size_t length, int prot, int flags,
	       off_t offset);

/* DEVX object calls. */
struct mlx5dv_devx_obj *devx_obj_create(struct ibv_context *ctx, const void *in,
					size_t inlen, void *out, size_t outlen);
int devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
		   void *out, size_t outlen);
int devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
		    void *out, size_t outlen);
int devx_obj_destroy(struct mlx5dv_devx_obj *obj);
int devx_obj_export(struct mlx5dv_devx_obj *obj, void *data);
struct mlx5dv_devx_obj *devx_obj_import(struct ibv_context *ctx, void *data);
void devx_obj_unimport(struct mlx5dv_devx_obj *obj);
int devx_general_cmd(struct ibv_context *ctx, const void *in, size_t inlen, void *out,
		     size_t outlen);

/* UMEM calls. */
struct mlx5dv_devx_umem *umem_reg(struct ibv_context *ctx, void *addr, size_t size,
				  uint32_t access);
int umem_dereg(struct mlx5dv_devx_umem *umem);
int umem_export(struct mlx5dv_devx_umem *umem, void *data);
struct mlx5dv_devx_umem *umem_import(struct ibv_context *ctx, void *data);
void umem_unimport(struct mlx5dv_devx_umem *umem);

} // namespace dvs::sim

#endif
