/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim, across processes: a parent owns the device, a forked child
 * gets the cmd_fd and export blobs over a unix socket (SCM_RIGHTS), as a
 * DPDK secondary will, and imports everything into its own context.
 */
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>

#include "dvs_fdpass.h"
#include "sim_test_util.h"

/* In a child: fail with the line number as exit status. */
#define CHILD_CHECK(c)                       \
	do {                                 \
		if (!(c))                    \
			_exit(__LINE__ % 250 + 1); \
	} while (0)

struct blobs {
	uint8_t var[DVS_SIM_VAR_EXPORT_SIZE];
	uint8_t obj[DVS_SIM_OBJ_EXPORT_SIZE];
	uint8_t umem[DVS_SIM_UMEM_EXPORT_SIZE];
	uint32_t obj_id;
	uint32_t umem_id;
};

struct world {
	struct ibv_context *ctx;
	struct mlx5dv_var *var;
	struct mlx5dv_devx_obj *obj;
	struct mlx5dv_devx_umem *umem;
	void *mem;
	struct blobs b;
};

static void world_make(struct world *w)
{
	memset(w, 0, sizeof(*w));
	w->ctx = sim_open("sim0", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w->ctx);
	w->mem = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	w->var = G->alloc_var(w->ctx, 0);
	w->umem = G->devx_umem_reg(w->ctx, w->mem, 4096, IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w->umem);
	w->obj = sim_virtq(w->ctx, 9, w->umem->umem_id, &w->b.obj_id);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w->var);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w->obj);
	w->b.umem_id = w->umem->umem_id;
	CU_ASSERT_EQUAL(G->var_export(w->var, w->b.var), 0);
	CU_ASSERT_EQUAL(G->devx_obj_export(w->obj, w->b.obj), 0);
	CU_ASSERT_EQUAL(G->devx_umem_export(w->umem, w->b.umem), 0);
}

static void world_free(struct world *w)
{
	if (w->obj != NULL && G->devx_obj_destroy(w->obj) != 0)
		G->devx_obj_unimport(w->obj);
	if (w->umem != NULL && G->devx_umem_dereg(w->umem) != 0)
		G->devx_umem_unimport(w->umem);
	if (w->var != NULL)
		G->free_var(w->var);
	munmap(w->mem, 4096);
	if (w->ctx != NULL)
		G->close_device(w->ctx);
}

/* The child's side: receive the fd and blobs, import the device. */
static struct ibv_context *child_attach(int sock, struct blobs *b)
{
	int fd = -1, nfds = 0;
	struct ibv_context *ctx;

	CHILD_CHECK(dvs_recv_fds(sock, b, sizeof(*b), &fd, 1, &nfds) == (ssize_t)sizeof(*b));
	CHILD_CHECK(nfds == 1);
	ctx = G->import_device(fd);
	CHILD_CHECK(ctx != NULL);
	return ctx;
}

typedef void (*child_fn)(int sock);

/* Fork @fn with one end of a socketpair, send it the world. */
static pid_t spawn(child_fn fn, struct world *w, int *psock)
{
	int sv[2], fd;
	pid_t pid;

	CU_ASSERT_FATAL(socketpair(AF_UNIX, SOCK_SEQPACKET, 0, sv) == 0);
	pid = fork();
	CU_ASSERT_FATAL(pid >= 0);
	if (pid == 0) {
		close(sv[0]);
		fn(sv[1]);
		_exit(0);
	}
	close(sv[1]);
	fd = dup(w->ctx->cmd_fd);
	CU_ASSERT_EQUAL(dvs_send_fds(sv[0], &w->b, sizeof(w->b), &fd, 1), 0);
	close(fd);
	*psock = sv[0];
	return pid;
}

static int wait_exit(pid_t pid)
{
	int st = 0;

	if (waitpid(pid, &st, 0) != pid)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 1000 + WTERMSIG(st);
}

