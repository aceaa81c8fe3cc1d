/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim: VAR pages. mlx5dv_var_export(3) statement by statement, and
 * the kernel's rules, each with the function it models: lowest-free pages
 * (mlx5_ib alloc_var_entry), mmap offsets (mlx5_entry_to_mmap_offset), a
 * page back in the pool only once its last mapping is gone
 * (mlx5_ib_mmap_free from rdma_user_mmap_entry_free), mmap of a freed
 * VAR refused (rdma_user_mmap_entry_get, mlx5_ib_mmap_offset), handles
 * reused at once (rdma_alloc_begin_idr_uobject).
 */
#include <signal.h>
#include <sys/wait.h>

#define SIM_TEST_PAIR
#include "sim_test_util.h"

/* "The buffer must be at least var_attrs_size bytes"; the blob is
 * rdma-core's struct mlx5dv_var_attrs: handle @0, page_id @4, length @8,
 * mmap_off @16, 24 bytes on x86-64. */
static void test_export_layout(void)
{
	struct mlx5dv_export_sizes s;
	uint8_t buf[DVS_SIM_VAR_EXPORT_SIZE + 8];
	struct mlx5dv_var *v;
	uint32_t w;
	uint64_t off;

	setup();
	memset(&s, 0, sizeof(s));
	G->get_export_sizes(&s, sizeof(s));
	CU_ASSERT_EQUAL(s.var_attrs_size, 24u);
	CU_ASSERT_EQUAL(s.devx_obj_attrs_size, 32u);
	CU_ASSERT_EQUAL(s.devx_umem_attrs_size, 8u);
	v = G->alloc_var(ctx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	memset(buf, 0xa5, sizeof(buf));
	CU_ASSERT_EQUAL(G->var_export(v, buf), 0);
	memcpy(&w, buf + 4, 4);
	CU_ASSERT_EQUAL(w, v->page_id);
	memcpy(&w, buf + 8, 4);
	CU_ASSERT_EQUAL(w, v->length);
	memcpy(&off, buf + 16, 8);
	CU_ASSERT_EQUAL(off, (uint64_t)v->mmap_off);
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

/* The offsets a 4 KiB-page host gets: entries from page offset 9 << 16,
 * the entry index folded into the command byte's neighbours. The pair's
 * two contexts each hold a UAR, whose entries (0, 1) come first: VAR
 * page i has entry i + 2. */
static void test_mmap_offsets(void)
{
	struct mlx5dv_var *v[255];

	setup();
	CU_ASSERT_EQUAL(sim_stats(ctx).uars, 2u);
	for (int i = 0; i < 255; i++) {
		v[i] = G->alloc_var(ctx, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(v[i]);
		CU_ASSERT_EQUAL(v[i]->page_id, (uint32_t)i);
	}
	CU_ASSERT_EQUAL(v[0]->mmap_off, 0x902000);
	CU_ASSERT_EQUAL(v[1]->mmap_off, 0x903000);
	CU_ASSERT_EQUAL(v[253]->mmap_off, 0x9ff000);
	CU_ASSERT_EQUAL(v[254]->mmap_off, 0x10900000);
	for (int i = 0; i < 255; i++)
		G->free_var(v[i]);
	teardown();
}

/* Every open and every import makes a UAR, as libmlx5's context setup
 * does: a uverbs handle and an mmap entry in the VARs' range, given back
 * by the context's close. So a fresh device's first VAR is neither
 * handle 0 nor entry 0, and an entry a closed context gave back goes to
 * the next VAR; the UAR's entry itself cannot be mapped in the sim. */
static void test_uar_per_context(void)
{
	struct ibv_context *c = sim_open("sim1", 1), *i;
	struct mlx5dv_var *a, *b;
	uint32_t blob[DVS_SIM_VAR_EXPORT_SIZE / 4];

	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(sim_stats(c).uars, 1u);
	i = sim_import(c);
	CU_ASSERT_PTR_NOT_NULL_FATAL(i);
	CU_ASSERT_EQUAL(sim_stats(c).uars, 2u);
	a = G->alloc_var(c, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_EQUAL(a->page_id, 0u);
	CU_ASSERT_EQUAL(a->mmap_off, 0x902000);
	CU_ASSERT_EQUAL(G->var_export(a, blob), 0);
	CU_ASSERT_EQUAL(blob[0], 2u); /* handle: after the two UARs */
	CU_ASSERT_EQUAL(G->close_device(i), 0);
	CU_ASSERT_EQUAL(sim_stats(c).uars, 1u);
	b = G->alloc_var(c, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	CU_ASSERT_EQUAL(b->page_id, 1u);
	CU_ASSERT_EQUAL(b->mmap_off, 0x901000); /* the closed context's entry */
	CU_ASSERT_EQUAL(G->var_export(b, blob), 0);
	CU_ASSERT_EQUAL(blob[0], 1u); /* and its handle */
	/* The open context's UAR entry (0): the sim has no page for it. */
	errno = 0;
	CU_ASSERT_PTR_NULL(G->mmap_cmd(c, NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 0x900000));
	CU_ASSERT_EQUAL(errno, EINVAL);
	G->free_var(a);
	G->free_var(b);
	CU_ASSERT_EQUAL(G->close_device(c), 0);
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
	G->var_unimport(i2);
	G->free_var(v);
	teardown();
}

/* "free destroys the kernel object" for every context; an import made
 * afterwards still "succeeds" (it validates nothing) and fails at mmap. */
static void test_free_kills_for_all(void)
{
	uint8_t blob[DVS_SIM_VAR_EXPORT_SIZE];
	struct mlx5dv_var *v, *other, *late;
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
	CU_ASSERT_PTR_NULL(sim_map_var(imp, other));
	CU_ASSERT_EQUAL(errno, EINVAL);
	late = G->var_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(late);
	CU_ASSERT_PTR_NULL(sim_map_var(imp, late));
	G->var_unimport(late);
	G->var_unimport(other); /* the only thing left to do */
	teardown();
}

/* A handle kept past a free names the next VAR that takes the number:
 * freeing through it destroys that VAR (the kernel's uverbs handles are
 * reused at once). dvshare's protocol exists so that nobody does this. */
static void test_stale_handle_reaches_new_var(void)
{
	uint8_t blob[DVS_SIM_VAR_EXPORT_SIZE];
	struct mlx5dv_var *v, *other, *fresh;

	setup();
	v = G->alloc_var(ctx, 0);
	CU_ASSERT_EQUAL(G->var_export(v, blob), 0);
	other = G->var_import(imp, blob);
	G->free_var(other);                 /* destroys v's object */
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 0u);
	fresh = G->alloc_var(ctx, 0);       /* takes the same handle */
	CU_ASSERT_PTR_NOT_NULL_FATAL(fresh);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 1u);
	G->free_var(v);                     /* stale: destroys fresh's object */
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 0u);
	CU_ASSERT_EQUAL(dvs_sim_page_kicks(ctx, fresh->page_id, NULL, NULL), -ENOENT);
	G->var_unimport(fresh);             /* all that is left of it */
	teardown();
}

/* The mapped page is shared memory: a store through one context's mapping
 * is seen through another's (the sim's page; device register space makes
 * no such promise, and the hw suite never reads one back). */
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
	CU_ASSERT_EQUAL(*sim_db(b), DVS_SIM_DB_IDLE); /* the register starts idle */
	*sim_db(b) = 0x1234;
	CU_ASSERT_EQUAL(*sim_db(a), 0x1234u);
	munmap((void *)a, v->length);
	munmap((void *)b, other->length);
	G->var_unimport(other);
	G->free_var(v);
	teardown();
}

/* rdma_user_mmap_io: a shared mapping of exactly the entry's length, at
 * an offset that names a live VAR; anything else is EINVAL. */
static void test_mmap_rules(void)
{
	struct mlx5dv_var *v;

	setup();
	v = G->alloc_var(ctx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->mmap_cmd(ctx, NULL, v->length, PROT_READ | PROT_WRITE, MAP_PRIVATE,
				       v->mmap_off));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->mmap_cmd(ctx, NULL, 2 * v->length, PROT_READ | PROT_WRITE, MAP_SHARED,
				       v->mmap_off));
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->mmap_cmd(ctx, NULL, v->length, PROT_READ | PROT_WRITE, MAP_SHARED,
				       v->mmap_off + 0x1000)); /* page 1: no VAR */
	CU_ASSERT_EQUAL(errno, EINVAL);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->mmap_cmd(ctx, NULL, v->length, PROT_READ, MAP_SHARED, 0));
	CU_ASSERT_EQUAL(errno, EINVAL);
	G->free_var(v);
	teardown();
}

