/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite unit: the sim's uverbs object table. Handles follow the kernel's
 * ufile xarray (drivers/infiniband/core/rdma_core.c,
 * rdma_alloc_begin_idr_uobject: xa_alloc on an XA_FLAGS_ALLOC array): the
 * lowest free number from 0, reused at once; lookups give ENOENT for an
 * empty handle and EINVAL for another type (lookup_get_idr_uobject,
 * rdma_lookup_get_uobject). Firmware ids are separate and not reused at once.
 */
#include <cerrno>
#include <cstring>
#include <set>
#include <vector>

#include "dvs_cunit.h"
#include "sim_handle_table.h"

using namespace dvs::sim;

namespace {

struct Table {
	explicit Table(uint32_t cap) : slots(cap), t(&hdr, slots.data())
	{
		std::memset(static_cast<void *>(slots.data()), 0, sizeof(Kobj) * cap);
		HandleTable::format(&hdr, cap);
	}
	HtabHdr hdr{};
	std::vector<Kobj> slots;
	HandleTable t;
};

Kobj with_id(uint32_t id)
{
	Kobj k{};
	k.id = id;
	return k;
}

void test_lowest_free_from_zero()
{
	Table tb(8);

	CU_ASSERT_EQUAL(tb.t.insert(with_id(1), KobjType::Var), 0u);
	CU_ASSERT_EQUAL(tb.t.insert(with_id(2), KobjType::DevxObj), 1u);
	CU_ASSERT_EQUAL(tb.t.insert(with_id(3), KobjType::Umem), 2u);
	CU_ASSERT_EQUAL(tb.t.live(), 3u);
	CU_ASSERT_EQUAL(tb.t.live(KobjType::DevxObj), 1u);
}

void test_lookup_errors()
{
	Table tb(8);
	uint32_t h = tb.t.insert(with_id(42), KobjType::Var);
	Kobj *k = nullptr;

	CU_ASSERT_EQUAL(tb.t.lookup(h, KobjType::Var, &k), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	CU_ASSERT_EQUAL(k->id, 42u);
	CU_ASSERT_EQUAL(tb.t.lookup(h, KobjType::DevxObj, &k), -EINVAL); /* another type */
	CU_ASSERT_EQUAL(tb.t.lookup(h + 1, KobjType::Var, &k), -ENOENT); /* nothing there */
	CU_ASSERT_EQUAL(tb.t.lookup(8, KobjType::Var, &k), -ENOENT);     /* past the end */
	CU_ASSERT_EQUAL(tb.t.lookup(UINT32_MAX, KobjType::Var, &k), -ENOENT);
}

/* The hazard the kernel has and dvshare's protocol exists for: a handle
 * kept past a destroy names the next object that takes the number. */
void test_reused_at_once()
{
	Table tb(8);
	uint32_t a = tb.t.insert(with_id(1), KobjType::DevxObj);
	uint32_t b = tb.t.insert(with_id(2), KobjType::DevxObj);
	Kobj *k = nullptr;

	tb.t.remove(a);
	CU_ASSERT_EQUAL(tb.t.lookup(a, KobjType::DevxObj, &k), -ENOENT);
	uint32_t c = tb.t.insert(with_id(3), KobjType::DevxObj);
	CU_ASSERT_EQUAL(c, a);
	CU_ASSERT_EQUAL(tb.t.lookup(a, KobjType::DevxObj, &k), 0);
	CU_ASSERT_EQUAL(k->id, 3u); /* the stale handle reaches the new object */
	CU_ASSERT_EQUAL(tb.t.insert(with_id(4), KobjType::Var), b + 1);
}

void test_full_table()
{
	Table tb(4);

	for (uint32_t i = 0; i < 4; i++)
		CU_ASSERT_EQUAL(tb.t.insert(with_id(i), KobjType::Var), i);
	CU_ASSERT_EQUAL(tb.t.insert(with_id(9), KobjType::Var), HandleTable::kNone);
	tb.t.remove(2);
	CU_ASSERT_EQUAL(tb.t.insert(with_id(9), KobjType::Umem), 2u);
	CU_ASSERT_EQUAL(tb.t.live(), 4u);
	CU_ASSERT_EQUAL(tb.t.live(KobjType::Umem), 1u);
}

/* Firmware ids: never 0, not the same twice in a row for one slot, found
 * by id in O(1), and 24 bits when the PRM field is (pd). */
void test_firmware_ids()
{
	Table tb(1u << kIdxBits);
	std::set<uint32_t> seen;

	for (int round = 0; round < 600; round++) {
		uint32_t h = tb.t.insert(with_id(0), KobjType::DevxObj);
		CU_ASSERT_EQUAL_FATAL(h, 0u);
		uint32_t wide = tb.t.make_id(h, false), narrow = tb.t.make_id(h, true);
		CU_ASSERT_NOT_EQUAL(wide, 0u);
		CU_ASSERT_NOT_EQUAL(narrow, 0u);
		CU_ASSERT(narrow <= 0xffffffu);
		if (round < 500)
			CU_ASSERT(seen.insert(wide).second);
		tb.slots[h].id = wide;
		CU_ASSERT_PTR_EQUAL(tb.t.by_id(wide, KobjType::DevxObj), &tb.slots[h]);
		CU_ASSERT_PTR_NULL(tb.t.by_id(wide, KobjType::Umem));
		CU_ASSERT_PTR_NULL(tb.t.by_id(wide ^ (1u << kIdxBits), KobjType::DevxObj));
		tb.t.remove(h);
		CU_ASSERT_PTR_NULL(tb.t.by_id(wide, KobjType::DevxObj));
	}
}

void test_many_inserts_stay_lowest()
{
	Table tb(1u << kIdxBits);
	std::vector<uint32_t> hs;

	for (uint32_t i = 0; i < 10000; i++)
		hs.push_back(tb.t.insert(with_id(i), KobjType::Var));
	CU_ASSERT_EQUAL(hs.back(), 9999u);
	for (uint32_t i = 0; i < 10000; i += 3)
		tb.t.remove(hs[i]);
	for (uint32_t i = 0; i < 10000; i += 3)
		CU_ASSERT_EQUAL(tb.t.insert(with_id(i), KobjType::Var), i);
	CU_ASSERT_EQUAL(tb.t.insert(with_id(0), KobjType::Var), 10000u);
}

const dvs_test_case cases[] = {
	DVS_TEST(test_lowest_free_from_zero),
	DVS_TEST(test_lookup_errors),
	DVS_TEST(test_reused_at_once),
	DVS_TEST(test_full_table),
	DVS_TEST(test_firmware_ids),
	DVS_TEST(test_many_inserts_stay_lowest),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("handle_table", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_handle_table", register_tests)
