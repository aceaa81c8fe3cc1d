/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite unit: the VAR region (var_region.h). Places are handed out lowest
 * first at consecutive addresses; a fence takes one mmap() per run of
 * consecutive places and leaves writable private pages; a close unmaps
 * every place not in use and leaves those in use until given back, so
 * nothing is left in /proc/self/maps once all are.
 */
#include <cstdio>
#include <cstring>
#include <vector>

#include <sys/mman.h>

#include "dvs_cunit.h"
#include "var_region.h"

using dvs::VarRegion;

namespace {

constexpr size_t kPage = 4096;

/* Lines of /proc/self/maps that overlap [@lo, @lo + @len): the region's
 * own (the whole process's count moves under ASan, whose allocator maps
 * memory as the test allocates). */
long maps_lines_in(const void *lo, size_t len)
{
	const auto a = reinterpret_cast<uintptr_t>(lo), b = a + len;
	FILE *f = fopen("/proc/self/maps", "r");
	char line[512];
	long n = 0;

	while (f != nullptr && fgets(line, sizeof(line), f) != nullptr) {
		unsigned long s, e;
		if (sscanf(line, "%lx-%lx", &s, &e) == 2 && s < b && e > a)
			n++;
	}
	if (f != nullptr)
		fclose(f);
	return n;
}

/* A stand-in for a VAR page: a shared mapping placed like map_var() does. */
void map_at(void *at, uint32_t value)
{
	void *p = mmap(at, kPage, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED,
		       -1, 0);
	CU_ASSERT_PTR_EQUAL_FATAL(p, at);
	*static_cast<volatile uint32_t *>(p) = value;
}

void test_places_consecutive_lowest_first()
{
	VarRegion r;
	uint32_t idx[4];
	void *at[4];

	CU_ASSERT_FALSE(r.fits(100)); /* not a whole page: mapped on its own */
	CU_ASSERT_TRUE(r.fits(kPage));
	CU_ASSERT_FALSE(r.fits(2 * kPage)); /* the first VAR set the stride */
	r.configure(4);
	for (int i = 0; i < 4; i++) {
		CU_ASSERT_EQUAL_FATAL(r.take(&idx[i], &at[i]), 0);
		CU_ASSERT_EQUAL(idx[i], static_cast<uint32_t>(i));
		CU_ASSERT_PTR_EQUAL(at[i], static_cast<char *>(at[0]) + i * kPage);
	}
	uint32_t x;
	void *a;
	CU_ASSERT_EQUAL(r.take(&x, &a), -ENOSPC);
	r.give(2);
	r.give(1);
	CU_ASSERT_EQUAL(r.take(&x, &a), 0);
	CU_ASSERT_EQUAL(x, 1u); /* the lowest free place again */
}

void test_fence_one_mmap_per_run()
{
	VarRegion r;
	std::vector<uint32_t> idx;
	void *at[10];

	CU_ASSERT_TRUE(r.fits(kPage));
	r.configure(10);
	for (uint32_t i = 0; i < 10; i++) {
		uint32_t k;
		CU_ASSERT_EQUAL_FATAL(r.take(&k, &at[i]), 0);
		map_at(at[i], 0xd00d0000 + i);
	}
	/* Places 0-3, 5-7 and 9: three runs, in any order. */
	idx = { 9, 3, 0, 2, 1, 6, 5, 7 };
	CU_ASSERT_EQUAL(r.fence(idx), 0);
	CU_ASSERT_EQUAL(r.fence_calls(), 3u);
	for (uint32_t i = 0; i < 10; i++) {
		auto *p = static_cast<volatile uint32_t *>(at[i]);
		if (i == 4 || i == 8) {
			CU_ASSERT_EQUAL(*p, 0xd00d0000 + i); /* not fenced: still the page */
		} else {
			CU_ASSERT_EQUAL(*p, 0u); /* a fresh private page */
			*p = 1; /* a late doorbell lands there */
		}
	}
}

void test_close_leaves_nothing()
{
	auto *r = new VarRegion();
	const size_t span = 1000 * kPage;
	void *at[64];
	uint32_t k;

	CU_ASSERT_TRUE(r->fits(kPage));
	r->configure(1000);
	for (int i = 0; i < 64; i++) {
		CU_ASSERT_EQUAL_FATAL(r->take(&k, &at[i]), 0);
		map_at(at[i], 7);
	}
	CU_ASSERT(maps_lines_in(at[0], span) >= 64); /* a VMA per mapped place, and the rest */
	std::vector<uint32_t> all;
	for (uint32_t i = 0; i < 64; i++)
		all.push_back(i);
	CU_ASSERT_EQUAL(r->fence(all), 0);
	for (uint32_t i = 0; i < 64; i++)
		if (i != 10 && i != 11 && i != 40)
			r->give(i);
	r->close(); /* 10, 11 and 40 are still held: they stay, writable */
	void *none;
	CU_ASSERT_EQUAL(r->take(&k, &none), -ENODEV);
	*static_cast<volatile uint32_t *>(at[10]) = 1;
	*static_cast<volatile uint32_t *>(at[40]) = 1;
	CU_ASSERT_EQUAL(maps_lines_in(at[0], span), 2); /* places 10-11, and 40 */
	r->give(10);
	r->give(11);
	r->give(40);
	CU_ASSERT_EQUAL(maps_lines_in(at[0], span), 0);
	delete r;
	CU_ASSERT_EQUAL(maps_lines_in(at[0], span), 0);
}

const dvs_test_case cases[] = {
	DVS_TEST(test_places_consecutive_lowest_first),
	DVS_TEST(test_fence_one_mmap_per_run),
	DVS_TEST(test_close_leaves_nothing),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("var_region", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_var_region", register_tests)
