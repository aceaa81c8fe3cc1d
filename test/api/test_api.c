/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite api: the C API misused the ways an application can misuse it, in
 * one primary process on the software device: NULL arguments, bad names,
 * duplicates (also of the same rdma-core object), sizes out of range,
 * objects of the wrong kind, double releases, calls after close. Each call
 * returns its documented errno, and nothing crashes or leaks (the suite
 * also runs under ASan/UBSan with leak detection).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include <infiniband/verbs.h>

#include "dvs_cunit.h"
#include "dvs_sim.h"
#include "dvshare.h"
#include "dvshare_prm.h"

#define G (dvs_sim_glue())

/* A pointer call failed with @err (rte_errno). */
#define FAILS_WITH(call, err)                          \
	do {                                           \
		rte_errno = 0;                         \
		CU_ASSERT_PTR_NULL(call);              \
		CU_ASSERT_EQUAL(rte_errno, (err));     \
	} while (0)

static struct dvshare_dev *dev; /* sim0, open for the whole suite */
static uint8_t mem[4096] __attribute__((aligned(4096)));

static void test_null_arguments(void)
{
	uint8_t in[16], out[16];

	FAILS_WITH(dvshare_dev_open(NULL, NULL), EINVAL);
	FAILS_WITH(dvshare_dev_adopt(NULL, NULL), EINVAL);
	FAILS_WITH(dvshare_dev_lookup(NULL), EINVAL);
	FAILS_WITH(dvshare_var_alloc(NULL, "x", 0), EINVAL);
	FAILS_WITH(dvshare_var_publish(NULL, "x", NULL), EINVAL);
	FAILS_WITH(dvshare_var_publish(dev, "x", NULL), EINVAL);
	FAILS_WITH(dvshare_obj_create(NULL, "x", in, 16, out, 16), EINVAL);
	FAILS_WITH(dvshare_obj_create(dev, "x", NULL, 16, out, 16), EINVAL);
	FAILS_WITH(dvshare_obj_create(dev, "x", in, 16, NULL, 16), EINVAL);
	FAILS_WITH(dvshare_obj_publish(dev, "x", NULL, 1), EINVAL);
	FAILS_WITH(dvshare_umem_reg(NULL, "x", mem, 4096, 0), EINVAL);
	FAILS_WITH(dvshare_var_lookup(NULL, "x"), EINVAL);
	FAILS_WITH(dvshare_obj_lookup(NULL, "x"), EINVAL);
	FAILS_WITH(dvshare_umem_lookup(NULL, "x"), EINVAL);
	FAILS_WITH(dvshare_dev_ctx(NULL), EINVAL);
	CU_ASSERT_EQUAL(dvshare_set_meta(NULL, "x", "m", 1), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_destroy(NULL, "x", 10), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_dev_close(NULL), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_get_meta(NULL, "x", NULL, 0), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_foreach(NULL, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_foreach(dev, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_dev_general_cmd(NULL, in, 16, out, 16), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_dev_general_cmd(dev, NULL, 16, out, 16), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_obj_query(NULL, in, 16, out, 16), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_obj_modify(NULL, in, 16, out, 16), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_engine_start(NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_var_kicks(NULL, "x", NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_stats_get(NULL), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_dev_list(NULL, 1), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_peers(NULL, 1), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_event_register(NULL, NULL, NULL), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_event_unregister(NULL, NULL, NULL), -EINVAL);
	CU_ASSERT_PTR_NULL(dvshare_var_addr(NULL));
	CU_ASSERT_PTR_NULL(dvshare_var_doorbell(NULL));
	CU_ASSERT_PTR_NULL(dvshare_var_dv(NULL));
	CU_ASSERT_PTR_NULL(dvshare_obj_dv(NULL));
	CU_ASSERT_PTR_NULL(dvshare_dev_name(NULL));
	CU_ASSERT_EQUAL(dvshare_var_length(NULL), 0u);
	CU_ASSERT_EQUAL(dvshare_obj_id(NULL), 0u);
	CU_ASSERT_EQUAL(dvshare_umem_id(NULL), 0u);
	dvshare_var_release(NULL);
	dvshare_obj_release(NULL);
	dvshare_umem_release(NULL);
}

static void test_names(void)
{
	char long_name[DVSHARE_NAME_MAX + 1];

	memset(long_name, 'n', DVSHARE_NAME_MAX);
	long_name[DVSHARE_NAME_MAX] = '\0';
	FAILS_WITH(dvshare_var_alloc(dev, NULL, 0), EINVAL);
	FAILS_WITH(dvshare_var_alloc(dev, "", 0), EINVAL);
	FAILS_WITH(dvshare_var_alloc(dev, "two words", 0), EINVAL);
	FAILS_WITH(dvshare_var_alloc(dev, "bell\a", 0), EINVAL);
	FAILS_WITH(dvshare_var_alloc(dev, long_name, 0), ENAMETOOLONG);
	FAILS_WITH(dvshare_umem_reg(dev, long_name, mem, 4096, 0), ENAMETOOLONG);
	FAILS_WITH(dvshare_var_lookup(dev, long_name), ENAMETOOLONG);
	FAILS_WITH(dvshare_obj_lookup(dev, ""), EINVAL);
	CU_ASSERT_EQUAL(dvshare_set_meta(dev, "", "m", 1), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, long_name, 10), -ENAMETOOLONG);
	CU_ASSERT_EQUAL(dvshare_get_meta(dev, NULL, NULL, 0), -EINVAL);
	/* None of that left anything behind. */
	CU_ASSERT_EQUAL(dvshare_foreach(dev, NULL, NULL), -EINVAL);
}

/* A refused name's reason is logged, as dvshare.h promises for every
 * failure: each call names itself and what is wrong with the name. */
static void test_names_logged(void)
{
	char long_name[DVSHARE_NAME_MAX + 1], *log = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&log, &len);
	int level = rte_log_get_level(rte_log_register("lib.dvshare"));

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	memset(long_name, 'n', DVSHARE_NAME_MAX);
	long_name[DVSHARE_NAME_MAX] = '\0';
	rte_openlog_stream(f);
	rte_log_set_level_pattern("lib.dvshare", RTE_LOG_ERR);
	FAILS_WITH(dvshare_var_alloc(dev, "bad name", 0), EINVAL);
	FAILS_WITH(dvshare_obj_lookup(dev, "tab\there"), EINVAL);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, long_name, 10), -ENAMETOOLONG);
	FAILS_WITH(dvshare_umem_reg(dev, NULL, mem, 4096, 0), EINVAL);
	/* A name that is fine but not there: ENOENT, nothing to say. */
	FAILS_WITH(dvshare_var_lookup(dev, "nosuch"), ENOENT);
	rte_log_set_level_pattern("lib.dvshare", (uint32_t)level);
	rte_openlog_stream(NULL);
	fclose(f);
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "dvshare_var_alloc: byte 3 of \"bad...\" is a space"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "dvshare_obj_lookup: byte 3 of \"tab...\" is not "
				       "printable ASCII (0x09)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "dvshare_destroy: \"nnnn"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "is longer than 63 bytes"));
	CU_ASSERT_PTR_NOT_NULL(strstr(log, "dvshare_umem_reg: no name (NULL)"));
	CU_ASSERT_PTR_NULL(strstr(log, "nosuch"));
	free(log);
}

