/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim: device list, open, import_device and what it refuses, each rule
 * with the kernel or rdma-core function it models.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <stdio.h>
#include <stdlib.h>

#include "sim_test_util.h"

static void test_device_list(void)
{
	int n = -1;
	struct ibv_device **list = G->get_device_list(&n);
	char want[16];

	CU_ASSERT_PTR_NOT_NULL_FATAL(list);
	CU_ASSERT_EQUAL(n, (int)DVS_SIM_NUM_DEVICES);
	for (int i = 0; i < n; i++) {
		snprintf(want, sizeof(want), "sim%d", i);
		CU_ASSERT_STRING_EQUAL(G->get_device_name(list[i]), want);
	}
	CU_ASSERT_PTR_NULL(list[n]);
	G->free_device_list(list);
}

static void test_open_makes_memfd_cmd_fd(void)
{
	struct ibv_context *ctx = sim_open("sim1", 1);
	char link[64], path[256];
	ssize_t len;

	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_TRUE(dvs_sim_is_context(ctx));
	CU_ASSERT_STRING_EQUAL(ctx->device->name, "sim1");
	CU_ASSERT_TRUE(ctx->cmd_fd >= 0);
	snprintf(link, sizeof(link), "/proc/self/fd/%d", ctx->cmd_fd);
	len = readlink(link, path, sizeof(path) - 1);
	CU_ASSERT_FATAL(len > 0);
	path[len] = '\0';
	CU_ASSERT_PTR_NOT_NULL(strstr(path, "memfd:dvs-sim-ufile"));
	/* Sealed: nobody can resize the "kernel" state away. */
	CU_ASSERT_NOT_EQUAL(ftruncate(ctx->cmd_fd, 4096), 0);
	CU_ASSERT_EQUAL(G->close_device(ctx), 0);
}

/*
 * mlx5dv_var_import(3) copies the blob and calls no kernel: a VAR exported
 * from one device context imports into an unrelated one without a word,
 * and fails where the kernel finds the mismatch, at mmap
 * (mlx5_ib_mmap_offset: no live entry at that offset, EINVAL), or worse,
 * names the other context's own object (providers/mlx5/verbs.c).
 */
