/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite unit: dvs::import_context, the library's side of
 * ibv_import_device's fd ownership. libibverbs leaves the fd to the caller
 * when it fails before matching the device, and owns (closes) it when it
 * fails after: the library must close it in the first case and never in
 * the second, where the number may already belong to someone else.
 */
#include <cerrno>
#include <cstring>
#include <string>

#include <fcntl.h>
#include <unistd.h>

#include "device.h"
#include "dvs_cunit.h"
#include "dvs_sim.h"

namespace {

int occupier = -1; /* what took the closed fd's number */

/* Fails after "matching": closes the fd, and the number is taken by
 * another open at once, as another thread could do. */
struct ibv_context *import_closes(int fd)
{
	close(fd);
	occupier = open("/dev/null", O_RDONLY | O_CLOEXEC);
	errno = ENOMEM;
	return nullptr;
}

/* Fails before matching: the fd stays the caller's. */
struct ibv_context *import_refuses(int)
{
	errno = EINVAL;
	return nullptr;
}

struct dvs_glue glue_with(struct ibv_context *(*imp)(int))
{
	struct dvs_glue g = *dvs_sim_glue();

	g.import_device = imp;
	return g;
}

void test_failure_after_match_is_not_closed_twice()
{
	struct dvs_glue g = glue_with(import_closes);
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	dvs::Fd cmd(fd);
	std::string why;

	errno = 0;
	CU_ASSERT_PTR_NULL(dvs::import_context(&g, &cmd, &why));
	CU_ASSERT_EQUAL(errno, ENOMEM);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.c_str(), "import_device failed"));
	CU_ASSERT_EQUAL(occupier, fd); /* the number was reused */
	CU_ASSERT_FALSE(cmd.valid());  /* and is not ours to close */
	cmd.reset();
	CU_ASSERT_NOT_EQUAL(fcntl(occupier, F_GETFD), -1); /* still open */
	close(occupier);
}

void test_failure_before_match_is_closed_once()
{
	struct dvs_glue g = glue_with(import_refuses);
	int fd = open("/dev/zero", O_RDONLY | O_CLOEXEC);
	dvs::Fd cmd(fd);
	std::string why;

	CU_ASSERT_PTR_NULL(dvs::import_context(&g, &cmd, &why));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_TRUE(cmd.valid()); /* still ours: closed by the caller's Fd */
	cmd.reset();
	CU_ASSERT_EQUAL(fcntl(fd, F_GETFD), -1);
}

void test_success_hands_the_fd_over()
{
	const struct dvs_glue *g = dvs_sim_glue();
	struct ibv_device **list = g->get_device_list(nullptr);
	struct mlx5dv_context_attr attr = {};
	attr.flags = MLX5DV_CONTEXT_FLAGS_DEVX;
	struct ibv_context *ctx = g->dv_open_device(list[0], &attr);
	g->free_device_list(list);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	dvs::Fd cmd(dup(ctx->cmd_fd));
	int fd = cmd.get();
	std::string why;
	struct ibv_context *imp = dvs::import_context(g, &cmd, &why);

	CU_ASSERT_PTR_NOT_NULL_FATAL(imp);
	CU_ASSERT_FALSE(cmd.valid());
	CU_ASSERT_EQUAL(imp->cmd_fd, fd);
	/* The sim's own post-match failure: the fd is closed by the import. */
	dvs::Fd again(dup(ctx->cmd_fd));
	dvs_sim_fail_next_import(ENOMEM);
	CU_ASSERT_PTR_NULL(dvs::import_context(g, &again, &why));
	CU_ASSERT_FALSE(again.valid());
	g->close_device(imp);
	g->close_device(ctx);
}

const dvs_test_case cases[] = {
	DVS_TEST(test_failure_after_match_is_not_closed_twice),
	DVS_TEST(test_failure_before_match_is_closed_once),
	DVS_TEST(test_success_hands_the_fd_over),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("import_context", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_import_context", register_tests)