/* dvshare_eal_init_explain() on argument lists EAL would refuse: a
 * secondary with no primary, a --huge-dir that is no hugetlbfs mount,
 * and its own bad arguments. (Whole processes: the pmd suite.) */
static void test_eal_explain(void)
{
	char buf[256], fp[96];
	char *sec[] = { "app", "-l", "0", fp, "--proc-type", "secondary", "--", "--x", NULL };
	char *dir[] = { "app", "--huge-dir=/nonexistent/dvs", fp, NULL };
	char *none[] = { "app", "--no-huge", fp, NULL };
	int n;

	snprintf(fp, sizeof(fp), "--file-prefix=dvs-api-nobody-%d", (int)getpid());
	n = dvshare_eal_init_explain(8, sec, 0, buf, sizeof(buf));
	CU_ASSERT_EQUAL(n, (int)strlen(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "no primary running with file prefix dvs-api-nobody-"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "(start the primary first)"));
	dvshare_eal_init_explain(3, dir, 0, buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "--huge-dir /nonexistent/dvs is not a hugetlbfs mount"));
	/* Nothing it can tell: EAL's errno, and where to look. */
	dvshare_eal_init_explain(3, none, ENOMEM, buf, sizeof(buf));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, "EAL's log above"));
	CU_ASSERT_PTR_NOT_NULL(strstr(buf, strerror(ENOMEM)));
	/* Truncated, still NUL-terminated; the whole length returned. */
	CU_ASSERT_EQUAL(dvshare_eal_init_explain(8, sec, 0, buf, 8), n);
	CU_ASSERT_EQUAL(strlen(buf), 7);
	CU_ASSERT_EQUAL(dvshare_eal_init_explain(8, NULL, 0, buf, 8), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_eal_init_explain(-1, sec, 0, buf, 8), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_eal_init_explain(8, sec, 0, NULL, 8), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_eal_init_explain(8, sec, 0, NULL, 0), n);
}