/* Lowest free page first; a freed page is not handed out again while any
 * mapping of it remains. */
static void test_page_back_after_last_unmap(void)
{
	struct mlx5dv_var *a, *b, *c, *d;
	volatile uint32_t *pa, *pa2;

	setup();
	a = G->alloc_var(ctx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	pa = sim_map_var(ctx, a);
	pa2 = sim_map_var(ctx, a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pa);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pa2);
	G->free_var(a);
	CU_ASSERT_EQUAL(sim_stats(ctx).pages_held, 1u);
	b = G->alloc_var(ctx, 0);
	CU_ASSERT_EQUAL(b->page_id, 1u); /* page 0 is still mapped */
	munmap((void *)pa, DVS_SIM_PAGE_SIZE);
	c = G->alloc_var(imp, 0);
	CU_ASSERT_EQUAL(c->page_id, 2u); /* one mapping left */
	/* Fencing as dvshare does it (an anonymous page over it) counts as
	 * unmapping. */
	CU_ASSERT_NOT_EQUAL(mmap((void *)pa2, DVS_SIM_PAGE_SIZE, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0), MAP_FAILED);
	d = G->alloc_var(imp, 0);
	CU_ASSERT_EQUAL(d->page_id, 0u); /* lowest free again */
	CU_ASSERT_EQUAL(sim_stats(ctx).pages_held, 0u);
	munmap((void *)pa2, DVS_SIM_PAGE_SIZE);
	G->free_var(b);
	G->free_var(c);
	G->free_var(d);
	teardown();
}

