/* SPDX-License-Identifier: BSD-3-Clause */
/* The v63 export/import family for the fake libmlx5 (v64's sizes). */
#include <errno.h>
#include <stddef.h>
#include <string.h>
#include <sys/types.h>

#include "dvs_glue_compat.h"

void _mlx5dv_get_export_sizes(struct mlx5dv_export_sizes *sizes, size_t sizes_len)
{
	struct mlx5dv_export_sizes s = { 24, 8, 32 };

	memcpy(sizes, &s, sizes_len < sizeof(s) ? sizes_len : sizeof(s));
}

int mlx5dv_var_export(struct mlx5dv_var *v, void *data) { (void)v; (void)data; return ENOSYS; }
struct mlx5dv_var *mlx5dv_var_import(struct ibv_context *c, void *d) { (void)c; (void)d; return NULL; }
void mlx5dv_var_unimport(struct mlx5dv_var *v) { (void)v; }
int mlx5dv_devx_obj_export(struct mlx5dv_devx_obj *o, void *d) { (void)o; (void)d; return ENOSYS; }
struct mlx5dv_devx_obj *mlx5dv_devx_obj_import(struct ibv_context *c, void *d) { (void)c; (void)d; return NULL; }
void mlx5dv_devx_obj_unimport(struct mlx5dv_devx_obj *o) { (void)o; }
int mlx5dv_devx_umem_export(struct mlx5dv_devx_umem *u, void *d) { (void)u; (void)d; return ENOSYS; }
struct mlx5dv_devx_umem *mlx5dv_devx_umem_import(struct ibv_context *c, void *d) { (void)c; (void)d; return NULL; }
void mlx5dv_devx_umem_unimport(struct mlx5dv_devx_umem *u) { (void)u; }