static int count_cb(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	(void)d;
	(void)info;
	(*(int *)arg)++;
	return 0;
}

static int objects(struct dvshare_dev *d)
{
	int n = 0;

	CU_ASSERT_EQUAL(dvshare_foreach(d, count_cb, &n), 0);
	return n;
}

/* The same name twice, and the same rdma-core object under two names:
 * EEXIST, and the object is freed once (ASan would see a double free). */
static void test_duplicates(void)
{
	struct ibv_context *ctx = dvshare_dev_ctx(dev);
	uint8_t in[DVSHARE_PRM_FLOW_COUNTER_ALLOC_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	struct mlx5dv_var *v = G->alloc_var(ctx, 0);
	struct mlx5dv_devx_obj *o = G->devx_obj_create(ctx, in, dvshare_prm_alloc_flow_counter(in, 0),
						       out, sizeof(out));
	struct dvshare_var *hv;
	struct dvshare_obj *ho;
	int before = objects(dev);

	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	hv = dvshare_var_publish(dev, "dup-var", v);
	CU_ASSERT_PTR_NOT_NULL_FATAL(hv);
	FAILS_WITH(dvshare_var_publish(dev, "dup-var-2", v), EEXIST);
	FAILS_WITH(dvshare_var_alloc(dev, "dup-var", 0), EEXIST);
	ho = dvshare_obj_publish(dev, "dup-obj", o, dvshare_prm_out_obj_id(out));
	CU_ASSERT_PTR_NOT_NULL_FATAL(ho);
	FAILS_WITH(dvshare_obj_publish(dev, "dup-obj-2", o, 1), EEXIST);
	FAILS_WITH(dvshare_umem_reg(dev, "dup-obj", mem, 4096, 0), EEXIST);
	CU_ASSERT_EQUAL(objects(dev), before + 2);
	dvshare_var_release(hv);
	dvshare_obj_release(ho);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "dup-var", 1000), 0);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "dup-obj", 1000), 0);
	CU_ASSERT_EQUAL(objects(dev), before);
	/* On failure the object is the caller's: this one was never taken. */
	struct mlx5dv_var *v2 = G->alloc_var(ctx, 0);
	FAILS_WITH(dvshare_var_publish(dev, "bad name", v2), EINVAL);
	G->free_var(v2);
}