static void test_import_into_unrelated_context(void)
{
	struct ibv_context *a = sim_open("sim0", 1), *b = sim_open("sim0", 1);
	struct mlx5dv_var *va = G->alloc_var(a, 0), *vb, *wrong;
	uint8_t blob[DVS_SIM_VAR_EXPORT_SIZE];
	volatile uint32_t *page;

	CU_ASSERT_PTR_NOT_NULL_FATAL(va);
	CU_ASSERT_EQUAL(sim_stats(a).vars, 1u);
	CU_ASSERT_EQUAL(sim_stats(b).vars, 0u);
	CU_ASSERT_EQUAL(G->var_export(va, blob), 0);
	wrong = G->var_import(b, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(wrong);
	errno = 0;
	CU_ASSERT_PTR_NULL(sim_map_var(b, wrong));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* b gets a VAR of its own at the same page and handle: the foreign
	 * import now maps b's page, and freeing it would free b's VAR. */
	vb = G->alloc_var(b, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(vb);
	CU_ASSERT_EQUAL(vb->page_id, va->page_id);
	page = sim_map_var(b, wrong);
	CU_ASSERT_PTR_NOT_NULL(page);
	if (page != NULL)
		munmap((void *)page, DVS_SIM_PAGE_SIZE);
	G->var_unimport(wrong);
	G->free_var(vb);
	G->free_var(va);
	G->close_device(a);
	G->close_device(b);
}

static void test_import_shares_objects(void)
{
	struct ibv_context *ctx = sim_open("sim0", 1);
	struct ibv_context *imp = sim_import(ctx);
	struct mlx5dv_var *v;

	CU_ASSERT_PTR_NOT_NULL_FATAL(imp);
	CU_ASSERT_TRUE(dvs_sim_is_context(imp));
	CU_ASSERT_STRING_EQUAL(imp->device->name, "sim0");
	CU_ASSERT_NOT_EQUAL(imp->cmd_fd, ctx->cmd_fd);
	v = G->alloc_var(imp, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 1u);
	G->free_var(v);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 0u);
	CU_ASSERT_EQUAL(G->close_device(imp), 0);
	CU_ASSERT_EQUAL(G->close_device(ctx), 0);
}

/* Before it matches a device, ibv_import_device fails with EINVAL and
 * leaves the fd to the caller (libibverbs/device.c). */
static void expect_refused_with(int fd, int err)
{
	errno = 0;
	CU_ASSERT_PTR_NULL(G->import_device(fd));
	CU_ASSERT_EQUAL(errno, err);
	/* A refused fd stays the caller's. */
	CU_ASSERT_NOT_EQUAL(fcntl(fd, F_GETFD), -1);
	close(fd);
}

static void expect_refused(int fd)
{
	expect_refused_with(fd, EINVAL);
}

static void test_import_refuses_non_ufiles(void)
{
	int p[2];
	char tmpl[] = "/tmp/dvs-sim-test-XXXXXX";
	int fd;

	CU_ASSERT_EQUAL_FATAL(pipe(p), 0);
	close(p[1]);
	expect_refused(p[0]);
	fd = mkstemp(tmpl);
	CU_ASSERT_FATAL(fd >= 0);
	unlink(tmpl);
	expect_refused(fd);
	/* A character device, but no RDMA device's (libibverbs: ENODEV, as
	 * rdma-core 65 answers for /dev/null). */
	expect_refused_with(open("/dev/null", O_RDWR), ENODEV);
	/* A memfd that is not sealed like a ufile. */
	fd = memfd_create("impostor", MFD_ALLOW_SEALING);
	CU_ASSERT_EQUAL(ftruncate(fd, 1 << 20), 0);
	expect_refused(fd);
	/* Sealed and sized, but no ufile header in it. */
	{
		struct ibv_context *ctx = sim_open("sim0", 1);
		struct stat st;

		CU_ASSERT_EQUAL(fstat(ctx->cmd_fd, &st), 0);
		fd = memfd_create("impostor2", MFD_ALLOW_SEALING);
		CU_ASSERT_EQUAL(ftruncate(fd, st.st_size), 0);
		CU_ASSERT_EQUAL(fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL), 0);
		expect_refused(fd);
		G->close_device(ctx);
	}
	errno = 0;
	CU_ASSERT_PTR_NULL(G->import_device(-1));
	CU_ASSERT_EQUAL(errno, EINVAL);
}

/*
 * ibv_import_device (libibverbs/device.c) owns the fd once it has matched
 * the device: a later failure (mlx5_import_context, verbs_uninit_context)
 * closes it, and the caller must not close it again.
 */
static void test_import_fd_ownership_after_match(void)
{
	struct ibv_context *ctx = sim_open("sim0", 1);
	int fd = dup(ctx->cmd_fd);

	dvs_sim_fail_next_import(ENOMEM);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->import_device(fd));
	CU_ASSERT_EQUAL(errno, ENOMEM);
	CU_ASSERT_EQUAL(fcntl(fd, F_GETFD), -1); /* closed by the import */
	CU_ASSERT_EQUAL(errno, EBADF);
	/* Only the next import was armed. */
	struct ibv_context *imp = sim_import(ctx);
	CU_ASSERT_PTR_NOT_NULL(imp);
	/* ibv_close_device of an imported context closes its cmd_fd. */
	if (imp != NULL) {
		int ifd = imp->cmd_fd;
		CU_ASSERT_EQUAL(G->close_device(imp), 0);
		CU_ASSERT_EQUAL(fcntl(ifd, F_GETFD), -1);
	}
	G->close_device(ctx);
}

/* mlx5dv_open_device: flags other than DEVX, or comp_mask bits it does
 * not take, are EINVAL (providers/mlx5/mlx5.c). */
