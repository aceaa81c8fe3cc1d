/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim: the kernel's DEVX layer (drivers/infiniband/hw/mlx5/devx.c)
 * and libmlx5's object calls, rule by rule: which opcodes pass
 * (devx_is_obj_create_cmd / _query_ / _modify_ / devx_is_general_cmd),
 * how a command must name its object (devx_is_valid_obj_id), handle
 * lookups (rdma_core.c), destroy built by the kernel
 * (devx_obj_build_destroy_cmd), and mlx5dv_devx_obj_export(3).
 */
#define SIM_TEST_PAIR
#include "sim_test_util.h"

static int query_q(struct mlx5dv_devx_obj *o, uint32_t id, uint8_t *out, size_t outlen)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE];

	return G->devx_obj_query(o, in, dvshare_prm_virtq_query(in, id), out, outlen);
}

/* An opcode the kernel passes but the sim's firmware does not implement
 * fails in firmware (BAD_OP, EREMOTEIO); one it does not pass, or a
 * command that is not a create, is EINVAL; so are short buffers and a
 * vhca_tunnel_id. Nothing is left behind. */
static void test_create_opcodes(void)
{
	uint8_t in[64], out[DVSHARE_PRM_HDR_SIZE];

	setup();
	memset(in, 0, sizeof(in));
	dvshare_prm_put16(in, 0, 0x0400); /* CREATE_CQ */
	errno = 0;
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_OP);
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_OPCODE);
	dvshare_prm_put16(in, 0, 0x7777);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EINVAL);
	dvshare_prm_put16(in, 0, DVSHARE_PRM_CMD_QUERY_GENERAL_OBJECT);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EINVAL);
	dvshare_prm_put16(in, 0, 0x0936); /* SET_FLOW_TABLE_ENTRY: a create only with op_mod 0 */
	dvshare_prm_put16(in, 6, 1);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EINVAL);
	dvshare_prm_alloc_pd(in);
	dvshare_prm_put16(in, 4, 1); /* vhca_tunnel_id */
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, 16, out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EINVAL);
	dvshare_prm_alloc_pd(in);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, 8, out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, 16, out, 4));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, NULL, 16, out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 0u);
	teardown();
}

/* A query or modify must be one of the kernel's query/modify commands and
 * name the handle's own object (type and id), else EINVAL. */
