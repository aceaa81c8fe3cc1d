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
	struct sim_q q;
	struct blobs b;
};

static void world_make(struct world *w)
{
	memset(w, 0, sizeof(*w));
	w->ctx = sim_open("sim0", 1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w->ctx);
	w->var = G->alloc_var(w->ctx, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w->var);
	CU_ASSERT_EQUAL_FATAL(sim_q_create(w->ctx, &w->q, 9, 64), 0);
	w->b.obj_id = w->q.id;
	w->b.umem_id = w->q.umem[0]->umem_id;
	CU_ASSERT_EQUAL(G->var_export(w->var, w->b.var), 0);
	CU_ASSERT_EQUAL(G->devx_obj_export(w->q.q, w->b.obj), 0);
	CU_ASSERT_EQUAL(G->devx_umem_export(w->q.umem[0], w->b.umem), 0);
}

/* What is left of the world (nothing is destroyed twice: a destroy that
 * fails means another process did it, and the local struct is unimported). */
static void world_free(struct world *w)
{
	if (w->q.q != NULL && G->devx_obj_destroy(w->q.q) != 0)
		G->devx_obj_unimport(w->q.q);
	w->q.q = NULL;
	for (int i = 2; i >= 0; i--) {
		if (w->q.umem[i] != NULL && G->devx_umem_dereg(w->q.umem[i]) != 0)
			G->devx_umem_unimport(w->q.umem[i]);
		free(w->q.mem[i]);
	}
	struct mlx5dv_devx_obj *parts[] = { w->q.counters, w->q.tis, w->q.td, w->q.pd };
	for (unsigned int i = 0; i < SIM_Q_PARTS; i++)
		if (parts[i] != NULL && G->devx_obj_destroy(parts[i]) != 0)
			G->devx_obj_unimport(parts[i]);
	if (w->var != NULL)
		G->free_var(w->var);
	if (w->ctx != NULL)
		G->close_device(w->ctx);
}

static int query_q(struct mlx5dv_devx_obj *o, uint32_t id, struct dvshare_prm_virtq *q)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_VIRTQ_SIZE];
	int rc = G->devx_obj_query(o, in, dvshare_prm_virtq_query(in, id), out, sizeof(out));

	if (rc == 0)
		dvshare_prm_virtq_parse(out, q);
	return rc;
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
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	struct dvshare_prm_virtq q;
	volatile uint32_t *page;

	CHILD_CHECK(v != NULL && o != NULL && u != NULL);
	CHILD_CHECK(u->umem_id == b.umem_id);
	page = sim_map_var(ctx, v);
	CHILD_CHECK(page != NULL);
	*sim_db(page) = 0xabc;
	CHILD_CHECK(query_q(o, b.obj_id, &q) == 0 && q.queue_index == 9);
	q.hw_available_index = 500;
	dvshare_prm_virtq_modify(in, b.obj_id, DVSHARE_PRM_VIRTQ_MODIFY_HW_AVAILABLE_INDEX, &q);
	CHILD_CHECK(G->devx_obj_modify(o, in, sizeof(in), out, sizeof(out)) == 0);
	munmap((void *)page, v->length);
	G->var_unimport(v);
	G->devx_obj_unimport(o);
	G->devx_umem_unimport(u);
	CHILD_CHECK(G->close_device(ctx) == 0);
}