static void test_sizes(void)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	static uint8_t big[70000];
	struct dvshare_dev_conf conf;
	char meta[DVSHARE_META_MAX + 1];
	struct dvshare_umem *u;

	memset(meta, 'm', sizeof(meta));
	memset(&conf, 0, sizeof(conf));
	u = dvshare_umem_reg(dev, "sized", mem, sizeof(mem), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	CU_ASSERT_EQUAL(dvshare_set_meta(dev, "sized", meta, sizeof(meta)), -EMSGSIZE);
	CU_ASSERT_EQUAL(dvshare_set_meta(dev, "sized", NULL, 4), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_set_meta(dev, "sized", meta, DVSHARE_META_MAX), 0);
	CU_ASSERT_EQUAL(dvshare_get_meta(dev, "sized", NULL, 4), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_get_meta(dev, "sized", NULL, 0), DVSHARE_META_MAX);
	FAILS_WITH(dvshare_umem_reg(dev, "u0", mem, 0, 0), EINVAL);
	FAILS_WITH(dvshare_umem_reg(dev, "u0", mem + 1, 0, 0), EINVAL); /* not even a byte */
	FAILS_WITH(dvshare_umem_reg(dev, "u0", NULL, 4096, 0), EINVAL);
	/* An attach mode no release knows: refused, whatever int it is. */
	CU_ASSERT_EQUAL(dvshare_attach_mode_set((enum dvshare_attach_mode)99, NULL), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_attach_mode_set((enum dvshare_attach_mode)-1, NULL), -EINVAL);
	FAILS_WITH(dvshare_umem_reg(dev, "u1", mem, SIZE_MAX, 0), EINVAL);
	FAILS_WITH(dvshare_umem_reg(dev, "u2", mem, sizeof(mem), 1u << 30), EINVAL);
	dvshare_prm_alloc_pd(in);
	FAILS_WITH(dvshare_obj_create(dev, "o0", in, 8, out, sizeof(out)), EINVAL);
	FAILS_WITH(dvshare_obj_create(dev, "o1", in, 16, out, 4), EINVAL);
	memcpy(big, in, 16);
	FAILS_WITH(dvshare_obj_create(dev, "o2", big, sizeof(big), out, sizeof(out)), EINVAL);
	/* A create dvshare_obj_create() does not take, refused before it
	 * reaches the device. */
	dvshare_prm_obj_cmd(in, 0x0400 /* CREATE_CQ */, 0, 0);
	FAILS_WITH(dvshare_obj_create(dev, "cq", in, 16, out, sizeof(out)), EOPNOTSUPP);
	/* Create flags: DVSHARE_CREATE_PERSIST or nothing; in the primary,
	 * which owns what it makes, the flag changes nothing and never
	 * reaches rdma-core. */
	dvshare_prm_alloc_pd(in);
	FAILS_WITH(dvshare_obj_create_flags(dev, "f0", in, 16, out, sizeof(out), 2), EINVAL);
	struct dvshare_obj *o = dvshare_obj_create_flags(dev, "f1", in, 16, out, sizeof(out),
							 DVSHARE_CREATE_PERSIST);
	CU_ASSERT_PTR_NOT_NULL(o);
	dvshare_obj_release(o);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "f1", 1000), 0);
	struct dvshare_umem *f2 = dvshare_umem_reg(dev, "f2", mem, sizeof(mem),
						   DVSHARE_CREATE_PERSIST);
	CU_ASSERT_PTR_NOT_NULL(f2);
	dvshare_umem_release(f2);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "f2", 1000), 0);
	CU_ASSERT_EQUAL(dvshare_dev_general_cmd(dev, in, 4, out, sizeof(out)), -EINVAL);
	conf.max_objects = 1u << 30;
	FAILS_WITH(dvshare_dev_open("sim5", &conf), EINVAL);
	conf.max_objects = 0;
	conf.n_allowed_uids = 2;
	FAILS_WITH(dvshare_dev_open("sim5", &conf), EINVAL);
	FAILS_WITH(dvshare_dev_open("sim0", NULL), EEXIST);
	dvshare_umem_release(u);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "sized", 1000), 0);
}

/* Names of the wrong kind, objects that are gone, commands naming another
 * object, double releases. */
/* A UMEM and its memory in one call: zeroed DPDK memory at the address
 * asked for alignment, freed with the UMEM (DPDK's heap where it was). */