/* A mapping copied into a child by fork() holds the page too (the VMA is
 * duplicated and takes its own reference: rdma_umap_open). */
static void test_fork_child_holds_page(void)
{
	struct mlx5dv_var *a, *b;
	volatile uint32_t *pa;
	int go[2], status;
	pid_t child;
	char c = 0;

	setup();
	a = G->alloc_var(ctx, 0);
	pa = sim_map_var(ctx, a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pa);
	CU_ASSERT_EQUAL_FATAL(pipe(go), 0);
	child = fork();
	if (child == 0) {
		/* Keep the inherited mapping until told to go. */
		close(go[1]);
		if (read(go[0], &c, 1) < 0)
			_exit(2);
		_exit(*sim_db(pa) == DVS_SIM_DB_IDLE ? 0 : 1);
	}
	close(go[0]);
	munmap((void *)pa, DVS_SIM_PAGE_SIZE);
	G->free_var(a);
	CU_ASSERT_EQUAL(sim_stats(ctx).pages_held, 1u);
	b = G->alloc_var(ctx, 0);
	CU_ASSERT_EQUAL(b->page_id, 1u);
	G->free_var(b);
	CU_ASSERT_EQUAL(write(go[1], "x", 1), 1);
	CU_ASSERT_EQUAL(waitpid(child, &status, 0), child);
	CU_ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(go[1]);
	CU_ASSERT_EQUAL(sim_stats(ctx).pages_held, 0u);
	b = G->alloc_var(ctx, 0);
	CU_ASSERT_EQUAL(b->page_id, 0u);
	G->free_var(b);
	teardown();
}

