/* SPDX-License-Identifier: BSD-3-Clause */
/* Suite unit: process identity (pidfd.h): does a process map a file,
 * decided by the file's device and inode, and never fooled by a path. */
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include "dvs_cunit.h"
#include "pidfd.h"

using namespace dvs;

namespace {

/* @text as a maps stream. */
int maps_text_has(const std::string &text, dev_t dev, ino_t ino)
{
	FILE *f = fmemopen(const_cast<char *>(text.data()), text.size(), "r");
	int rc = maps_have_file(f, dev, ino);

	fclose(f);
	return rc;
}

void test_maps_lines()
{
	const dev_t dev = makedev(0xfe, 0);
	const std::string cfg = "/run/dpdk/p/config";
	std::string good = "7f0000000000-7f0000001000 r--s 00000000 fe:00 4242                       " + cfg +
			   "\n";

	CU_ASSERT_EQUAL(maps_text_has(good, dev, 4242), 0);
	CU_ASSERT_EQUAL(maps_text_has(good, dev, 4243), -ENOENT);
	CU_ASSERT_EQUAL(maps_text_has(good, makedev(0xfe, 1), 4242), -ENOENT);
	/* A file of another device and inode whose long path holds, past byte
	 * 511, what a 512-byte reader took for a line of its own. */
	std::string head = "7f0000002000-7f0000003000 r--s 00000000 fe:00 99                         /tmp/";
	std::string lie = "a b c d 4242 " + cfg;
	std::string attack = head + std::string(511 - head.size(), 'p') + "/" + lie + "\n";
	CU_ASSERT_EQUAL(attack.find(lie), 512u);
	CU_ASSERT_EQUAL(maps_text_has(attack, dev, 4242), -ENOENT);
	/* Anonymous mappings (inode 0) never match, even an inode 0 asked. */
	CU_ASSERT_EQUAL(maps_text_has("7f0000004000-7f0000005000 rw-p 00000000 00:00 0\n", 0, 0),
			-ENOENT);
	CU_ASSERT_EQUAL(maps_text_has(attack + good, dev, 4242), 0);
}

/* A real process: a file it maps is found both ways, a file it only
 * holds open is not, nor is anything once it is gone. */
void test_real_process()
{
	char path[] = "/tmp/dvs-pidfd-XXXXXX";
	char other[] = "/tmp/dvs-pidfd-XXXXXX";
	int fd = mkstemp(path), ofd = mkstemp(other);
	int ready[2], done[2];

	CU_ASSERT_FATAL(fd >= 0 && ofd >= 0 && ftruncate(fd, 4096) == 0);
	CU_ASSERT_FATAL(pipe(ready) == 0 && pipe(done) == 0);
	pid_t kid = fork();
	if (kid == 0) {
		char c;
		void *m = mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0);
		if (m == MAP_FAILED || write(ready[1], "r", 1) != 1)
			_exit(1);
		(void)read(done[0], &c, 1);
		_exit(0);
	}
	char c;
	CU_ASSERT_EQUAL_FATAL(read(ready[0], &c, 1), 1);
	for (bool lines : { false, true }) {
		CU_ASSERT_EQUAL(pid_maps_file(kid, path, lines), 0);
		CU_ASSERT_EQUAL(pid_maps_file(kid, other, lines), -ENOENT);
		CU_ASSERT_EQUAL(pid_maps_file(kid, "/nonexistent/file", lines), -ENOENT);
	}
	CU_ASSERT_EQUAL(write(done[1], "d", 1), 1);
	waitpid(kid, nullptr, 0);
	CU_ASSERT_NOT_EQUAL(pid_maps_file(kid, path), 0);
	close(fd);
	close(ofd);
	unlink(path);
	unlink(other);
}

const struct dvs_test_case cases[] = {
	DVS_TEST(test_maps_lines),
	DVS_TEST(test_real_process),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("pidfd", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_pidfd", register_tests)