static void test_umem_alloc(void)
{
	struct rte_malloc_socket_stats st;
	uint64_t used0 = 0, used1 = 0, used2 = 0;

	for (int sk = 0; sk < RTE_MAX_NUMA_NODES; sk++)
		if (rte_malloc_get_socket_stats(sk, &st) == 0)
			used0 += st.heap_allocsz_bytes;
	FAILS_WITH(dvshare_umem_alloc(NULL, "a0", 4096, 0, 0), EINVAL);
	FAILS_WITH(dvshare_umem_alloc(dev, "a0", 0, 0, 0), EINVAL);
	FAILS_WITH(dvshare_umem_alloc(dev, "a0", 4096, 3, 0), EINVAL);
	FAILS_WITH(dvshare_umem_alloc(dev, "a0", 4096, (size_t)1 << 31, 0), EINVAL);
	FAILS_WITH(dvshare_umem_alloc(dev, "a0", SIZE_MAX, 0, 0), EINVAL);
	FAILS_WITH(dvshare_umem_alloc(dev, "a b", 4096, 0, 0), EINVAL);
	FAILS_WITH(dvshare_umem_alloc(dev, "a0", 4096, 0, 1u << 30), EINVAL); /* access */
	FAILS_WITH(dvshare_umem_alloc(dev, "a0", (size_t)1 << 40, 0, 0), ENOMEM);
	struct dvshare_umem *u = dvshare_umem_alloc(dev, "a0", 100000, 1 << 16,
						   IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(u);
	uint8_t *m = dvshare_umem_addr(u);
	CU_ASSERT_PTR_NOT_NULL_FATAL(m);
	CU_ASSERT_EQUAL((uintptr_t)m % (1 << 16), 0);
	CU_ASSERT(m[0] == 0 && m[99999] == 0);
	CU_ASSERT_NOT_EQUAL(dvshare_umem_id(u), 0);
	FAILS_WITH(dvshare_umem_alloc(dev, "a0", 4096, 0, 0), EEXIST);
	/* A UMEM over memory its caller gave has no address of dvshare's. */
	struct dvshare_umem *r = dvshare_umem_reg(dev, "a1", mem, sizeof(mem), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(r);
	CU_ASSERT_PTR_NULL(dvshare_umem_addr(r));
	CU_ASSERT_PTR_NULL(dvshare_umem_addr(NULL));
	dvshare_umem_release(r);
	for (int sk = 0; sk < RTE_MAX_NUMA_NODES; sk++)
		if (rte_malloc_get_socket_stats(sk, &st) == 0)
			used1 += st.heap_allocsz_bytes;
	CU_ASSERT(used1 >= used0 + 100000);
	dvshare_umem_release(u);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "a0", 1000), 0);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "a1", 1000), 0);
	for (int sk = 0; sk < RTE_MAX_NUMA_NODES; sk++)
		if (rte_malloc_get_socket_stats(sk, &st) == 0)
			used2 += st.heap_allocsz_bytes;
	CU_ASSERT_EQUAL(used2, used0);
}

static void test_wrong_kind(void)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE], out[DVSHARE_PRM_VIRTQ_SIZE];
	struct dvshare_obj *pd = dvshare_obj_create(dev, "wk-pd", in, dvshare_prm_alloc_pd(in), out,
						    sizeof(out));
	struct dvshare_obj *again;

	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	FAILS_WITH(dvshare_var_lookup(dev, "wk-pd"), ENOENT);
	FAILS_WITH(dvshare_umem_lookup(dev, "wk-pd"), ENOENT);
	FAILS_WITH(dvshare_obj_lookup(dev, "nothing-here"), ENOENT);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "nothing-here", 10), -ENOENT);
	CU_ASSERT_EQUAL(dvshare_set_meta(dev, "nothing-here", "m", 1), -ENOENT);
	CU_ASSERT_EQUAL(dvshare_var_kicks(dev, "wk-pd", NULL, NULL), -ENOENT);
	/* A PD has no query command: the kernel refuses it. */
	CU_ASSERT_EQUAL(dvshare_obj_query(pd, in, dvshare_prm_virtq_query(in, dvshare_obj_id(pd)),
					  out, sizeof(out)), -EINVAL);
	/* Released twice: the second release is ignored, the count stays sane. */
	dvshare_obj_release(pd);
	dvshare_obj_release(pd);
	again = dvshare_obj_lookup(dev, "wk-pd");
	CU_ASSERT_PTR_EQUAL(again, pd);
	dvshare_obj_release(again);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "wk-pd", 1000), 0);
	FAILS_WITH(dvshare_obj_lookup(dev, "wk-pd"), ENOENT);
}

static void on_event(struct dvshare_dev *d, enum dvshare_event ev, const char *name, pid_t pid,
		     void *arg)
{
	(void)d;
	(void)ev;
	(void)name;
	(void)pid;
	(*(int *)arg)++;
}

/* A device closed with a handle still held: every call on it refuses with
 * ENODEV, the handle stays safe to use and release. */
