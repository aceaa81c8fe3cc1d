/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The glue filled from the real rdma-core, loaded at run time.
 *
 * Like DPDK's mlx5 "glue", nothing links against libibverbs or libmlx5:
 * they are dlopen()ed on first use, so a machine without rdma-core (or with
 * one older than v63) still runs dvshare on the software device, and gets a
 * clear error, not a link failure, when it asks for real hardware.
 */
#ifndef DVS_MLX5_GLUE_H
#define DVS_MLX5_GLUE_H

#include "dvs_glue.h"

#ifdef __cplusplus
extern "C" {
#endif

/** Default libraries, by soname. */
#define DVS_MLX5_VERBS_LIB "libibverbs.so.1"
#define DVS_MLX5_MLX5_LIB "libmlx5.so.1"

/** A loaded rdma-core: the table and the library handles behind it. */
struct dvs_mlx5_glue {
	struct dvs_glue glue;
	void *verbs_handle;
	void *mlx5_handle;
};

/**
 * Load rdma-core from explicit library paths and fill the table.
 *
 * Core symbols (device list, open/import/close, VAR alloc/free, DEVX object
 * and UMEM calls) are required. The v63 export/import family is optional:
 * what is missing is named in glue.missing and left NULL; see
 * dvs_glue_require_export().
 *
 * @param out         Filled on success; zeroed on failure.
 * @param verbs_path  libibverbs to load (path or soname).
 * @param mlx5_path   libmlx5 to load (path or soname).
 * @param err         Receives a one-line reason on failure (may be NULL).
 * @param errlen      Size of @p err.
 * @return 0; -ENOENT when a library cannot be loaded; -ENOTSUP when a core
 *   symbol is missing (the message names it).
 */
int dvs_mlx5_glue_open(struct dvs_mlx5_glue *out, const char *verbs_path,
		       const char *mlx5_path, char *err, size_t errlen);

/** Unload what dvs_mlx5_glue_open() loaded. */
void dvs_mlx5_glue_close(struct dvs_mlx5_glue *g);

/**
 * The process-wide table, loaded once and kept: from the libraries named by
 * the DVSHARE_LIBIBVERBS and DVSHARE_LIBMLX5 environment variables when
 * set (paths, e.g. an rdma-core built into a prefix), else from the
 * default sonames.
 * @return the table, or NULL with errno set and @p err filled.
 */
const struct dvs_glue *dvs_mlx5_glue(char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