static void test_command_names_its_object(void)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE], out[DVSHARE_PRM_VIRTQ_SIZE];
	struct sim_q a, b;
	struct mlx5dv_devx_obj *c;
	uint32_t cid = 0;

	setup();
	CU_ASSERT_EQUAL_FATAL(sim_q_create(ctx, &a, 0, 64), 0);
	CU_ASSERT_EQUAL_FATAL(sim_q_create(ctx, &b, 1, 64), 0);
	c = sim_counter(ctx, 0, &cid);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(query_q(a.q, a.id, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(query_q(a.q, b.id, out, sizeof(out)), EINVAL);   /* another queue */
	dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_QUERY_GENERAL_OBJECT, 0x000c, a.id);
	CU_ASSERT_EQUAL(G->devx_obj_query(a.q, in, 16, out, sizeof(out)), EINVAL); /* type */
	dvshare_prm_virtq_modify_state(in, a.id, DVSHARE_PRM_VIRTQ_STATE_ERR);
	CU_ASSERT_EQUAL(G->devx_obj_query(a.q, in, sizeof(in), out, sizeof(out)), EINVAL);
	dvshare_prm_virtq_query(in, a.id);
	CU_ASSERT_EQUAL(G->devx_obj_modify(a.q, in, sizeof(in), out, sizeof(out)), EINVAL);
	CU_ASSERT_EQUAL(G->devx_obj_query(a.q, in, 4, out, sizeof(out)), EINVAL);
	/* Its own query and modify, but for another vhca (vhca_tunnel_id):
	 * the kernel refuses them as it refuses such a create. */
	dvshare_prm_virtq_query(in, a.id);
	dvshare_prm_put16(in, 4, 1);
	CU_ASSERT_EQUAL(G->devx_obj_query(a.q, in, sizeof(in), out, sizeof(out)), EINVAL);
	dvshare_prm_virtq_modify_state(in, a.id, DVSHARE_PRM_VIRTQ_STATE_ERR);
	dvshare_prm_put16(in, 4, 1);
	CU_ASSERT_EQUAL(G->devx_obj_modify(a.q, in, sizeof(in), out, sizeof(out)), EINVAL);
	/* A PD has no query command; a counter answers only to its id. */
	CU_ASSERT_EQUAL(query_q(a.pd, a.pd_id, out, sizeof(out)), EINVAL);
	dvshare_prm_query_flow_counter(in, cid + 1, 0);
	CU_ASSERT_EQUAL(G->devx_obj_query(c, in, 32, out, sizeof(out)), EINVAL);
	dvshare_prm_query_flow_counter(in, cid, 0);
	CU_ASSERT_EQUAL(G->devx_obj_query(c, in, 32, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(G->devx_obj_query(a.q, in, 32, out, sizeof(out)), EINVAL);
	G->devx_obj_destroy(c);
	sim_q_destroy(&b);
	sim_q_destroy(&a);
	teardown();
}

/* Handles are the kernel's: an empty one is ENOENT, one of another type
 * EINVAL; one kept past a destroy names the next object that takes the
 * number, and destroying through it destroys that object. */
static void test_handles(void)
{
	uint8_t blob[DVS_SIM_OBJ_EXPORT_SIZE], out[DVSHARE_PRM_VIRTQ_SIZE];
	uint8_t vblob[DVS_SIM_VAR_EXPORT_SIZE];
	struct mlx5dv_devx_obj *c1, *c1_imp, *c2, *as_obj;
	struct mlx5dv_var *v;
	uint32_t id1 = 0, id2 = 0;

	setup();
	c1 = sim_counter(ctx, 0, &id1);
	CU_ASSERT_EQUAL(G->devx_obj_export(c1, blob), 0);
	c1_imp = G->devx_obj_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c1_imp);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(c1_imp), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(c1), ENOENT); /* nothing holds the handle */
	CU_ASSERT_EQUAL(query_q(c1, id1, out, sizeof(out)), ENOENT);
	c2 = sim_counter(ctx, 0, &id2);                    /* takes the same handle */
	CU_ASSERT_PTR_NOT_NULL_FATAL(c2);
	CU_ASSERT_NOT_EQUAL(id2, id1);                     /* firmware ids are not reused at once */
	{
		uint8_t in[32];
		dvshare_prm_query_flow_counter(in, id1, 0);  /* the stale command */
		CU_ASSERT_EQUAL(G->devx_obj_query(c1, in, 32, out, sizeof(out)), EINVAL);
	}
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 1u);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(c1), 0);        /* the stale handle kills c2 */
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 0u);
	G->devx_obj_unimport(c2);
	/* A VAR's handle used as a DEVX object's. */
	v = G->alloc_var(ctx, 0);
	CU_ASSERT_EQUAL(G->var_export(v, vblob), 0);
	memset(blob, 0, sizeof(blob));
	memcpy(blob, vblob, 4); /* the handle */
	as_obj = G->devx_obj_import(ctx, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(as_obj);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(as_obj), EINVAL);
	CU_ASSERT_EQUAL(query_q(as_obj, 0, out, sizeof(out)), EINVAL);
	CU_ASSERT_EQUAL(sim_stats(ctx).vars, 1u);
	G->devx_obj_unimport(as_obj);
	G->free_var(v);
	teardown();
}

/* mlx5dv_devx_obj_export: rdma-core's mlx5dv_devx_obj_attrs (handle @0,
 * type @4, object_id @8, rx_icm_addr @16, log_obj_range @24), with what
 * libmlx5's set_devx_obj_info records for each create. */
static void test_export_layout(void)
{
	uint8_t blob[DVS_SIM_OBJ_EXPORT_SIZE + 4];
	struct mlx5dv_devx_obj *c;
	struct sim_q q;
	uint32_t id = 0, w;

	setup();
	c = sim_counter(ctx, 0, &id);
	memset(blob, 0x5a, sizeof(blob));
	CU_ASSERT_EQUAL(G->devx_obj_export(c, blob), 0);
	CU_ASSERT_EQUAL(blob[DVS_SIM_OBJ_EXPORT_SIZE], 0x5a);
	memcpy(&w, blob + 4, 4);
	CU_ASSERT_EQUAL(w, 2u); /* MLX5_DEVX_FLOW_COUNTER */
	memcpy(&w, blob + 8, 4);
	CU_ASSERT_EQUAL(w, id);
	CU_ASSERT_EQUAL_FATAL(sim_q_create(ctx, &q, 0, 64), 0);
	CU_ASSERT_EQUAL(G->devx_obj_export(q.q, blob), 0);
	memcpy(&w, blob + 4, 4);
	CU_ASSERT_EQUAL(w, 0u); /* not a type libmlx5 tracks */
	memcpy(&w, blob + 8, 4);
	CU_ASSERT_EQUAL(w, q.id);
	CU_ASSERT_EQUAL(G->devx_obj_export(q.pd, blob), 0);
	memcpy(&w, blob + 8, 4);
	CU_ASSERT_EQUAL(w, 0u); /* libmlx5 records no id for a PD */
	CU_ASSERT_EQUAL(G->devx_obj_export(c, NULL), EINVAL);
	sim_q_destroy(&q);
	G->devx_obj_destroy(c);
	teardown();
}

/* Import in the same and an imported context runs commands on the same
 * object; unimport keeps it; destroy through any context kills it for
 * all, after which only unimport is left. */
