/* SPDX-License-Identifier: BSD-3-Clause */
/* Suite sim: DEVX UMEMs and mlx5dv_devx_umem_export(3). */
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
	struct mlx5dv_devx_umem *u, *u2;

	setup_mem();
	u = G->devx_umem_reg(ctx, mem, 4 * 4096, IBV_ACCESS_LOCAL_WRITE);
	u2 = G->devx_umem_reg(ctx, mem, 4096, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u2);
	CU_ASSERT_NOT_EQUAL(u->umem_id, 0u);
	CU_ASSERT_NOT_EQUAL(u->umem_id, u2->umem_id);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 2u);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(u), 0);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(u2), 0);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 0u);
	teardown_mem();
}

static void test_reg_errors(void)
{
	setup_mem();
	errno = 0;
	CU_ASSERT_PTR_NULL(G->devx_umem_reg(ctx, NULL, 4096, 0));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(G->devx_umem_reg(ctx, mem, 0, 0));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(G->devx_umem_reg(ctx, mem, 4096, 1u << 30));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* Memory that is not mapped cannot be pinned. */
	munmap((char *)mem + 2 * 4096, 4096);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->devx_umem_reg(ctx, mem, 4 * 4096, 0));
	CU_ASSERT_EQUAL(errno, EFAULT);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 0u);
	teardown_mem();
}

static void test_export_import(void)
{
	struct mlx5dv_export_sizes s;
	uint8_t blob[DVS_SIM_UMEM_EXPORT_SIZE + 4];
	struct ibv_context *stranger = sim_open("sim0", 1);
	struct mlx5dv_devx_umem *u, *same, *other, *su;

	setup_mem();
	G->get_export_sizes(&s, sizeof(s));
	CU_ASSERT_EQUAL(s.devx_umem_attrs_size, DVS_SIM_UMEM_EXPORT_SIZE);
	su = G->devx_umem_reg(stranger, mem, 4096, 0);
	u = G->devx_umem_reg(ctx, mem, 4096, 0);
	memset(blob, 0x77, sizeof(blob));
	CU_ASSERT_EQUAL(G->devx_umem_export(u, blob), 0);
	CU_ASSERT_EQUAL(blob[s.devx_umem_attrs_size], 0x77);
	same = G->devx_umem_import(ctx, blob);
	other = G->devx_umem_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(same);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	CU_ASSERT_EQUAL(other->umem_id, u->umem_id);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->devx_umem_import(stranger, blob));
	CU_ASSERT_EQUAL(errno, EINVAL);
	G->devx_umem_unimport(same);
	G->devx_umem_unimport(other);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 1u);
	/* Dereg through an import kills it for the registering context. */
	other = G->devx_umem_import(imp, blob);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(other), 0);
	CU_ASSERT_EQUAL(G->devx_umem_export(u, blob), EINVAL);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(u), EINVAL);
	G->devx_umem_unimport(u);
	G->devx_umem_dereg(su);
	G->close_device(stranger);
	teardown_mem();
}

/* A virtio queue pins the UMEM it names; the UMEM cannot go first. */
static void test_umem_in_use(void)
{
	uint8_t in[DVS_PRM_CMD_MAX], out[DVS_PRM_HDR_SIZE];
	struct mlx5dv_devx_umem *u;
	struct mlx5dv_devx_obj *q;
	size_t n;

	setup_mem();
	u = G->devx_umem_reg(ctx, mem, 4096, IBV_ACCESS_LOCAL_WRITE);
	q = sim_virtq(ctx, 0, u->umem_id, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(q);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(u), EBUSY);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(q), 0);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(u), 0);
	/* Naming a UMEM that does not exist. */
	n = dvs_prm_virtq_create(in, 0, 64, 0x4242);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, n, out, sizeof(out)));
	CU_ASSERT_EQUAL(dvs_prm_out_status(out), DVS_PRM_STATUS_BAD_PARAM);
	CU_ASSERT_EQUAL(dvs_prm_out_syndrome(out), DVS_SIM_SYND_BAD_UMEM);
	teardown_mem();
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_reg_dereg),
	DVS_TEST(test_reg_errors),
	DVS_TEST(test_export_import),
	DVS_TEST(test_umem_in_use),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_umem", cases);
}

DVS_CUNIT_MAIN("test_sim_umem", register_tests)