static void test_open_flags(void)
{
	struct ibv_device **list = G->get_device_list(NULL);
	struct mlx5dv_context_attr bad = { .flags = 0x80 };
	struct mlx5dv_context_attr mask = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX, .comp_mask = 2 };
	struct mlx5dv_context_attr fds = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX, .comp_mask = 1 };
	struct ibv_context *ctx;

	errno = 0;
	CU_ASSERT_PTR_NULL(G->dv_open_device(list[0], &bad));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->dv_open_device(list[0], &mask));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* MLX5DV_CONTEXT_ATTR_MASK_FD_ARRAY (rdma-core >= 58) is taken. */
	ctx = G->dv_open_device(list[0], &fds);
	CU_ASSERT_PTR_NOT_NULL(ctx);
	if (ctx != NULL)
		G->close_device(ctx);
	G->free_device_list(list);
	{
		struct ibv_device fake;

		memset(&fake, 0, sizeof(fake));
		errno = 0;
		CU_ASSERT_PTR_NULL(G->dv_open_device(&fake, NULL));
		CU_ASSERT_EQUAL(errno, ENODEV);
		CU_ASSERT_PTR_NULL(G->get_device_name(&fake));
	}
}

/*
 * A context opened without DEVX has no DEVX uid: object creation and UMEM
 * registration fail with EINVAL (mlx5_ib devx.c: devx_get_uid,
 * MLX5_IB_METHOD_DEVX_UMEM_REG); QUERY_HCA_CAP is on the kernel's
 * whitelist and still works; VAR pages do not need DEVX.
 */
/* A context opened without the DEVX flag has DEVX all the same: rdma-core
 * asks for it by default and drops it only if the kernel refuses
 * (providers/mlx5/mlx5.c, mlx5_alloc_context: always_devx). */
static void test_devx_by_default(void)
{
	struct ibv_device **list = G->get_device_list(NULL);
	uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	struct ibv_context *ctxs[2];
	char page[64];

	ctxs[0] = sim_open("sim2", 0);
	ctxs[1] = G->dv_open_device(list[2], NULL);
	G->free_device_list(list);
	for (int i = 0; i < 2; i++) {
		struct mlx5dv_devx_obj *pd;
		struct mlx5dv_devx_umem *u;

		CU_ASSERT_PTR_NOT_NULL_FATAL(ctxs[i]);
		pd = G->devx_obj_create(ctxs[i], in, dvshare_prm_alloc_pd(in), out, sizeof(out));
		CU_ASSERT_PTR_NOT_NULL(pd);
		if (pd != NULL)
			CU_ASSERT_EQUAL(G->devx_obj_destroy(pd), 0);
		u = G->devx_umem_reg(ctxs[i], page, sizeof(page), 0);
		CU_ASSERT_PTR_NOT_NULL(u);
		if (u != NULL)
			CU_ASSERT_EQUAL(G->devx_umem_dereg(u), 0);
		G->close_device(ctxs[i]);
	}
}

/* libmlx5 refuses contexts of another provider (is_mlx5_dev: EOPNOTSUPP). */
static void test_not_a_sim_context(void)
{
	struct ibv_context fake;
	uint8_t blob[DVS_SIM_VAR_EXPORT_SIZE] = { 0 };

	memset(&fake, 0, sizeof(fake));
	CU_ASSERT_FALSE(dvs_sim_is_context(&fake));
	CU_ASSERT_FALSE(dvs_sim_is_context(NULL));
	errno = 0;
	CU_ASSERT_PTR_NULL(G->alloc_var(&fake, 0));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->var_import(&fake, blob));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	CU_ASSERT_EQUAL(G->close_device(&fake), EINVAL);
	CU_ASSERT_PTR_NULL(dvs_sim_engine_create(&fake));
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_device_list),
	DVS_TEST(test_open_makes_memfd_cmd_fd),
	DVS_TEST(test_import_into_unrelated_context),
	DVS_TEST(test_import_shares_objects),
	DVS_TEST(test_import_refuses_non_ufiles),
	DVS_TEST(test_import_fd_ownership_after_match),
	DVS_TEST(test_open_flags),
	DVS_TEST(test_devx_by_default),
	DVS_TEST(test_not_a_sim_context),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_device", cases);
}

DVS_CUNIT_MAIN("test_sim_device", register_tests)