static void test_after_close(void)
{
	struct dvshare_dev *d = dvshare_dev_open("sim6", NULL);
	struct dvshare_var *v;
	struct dvshare_obj *o;
	uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	int events = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(d);
	CU_ASSERT_EQUAL(dvshare_event_register(d, on_event, &events), 0);
	v = dvshare_var_alloc(d, "v", 0);
	o = dvshare_obj_create(d, "pd", in, dvshare_prm_alloc_pd(in), out, sizeof(out));
	CU_ASSERT_PTR_NOT_NULL_FATAL(v);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_EQUAL(dvshare_dev_close(d), 0);
	CU_ASSERT(events >= 2); /* REVOKING and REVOKED of each */
	FAILS_WITH(dvshare_var_alloc(d, "w", 0), ENODEV);
	FAILS_WITH(dvshare_var_lookup(d, "v"), ENODEV);
	FAILS_WITH(dvshare_obj_lookup(d, "pd"), ENODEV);
	FAILS_WITH(dvshare_dev_ctx(d), ENODEV);
	FAILS_WITH(dvshare_umem_reg(d, "u", mem, 4096, 0), ENODEV);
	CU_ASSERT_EQUAL(dvshare_destroy(d, "v", 10), -ENODEV);
	CU_ASSERT_EQUAL(dvshare_set_meta(d, "v", "m", 1), -ENODEV);
	CU_ASSERT_EQUAL(dvshare_foreach(d, count_cb, &events), -ENODEV);
	CU_ASSERT_EQUAL(dvshare_dev_general_cmd(d, in, 16, out, 16), -ENODEV);
	CU_ASSERT_EQUAL(dvshare_event_register(d, on_event, &events), -ENODEV);
	CU_ASSERT_EQUAL(dvshare_dev_close(d), -ENODEV);
	CU_ASSERT_STRING_EQUAL(dvshare_dev_name(d), "sim6");
	FAILS_WITH(dvshare_dev_lookup("sim6"), ENOENT);
	/* The handles: revoked, still valid memory. */
	CU_ASSERT_PTR_NOT_NULL(dvshare_var_doorbell(v));
	dvshare_doorbell32(dvshare_var_doorbell(v), 0, 1); /* lands in the fence */
	CU_ASSERT_EQUAL(dvshare_obj_query(o, in, 16, out, 16), -ENODEV);
	dvshare_var_release(v);
	dvshare_obj_release(o);
	/* The name can be shared again. */
	d = dvshare_dev_open("sim6", NULL);
	CU_ASSERT_PTR_NOT_NULL(d);
	CU_ASSERT_EQUAL(dvshare_dev_close(d), 0);
}

