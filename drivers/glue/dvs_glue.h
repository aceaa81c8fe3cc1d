/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The rdma-core call table.
 *
 * Everything dvshare asks of rdma-core goes through one struct dvs_glue,
 * with rdma-core's own types. Two providers fill it: drivers/mlx5 from the
 * real libibverbs.so.1 / libmlx5.so.1 (dlopen), drivers/sim from the software
 * mlx5 device. The library never calls rdma-core directly, so every line that
 * runs on hardware also runs against the sim.
 *
 * Conventions follow rdma-core: pointer-returning calls give NULL and set
 * errno; int-returning calls give 0 or an errno value (and set errno).
 */
#ifndef DVS_GLUE_H
#define DVS_GLUE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "dvs_glue_compat.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Maximum length of the list of missing optional symbols kept by a glue. */
#define DVS_GLUE_MISSING_MAX 512
/** Size of an error-message buffer that always holds a glue's reasons whole. */
#define DVS_GLUE_ERR_MAX 1024
/** Maximum length of a glue's origin (its library file and release). */
#define DVS_GLUE_ORIGIN_MAX 320

/** One rdma-core provider: function pointers plus what could not be found. */
struct dvs_glue {
	/** "mlx5" or "sim": recorded in registries so peers agree. */
	const char *provider;

	/* Device list and contexts (libibverbs + mlx5dv_open_device). */
	struct ibv_device **(*get_device_list)(int *num_devices);
	void (*free_device_list)(struct ibv_device **list);
	const char *(*get_device_name)(struct ibv_device *device);
	struct ibv_context *(*dv_open_device)(struct ibv_device *device,
					      struct mlx5dv_context_attr *attr);
	struct ibv_context *(*import_device)(int cmd_fd);
	int (*close_device)(struct ibv_context *context);

	/* VAR doorbell pages. */
	struct mlx5dv_var *(*alloc_var)(struct ibv_context *context, uint32_t flags);
	void (*free_var)(struct mlx5dv_var *dv_var);
	int (*var_export)(struct mlx5dv_var *dv_var, void *data);
	struct mlx5dv_var *(*var_import)(struct ibv_context *context, void *data);
	void (*var_unimport)(struct mlx5dv_var *dv_var);
	/**
	 * mmap(2) of the context's cmd_fd (how a VAR page is reached), at
	 * @addr (a hint, or the place with MAP_FIXED): NULL and errno on
	 * failure. The sim applies the kernel's mmap rules here (EINVAL for
	 * an offset whose VAR was freed).
	 */
	void *(*mmap_cmd)(struct ibv_context *context, void *addr, size_t length, int prot,
			  int flags, off_t offset);

	/* DEVX general objects. */
	struct mlx5dv_devx_obj *(*devx_obj_create)(struct ibv_context *context,
						   const void *in, size_t inlen,
						   void *out, size_t outlen);
	int (*devx_obj_query)(struct mlx5dv_devx_obj *obj, const void *in,
			      size_t inlen, void *out, size_t outlen);
	int (*devx_obj_modify)(struct mlx5dv_devx_obj *obj, const void *in,
			       size_t inlen, void *out, size_t outlen);
	int (*devx_obj_destroy)(struct mlx5dv_devx_obj *obj);
	int (*devx_obj_export)(struct mlx5dv_devx_obj *obj, void *data);
	struct mlx5dv_devx_obj *(*devx_obj_import)(struct ibv_context *context, void *data);
	void (*devx_obj_unimport)(struct mlx5dv_devx_obj *obj);
	/** A device command that is not about an object (QUERY_HCA_CAP). */
	int (*devx_general_cmd)(struct ibv_context *context, const void *in, size_t inlen,
				void *out, size_t outlen);

	/* DEVX UMEMs. */
	struct mlx5dv_devx_umem *(*devx_umem_reg)(struct ibv_context *context,
						  void *addr, size_t size,
						  uint32_t access);
	int (*devx_umem_dereg)(struct mlx5dv_devx_umem *umem);
	int (*devx_umem_export)(struct mlx5dv_devx_umem *umem, void *data);
	struct mlx5dv_devx_umem *(*devx_umem_import)(struct ibv_context *context, void *data);
	void (*devx_umem_unimport)(struct mlx5dv_devx_umem *umem);

	/**
	 * Export blob sizes (rdma-core >= 63): the versioned entry behind
	 * mlx5dv_get_export_sizes(), called as (sizes, sizeof(*sizes)).
	 */
	void (*get_export_sizes)(struct mlx5dv_export_sizes *sizes, size_t sizes_len);

	/**
	 * Space-separated names of the export/import symbols this provider
	 * lacks (empty when complete). Their table entries are NULL.
	 */
	char missing[DVS_GLUE_MISSING_MAX];

	/**
	 * Where the provider's code comes from, for messages: the library
	 * file and its rdma-core release, and whether the process already
	 * had it loaded (e.g. "/usr/lib/x86_64-linux-gnu/libmlx5.so.1.24.44.0,
	 * rdma-core 44.0, already loaded in this process").
	 */
	char origin[DVS_GLUE_ORIGIN_MAX];
};

/**
 * Check that a glue can export and import.
 *
 * @param glue
 *   A filled table.
 * @param err
 *   Receives a one-line reason on failure (may be NULL).
 * @param errlen
 *   Size of @p err.
 * @return
 *   0 when every export/import entry is present, -ENOTSUP otherwise, with a
 *   message naming the missing symbols and rdma-core >= 63.
 */
int dvs_glue_require_export(const struct dvs_glue *glue, char *err, size_t errlen);

/**
 * Return the glue serving an ibdev name: "simN" selects the software device,
 * anything else the real rdma-core loaded with dlopen.
 *
 * @param ibdev
 *   Device name, e.g. "sim0" or "mlx5_0".
 * @param err
 *   Receives a one-line reason on failure (may be NULL).
 * @param errlen
 *   Size of @p err.
 * @return
 *   The table (valid for the process lifetime), or NULL with errno set
 *   (ENOENT: rdma-core libraries not found; ENOTSUP: a core symbol missing;
 *   EEXIST: DVSHARE_LIBIBVERBS or DVSHARE_LIBMLX5 names a second copy of a
 *   library the process already has).
 */
const struct dvs_glue *dvs_glue_select(const char *ibdev, char *err, size_t errlen);

/**
 * Open @p ibdev with DEVX (mlx5dv_open_device with
 * MLX5DV_CONTEXT_FLAGS_DEVX), found by name in the provider's list.
 *
 * @param err
 *   Receives a one-line reason on failure (may be NULL).
 * @return
 *   The context, or NULL with errno set: ENOSYS (no RDMA support in the
 *   kernel: libibverbs finds no uverbs class), ENODEV (no device of that
 *   name; the message lists those there are), or the open's errno.
 */
struct ibv_context *dvs_glue_open_device(const struct dvs_glue *glue, const char *ibdev,
					 char *err, size_t errlen);

/** True when @p ibdev names a software device ("sim" followed by digits). */
int dvs_glue_is_sim_name(const char *ibdev);

#ifdef __cplusplus
}
#endif

#endif /* DVS_GLUE_H */