/* The pool is a bitmap of 64-page words (mlx5_ib's is one too): the
 * lowest free page and the reclaim of freed ones hold past the first
 * word, with a freed page still mapped in the middle of a run. */
static void test_pool_across_words(void)
{
	static struct mlx5dv_var *vs[130];
	struct mlx5dv_var *got[8];
	volatile uint32_t *p70;
	unsigned int i;

	setup();
	for (i = 0; i < 130; i++) {
		vs[i] = G->alloc_var(ctx, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(vs[i]);
		CU_ASSERT_EQUAL(vs[i]->page_id, i);
	}
	p70 = sim_map_var(ctx, vs[70]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p70);
	for (i = 64; i < 128; i++)
		G->free_var(vs[i]);
	CU_ASSERT_EQUAL(sim_stats(ctx).pages_held, 1u); /* 70 only */
	for (i = 0; i < 7; i++) {
		got[i] = G->alloc_var(ctx, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(got[i]);
	}
	CU_ASSERT_EQUAL(got[0]->page_id, 64u);
	CU_ASSERT_EQUAL(got[5]->page_id, 69u);
	CU_ASSERT_EQUAL(got[6]->page_id, 71u); /* 70 is still mapped */
	munmap((void *)p70, DVS_SIM_PAGE_SIZE);
	got[7] = G->alloc_var(imp, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got[7]);
	CU_ASSERT_EQUAL(got[7]->page_id, 70u);
	CU_ASSERT_EQUAL(sim_stats(ctx).pages_held, 0u);
	for (i = 0; i < 8; i++)
		G->free_var(got[i]);
	for (i = 0; i < 64; i++)
		G->free_var(vs[i]);
	for (i = 128; i < 130; i++)
		G->free_var(vs[i]);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 0u);
	got[0] = G->alloc_var(ctx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(got[0]);
	CU_ASSERT_EQUAL(got[0]->page_id, 0u);
	G->free_var(got[0]);
	teardown();
}

/* libmlx5 takes flags 0 and MLX5DV_VAR_ALLOC_FLAG_TLP (1 << 0), anything
 * else is EOPNOTSUPP; the kernel's pool running out is ENOSPC. */
static void test_alloc_flags_and_pool(void)
{
	static struct mlx5dv_var *vs[DVS_SIM_VAR_PAGES];
	struct mlx5dv_var *tlp;
	unsigned int n;

	setup();
	errno = 0;
	CU_ASSERT_PTR_NULL(G->alloc_var(ctx, 2));
	CU_ASSERT_EQUAL(errno, EOPNOTSUPP);
	tlp = G->alloc_var(ctx, 1);
	CU_ASSERT_PTR_NOT_NULL(tlp);
	G->free_var(tlp);
	for (n = 0; n < DVS_SIM_VAR_PAGES; n++) {
		vs[n] = G->alloc_var(ctx, 0);
		if (vs[n] == NULL)
			break;
	}
	CU_ASSERT_EQUAL(n, DVS_SIM_VAR_PAGES);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->alloc_var(ctx, 0));
	CU_ASSERT_EQUAL(errno, ENOSPC);
	for (unsigned int i = 0; i < n; i++)
		G->free_var(vs[i]);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 0u);
	teardown();
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_export_layout),
	DVS_TEST(test_export_sizes_versioned),
	DVS_TEST(test_mmap_offsets),
	DVS_TEST(test_uar_per_context),
	DVS_TEST(test_import_same_and_imported_context),
	DVS_TEST(test_unimport_keeps_object),
	DVS_TEST(test_free_kills_for_all),
	DVS_TEST(test_stale_handle_reaches_new_var),
	DVS_TEST(test_mapping_shared),
	DVS_TEST(test_mmap_rules),
	DVS_TEST(test_page_back_after_last_unmap),
	DVS_TEST(test_fork_child_holds_page),
	DVS_TEST(test_pool_across_words),
	DVS_TEST(test_alloc_flags_and_pool),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_var", cases);
}

DVS_CUNIT_MAIN("test_sim_var", register_tests)
