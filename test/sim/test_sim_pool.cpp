/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim: the VAR pool's bitmaps (doc/sim.md, "Mapping lifetime") against
 * a process that writes the ufile as it should not: every process holding
 * the device maps it, as every process on a NIC reaches the kernel only
 * through its calls. A bitmap written wrong may keep a page out of the
 * pool for a while; it never hands out a page that is still mapped, and
 * the pool finds the page again.
 */
#include <sys/mman.h>

#define SIM_TEST_PAIR
#include "sim_test_util.h"

#include "sim_layout.h"

using namespace dvs::sim;

namespace {

/* The ufile's header, mapped writable through the cmd_fd. */
UfileHdr *map_header(struct ibv_context *c)
{
	void *p = mmap(nullptr, kPage, PROT_READ | PROT_WRITE, MAP_SHARED, c->cmd_fd,
		       static_cast<off_t>(kCtlOff));
	return p == MAP_FAILED ? nullptr : static_cast<UfileHdr *>(p);
}

/* Page 1 freed while mapped, its Released bit wiped: the next VAR is not
 * page 1 (still mapped); once unmapped, page 1 is the lowest free again. */
void test_wiped_released_bit()
{
	struct mlx5dv_var *v[4], *n1, *n2;

	setup();
	UfileHdr *h = map_header(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	for (int i = 0; i < 3; i++) {
		v[i] = G->alloc_var(ctx, 0);
		CU_ASSERT_PTR_NOT_NULL_FATAL(v[i]);
	}
	volatile uint32_t *p1 = sim_map_var(ctx, v[1]);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p1);
	G->free_var(v[1]);
	CU_ASSERT_EQUAL(h->released[0], 1ull << 1);
	h->released[0] = 0; /* the lie */
	n1 = G->alloc_var(imp, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n1);
	CU_ASSERT_EQUAL(n1->page_id, 3u);
	CU_ASSERT_EQUAL(h->released[0], 1ull << 1); /* found again */
	munmap((void *)p1, DVS_SIM_PAGE_SIZE);
	n2 = G->alloc_var(ctx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(n2);
	CU_ASSERT_EQUAL(n2->page_id, 1u);
	CU_ASSERT_EQUAL(h->released[0], 0u);
	G->free_var(n2);
	G->free_var(n1);
	G->free_var(v[0]);
	G->free_var(v[2]);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 0u);
	munmap(h, kPage);
	teardown();
}

/* Released bits set on pages that are free: they are cleared by the next
 * reclaim, and every page can still be had. */
void test_stray_released_bits()
{
	static struct mlx5dv_var *vs[DVS_SIM_VAR_PAGES];
	unsigned int n;

	setup();
	UfileHdr *h = map_header(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(h);
	for (auto &w : h->released)
		w = ~0ull; /* the lie */
	for (n = 0; n < DVS_SIM_VAR_PAGES; n++)
		if ((vs[n] = G->alloc_var(ctx, 0)) == nullptr)
			break;
	CU_ASSERT_EQUAL(n, DVS_SIM_VAR_PAGES);
	if (n > 0)
		CU_ASSERT_EQUAL(vs[0]->page_id, 0u);
	for (unsigned int i = 0; i < n; i++)
		G->free_var(vs[i]);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 0u);
	munmap(h, kPage);
	teardown();
}

const struct dvs_test_case cases[] = {
	DVS_TEST(test_wiped_released_bit),
	DVS_TEST(test_stray_released_bits),
	DVS_TEST_END,
};

int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_pool", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_sim_pool", register_tests)
