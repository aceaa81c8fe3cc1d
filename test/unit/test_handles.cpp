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

#include "dvs_cunit.h"
#include "handles.h"

using dvs::Handle;

namespace {

struct TestHandle : Handle {
	TestHandle() : Handle(nullptr, DVSHARE_TYPE_OBJ, false) {}
	void let_go() override {}
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