static void child_uses_everything(int sock)
{
	struct blobs b;
	struct ibv_context *ctx = child_attach(sock, &b);
	struct mlx5dv_var *v = G->var_import(ctx, b.var);
	struct mlx5dv_devx_obj *o = G->devx_obj_import(ctx, b.obj);
	struct mlx5dv_devx_umem *u = G->devx_umem_import(ctx, b.umem);
	uint8_t in[DVS_PRM_CMD_MAX], out[DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE];
	volatile uint32_t *db;

	CHILD_CHECK(v != NULL && o != NULL && u != NULL);
	CHILD_CHECK(u->umem_id == b.umem_id);
	db = sim_map_var(ctx, v);
	CHILD_CHECK(db != NULL);
	db[0] = 0xabc;
	dvs_prm_obj_cmd(in, DVS_PRM_CMD_QUERY_GENERAL_OBJECT, DVS_PRM_OBJ_VIRTQ, b.obj_id);
	CHILD_CHECK(G->devx_obj_query(o, in, DVS_PRM_HDR_SIZE, out, sizeof(out)) == 0);
	CHILD_CHECK(dvs_prm_get16(out + DVS_PRM_HDR_SIZE, DVS_PRM_VIRTQ_QUEUE_INDEX) == 9);
	dvs_prm_virtq_modify_state(in, b.obj_id, DVS_PRM_VIRTQ_RDY);
	CHILD_CHECK(G->devx_obj_modify(o, in, DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE,
				       out, DVS_PRM_HDR_SIZE) == 0);
	munmap((void *)db, v->length);
	G->var_unimport(v);
	G->devx_obj_unimport(o);
	G->devx_umem_unimport(u);
	CHILD_CHECK(G->close_device(ctx) == 0);
}

