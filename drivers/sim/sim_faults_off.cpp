/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * No fault injection: what the installed library links. Weak, so that the
 * test-only build's sim_faults.cpp replaces them.
 */
#include "sim_context.h"

namespace dvs::sim {

__attribute__((weak)) int take_destroy_failure()
{
	return 0;
}

__attribute__((weak)) int take_import_failure()
{
	return 0;
}

__attribute__((weak)) int take_mmap_failure()
{
	return 0;
}

} // namespace dvs::sim
