/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim: mlx5dv_var_export(3), statement by statement, in one process.
 */
#define SIM_TEST_PAIR
#include "sim_test_util.h"

/* "The buffer must be at least var_attrs_size bytes." */
static void test_export_size(void)
{
	struct mlx5dv_export_sizes s;
	uint8_t buf[DVS_SIM_VAR_EXPORT_SIZE + 8];
	struct mlx5dv_var *v;

	setup();
	memset(&s, 0, sizeof(s));
	G->get_export_sizes(&s, sizeof(s));
	CU_ASSERT_EQUAL(s.var_attrs_size, DVS_SIM_VAR_EXPORT_SIZE);
	v = G->alloc_var(ctx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	memset(buf, 0xa5, sizeof(buf));
	CU_ASSERT_EQUAL(G->var_export(v, buf), 0);
	/* Writes exactly the reported size, not a byte more. */
	for (size_t i = s.var_attrs_size; i < sizeof(buf); i++)
		CU_ASSERT_EQUAL(buf[i], 0xa5);
	CU_ASSERT_EQUAL(G->var_export(v, NULL), EINVAL);
	G->free_var(v);
	teardown();
}

/* A shorter caller struct gets only the fields it has room for. */
static void test_export_sizes_versioned(void)
{
	uint32_t first[2] = { 0, 0xdeadbeef };

	G->get_export_sizes((struct mlx5dv_export_sizes *)first, sizeof(uint32_t));
	CU_ASSERT_EQUAL(first[0], DVS_SIM_VAR_EXPORT_SIZE);
	CU_ASSERT_EQUAL(first[1], 0xdeadbeefu);
}

/* "import returns a VAR associated with the exported attributes" in the
 * original context and in "any context sharing the same kernel resources". */
static void test_import_same_and_imported_context(void)
{
	uint8_t blob[DVS_SIM_VAR_EXPORT_SIZE];
	struct mlx5dv_var *v, *same, *other;

	setup();
	v = G->alloc_var(ctx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT_EQUAL(v->length, DVS_SIM_PAGE_SIZE);
	CU_ASSERT_EQUAL(G->var_export(v, blob), 0);
	same = G->var_import(ctx, blob);
	other = G->var_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(same);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	CU_ASSERT_EQUAL(same->page_id, v->page_id);
	CU_ASSERT_EQUAL(other->page_id, v->page_id);
	CU_ASSERT_EQUAL(other->length, v->length);
	CU_ASSERT_EQUAL(other->mmap_off, v->mmap_off);
	/* Still one kernel object. */
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 1u);
	G->var_unimport(same);
	G->var_unimport(other);
	G->free_var(v);
	teardown();
}

/* The sim refuses an unrelated context at import (rdma-core would not). */
static void test_import_unrelated_context(void)
{
	struct ibv_context *stranger = sim_open("sim0", 1);
	uint8_t blob[DVS_SIM_VAR_EXPORT_SIZE];
	struct mlx5dv_var *v, *sv;

	setup();
	sv = G->alloc_var(stranger, 0); /* same handle and page in its ufile */
	v = G->alloc_var(ctx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT_EQUAL(G->var_export(v, blob), 0);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->var_import(stranger, blob));
	CU_ASSERT_EQUAL(errno, EINVAL);
	G->free_var(v);
	G->free_var(sv);
	G->close_device(stranger);
	teardown();
}

/* "unimport only cleans up local resources without affecting the kernel
 * object." */
static void test_unimport_keeps_object(void)
{
	uint8_t blob[DVS_SIM_VAR_EXPORT_SIZE];
	struct mlx5dv_var *v, *i1, *i2;
	uint64_t kicks;

	setup();
	v = G->alloc_var(ctx, 0);
	CU_ASSERT_EQUAL(G->var_export(v, blob), 0);
	i1 = G->var_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(i1);
	G->var_unimport(i1);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 1u);
	CU_ASSERT_EQUAL(dvs_sim_page_kicks(ctx, v->page_id, &kicks, NULL), 0);
	i2 = G->var_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL(i2);
	CU_ASSERT_EQUAL(G->var_export(v, blob), 0);
	G->var_unimport(i2);
	G->free_var(v);
	teardown();
}

/* "free destroys the kernel object": for every context, and "no other
 * process can use the object except for unimport". */
