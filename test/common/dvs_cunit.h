/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Shared CUnit runner for every dvshare test program: registers the suites
 * a program declares, runs them verbosely, prints one summary line that
 * buildtools/test.sh adds up, and exits non-zero on any failure (or when
 * CUnit itself fails, so a broken registry never passes silently).
 * DVS_TEST_ONLY=TEXT in the environment registers only the tests whose
 * name contains TEXT (for a developer's rerun; none matching is an error).
 */
#ifndef DVS_CUNIT_H
#define DVS_CUNIT_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <CUnit/Basic.h>
#include <CUnit/CUnit.h>

struct dvs_test_case {
	const char *name;
	CU_TestFunc fn;
};

#define DVS_TEST(fn) { #fn, fn }
#define DVS_TEST_END { NULL, NULL }

/* Register one suite; returns 0 or -1. */
static inline int dvs_cunit_add(const char *suite, const struct dvs_test_case *cases)
{
	CU_pSuite s = CU_add_suite(suite, NULL, NULL);
	const char *only = getenv("DVS_TEST_ONLY");

	if (s == NULL)
		return -1;
	for (; cases->name != NULL; cases++) {
		if (only != NULL && strstr(cases->name, only) == NULL)
			continue;
		if (CU_add_test(s, cases->name, cases->fn) == NULL)
			return -1;
	}
	return 0;
}

/* Run everything registered; prints "dvs-cunit: <prog> tests=N failed=M". */
static inline int dvs_cunit_run(const char *prog)
{
	unsigned int run, failed, asserts_failed;

	CU_basic_set_mode(CU_BRM_VERBOSE);
	if (CU_basic_run_tests() != CUE_SUCCESS) {
		fprintf(stderr, "%s: CUnit error: %s\n", prog, CU_get_error_msg());
		CU_cleanup_registry();
		return 2;
	}
	run = CU_get_number_of_tests_run();
	failed = CU_get_number_of_tests_failed();
	asserts_failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	printf("dvs-cunit: %s tests=%u failed=%u\n", prog, run, failed);
	if (run == 0) {
		fprintf(stderr, "%s: no test ran\n", prog);
		return 2;
	}
	return failed != 0 || asserts_failed != 0 ? 1 : 0;
}

/* Remove the EAL runtime directory a test's DPDK run left for @prefix
 * (a test removes its files afterwards); says so if it cannot. */
static inline void dvs_remove_runtime_dir(const char *prog, const char *prefix)
{
	char cmd[160];

	snprintf(cmd, sizeof(cmd), "rm -rf /var/run/dpdk/%s", prefix);
	if (system(cmd) != 0)
		fprintf(stderr, "%s: cannot remove /var/run/dpdk/%s\n", prog, prefix);
}

/* main() body for a program with suites registered by @register_fn. */
#define DVS_CUNIT_MAIN(prog, register_fn)                                  \
	int main(int argc, char **argv)                                    \
	{                                                                  \
		if (CU_initialize_registry() != CUE_SUCCESS)               \
			return 2;                                          \
		if (register_fn(argc, argv) != 0) {                        \
			fprintf(stderr, "%s: cannot register tests\n", prog); \
			CU_cleanup_registry();                             \
			return 2;                                          \
		}                                                          \
		return dvs_cunit_run(prog);                                \
	}

#endif
