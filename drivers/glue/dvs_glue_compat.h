/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * rdma-core v63 export/import declarations for older installed headers.
 *
 * Debian 12 ships rdma-core 44, whose mlx5dv.h predates the export/import
 * family. Meson checks whether the installed header declares it (by feature,
 * not by version number) and sets DVS_HAVE_MLX5DV_EXPORT; when it does not,
 * the declarations below stand in, so the glue is type-checked against the
 * same prototypes either way. Nothing here is ever linked: the mlx5 glue
 * resolves these names with dlsym() at run time.
 */
#ifndef DVS_GLUE_COMPAT_H
#define DVS_GLUE_COMPAT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <infiniband/verbs.h>
#include <infiniband/mlx5dv.h>

#include "dvs_config.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef DVS_HAVE_MLX5DV_EXPORT

/** Export blob sizes, as reported by rdma-core >= 63. */
struct mlx5dv_export_sizes {
	uint32_t var_attrs_size;
	uint32_t devx_umem_attrs_size;
	uint32_t devx_obj_attrs_size;
};

void _mlx5dv_get_export_sizes(struct mlx5dv_export_sizes *sizes, size_t sizes_len);

int mlx5dv_var_export(struct mlx5dv_var *dv_var, void *data);
struct mlx5dv_var *mlx5dv_var_import(struct ibv_context *context, void *data);
void mlx5dv_var_unimport(struct mlx5dv_var *dv_var);

int mlx5dv_devx_obj_export(struct mlx5dv_devx_obj *obj, void *data);
struct mlx5dv_devx_obj *mlx5dv_devx_obj_import(struct ibv_context *context, void *data);
void mlx5dv_devx_obj_unimport(struct mlx5dv_devx_obj *obj);

int mlx5dv_devx_umem_export(struct mlx5dv_devx_umem *umem, void *data);
struct mlx5dv_devx_umem *mlx5dv_devx_umem_import(struct ibv_context *context, void *data);
void mlx5dv_devx_umem_unimport(struct mlx5dv_devx_umem *umem);

#endif /* !DVS_HAVE_MLX5DV_EXPORT */

#ifdef __cplusplus
}
#endif

#endif /* DVS_GLUE_COMPAT_H */
