/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite unit: a handle's reference word and its command gate, the two
 * things threads race on (doc/protocol.md, "Threads" in doc/api.md). Each
 * ordering test can only fail when the ordering is broken: a command that
 * has started holds up a revoke or a hold, a held or revoked handle runs
 * no command.
 */
#include <atomic>
#include <cerrno>
#include <chrono>
#include <thread>
#include <vector>

#include <unistd.h>

#include "dvs_cunit.h"
#include "handles.h"
#include "slot_store.h"

using dvs::Handle;

namespace {

struct TestHandle : Handle {
	static constexpr enum dvshare_type kType = DVSHARE_TYPE_OBJ;
	TestHandle(dvshare_dev *d = nullptr, bool own = false) : Handle(d, kType, own) { revive(); }
	void let_go() override { let_go_calls++; }
	int let_go_calls = 0;
};

/* Long enough for a thread that could get past a gate to do so. */
void settle()
{
	std::this_thread::sleep_for(std::chrono::milliseconds(30));
}

void test_refs_and_revoked()
{
	TestHandle h;
	bool revoked = true;

	h.get();
	h.get();
	CU_ASSERT_EQUAL(h.refs(), 2u);
	CU_ASSERT_FALSE(h.put(&revoked));
	CU_ASSERT_FALSE(revoked);
	h.revoke_and_drain();
	CU_ASSERT_TRUE(h.revoked());
	CU_ASSERT_EQUAL(h.refs(), 1u); /* the mark is not a reference */
	CU_ASSERT_TRUE(h.put(&revoked)); /* the last one, of a revoked handle */
	CU_ASSERT_TRUE(revoked);
	CU_ASSERT_EQUAL(h.refs(), 0u);
	CU_ASSERT_FALSE(h.put(&revoked)); /* a double release is refused */
	CU_ASSERT_EQUAL(h.refs(), 0u);
	CU_ASSERT_TRUE(h.revoked());
}

/* A handle is born revoked: nothing takes it before its fields are set. */
void test_born_revoked_until_revived()
{
	struct Fresh : Handle {
		Fresh() : Handle(nullptr, DVSHARE_TYPE_VAR, false) {}
		void let_go() override {}
	} h;

	CU_ASSERT_TRUE(h.revoked());
	CU_ASSERT_FALSE(h.try_get());
	CU_ASSERT_EQUAL(h.refs(), 0u); /* the failed try left nothing */
	h.revive();
	CU_ASSERT_FALSE(h.revoked());
	CU_ASSERT_TRUE(h.try_get());
	CU_ASSERT_EQUAL(h.refs(), 1u);
}

/* Lookups with a stale pointer hammer a revoked handle while it is
 * revived: none gets a reference while it is revoked, none is lost when
 * it comes back (a revive that stored 0 over a lookup's passing count
 * would let the lookup's back-out eat a real reference). */
void test_revive_against_stale_lookups()
{
	TestHandle h;
	std::atomic<bool> stop{false}, revived{false};
	std::atomic<long> early{0}, got{0};

	h.revoke_and_drain();
	std::vector<std::thread> ts;
	for (int t = 0; t < 3; t++)
		ts.emplace_back([&] {
			while (!stop) {
				const bool before = !revived.load();
				if (h.try_get()) {
					if (before && !revived.load())
						early++;
					got++;
				}
			}
		});
	settle();
	revived = true;
	h.revive();
	settle();
	stop = true;
	for (auto &t : ts)
		t.join();
	CU_ASSERT_EQUAL(early.load(), 0);
	CU_ASSERT(got.load() > 0);
	CU_ASSERT_EQUAL(static_cast<long>(h.refs()), got.load());
}

/* The pool: a handle given back is cleared and handed out again, by type;
 * once closed, what it kept and what comes later is destroyed, and the
 * arena goes when the last handle out of it does. */
void test_pool_recycles_by_type()
{
	dvs::HandlePool pool;
	TestHandle *a = pool.make<TestHandle>(nullptr, false);
	bool revoked;

	CU_ASSERT_EQUAL(reinterpret_cast<uintptr_t>(a) % 64, 0u); /* one line for the hot fields */
	snprintf(a->name, sizeof(a->name), "old");
	a->slot = 5;
	a->get();
	a->revoke_and_drain();
	CU_ASSERT_TRUE(a->put(&revoked) && revoked);
	dvs::HandlePtr<>(a).reset(); /* its owner lets it go: back to the pool */
	CU_ASSERT_PTR_NULL(pool.take(DVSHARE_TYPE_VAR));
	TestHandle *b = pool.make<TestHandle>(nullptr, true);
	CU_ASSERT_PTR_EQUAL(b, a);
	CU_ASSERT_STRING_EQUAL(b->name, "");
	CU_ASSERT_EQUAL(b->slot, 0u);
	CU_ASSERT_TRUE(b->owner);
	TestHandle *c = pool.make<TestHandle>(nullptr, false); /* a new block */
	CU_ASSERT_PTR_NOT_EQUAL(c, b);
	CU_ASSERT_EQUAL(reinterpret_cast<uintptr_t>(c) - reinterpret_cast<uintptr_t>(b),
			dvs::HandlePool::kBlock);
	pool.give(b);
	pool.close(); /* destroys b; c is still out: the arena stays */
	c->name[0] = 'x'; /* still mapped (a fault here would be the bug) */
	pool.give(c); /* after close: destroyed at once, and the arena goes */
	CU_ASSERT_PTR_NULL(pool.take(DVSHARE_TYPE_OBJ));
}

/* Thousands of handles: the arena grows past its first chunks into 2 MiB
 * ones, every block distinct and 64-byte aligned. */
void test_pool_grows()
{
	dvs::HandlePool pool;
	std::vector<TestHandle *> v;

	for (int i = 0; i < 20000; i++) {
		v.push_back(pool.make<TestHandle>(nullptr, false));
		CU_ASSERT_EQUAL_FATAL(reinterpret_cast<uintptr_t>(v.back()) % 64, 0u);
		snprintf(v.back()->name, sizeof(v.back()->name), "h%d", i);
	}
	for (int i = 0; i < 20000; i++) {
		char n[16];
		snprintf(n, sizeof(n), "h%d", i);
		CU_ASSERT_STRING_EQUAL_FATAL(v[i]->name, n);
	}
	for (TestHandle *h : v) {
		h->revoke_and_drain();
		pool.give(h);
	}
}

/* Resident bytes of this process (/proc/self/statm). */
long rss_bytes()
{
	long pages = 0, resident = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f != nullptr) {
		if (fscanf(f, "%ld %ld", &pages, &resident) != 2)
			resident = 0;
		fclose(f);
	}
	return resident * sysconf(_SC_PAGESIZE);
}

