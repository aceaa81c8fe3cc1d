/* SPDX-License-Identifier: BSD-3-Clause */
/* Suite unit: the sim's generation-checked handle table. */
#include <cstring>
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

void test_insert_lookup()
{
	Table tb(8);
	uint32_t h = tb.t.insert(with_id(42), KobjType::Var);

	CU_ASSERT_NOT_EQUAL(h, 0u);
	Kobj *k = tb.t.lookup(h, KobjType::Var);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	CU_ASSERT_EQUAL(k->id, 42u);
	CU_ASSERT_PTR_NULL(tb.t.lookup(h, KobjType::DevxObj));
	CU_ASSERT_PTR_NULL(tb.t.lookup(0, KobjType::Var));
	CU_ASSERT_PTR_NULL(tb.t.lookup(h + 1, KobjType::Var));
	CU_ASSERT_EQUAL(tb.t.live(), 1u);
	CU_ASSERT_EQUAL(tb.t.live(KobjType::Var), 1u);
	CU_ASSERT_EQUAL(tb.t.live(KobjType::Umem), 0u);
}

void test_remove_makes_stale()
{
	Table tb(8);
	uint32_t h = tb.t.insert(with_id(1), KobjType::Umem);

	CU_ASSERT_TRUE(tb.t.remove(h, KobjType::Umem));
	CU_ASSERT_PTR_NULL(tb.t.lookup(h, KobjType::Umem));
	CU_ASSERT_FALSE(tb.t.remove(h, KobjType::Umem));
	CU_ASSERT_EQUAL(tb.t.live(), 0u);
}

void test_wrong_type_cannot_remove()
{
	Table tb(8);
	uint32_t h = tb.t.insert(with_id(1), KobjType::Var);

	CU_ASSERT_FALSE(tb.t.remove(h, KobjType::DevxObj));
	CU_ASSERT_PTR_NOT_NULL(tb.t.lookup(h, KobjType::Var));
}

void test_slot_reuse_bumps_generation()
{
	Table tb(2); /* one usable slot: reuse is forced */
	uint32_t h1 = tb.t.insert(with_id(1), KobjType::Var);

	CU_ASSERT_TRUE(tb.t.remove(h1, KobjType::Var));
	uint32_t h2 = tb.t.insert(with_id(2), KobjType::Var);
	CU_ASSERT_NOT_EQUAL(h2, 0u);
	CU_ASSERT_EQUAL(HandleTable::slot_of(h1), HandleTable::slot_of(h2));
	CU_ASSERT_NOT_EQUAL(HandleTable::gen_of(h1), HandleTable::gen_of(h2));
	CU_ASSERT_PTR_NULL(tb.t.lookup(h1, KobjType::Var));
	CU_ASSERT_EQUAL(tb.t.lookup(h2, KobjType::Var)->id, 2u);
}

void test_cyclic_allocation()
{
	Table tb(8);
	uint32_t h1 = tb.t.insert(with_id(1), KobjType::Var);

	tb.t.remove(h1, KobjType::Var);
	uint32_t h2 = tb.t.insert(with_id(2), KobjType::Var);
	/* The freed slot is not the next one handed out. */
	CU_ASSERT_NOT_EQUAL(HandleTable::slot_of(h1), HandleTable::slot_of(h2));
}

void test_full_table()
{
	Table tb(4);
	std::vector<uint32_t> hs;

	for (int i = 0; i < 3; i++)
		hs.push_back(tb.t.insert(with_id(i), KobjType::DevxObj));
	for (uint32_t h : hs)
		CU_ASSERT_NOT_EQUAL(h, 0u);
	CU_ASSERT_EQUAL(tb.t.insert(with_id(9), KobjType::DevxObj), 0u);
	CU_ASSERT_EQUAL(tb.t.live(), 3u);
	tb.t.remove(hs[1], KobjType::DevxObj);
	CU_ASSERT_NOT_EQUAL(tb.t.insert(with_id(9), KobjType::DevxObj), 0u);
}

void test_generation_never_zero()
{
	Table tb(2);
	uint32_t h = 0;

	/* Wrap the 16-bit generation: handle 0 must never be handed out. */
	for (int i = 0; i < 70000; i++) {
		h = tb.t.insert(with_id(1), KobjType::Var);
		CU_ASSERT_FATAL(h != 0);
		CU_ASSERT_FATAL(HandleTable::gen_of(h) != 0);
		tb.t.remove(h, KobjType::Var);
	}
}

void test_at_slot_bounds()
{
	Table tb(4);
	uint32_t h = tb.t.insert(with_id(7), KobjType::Umem);

	CU_ASSERT_PTR_NOT_NULL(tb.t.at_slot(HandleTable::slot_of(h), KobjType::Umem));
	CU_ASSERT_PTR_NULL(tb.t.at_slot(0, KobjType::Umem));
	CU_ASSERT_PTR_NULL(tb.t.at_slot(4, KobjType::Umem));
	CU_ASSERT_PTR_NULL(tb.t.at_slot(0xffff, KobjType::Umem));
}

const dvs_test_case cases[] = {
	DVS_TEST(test_insert_lookup),
	DVS_TEST(test_remove_makes_stale),
	DVS_TEST(test_wrong_type_cannot_remove),
	DVS_TEST(test_slot_reuse_bumps_generation),
	DVS_TEST(test_cyclic_allocation),
	DVS_TEST(test_full_table),
	DVS_TEST(test_generation_never_zero),
	DVS_TEST(test_at_slot_bounds),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("handle_table", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_handle_table", register_tests)