static void test_free_kills_for_all(void)
{
	uint8_t blob[DVS_SIM_VAR_EXPORT_SIZE];
	struct mlx5dv_var *v, *other;
	uint32_t page;

	setup();
	v = G->alloc_var(ctx, 0);
	page = v->page_id;
	CU_ASSERT_EQUAL(G->var_export(v, blob), 0);
	other = G->var_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	G->free_var(v); /* through the allocating context */
	CU_ASSERT_EQUAL(sim_stats(imp).vars, 0u);
	CU_ASSERT_EQUAL(dvs_sim_page_kicks(ctx, page, NULL, NULL), -ENOENT);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->var_import(imp, blob));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(G->var_export(other, blob), EINVAL);
	G->var_unimport(other); /* the only thing left to do */
	teardown();
}

/* Free through an imported copy destroys it for the exporter too. */
static void test_free_through_import(void)
{
	uint8_t blob[DVS_SIM_VAR_EXPORT_SIZE];
	struct mlx5dv_var *v, *other;

	setup();
	v = G->alloc_var(ctx, 0);
	CU_ASSERT_EQUAL(G->var_export(v, blob), 0);
	other = G->var_import(imp, blob);
	G->free_var(other);
	CU_ASSERT_EQUAL(G->var_export(v, blob), EINVAL);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 0u);
	/* Freeing the stale original is harmless: it only frees memory. */
	G->free_var(v);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 0u);
	teardown();
}

/* The mapped page is shared memory: a store through one context's mapping
 * is seen through another's. */
static void test_mapping_shared(void)
{
	uint8_t blob[DVS_SIM_VAR_EXPORT_SIZE];
	struct mlx5dv_var *v, *other;
	volatile uint32_t *a, *b;

	setup();
	v = G->alloc_var(ctx, 0);
	G->var_export(v, blob);
	other = G->var_import(imp, blob);
	a = sim_map_var(ctx, v);
	b = sim_map_var(imp, other);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b[0], DVS_SIM_DB_IDLE); /* registers start idle */
	b[3] = 0x1234;
	CU_ASSERT_EQUAL(a[3], 0x1234u);
	munmap((void *)a, v->length);
	munmap((void *)b, other->length);
	G->var_unimport(other);
	G->free_var(v);
	teardown();
}

/* Pages are handed out lowest-free first, so a freed page is reused next. */
static void test_page_reuse(void)
{
	struct mlx5dv_var *a, *b, *c;
	uint32_t pa;

	setup();
	a = G->alloc_var(ctx, 0);
	b = G->alloc_var(ctx, 0);
	CU_ASSERT_NOT_EQUAL(a->page_id, b->page_id);
	pa = a->page_id;
	G->free_var(a);
	c = G->alloc_var(imp, 0);
	CU_ASSERT_EQUAL(c->page_id, pa);
	G->free_var(b);
	G->free_var(c);
	teardown();
}

static void test_alloc_errors(void)
{
	struct mlx5dv_var *vs[DVS_SIM_VAR_PAGES];
	unsigned int n;

	setup();
	errno = 0;
	CU_ASSERT_PTR_NULL(G->alloc_var(ctx, 1));
	CU_ASSERT_EQUAL(errno, EINVAL);
	for (n = 0; n < DVS_SIM_VAR_PAGES; n++) {
		vs[n] = G->alloc_var(ctx, 0);
		if (vs[n] == NULL)
			break;
	}
	CU_ASSERT_EQUAL(n, DVS_SIM_VAR_PAGES);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->alloc_var(ctx, 0));
	CU_ASSERT_EQUAL(errno, ENOMEM);
	for (unsigned int i = 0; i < n; i++)
		G->free_var(vs[i]);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 0u);
	teardown();
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_export_size),
	DVS_TEST(test_export_sizes_versioned),
	DVS_TEST(test_import_same_and_imported_context),
	DVS_TEST(test_import_unrelated_context),
	DVS_TEST(test_unimport_keeps_object),
	DVS_TEST(test_free_kills_for_all),
	DVS_TEST(test_free_through_import),
	DVS_TEST(test_mapping_shared),
	DVS_TEST(test_page_reuse),
	DVS_TEST(test_alloc_errors),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_var", cases);
}

DVS_CUNIT_MAIN("test_sim_var", register_tests)