/* An eager attach reserves handles and the view for the entry count the
 * registry claims, which the primary writes: a lying one may claim the
 * largest registry with nothing in it. The reservation is address space;
 * memory is committed only where handles are made, in one chunk. */
void test_reserve_commits_what_is_used()
{
	constexpr uint32_t kClaimed = 1u << 22; /* max_objects' limit */
	constexpr int kMade = 10000;
	dvs::SlotStore store;
	const long rss0 = rss_bytes();

	CU_ASSERT_EQUAL_FATAL(store.init(2 * kClaimed), 0); /* a 64 MiB view */
	store.reserve(kClaimed);                            /* a 1 GiB arena */
	const long rss1 = rss_bytes();
	CU_ASSERT(rss1 - rss0 < (8l << 20));
	std::vector<TestHandle *> v;
	for (int i = 0; i < kMade; i++)
		v.push_back(store.pool()->make<TestHandle>(nullptr, false));
	for (int i = 1; i < kMade; i++) /* consecutive: the reserved chunk */
		CU_ASSERT_EQUAL_FATAL(reinterpret_cast<uintptr_t>(v[i]) -
					      reinterpret_cast<uintptr_t>(v[i - 1]),
				      dvs::HandlePool::kBlock);
	const long rss2 = rss_bytes();
	/* 10,000 blocks of 256 bytes: two 2 MiB pages, with room to spare. */
	CU_ASSERT(rss2 - rss1 < (8l << 20));
	printf("reserve of %u handles: RSS +%ld KiB; %d made: +%ld KiB\n", kClaimed,
	       (rss1 - rss0) >> 10, kMade, (rss2 - rss1) >> 10);
	for (TestHandle *h : v) {
		h->revoke_and_drain();
		store.pool()->give(h);
	}
}

/* Close @gate (a revoke or a hold) on @h while another thread is inside
 * a command on it: the gate must not get through before the command
 * returns, and must once it has. */
template <typename Gate> void check_gate_waits_for_command(TestHandle &h, Gate gate)
{
	std::atomic<bool> inside{false}, go{false}, through{false};
	int rc = -1;

	std::thread cmd([&] {
		rc = h.command([&] {
			inside = true;
			while (!go)
				std::this_thread::yield();
			return 0;
		});
	});
	while (!inside)
		std::this_thread::yield();
	std::thread closer([&] {
		gate();
		through = true;
	});
	settle();
	CU_ASSERT_FALSE(through.load()); /* the command is still running */
	go = true;
	cmd.join();
	closer.join();
	CU_ASSERT_EQUAL(rc, 0);
	CU_ASSERT_TRUE(through.load());
}

void test_revoke_waits_for_running_command()
{
	TestHandle h;
	bool ran = false;

	check_gate_waits_for_command(h, [&] { h.revoke_and_drain(); });
	CU_ASSERT_EQUAL(h.command([&] { ran = true; return 0; }), ENODEV);
	CU_ASSERT_FALSE(ran);
}

void test_hold_makes_commands_wait()
{
	TestHandle h;
	std::atomic<bool> ran{false};
	int rc = -1;

	h.hold_commands();
	CU_ASSERT_EQUAL(h.refs(), 0u); /* the hold is not a reference either */
	std::thread cmd([&] { rc = h.command([&] { ran = true; return 0; }); });
	settle();
	CU_ASSERT_FALSE(ran.load()); /* held: it waits */
	h.release_commands(); /* a refused destroy: the command goes on */
	cmd.join();
	CU_ASSERT_TRUE(ran.load());
	CU_ASSERT_EQUAL(rc, 0);

	/* A destroy that succeeds: the waiting command finds it revoked. */
	ran = false;
	h.hold_commands();
	std::thread late([&] { rc = h.command([&] { ran = true; return 0; }); });
	settle();
	h.revoke_and_drain();
	h.release_commands();
	late.join();
	CU_ASSERT_FALSE(ran.load());
	CU_ASSERT_EQUAL(rc, ENODEV);
}

void test_hold_waits_for_running_command()
{
	TestHandle h;

	check_gate_waits_for_command(h, [&] { h.hold_commands(); });
	h.release_commands();
}

const struct dvs_test_case cases[] = {
	DVS_TEST(test_refs_and_revoked),
	DVS_TEST(test_born_revoked_until_revived),
	DVS_TEST(test_revive_against_stale_lookups),
	DVS_TEST(test_pool_recycles_by_type),
	DVS_TEST(test_pool_grows),
	DVS_TEST(test_reserve_commits_what_is_used),
	DVS_TEST(test_revoke_waits_for_running_command),
	DVS_TEST(test_hold_makes_commands_wait),
	DVS_TEST(test_hold_waits_for_running_command),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("handles", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_handles", register_tests)