static void test_events(void)
{
	int n = 0;

	CU_ASSERT_EQUAL(dvshare_event_unregister(dev, on_event, &n), -ENOENT);
	CU_ASSERT_EQUAL(dvshare_event_register(dev, on_event, &n), 0);
	CU_ASSERT_PTR_NOT_NULL(dvshare_var_alloc(dev, "ev", 0) != NULL ? dvshare_var_lookup(dev, "ev")
								      : NULL);
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "ev", 1000), 0);
	CU_ASSERT_EQUAL(n, 2); /* REVOKING, REVOKED */
	CU_ASSERT_EQUAL(dvshare_event_unregister(dev, on_event, &n), 0);
	CU_ASSERT_EQUAL(dvshare_event_unregister(dev, on_event, &n), -ENOENT);
	CU_ASSERT_PTR_NOT_NULL(dvshare_var_alloc(dev, "ev2", 0));
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "ev2", 1000), 0);
	CU_ASSERT_EQUAL(n, 2); /* no longer called */
	/* A mask: REVOKED only, here and in a batch; nothing for a mask of
	 * no known event. */
	CU_ASSERT_EQUAL(dvshare_event_register_mask(dev, 0, on_event, &n), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_event_register_mask(dev, DVSHARE_EVENT_BIT(20), on_event, &n), -EINVAL);
	CU_ASSERT_EQUAL(dvshare_event_register_mask(dev, DVSHARE_EVENT_BIT(DVSHARE_EVENT_REVOKED),
						    on_event, &n), 0);
	CU_ASSERT_PTR_NOT_NULL(dvshare_var_alloc(dev, "ev3", 0));
	CU_ASSERT_PTR_NOT_NULL(dvshare_var_alloc(dev, "ev4", 0));
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "ev3", 1000), 0);
	CU_ASSERT_EQUAL(n, 3); /* REVOKED, not REVOKING */
	const char *both[] = { "ev4", "ev2x" };
	CU_ASSERT_PTR_NOT_NULL(dvshare_var_alloc(dev, "ev2x", 0));
	CU_ASSERT_EQUAL(dvshare_destroy_many(dev, both, 2, 1000), 2);
	CU_ASSERT_EQUAL(n, 5); /* one REVOKED each */
	CU_ASSERT_EQUAL(dvshare_event_unregister(dev, on_event, &n), 0);
	/* One BATCH_REVOKED per batch, none for a single destroy or a batch
	 * that destroyed nothing. */
	int b = 0;
	const char *three[] = { "eb0", "eb1", "eb2" }, *none[] = { "eb9" };
	CU_ASSERT_EQUAL(dvshare_event_register_mask(dev, DVSHARE_EVENT_BIT(DVSHARE_EVENT_BATCH_REVOKED),
						    on_event, &b), 0);
	for (int i = 0; i < 3; i++)
		CU_ASSERT_PTR_NOT_NULL(dvshare_var_alloc(dev, three[i], 0));
	CU_ASSERT_EQUAL(dvshare_destroy(dev, "eb0", 1000), 0);
	CU_ASSERT_EQUAL(b, 0);
	CU_ASSERT_EQUAL(dvshare_destroy_many(dev, three + 1, 2, 1000), 2);
	CU_ASSERT_EQUAL(b, 1);
	CU_ASSERT_EQUAL(dvshare_destroy_many(dev, none, 1, 1000), -ENOENT);
	CU_ASSERT_EQUAL(b, 1);
	CU_ASSERT_EQUAL(dvshare_event_unregister(dev, on_event, &b), 0);
	CU_ASSERT_STRING_EQUAL(dvshare_event_name(DVSHARE_EVENT_BATCH_REVOKED), "batch-revoked");
	CU_ASSERT_STRING_EQUAL(dvshare_event_name(DVSHARE_EVENT_PRIMARY_DIED), "primary-died");
	CU_ASSERT_STRING_EQUAL(dvshare_event_name(DVSHARE_EVENT_PUBLISHED), "published");
	CU_ASSERT_STRING_EQUAL(dvshare_event_name((enum dvshare_event)99), "unknown");
	CU_ASSERT_EQUAL(dvshare_attach_status(), 0); /* a primary */
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_null_arguments),
	DVS_TEST(test_names),
	DVS_TEST(test_names_logged),
	DVS_TEST(test_eal_explain),
	DVS_TEST(test_duplicates),
	DVS_TEST(test_sizes),
	DVS_TEST(test_umem_alloc),
	DVS_TEST(test_wrong_kind),
	DVS_TEST(test_after_close),
	DVS_TEST(test_events),
	DVS_TEST_END,
};

static char prefix[64];

/* EAL without hugepages (a lone primary needs none), at a base address
 * clear of ASan's shadow. */
static int register_tests(int argc, char **argv)
{
	char fp[96];
	char *eal[] = { argv[0], "-l", "0", "--no-huge", "-m", "64", "--no-pci", "--no-telemetry",
			fp, "--base-virtaddr=0x200000000000", "--log-level=lib.eal:error",
			"--log-level=lib.dvshare:critical", NULL };

	(void)argc;
	snprintf(prefix, sizeof(prefix), "dvs-api-%d", (int)getpid());
	snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
	if (rte_eal_init((int)(sizeof(eal) / sizeof(eal[0])) - 1, eal) < 0) {
		fprintf(stderr, "test_api: EAL init failed: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	dev = dvshare_dev_open("sim0", NULL);
	if (dev == NULL) {
		fprintf(stderr, "test_api: cannot open sim0: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	return dvs_cunit_add("api", cases);
}

static int run(int argc, char **argv)
{
	int rc;

	if (CU_initialize_registry() != CUE_SUCCESS)
		return 2;
	if (register_tests(argc, argv) != 0) {
		CU_cleanup_registry();
		return 2;
	}
	rc = dvs_cunit_run("test_api");
	if (dvshare_dev_close(dev) != 0)
		rc = 1;
	rte_eal_cleanup();
	dvs_remove_runtime_dir("test_api", prefix);
	return rc;
}

int main(int argc, char **argv)
{
	return run(argc, argv);
}
