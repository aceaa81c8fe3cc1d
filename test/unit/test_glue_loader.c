/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite unit: the mlx5 glue loader against fake rdma-core libraries built
 * by the test (argv: verbs, mlx5 with v63, mlx5 without v63, mlx5 lacking a
 * core symbol), plus provider selection by name.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dvs_config.h"
#include "dvs_cunit.h"
#include "dvs_glue.h"
#include "dvs_mlx5_glue.h"
#include "dvs_sim.h"

static const char *verbs_lib, *mlx5_new, *mlx5_old, *mlx5_broken;

static void test_complete_library(void)
{
	struct dvs_mlx5_glue g;
	struct mlx5dv_export_sizes s = { 0, 0, 0 };
	char err[256] = "";
	struct ibv_device **list;
	int n = 0;

	CU_ASSERT_EQUAL_FATAL(dvs_mlx5_glue_open(&g, verbs_lib, mlx5_new, err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(g.glue.missing, "");
	CU_ASSERT_STRING_EQUAL(g.glue.provider, "mlx5");
	CU_ASSERT_EQUAL(dvs_glue_require_export(&g.glue, err, sizeof(err)), 0);
	g.glue.get_export_sizes(&s, sizeof(s));
	CU_ASSERT_EQUAL(s.var_attrs_size, 24u);
	CU_ASSERT_EQUAL(s.devx_umem_attrs_size, 8u);
	CU_ASSERT_EQUAL(s.devx_obj_attrs_size, 32u);
	/* Calls really reach the loaded library. */
	list = g.glue.get_device_list(&n);
	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	CU_ASSERT_EQUAL(n, 1);
	CU_ASSERT_STRING_EQUAL(g.glue.get_device_name(list[0]), "fake0");
	g.glue.free_device_list(list);
	CU_ASSERT_PTR_NOT_NULL(g.glue.var_import);
	dvs_mlx5_glue_close(&g);
	CU_ASSERT_PTR_NULL(g.verbs_handle);
}

static void test_pre_v63_library(void)
{
	struct dvs_mlx5_glue g;
	char err[DVS_GLUE_ERR_MAX] = "";

	CU_ASSERT_EQUAL_FATAL(dvs_mlx5_glue_open(&g, verbs_lib, mlx5_old, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(g.glue.missing, "mlx5dv_var_export"));
	CU_ASSERT_PTR_NOT_NULL(strstr(g.glue.missing, "_mlx5dv_get_export_sizes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(g.glue.missing, "mlx5dv_devx_umem_unimport"));
	CU_ASSERT_PTR_NULL(g.glue.var_export);
	CU_ASSERT_PTR_NULL(g.glue.get_export_sizes);
	/* Core entries are there: the device can still be opened. */
	CU_ASSERT_PTR_NOT_NULL(g.glue.dv_open_device);
	CU_ASSERT_EQUAL(dvs_glue_require_export(&g.glue, err, sizeof(err)), -ENOTSUP);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "rdma-core >= 63"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "mlx5dv_var_export"));
	/* What the process has: the file, and the release its name gives. */
	CU_ASSERT_PTR_NOT_NULL(strstr(g.glue.origin, "libfakemlx5old.so.1.24.44.0, rdma-core 44.0"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, g.glue.origin));
	/* The whole list, not cut: the last symbol resolved is named too. */
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "mlx5dv_devx_umem_unimport"));
	CU_ASSERT_TRUE(strlen(err) + 1 < sizeof(err));
	dvs_mlx5_glue_close(&g);
}

/* Opening by name: no kernel support, no such device, and the open's own
 * error are three errnos with three whole messages. */
static void test_open_device_errors(void)
{
	struct dvs_mlx5_glue g;
	char err[DVS_GLUE_ERR_MAX] = "";

	CU_ASSERT_EQUAL_FATAL(dvs_mlx5_glue_open(&g, verbs_lib, mlx5_new, err, sizeof(err)), 0);
	CU_ASSERT_PTR_NOT_NULL(g.glue.devx_general_cmd);
	CU_ASSERT_PTR_NOT_NULL(g.glue.mmap_cmd);
	errno = 0;
	CU_ASSERT_PTR_NULL(dvs_glue_open_device(&g.glue, "mlx5_7", err, sizeof(err)));
	CU_ASSERT_EQUAL(errno, ENODEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no such RDMA device"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "fake0"));
	errno = 0;
	CU_ASSERT_PTR_NULL(dvs_glue_open_device(&g.glue, "fake0", err, sizeof(err)));
	CU_ASSERT_EQUAL(errno, ENOSYS); /* the fake mlx5dv_open_device's answer */
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "cannot open it with DEVX"));
	setenv("FAKE_IBV_NO_KERNEL", "1", 1);
	errno = 0;
	CU_ASSERT_PTR_NULL(dvs_glue_open_device(&g.glue, "mlx5_0", err, sizeof(err)));
	unsetenv("FAKE_IBV_NO_KERNEL");
	CU_ASSERT_EQUAL(errno, ENOSYS);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "no RDMA support in the kernel"));
	dvs_mlx5_glue_close(&g);
}

/* The sim answers by name as well. */
static void test_open_sim_by_name(void)
{
	char err[DVS_GLUE_ERR_MAX] = "";
	struct ibv_context *ctx = dvs_glue_open_device(dvs_sim_glue(), "sim1", err, sizeof(err));

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_TRUE(dvs_sim_is_context(ctx));
	dvs_sim_glue()->close_device(ctx);
	errno = 0;
	CU_ASSERT_PTR_NULL(dvs_glue_open_device(dvs_sim_glue(), "sim9", err, sizeof(err)));
	CU_ASSERT_EQUAL(errno, ENODEV);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "sim7"));
}

