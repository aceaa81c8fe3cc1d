/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection for dvshare's own tests (dvs_sim_fail_next_import(),
 * dvs_sim_fail_next_mmap(),
 * dvs_sim_fail_next_destroy()): linked only into the test-only builds
 * (the static glue the sim and unit suites use, libdvshare_faults.so the
 * multi-process peers use), never into the installed library.
 */
#include <atomic>

#include "dvs_sim.h"
#include "sim_context.h"

namespace dvs::sim {

namespace {

std::atomic<int> fail_next_import{0};
std::atomic<int> fail_next_destroy{0};
std::atomic<int> fail_next_mmap{0};

} // namespace

int take_destroy_failure()
{
	return fail_next_destroy.exchange(0);
}

int take_import_failure()
{
	return fail_next_import.exchange(0);
}

int take_mmap_failure()
{
	return fail_next_mmap.exchange(0);
}

} // namespace dvs::sim

void dvs_sim_fail_next_import(int err)
{
	dvs::sim::fail_next_import.store(err);
}

void dvs_sim_fail_next_destroy(int err)
{
	dvs::sim::fail_next_destroy.store(err);
}

void dvs_sim_fail_next_mmap(int err)
{
	dvs::sim::fail_next_mmap.store(err);
}
