/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite api: one rdma-core per process. Each case is a process of its own
 * (the real rdma-core is loaded once per process) that starts EAL the way
 * an application does, lets it load its drivers, then asks dvshare for a
 * real device and reads /proc/self/maps:
 *  - when this DPDK has mlx5 drivers (Debian's, the connectx stack), EAL
 *    loads libibverbs and libmlx5 with them, and dvshare uses those copies;
 *  - a DVSHARE_LIBIBVERBS naming another copy is refused (EEXIST) and never
 *    loaded; naming the very file loaded is fine;
 *  - an rdma-core without the v63 API is said once, by path and release.
 * argv: whether EAL's plugin directory holds the mlx5 drivers (0/1), the
 * rdma-core libdir the build found, a scratch directory.
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "dvs_config.h"
#include "dvs_cunit.h"
#include "dvshare.h"

static int expect_pmd;
static char verbs_lib[PATH_MAX]; /* rdma-core's libibverbs, symlinks resolved */
static const char *scratch;

/* In a case's process: report and remember a failed check. */
static int child_failed;
#define CHECK(cond, ...)                                                      \
	do {                                                                  \
		if (!(cond)) {                                                \
			fprintf(stderr, "  %s:%d: %s: ", __func__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                         \
			fputc('\n', stderr);                                  \
			child_failed = 1;                                     \
		}                                                             \
	} while (0)

/* The distinct files mapped in this process whose name starts with
 * @prefix ("libibverbs.so"): how many, and the last one in @path. */
static int mapped(const char *prefix, char *path, size_t len)
{
	char line[PATH_MAX + 128], seen[8][PATH_MAX];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (f == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL) {
		char *file = strchr(line, '/');
		char copy[PATH_MAX];
		int i;

		if (file == NULL)
			continue;
		file[strcspn(file, "\n")] = '\0';
		snprintf(copy, sizeof(copy), "%s", file);
		if (strncmp(basename(copy), prefix, strlen(prefix)) != 0)
			continue;
		for (i = 0; i < n && strcmp(seen[i], file) != 0; i++)
			;
		if (i == n && n < 8)
			snprintf(seen[n++], PATH_MAX, "%s", file);
	}
	fclose(f);
	if (n > 0 && path != NULL)
		snprintf(path, len, "%s", seen[n - 1]);
	return n;
}

/* The log of this process, kept in memory from EAL init on. */
static char *log_buf;
static size_t log_len;

static int start_eal(void)
{
	char fp[64];
	char *eal[] = { "test_rdma_core", "-l", "0", "--no-pci", "--no-huge", "--no-shconf",
			fp, "--log-level=lib.eal:error", NULL };
	FILE *log = open_memstream(&log_buf, &log_len);

	snprintf(fp, sizeof(fp), "--file-prefix=dvs-rc-%d", (int)getpid());

	if (log == NULL || rte_openlog_stream(log) != 0)
		return -1;
	if (rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])) - 1, eal) < 0) {
		fflush(log);
		fprintf(stderr, "  EAL init failed: %s\n%s", rte_strerror(rte_errno), log_buf);
		return -1;
	}
	return 0;
}

/* How often @what appears in the log so far. */
static int logged(const char *what)
{
	int n = 0;

	fflush(rte_log_get_stream());
	for (const char *p = log_buf; p != NULL && (p = strstr(p, what)) != NULL; p++)
		n++;
	return n;
}

/* Ask for a real device as an application would: NULL is expected here
 * (no NIC, or no mlx5_0), but the glue is loaded either way. */
static int open_real_device(void)
{
	struct dvshare_dev *dev = dvshare_dev_open("mlx5_0", NULL);

	if (dev != NULL) {
		dvshare_dev_close(dev);
		return 0;
	}
	return rte_errno;
}

/* Run @fn in a process of its own; the case passes if it exits 0. */
static void in_process(void (*fn)(void))
{
	fflush(NULL);
	pid_t pid = fork();
	int status = 0;

	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		char prefix[32];

		fn();
		rte_eal_cleanup();
		snprintf(prefix, sizeof(prefix), "dvs-rc-%d", (int)getpid());
		dvs_remove_runtime_dir("test_rdma_core", prefix);
		exit(child_failed ? 1 : 0);
	}
	CU_ASSERT_EQUAL(waitpid(pid, &status, 0), pid);
	CU_ASSERT_TRUE(WIFEXITED(status));
	CU_ASSERT_EQUAL(WEXITSTATUS(status), 0);
}

/* EAL loads rdma-core with its mlx5 drivers, or not at all. */
static void eal_loads_rdma_core(void)
{
	if (start_eal() != 0) {
		child_failed = 1;
		return;
	}
	CHECK(mapped("libibverbs", NULL, 0) == expect_pmd,
	      "%d libibverbs after EAL init, expected %d (mlx5 drivers %s)",
	      mapped("libibverbs", NULL, 0), expect_pmd, expect_pmd ? "present" : "absent");
	CHECK(mapped("libmlx5.so", NULL, 0) == expect_pmd, "%d libmlx5 after EAL init",
	      mapped("libmlx5.so", NULL, 0));
}

static void test_eal_loads_rdma_core(void)
{
	in_process(eal_loads_rdma_core);
}

