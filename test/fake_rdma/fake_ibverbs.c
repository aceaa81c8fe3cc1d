/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake libibverbs for the glue-loader test: the symbols the glue needs,
 * with recognisable results. Names are parenthesised where verbs.h makes
 * them function-like macros.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <infiniband/verbs.h>

static struct ibv_device fake_dev = { .name = "fake0" };

/* With FAKE_IBV_NO_KERNEL set, behave as libibverbs does on a machine
 * without the uverbs class in sysfs. */
struct ibv_device **(ibv_get_device_list)(int *num)
{
	struct ibv_device **l;

	if (getenv("FAKE_IBV_NO_KERNEL") != NULL) {
		errno = ENOSYS;
		return NULL;
	}
	l = calloc(2, sizeof(*l));

	if (l == NULL)
		return NULL;
	l[0] = &fake_dev;
	if (num != NULL)
		*num = 1;
	return l;
}

void ibv_free_device_list(struct ibv_device **list)
{
	free(list);
}

const char *ibv_get_device_name(struct ibv_device *dev)
{
	return dev->name;
}

struct ibv_context *ibv_import_device(int cmd_fd)
{
	(void)cmd_fd;
	errno = ENOSYS;
	return NULL;
}

int ibv_close_device(struct ibv_context *ctx)
{
	(void)ctx;
	return 0;
}
