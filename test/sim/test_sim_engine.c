/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim: the doorbell engine. The doorbell register of a VAR page sits
 * at the in-page doorbell offset the virtio emulation caps give
 * (DVS_SIM_DB_OFFSET); the rest of the page is not a doorbell.
 */
#include <sched.h>
#include <time.h>

#include "sim_test_util.h"

static struct ibv_context *ctx;
static struct mlx5dv_var *var;
static volatile uint32_t *page, *db;
static struct dvs_sim_engine *eng;

static void setup(void)
{
	ctx = sim_open("sim0", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	var = G->alloc_var(ctx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(var);
	page = sim_map_var(ctx, var);
	CU_ASSERT_PTR_NOT_NULL_FATAL(page);
	db = sim_db(page);
	eng = dvs_sim_engine_create(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(eng);
}

static void teardown(void)
{
	dvs_sim_engine_destroy(eng);
	if (page != NULL)
		munmap((void *)page, var->length);
	G->free_var(var);
	G->close_device(ctx);
}

static uint64_t kicks_of(uint32_t page, uint32_t *last)
{
	uint64_t k = 0;

	CU_ASSERT_EQUAL(dvs_sim_page_kicks(ctx, page, &k, last), 0);
	return k;
}

static void test_poll_counts_kicks(void)
{
	uint32_t last = 0;

	setup();
	CU_ASSERT_EQUAL(dvs_sim_engine_poll(eng), 0u);
	db[0] = 7;
	CU_ASSERT_EQUAL(dvs_sim_engine_poll(eng), 1u);
	CU_ASSERT_EQUAL(kicks_of(var->page_id, &last), 1u);
	CU_ASSERT_EQUAL(last, 7u);
	/* The register is taken back to idle: nothing more to see. */
	CU_ASSERT_EQUAL(db[0], DVS_SIM_DB_IDLE);
	CU_ASSERT_EQUAL(dvs_sim_engine_poll(eng), 0u);
	teardown();
}

static void test_same_value_again_is_a_kick(void)
{
	setup();
	for (int i = 0; i < 5; i++) {
		db[0] = 1;
		CU_ASSERT_EQUAL(dvs_sim_engine_poll(eng), 1u);
	}
	CU_ASSERT_EQUAL(kicks_of(var->page_id, NULL), 5u);
	CU_ASSERT_EQUAL(dvs_sim_engine_kicks(eng), 5u);
	teardown();
}

static void test_coalescing_and_registers(void)
{
	uint32_t last = 0;

	setup();
	/* Three stores between polls: one kick, the last value wins. */
	db[0] = 1;
	db[0] = 2;
	db[0] = 3;
	/* Elsewhere in the page: stored, never a doorbell. */
	page[0] = 9;
	page[5] = 10;
	db[1] = 11;
	CU_ASSERT_EQUAL(dvs_sim_engine_poll(eng), 1u);
	CU_ASSERT_EQUAL(kicks_of(var->page_id, &last), 1u);
	CU_ASSERT_EQUAL(last, 3u);
	/* The idle value itself is not a kick. */
	db[0] = DVS_SIM_DB_IDLE;
	CU_ASSERT_EQUAL(dvs_sim_engine_poll(eng), 0u);
	teardown();
}

/* A freed page's pending store is not a kick, and the page comes back
 * (once unmapped) with its counters at zero and its register idle. */
static void test_realloc_resets_page(void)
{
	struct mlx5dv_var *again;
	uint32_t pg;

	setup();
	db[0] = 4;
	dvs_sim_engine_poll(eng);
	pg = var->page_id;
	db[0] = 5; /* a store left pending when the page is freed */
	munmap((void *)page, var->length);
	page = NULL;
	G->free_var(var);
	CU_ASSERT_EQUAL(dvs_sim_page_kicks(ctx, pg, NULL, NULL), -ENOENT);
	CU_ASSERT_EQUAL(dvs_sim_engine_poll(eng), 0u);
	again = G->alloc_var(ctx, 0);
	CU_ASSERT_EQUAL_FATAL(again->page_id, pg);
	CU_ASSERT_EQUAL(kicks_of(pg, NULL), 0u);
	CU_ASSERT_EQUAL(dvs_sim_engine_poll(eng), 0u);
	var = again;
	teardown();
}

static void test_thread_start_stop(void)
{
	struct timespec ts = { 0, 1000000 };
	int spins;

	setup();
	CU_ASSERT_EQUAL(dvs_sim_engine_start(eng, 50), 0);
	CU_ASSERT_EQUAL(dvs_sim_engine_start(eng, 50), -EALREADY);
	for (int i = 0; i < 100; i++) {
		db[0] = (uint32_t)i;
		/* Wait until the engine took it, so no store coalesces. */
		for (spins = 0; db[0] != DVS_SIM_DB_IDLE && spins < 5000; spins++)
			nanosleep(&ts, NULL);
		CU_ASSERT_FATAL(db[0] == DVS_SIM_DB_IDLE);
	}
	dvs_sim_engine_stop(eng);
	dvs_sim_engine_stop(eng); /* idempotent */
	CU_ASSERT_EQUAL(kicks_of(var->page_id, NULL), 100u);
	db[0] = 1;
	CU_ASSERT_EQUAL(db[0], 1u); /* stopped: nobody takes it */
	teardown();
}

/* The engine holds its own fd: closing the creating context stops nothing. */
static void test_engine_outlives_context(void)
{
	struct ibv_context *other = sim_open("sim1", 1);
	struct ibv_context *imp = sim_import(other);
	struct mlx5dv_var *v = G->alloc_var(other, 0), *iv;
	volatile uint32_t *p = sim_map_var(other, v);
	struct dvs_sim_engine *e = dvs_sim_engine_create(other);
	uint8_t blob[DVS_SIM_VAR_EXPORT_SIZE];
	uint64_t k = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(e);
	CU_ASSERT_PTR_NOT_NULL_FATAL(imp);
	CU_ASSERT_EQUAL(G->var_export(v, blob), 0);
	G->var_unimport(v); /* local memory only; the page stays allocated */
	G->close_device(other);
	*sim_db(p) = 3;
	CU_ASSERT_EQUAL(dvs_sim_engine_poll(e), 1u);
	CU_ASSERT_EQUAL(dvs_sim_page_kicks(imp, 0, &k, NULL), 0);
	CU_ASSERT_EQUAL(k, 1u);
	dvs_sim_engine_destroy(e);
	munmap((void *)p, 4096);
	iv = G->var_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(iv);
	G->free_var(iv);
	CU_ASSERT_EQUAL(sim_stats(imp).vars, 0u);
	G->close_device(imp);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_poll_counts_kicks),
	DVS_TEST(test_same_value_again_is_a_kick),
	DVS_TEST(test_coalescing_and_registers),
	DVS_TEST(test_realloc_resets_page),
	DVS_TEST(test_thread_start_stop),
	DVS_TEST(test_engine_outlives_context),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_engine", cases);
}

DVS_CUNIT_MAIN("test_sim_engine", register_tests)