static void test_child_imports_and_uses(void)
{
	struct world w;
	struct dvs_sim_engine *e;
	struct dvshare_prm_virtq q;
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
	CU_ASSERT_EQUAL(query_q(w.q.q, w.q.id, &q), 0);
	CU_ASSERT_EQUAL(q.hw_available_index, 500);
	/* ...and its unimports and exit left every object alive. */
	{
		struct dvs_sim_stats s = sim_stats(w.ctx);
		CU_ASSERT_EQUAL(s.vars, 1u);
		CU_ASSERT_EQUAL(s.devx_objs, 1 + SIM_Q_PARTS); /* queue and its parts */
		CU_ASSERT_EQUAL(s.umems, 3u);
		/* The child's import took a UAR, its close gave it back. */
		CU_ASSERT_EQUAL(s.uars, 1u);
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

/* Destroy in any process kills the object for every one: the parent's
 * handles then name nothing (ENOENT). */
static void test_destroy_in_child_kills_for_parent(void)
{
	struct world w;
	struct dvshare_prm_virtq q;
	int sock;
	pid_t pid;

	world_make(&w);
	pid = spawn(child_destroys, &w, &sock);
	CU_ASSERT_EQUAL(wait_exit(pid), 0);
	close(sock);
	CU_ASSERT_EQUAL(query_q(w.q.q, w.q.id, &q), ENOENT);
	CU_ASSERT_EQUAL(sim_stats(w.ctx).vars, 0u);
	CU_ASSERT_EQUAL(sim_stats(w.ctx).devx_objs, SIM_Q_PARTS); /* the queue's parts */
	G->var_unimport(w.var);
	w.var = NULL;
	world_free(&w);
}

static void child_maps_and_waits(int sock)
{
	struct blobs b;
	struct ibv_context *ctx = child_attach(sock, &b);
	struct mlx5dv_var *v = G->var_import(ctx, b.var);
	volatile uint32_t *page;
	char c = 'M';

	CHILD_CHECK(v != NULL);
	page = sim_map_var(ctx, v);
	CHILD_CHECK(page != NULL);
	CHILD_CHECK(send(sock, &c, 1, 0) == 1);
	CHILD_CHECK(recv(sock, &c, 1, 0) == 1);
	munmap((void *)page, v->length);
	CHILD_CHECK(send(sock, &c, 1, 0) == 1);
	CHILD_CHECK(recv(sock, &c, 1, 0) == 1);
	G->var_unimport(v);
	G->close_device(ctx);
}

/* Another process's mapping keeps a freed VAR's page out of the pool until
 * it unmaps it (mlx5_ib_mmap_free runs from the last VMA's reference). */
static void test_page_held_by_other_process(void)
{
	struct world w;
	struct mlx5dv_var *v;
	char c = 0;
	int sock;
	pid_t pid;

	world_make(&w);
	pid = spawn(child_maps_and_waits, &w, &sock);
	CU_ASSERT_EQUAL(recv(sock, &c, 1, 0), 1);
	G->free_var(w.var);
	w.var = NULL;
	CU_ASSERT_EQUAL(sim_stats(w.ctx).pages_held, 1u);
	v = G->alloc_var(w.ctx, 0);
	CU_ASSERT_EQUAL(v->page_id, 1u);
	G->free_var(v);
	CU_ASSERT_EQUAL(send(sock, "u", 1, 0), 1);
	CU_ASSERT_EQUAL(recv(sock, &c, 1, 0), 1); /* unmapped */
	CU_ASSERT_EQUAL(sim_stats(w.ctx).pages_held, 0u);
	v = G->alloc_var(w.ctx, 0);
	CU_ASSERT_EQUAL(v->page_id, 0u);
	G->free_var(v);
	CU_ASSERT_EQUAL(send(sock, "q", 1, 0), 1);
	CU_ASSERT_EQUAL(wait_exit(pid), 0);
	close(sock);
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
	CHILD_CHECK(dvs_sim_stats(ctx, &s) == 0 && s.vars == 1 &&
		    s.devx_objs == 1 + SIM_Q_PARTS);
	/* Last user: clean up as an owner would. */
	CHILD_CHECK(G->devx_obj_destroy(o) == 0);
	G->free_var(v);
	CHILD_CHECK(dvs_sim_stats(ctx, &s) == 0 && s.vars == 0 &&
		    s.devx_objs == SIM_Q_PARTS);
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
	G->devx_obj_unimport(w.q.q);
	w.q.q = NULL;
	pid = spawn(child_checks_alive, &w, &sock);
	for (int i = 0; i < 3; i++) {
		G->devx_umem_unimport(w.q.umem[i]);
		w.q.umem[i] = NULL;
	}
	struct mlx5dv_devx_obj **parts[] = { &w.q.pd, &w.q.td, &w.q.tis, &w.q.counters };
	for (unsigned int i = 0; i < SIM_Q_PARTS; i++) {
		G->devx_obj_unimport(*parts[i]);
		*parts[i] = NULL;
	}
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
	volatile uint32_t *page;

	CHILD_CHECK(v != NULL);
	page = sim_map_var(ctx, v);
	CHILD_CHECK(page != NULL);
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
	/* Its imported context's UAR outlives it: only the ufile's end (the
	 * last fd closed) frees a dead process's objects, as in the kernel. */
	CU_ASSERT_EQUAL(sim_stats(w.ctx).uars, 2u);
	db = sim_map_var(w.ctx, w.var);
	e = dvs_sim_engine_create(w.ctx);
	*sim_db(db) = 1;
	CU_ASSERT_EQUAL(dvs_sim_engine_poll(e), 1u);
	dvs_sim_engine_destroy(e);
	munmap((void *)db, 4096);
	/* The dead child's mapping went with it: the page comes back. */
	G->free_var(w.var);
	w.var = NULL;
	CU_ASSERT_EQUAL(sim_stats(w.ctx).pages_held, 0u);
	world_free(&w);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_child_imports_and_uses),
	DVS_TEST(test_destroy_in_child_kills_for_parent),
	DVS_TEST(test_page_held_by_other_process),
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