static void test_child_imports_and_uses(void)
{
	struct world w;
	struct dvs_sim_engine *e;
	uint8_t in[DVS_PRM_HDR_SIZE], out[DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE];
	uint64_t kicks = 0;
	uint32_t last = 0;
	int sock;
	pid_t pid;

	world_make(&w);
	e = dvs_sim_engine_create(w.ctx);
	pid = spawn(child_uses_everything, &w, &sock);
	CU_ASSERT_EQUAL(wait_exit(pid), 0);
	close(sock);
	/* The child's doorbell reached the device... */
	CU_ASSERT_EQUAL(dvs_sim_engine_poll(e), 1u);
	CU_ASSERT_EQUAL(dvs_sim_page_kicks(w.ctx, w.var->page_id, &kicks, &last), 0);
	CU_ASSERT_EQUAL(kicks, 1u);
	CU_ASSERT_EQUAL(last, 0xabcu);
	/* ...its modify changed the parent's object... */
	dvs_prm_obj_cmd(in, DVS_PRM_CMD_QUERY_GENERAL_OBJECT, DVS_PRM_OBJ_VIRTQ, w.b.obj_id);
	CU_ASSERT_EQUAL(G->devx_obj_query(w.obj, in, sizeof(in), out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(dvs_prm_get8(out + DVS_PRM_HDR_SIZE, DVS_PRM_VIRTQ_STATE), DVS_PRM_VIRTQ_RDY);
	/* ...and its unimports and exit left every object alive. */
	{
		struct dvs_sim_stats s = sim_stats(w.ctx);
		CU_ASSERT_EQUAL(s.vars, 1u);
		CU_ASSERT_EQUAL(s.devx_objs, 1u);
		CU_ASSERT_EQUAL(s.umems, 1u);
	}
	dvs_sim_engine_destroy(e);
	world_free(&w);
}

static void child_destroys(int sock)
{
	struct blobs b;
	struct ibv_context *ctx = child_attach(sock, &b);
	struct mlx5dv_var *v = G->var_import(ctx, b.var);
	struct mlx5dv_devx_obj *o = G->devx_obj_import(ctx, b.obj);

	CHILD_CHECK(v != NULL && o != NULL);
	CHILD_CHECK(G->devx_obj_destroy(o) == 0);
	G->free_var(v);
	G->close_device(ctx);
}

static void test_destroy_in_child_kills_for_parent(void)
{
	struct world w;
	uint8_t in[DVS_PRM_HDR_SIZE], out[DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE];
	int sock;
	pid_t pid;

	world_make(&w);
	pid = spawn(child_destroys, &w, &sock);
	CU_ASSERT_EQUAL(wait_exit(pid), 0);
	close(sock);
	dvs_prm_obj_cmd(in, DVS_PRM_CMD_QUERY_GENERAL_OBJECT, DVS_PRM_OBJ_VIRTQ, w.b.obj_id);
	CU_ASSERT_EQUAL(G->devx_obj_query(w.obj, in, sizeof(in), out, sizeof(out)), EINVAL);
	CU_ASSERT_EQUAL(G->var_export(w.var, w.b.var), EINVAL);
	CU_ASSERT_EQUAL(sim_stats(w.ctx).vars, 0u);
	CU_ASSERT_EQUAL(sim_stats(w.ctx).devx_objs, 0u);
	world_free(&w);
}

static void child_locks_and_hangs(int sock)
{
	struct blobs b;
	struct ibv_context *ctx = child_attach(sock, &b);
	char ok = 'L';

	CHILD_CHECK(dvs_sim_lock(ctx) == 0);
	CHILD_CHECK(send(sock, &ok, 1, 0) == 1);
	for (;;)
		pause();
}

/* A process killed while holding the device lock does not wedge it. */
static void test_lock_holder_killed(void)
{
	struct world w;
	struct mlx5dv_var *v;
	char c = 0;
	int sock;
	pid_t pid;

	world_make(&w);
	pid = spawn(child_locks_and_hangs, &w, &sock);
	CU_ASSERT_EQUAL(recv(sock, &c, 1, 0), 1);
	CU_ASSERT_EQUAL(c, 'L');
	kill(pid, SIGKILL);
	CU_ASSERT_EQUAL(wait_exit(pid), 1000 + SIGKILL);
	close(sock);
	v = G->alloc_var(w.ctx, 0);
	CU_ASSERT_PTR_NOT_NULL(v);
	CU_ASSERT_EQUAL(sim_stats(w.ctx).lock_recoveries, 1u);
	CU_ASSERT_EQUAL(sim_stats(w.ctx).vars, 2u);
	G->free_var(v);
	world_free(&w);
}

static void child_checks_alive(int sock)
{
	struct blobs b;
	struct ibv_context *ctx = child_attach(sock, &b);
	struct mlx5dv_var *v = G->var_import(ctx, b.var);
	struct mlx5dv_devx_obj *o = G->devx_obj_import(ctx, b.obj);
	struct dvs_sim_stats s;

	CHILD_CHECK(v != NULL && o != NULL);
	CHILD_CHECK(dvs_sim_stats(ctx, &s) == 0 && s.vars == 1 && s.devx_objs == 1);
	/* Last user: clean up as an owner would. */
	CHILD_CHECK(G->devx_obj_destroy(o) == 0);
	G->free_var(v);
	CHILD_CHECK(dvs_sim_stats(ctx, &s) == 0 && s.vars == 0 && s.devx_objs == 0);
	G->close_device(ctx);
}

/* Objects outlive the creating process's context while another holds the
 * fd, as kernel objects outlive a closed uverbs fd that was dup()ed. */
static void test_objects_outlive_creator_context(void)
{
	struct world w;
	int sock;
	pid_t pid;

	world_make(&w);
	G->var_unimport(w.var);
	w.var = NULL;
	G->devx_obj_unimport(w.obj);
	w.obj = NULL;
	pid = spawn(child_checks_alive, &w, &sock);
	G->devx_umem_unimport(w.umem);
	w.umem = NULL;
	G->close_device(w.ctx);
	w.ctx = NULL;
	CU_ASSERT_EQUAL(wait_exit(pid), 0);
	close(sock);
	world_free(&w);
}

static void child_dies_holding(int sock)
{
	struct blobs b;
	struct ibv_context *ctx = child_attach(sock, &b);
	struct mlx5dv_var *v = G->var_import(ctx, b.var);
	volatile uint32_t *db;

	CHILD_CHECK(v != NULL);
	db = sim_map_var(ctx, v);
	CHILD_CHECK(db != NULL);
	raise(SIGKILL);
}

static void test_child_killed_holding_imports(void)
{
	struct world w;
	volatile uint32_t *db;
	struct dvs_sim_engine *e;
	int sock;
	pid_t pid;

	world_make(&w);
	pid = spawn(child_dies_holding, &w, &sock);
	CU_ASSERT_EQUAL(wait_exit(pid), 1000 + SIGKILL);
	close(sock);
	CU_ASSERT_EQUAL(sim_stats(w.ctx).vars, 1u);
	db = sim_map_var(w.ctx, w.var);
	e = dvs_sim_engine_create(w.ctx);
	db[0] = 1;
	CU_ASSERT_EQUAL(dvs_sim_engine_poll(e), 1u);
	dvs_sim_engine_destroy(e);
	munmap((void *)db, 4096);
	world_free(&w);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_child_imports_and_uses),
	DVS_TEST(test_destroy_in_child_kills_for_parent),
	DVS_TEST(test_lock_holder_killed),
	DVS_TEST(test_objects_outlive_creator_context),
	DVS_TEST(test_child_killed_holding_imports),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_mp", cases);
}

DVS_CUNIT_MAIN("test_sim_mp", register_tests)
