/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake pre-v63 libmlx5: the core mlx5dv symbols the glue requires.
 * Built with -DFAKE_DROP_UMEM_DEREG to make a library lacking a core symbol.
 */
#include <errno.h>
#include <stddef.h>
#include <sys/types.h>

#include <infiniband/mlx5dv.h>

struct ibv_context *mlx5dv_open_device(struct ibv_device *device,
				       struct mlx5dv_context_attr *attr)
{
	(void)device;
	(void)attr;
	errno = ENOSYS;
	return NULL;
}

struct mlx5dv_var *mlx5dv_alloc_var(struct ibv_context *context, uint32_t flags)
{
	(void)context;
	(void)flags;
	errno = ENOSYS;
	return NULL;
}

void mlx5dv_free_var(struct mlx5dv_var *dv_var)
{
	(void)dv_var;
}

struct mlx5dv_devx_obj *mlx5dv_devx_obj_create(struct ibv_context *context, const void *in,
					       size_t inlen, void *out, size_t outlen)
{
	(void)context; (void)in; (void)inlen; (void)out; (void)outlen;
	errno = ENOSYS;
	return NULL;
}

int mlx5dv_devx_obj_query(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
			  void *out, size_t outlen)
{
	(void)obj; (void)in; (void)inlen; (void)out; (void)outlen;
	return ENOSYS;
}

int mlx5dv_devx_obj_modify(struct mlx5dv_devx_obj *obj, const void *in, size_t inlen,
			   void *out, size_t outlen)
{
	(void)obj; (void)in; (void)inlen; (void)out; (void)outlen;
	return ENOSYS;
}

int mlx5dv_devx_obj_destroy(struct mlx5dv_devx_obj *obj)
{
	(void)obj;
	return ENOSYS;
}

struct mlx5dv_devx_umem *mlx5dv_devx_umem_reg(struct ibv_context *ctx, void *addr,
					      size_t size, uint32_t access)
{
	(void)ctx; (void)addr; (void)size; (void)access;
	errno = ENOSYS;
	return NULL;
}

#ifndef FAKE_DROP_UMEM_DEREG
int mlx5dv_devx_umem_dereg(struct mlx5dv_devx_umem *umem)
{
	(void)umem;
	return ENOSYS;
}
#endif

int mlx5dv_devx_general_cmd(struct ibv_context *context, const void *in, size_t inlen,
			    void *out, size_t outlen)
{
	(void)context; (void)in; (void)inlen; (void)out; (void)outlen;
	return ENOSYS;
}