static void test_import_unimport_destroy(void)
{
	uint8_t blob[DVS_SIM_OBJ_EXPORT_SIZE], out[DVSHARE_PRM_VIRTQ_SIZE];
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];
	struct mlx5dv_devx_obj *same, *other;
	struct dvshare_prm_virtq want, got;
	struct sim_q q;

	setup();
	CU_ASSERT_EQUAL_FATAL(sim_q_create(ctx, &q, 7, 64), 0);
	CU_ASSERT_EQUAL(G->devx_obj_export(q.q, blob), 0);
	same = G->devx_obj_import(ctx, blob);
	other = G->devx_obj_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(same);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	memset(&want, 0, sizeof(want));
	want.hw_available_index = 77;
	dvshare_prm_virtq_modify(in, q.id, DVSHARE_PRM_VIRTQ_MODIFY_HW_AVAILABLE_INDEX, &want);
	CU_ASSERT_EQUAL(G->devx_obj_modify(other, in, sizeof(in), out, 16), 0);
	CU_ASSERT_EQUAL(query_q(same, q.id, out, sizeof(out)), 0);
	dvshare_prm_virtq_parse(out, &got);
	CU_ASSERT_EQUAL(got.hw_available_index, 77);
	CU_ASSERT_EQUAL(got.queue_index, 7);
	G->devx_obj_unimport(same);
	CU_ASSERT_EQUAL(query_q(q.q, q.id, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(other), 0);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, SIM_Q_PARTS); /* the queue's parts */
	CU_ASSERT_EQUAL(query_q(q.q, q.id, out, sizeof(out)), ENOENT);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(q.q), ENOENT);
	G->devx_obj_unimport(q.q);
	q.q = NULL;
	sim_q_destroy(&q);
	teardown();
}

/* Imported into a context that does not share the ufile, a blob names
 * that context's objects: nothing stops it at import. */
static void test_import_unrelated_context(void)
{
	struct ibv_context *stranger = sim_open("sim0", 1);
	uint8_t blob[DVS_SIM_OBJ_EXPORT_SIZE], out[32], in[32];
	struct mlx5dv_devx_obj *c, *wrong, *theirs;
	uint32_t id = 0, their_id = 0;

	setup();
	c = sim_counter(ctx, 0, &id);
	CU_ASSERT_EQUAL(G->devx_obj_export(c, blob), 0);
	wrong = G->devx_obj_import(stranger, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(wrong);
	dvshare_prm_query_flow_counter(in, id, 0);
	CU_ASSERT_EQUAL(G->devx_obj_query(wrong, in, 32, out, sizeof(out)), ENOENT);
	/* The same handle over there: this pair's two contexts took handles
	 * 0 and 1 for their UARs, so the stranger gets a second context too. */
	struct ibv_context *stranger_imp = sim_import(stranger);
	CU_ASSERT_PTR_NOT_NULL_FATAL(stranger_imp);
	theirs = sim_counter(stranger, 0, &their_id);
	CU_ASSERT_PTR_NOT_NULL_FATAL(theirs);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(wrong), 0); /* and this kills theirs */
	CU_ASSERT_EQUAL(sim_stats(stranger).devx_objs, 0u);
	G->devx_obj_unimport(theirs);
	G->devx_obj_destroy(c);
	G->close_device(stranger_imp);
	G->close_device(stranger);
	teardown();
}

/* mlx5dv_devx_general_cmd: only the kernel's general commands pass;
 * those the sim does not model fail in firmware. */
static void test_general_cmd(void)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_HCA_CAP_OUT_SIZE];

	setup();
	dvshare_prm_query_hca_cap(in, DVSHARE_PRM_CAP_GENERAL);
	CU_ASSERT_EQUAL(G->devx_general_cmd(imp, in, sizeof(in), out, sizeof(out)), 0);
	dvshare_prm_obj_cmd(in, 0x0400 /* CREATE_CQ */, 0, 0);
	CU_ASSERT_EQUAL(G->devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)), EINVAL);
	dvshare_prm_obj_cmd(in, 0x0101 /* QUERY_ADAPTER */, 0, 0);
	CU_ASSERT_EQUAL(G->devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_OP);
	dvshare_prm_obj_cmd(in, 0x0b17 /* in the general range */, 0, 0);
	CU_ASSERT_EQUAL(G->devx_general_cmd(ctx, in, sizeof(in), out, sizeof(out)), EREMOTEIO);
	CU_ASSERT_EQUAL(G->devx_general_cmd(ctx, in, 8, out, sizeof(out)), EINVAL);
	CU_ASSERT_EQUAL(G->devx_general_cmd(ctx, in, sizeof(in), out, 0x10000), EINVAL);
	teardown();
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_create_opcodes),
	DVS_TEST(test_command_names_its_object),
	DVS_TEST(test_handles),
	DVS_TEST(test_export_layout),
	DVS_TEST(test_import_unimport_destroy),
	DVS_TEST(test_import_unrelated_context),
	DVS_TEST(test_general_cmd),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_devx", cases);
}

DVS_CUNIT_MAIN("test_sim_devx", register_tests)