static void test_missing_core_symbol(void)
{
	struct dvs_mlx5_glue g;
	char err[256] = "";

	CU_ASSERT_EQUAL(dvs_mlx5_glue_open(&g, verbs_lib, mlx5_broken, err, sizeof(err)), -ENOTSUP);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "mlx5dv_devx_umem_dereg"));
	CU_ASSERT_PTR_NULL(g.verbs_handle);
	CU_ASSERT_PTR_NULL(g.mlx5_handle);
}

static void test_missing_library(void)
{
	struct dvs_mlx5_glue g;
	char err[256] = "";

	CU_ASSERT_EQUAL(dvs_mlx5_glue_open(&g, "/nonexistent/libibverbs.so.1", mlx5_new,
					   err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "/nonexistent/libibverbs.so.1"));
	CU_ASSERT_EQUAL(dvs_mlx5_glue_open(&g, verbs_lib, "/nonexistent/libmlx5.so.1",
					   err, sizeof(err)), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(strstr(err, "libmlx5.so.1"));
	CU_ASSERT_PTR_NULL(g.verbs_handle);
}

static void test_system_rdma_core(void)
{
	char err[DVS_GLUE_ERR_MAX] = "";
	const struct dvs_glue *g = dvs_mlx5_glue(err, sizeof(err));

	/* deps.sh installs ibverbs-providers, so the real libraries load;
	 * whether they can export depends on their version, and the glue
	 * must say so consistently. */
	CU_ASSERT_PTR_NOT_NULL_FATAL(g);
	printf("(%s) ", g->origin);
	CU_ASSERT_PTR_NOT_NULL(strstr(g->origin, ", rdma-core "));
	CU_ASSERT_EQUAL(dvs_glue_require_export(g, err, sizeof(err)) == 0, g->missing[0] == '\0');
	CU_ASSERT_PTR_EQUAL(dvs_mlx5_glue(NULL, 0), g); /* loaded once */
#ifdef DVS_RDMA_LIBDIR
	/* The rdma-core configure found is the one loaded (not another on
	 * the loader's path), unless the process had one already. */
	char want[PATH_MAX], *real;
	snprintf(want, sizeof(want), "%s/libmlx5.so.1", DVS_RDMA_LIBDIR);
	real = realpath(want, NULL);
	if (real != NULL && getenv("DVSHARE_LIBMLX5") == NULL &&
	    strstr(g->origin, "already loaded") == NULL) {
		printf("(configured %s) ", real);
		CU_ASSERT_EQUAL(strncmp(g->origin, real, strlen(real)), 0);
	}
	free(real);
#endif
#ifdef DVS_HAVE_MLX5DV_EXPORT
	/* Built on rdma-core >= 63's headers (the connectx stack): the real
	 * libmlx5 has every symbol, and says at run time how big its export
	 * blobs are (rdma-core 63 to 65: VAR 24, DEVX object 32, UMEM 8). */
	struct mlx5dv_export_sizes s = { 0, 0, 0 };

	CU_ASSERT_STRING_EQUAL(g->missing, "");
	CU_ASSERT_PTR_NOT_NULL_FATAL(g->get_export_sizes);
	g->get_export_sizes(&s, sizeof(s));
	CU_ASSERT_EQUAL(s.var_attrs_size, 24u);
	CU_ASSERT_EQUAL(s.devx_obj_attrs_size, 32u);
	CU_ASSERT_EQUAL(s.devx_umem_attrs_size, 8u);
	printf("(export sizes %u/%u/%u) ", s.var_attrs_size, s.devx_obj_attrs_size,
	       s.devx_umem_attrs_size);
#endif
}

static void test_select_by_name(void)
{
	char err[128] = "";

	CU_ASSERT_TRUE(dvs_glue_is_sim_name("sim0"));
	CU_ASSERT_TRUE(dvs_glue_is_sim_name("sim12"));
	CU_ASSERT_FALSE(dvs_glue_is_sim_name("sim"));
	CU_ASSERT_FALSE(dvs_glue_is_sim_name("simx"));
	CU_ASSERT_FALSE(dvs_glue_is_sim_name("mlx5_0"));
	CU_ASSERT_FALSE(dvs_glue_is_sim_name(NULL));
	CU_ASSERT_PTR_EQUAL(dvs_glue_select("sim3", err, sizeof(err)), dvs_sim_glue());
	CU_ASSERT_PTR_EQUAL(dvs_glue_select("mlx5_0", err, sizeof(err)), dvs_mlx5_glue(NULL, 0));
	errno = 0;
	CU_ASSERT_PTR_NULL(dvs_glue_select("", err, sizeof(err)));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(dvs_glue_require_export(dvs_sim_glue(), err, sizeof(err)), 0);
	CU_ASSERT_STRING_EQUAL(dvs_sim_glue()->provider, "sim");
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_complete_library),
	DVS_TEST(test_pre_v63_library),
	DVS_TEST(test_missing_core_symbol),
	DVS_TEST(test_open_device_errors),
	DVS_TEST(test_open_sim_by_name),
	DVS_TEST(test_missing_library),
	DVS_TEST(test_system_rdma_core),
	DVS_TEST(test_select_by_name),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	if (argc != 5) {
		fprintf(stderr, "usage: %s VERBS MLX5_V63 MLX5_OLD MLX5_BROKEN\n", argv[0]);
		return -1;
	}
	verbs_lib = argv[1];
	mlx5_new = argv[2];
	mlx5_old = argv[3];
	mlx5_broken = argv[4];
	return dvs_cunit_add("glue_loader", cases);
}

DVS_CUNIT_MAIN("test_glue_loader", register_tests)
