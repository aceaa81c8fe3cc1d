/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim: DEVX UMEMs, mlx5dv_devx_umem_export(3) and the kernel's
 * checks (mlx5_ib devx_umem_get and MLX5_IB_METHOD_DEVX_UMEM_REG,
 * ib_umem_get, ib_check_mr_access).
 */
#include <stdint.h>
#include <stdlib.h>

#define SIM_TEST_PAIR
#include "sim_test_util.h"

static void *mem;

static void setup_mem(void)
{
	setup();
	mem = mmap(NULL, 4 * 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	CU_ASSERT_FATAL(mem != MAP_FAILED);
}

static void teardown_mem(void)
{
	munmap(mem, 4 * 4096);
	teardown();
}

static void test_reg_dereg(void)
{
	struct mlx5dv_devx_umem *u, *u2, *u3;

	setup_mem();
	u = G->devx_umem_reg(ctx, mem, 4 * 4096, IBV_ACCESS_LOCAL_WRITE);
	u2 = G->devx_umem_reg(ctx, mem, 4096, 0);
	/* No alignment rule: a sub-page start and length are fine. */
	u3 = G->devx_umem_reg(imp, (char *)mem + 100, 50, IBV_ACCESS_LOCAL_WRITE |
			      IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u3);
	CU_ASSERT_NOT_EQUAL(u->umem_id, 0u);
	CU_ASSERT_NOT_EQUAL(u->umem_id, u2->umem_id);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 3u);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(u), 0);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(u2), 0);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(u3), 0);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 0u);
	teardown_mem();
}

static void expect_reg_fails(void *addr, size_t size, uint32_t access, int err)
{
	errno = 0;
	CU_ASSERT_PTR_NULL(G->devx_umem_reg(ctx, addr, size, access));
	CU_ASSERT_EQUAL(errno, err);
	if (errno != err)
		fprintf(stderr, "umem_reg(%p, %zu, 0x%x): errno %d, want %d\n", addr, size, access,
			errno, err);
}

static void test_reg_errors(void)
{
	setup_mem();
	/* ib_umem_get: no pages, or a range that wraps, is EINVAL. */
	expect_reg_fails(mem, 0, 0, EINVAL);
	expect_reg_fails(mem, SIZE_MAX, 0, EINVAL);
	expect_reg_fails((void *)(uintptr_t)-4096, 8192, 0, EINVAL);
	/* Access: only LOCAL_WRITE, REMOTE_WRITE, REMOTE_READ and
	 * RELAXED_ORDERING; remote write needs local write; atomics are not
	 * taken by UMEM registration. */
	expect_reg_fails(mem, 4096, 1u << 30, EINVAL);
	expect_reg_fails(mem, 4096, IBV_ACCESS_REMOTE_ATOMIC | IBV_ACCESS_LOCAL_WRITE, EINVAL);
	expect_reg_fails(mem, 4096, IBV_ACCESS_REMOTE_WRITE, EINVAL);
	/* Memory that is not mapped cannot be pinned (pin_user_pages). */
	expect_reg_fails(NULL, 4096, 0, EFAULT);
	munmap((char *)mem + 2 * 4096, 4096);
	expect_reg_fails(mem, 4 * 4096, 0, EFAULT);
	/* Absurd sizes: more pages than a UMEM counts (EINVAL), or far more
	 * than is mapped or can be locked. */
	expect_reg_fails(mem, (size_t)1 << 46, 0, EINVAL);
	expect_reg_fails(mem, (size_t)1 << 40, 0, has_ipc_lock_cap() ? EFAULT : ENOMEM);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 0u);
	teardown_mem();
}

/* mlx5dv_devx_umem_export: rdma-core's mlx5dv_devx_umem_attrs
 * (handle @0, umem_id @4, 8 bytes); import copies, validates nothing. */
static void test_export_import(void)
{
	struct mlx5dv_export_sizes s;
	uint8_t blob[DVS_SIM_UMEM_EXPORT_SIZE + 4];
	struct mlx5dv_devx_umem *u, *same, *other;
	uint32_t id;

	setup_mem();
	G->get_export_sizes(&s, sizeof(s));
	CU_ASSERT_EQUAL(s.devx_umem_attrs_size, 8u);
	u = G->devx_umem_reg(ctx, mem, 4096, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	memset(blob, 0x77, sizeof(blob));
	CU_ASSERT_EQUAL(G->devx_umem_export(u, blob), 0);
	CU_ASSERT_EQUAL(blob[s.devx_umem_attrs_size], 0x77);
	memcpy(&id, blob + 4, 4);
	CU_ASSERT_EQUAL(id, u->umem_id);
	same = G->devx_umem_import(ctx, blob);
	other = G->devx_umem_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(same);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	CU_ASSERT_EQUAL(other->umem_id, u->umem_id);
	G->devx_umem_unimport(same);
	G->devx_umem_unimport(other);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 1u);
	/* Dereg through an import kills it for the registering context,
	 * whose handle then names nothing (ENOENT). */
	other = G->devx_umem_import(imp, blob);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(other), 0);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 0u);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(u), ENOENT);
	G->devx_umem_unimport(u);
	teardown_mem();
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_reg_dereg),
	DVS_TEST(test_reg_errors),
	DVS_TEST(test_export_import),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_umem", cases);
}

DVS_CUNIT_MAIN("test_sim_umem", register_tests)