/* dvshare takes the copy the process has, or loads one: one either way. */
static void one_copy(void)
{
	char before[PATH_MAX] = "", after[PATH_MAX] = "", mlx5[PATH_MAX] = "";
	const char *lacks = "lacks rdma-core 63's export/import API";

	unsetenv("DVSHARE_LIBIBVERBS");
	unsetenv("DVSHARE_LIBMLX5");
	if (start_eal() != 0) {
		child_failed = 1;
		return;
	}
	mapped("libibverbs", before, sizeof(before));
	int e1 = open_real_device();
	int e2 = open_real_device();
	CHECK(e1 != EEXIST && e1 != ENOENT, "first open: %s", strerror(e1));
	CHECK(e2 == e1, "second open: %s, first %s", strerror(e2), strerror(e1));
	CHECK(mapped("libibverbs", after, sizeof(after)) == 1, "%d libibverbs",
	      mapped("libibverbs", NULL, 0));
	CHECK(mapped("libmlx5.so", mlx5, sizeof(mlx5)) == 1, "%d libmlx5",
	      mapped("libmlx5.so", NULL, 0));
	if (expect_pmd)
		CHECK(strcmp(before, after) == 0, "dvshare mapped %s beside EAL's %s", after, before);
#ifdef DVS_HAVE_MLX5DV_EXPORT
	/* Headers of rdma-core >= 63: the library it runs with has the API. */
	CHECK(logged(lacks) == 0, "log: %s", log_buf);
#else
	/* Said once, naming the library and its release. */
	CHECK(logged(lacks) == 1, "%d lines say it lacks the API; log: %s", logged(lacks),
	      log_buf ? log_buf : "");
	CHECK(logged(mlx5) >= 1, "the log does not name %s: %s", mlx5, log_buf ? log_buf : "");
	CHECK(logged(", rdma-core ") >= 1, "the log names no release: %s", log_buf ? log_buf : "");
#endif
}

static void test_one_copy(void)
{
	in_process(one_copy);
}

/* A copy of rdma-core's libibverbs under another name, as a user's own
 * build in a prefix would be. */
static int make_copy(char *path, size_t len)
{
	char buf[65536];
	ssize_t n;
	int in = open(verbs_lib, O_RDONLY), out;

	snprintf(path, len, "%s/libibverbs-copy-%d.so.1", scratch, (int)getpid());
	out = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	if (in < 0 || out < 0)
		return -1;
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n)
			n = -1;
	close(in);
	close(out);
	return n == 0 ? 0 : -1;
}

static void second_copy(void)
{
	char copy[PATH_MAX], have[PATH_MAX] = "";

	if (make_copy(copy, sizeof(copy)) != 0) {
		CHECK(0, "cannot copy %s to %s", verbs_lib, scratch);
		return;
	}
	setenv("DVSHARE_LIBIBVERBS", copy, 1);
	if (start_eal() != 0) {
		child_failed = 1;
		unlink(copy);
		return;
	}
	int e = open_real_device();
	int n = mapped("libibverbs", have, sizeof(have));
	if (expect_pmd) {
		/* Refused, said why, and never loaded. */
		CHECK(e == EEXIST, "open: %s, expected EEXIST", strerror(e));
		CHECK(n == 1 && strcmp(have, copy) != 0, "%d libibverbs, last %s", n, have);
		CHECK(logged("DVSHARE_LIBIBVERBS=") == 1 && logged(copy) >= 1 &&
		      logged("would load a second rdma-core") == 1, "log: %s", log_buf);
	} else {
		/* Nothing loaded before: the named file is the one. */
		CHECK(e != EEXIST && e != ENOENT, "open: %s", strerror(e));
		CHECK(n == 1 && strcmp(have, copy) == 0, "%d libibverbs, last %s", n, have);
	}
	unlink(copy);
}

static void test_second_copy_refused(void)
{
	in_process(second_copy);
}

/* Naming the very file the process has is not a second copy. */
static void same_copy(void)
{
	setenv("DVSHARE_LIBIBVERBS", verbs_lib, 1);
	if (start_eal() != 0) {
		child_failed = 1;
		return;
	}
	int e = open_real_device();
	CHECK(e != EEXIST && e != ENOENT, "open: %s", strerror(e));
	CHECK(mapped("libibverbs", NULL, 0) == 1, "%d libibverbs",
	      mapped("libibverbs", NULL, 0));
}

static void test_same_copy_accepted(void)
{
	in_process(same_copy);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_eal_loads_rdma_core),
	DVS_TEST(test_one_copy),
	DVS_TEST(test_second_copy_refused),
	DVS_TEST(test_same_copy_accepted),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	char lib[PATH_MAX];

	if (argc != 4) {
		fprintf(stderr, "usage: %s MLX5_DRIVERS(0|1) RDMA_LIBDIR SCRATCH_DIR\n", argv[0]);
		return -1;
	}
	expect_pmd = atoi(argv[1]) != 0;
	snprintf(lib, sizeof(lib), "%s/libibverbs.so.1", argv[2]);
	if (realpath(lib, verbs_lib) == NULL) {
		fprintf(stderr, "test_rdma_core: %s: %s\n", lib, strerror(errno));
		return -1;
	}
	scratch = argv[3];
	return dvs_cunit_add("rdma_core", cases);
}

DVS_CUNIT_MAIN("test_rdma_core", register_tests)
