/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim: DEVX general objects (PRM commands, statuses, syndromes) and
 * mlx5dv_devx_obj_export(3), statement by statement.
 */
#define SIM_TEST_PAIR
#include "sim_test_util.h"

static int query(struct mlx5dv_devx_obj *o, uint16_t type, uint32_t id, uint8_t *out, size_t outlen)
{
	uint8_t in[DVS_PRM_HDR_SIZE];

	dvs_prm_obj_cmd(in, DVS_PRM_CMD_QUERY_GENERAL_OBJECT, type, id);
	return G->devx_obj_query(o, in, sizeof(in), out, outlen);
}

static int set_state(struct mlx5dv_devx_obj *o, uint32_t id, uint8_t state, uint8_t *out)
{
	uint8_t in[DVS_PRM_CMD_MAX];
	size_t n = dvs_prm_virtq_modify_state(in, id, state);

	return G->devx_obj_modify(o, in, n, out, DVS_PRM_HDR_SIZE);
}

static void test_create_query_virtq(void)
{
	uint8_t out[DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE];
	const uint8_t *qctx = out + DVS_PRM_HDR_SIZE;
	uint32_t id = 0;
	struct mlx5dv_devx_obj *o;

	setup();
	o = sim_virtq(ctx, 5, 0, &id);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	CU_ASSERT_NOT_EQUAL(id, 0u);
	CU_ASSERT_TRUE(id <= 0xffffffu);
	CU_ASSERT_EQUAL(query(o, DVS_PRM_OBJ_VIRTQ, id, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(dvs_prm_out_status(out), DVS_PRM_STATUS_OK);
	CU_ASSERT_EQUAL(dvs_prm_get16(qctx, DVS_PRM_VIRTQ_QUEUE_INDEX), 5);
	CU_ASSERT_EQUAL(dvs_prm_get16(qctx, DVS_PRM_VIRTQ_QUEUE_SIZE), 256);
	CU_ASSERT_EQUAL(dvs_prm_get8(qctx, DVS_PRM_VIRTQ_STATE), DVS_PRM_VIRTQ_INIT);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 1u);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(o), 0);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 0u);
	teardown();
}

static void test_virtq_state_machine(void)
{
	uint8_t out[DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE];
	uint32_t id = 0;
	struct mlx5dv_devx_obj *o;

	setup();
	o = sim_virtq(ctx, 0, 0, &id);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	/* INIT -> SUSPEND is not a transition the device allows. */
	CU_ASSERT_EQUAL(set_state(o, id, DVS_PRM_VIRTQ_SUSPEND, out), EREMOTEIO);
	CU_ASSERT_EQUAL(errno, EREMOTEIO);
	CU_ASSERT_EQUAL(dvs_prm_out_status(out), DVS_PRM_STATUS_BAD_PARAM);
	CU_ASSERT_EQUAL(dvs_prm_out_syndrome(out), DVS_SIM_SYND_BAD_STATE);
	CU_ASSERT_EQUAL(set_state(o, id, DVS_PRM_VIRTQ_RDY, out), 0);
	CU_ASSERT_EQUAL(dvs_prm_out_status(out), DVS_PRM_STATUS_OK);
	CU_ASSERT_EQUAL(set_state(o, id, DVS_PRM_VIRTQ_SUSPEND, out), 0);
	CU_ASSERT_EQUAL(set_state(o, id, DVS_PRM_VIRTQ_RDY, out), 0);
	CU_ASSERT_EQUAL(set_state(o, id, DVS_PRM_VIRTQ_INIT, out), EREMOTEIO);
	CU_ASSERT_EQUAL(set_state(o, id, DVS_PRM_VIRTQ_ERR, out), 0);
	CU_ASSERT_EQUAL(query(o, DVS_PRM_OBJ_VIRTQ, id, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(dvs_prm_get8(out + DVS_PRM_HDR_SIZE, DVS_PRM_VIRTQ_STATE), DVS_PRM_VIRTQ_ERR);
	G->devx_obj_destroy(o);
	teardown();
}

static void test_virtq_addresses_need_stopped_queue(void)
{
	uint8_t in[DVS_PRM_CMD_MAX], out[DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE];
	uint8_t *mctx = in + DVS_PRM_HDR_SIZE;
	uint32_t id = 0;
	struct mlx5dv_devx_obj *o;

	setup();
	o = sim_virtq(ctx, 0, 0, &id);
	CU_ASSERT_EQUAL(set_state(o, id, DVS_PRM_VIRTQ_RDY, out), 0);
	dvs_prm_virtq_modify_state(in, id, 0);
	dvs_prm_put64(mctx, 0, DVS_PRM_VIRTQ_MODIFY_ADDRS);
	dvs_prm_put64(mctx, DVS_PRM_VIRTQ_DESC_ADDR, 0x1000);
	CU_ASSERT_EQUAL(G->devx_obj_modify(o, in, DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE,
					   out, sizeof(out)), EREMOTEIO);
	CU_ASSERT_EQUAL(dvs_prm_out_status(out), DVS_PRM_STATUS_BAD_RES_STATE);
	CU_ASSERT_EQUAL(set_state(o, id, DVS_PRM_VIRTQ_SUSPEND, out), 0);
	CU_ASSERT_EQUAL(G->devx_obj_modify(o, in, DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE,
					   out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(query(o, DVS_PRM_OBJ_VIRTQ, id, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(dvs_prm_get64(out + DVS_PRM_HDR_SIZE, DVS_PRM_VIRTQ_DESC_ADDR), 0x1000u);
	/* Unknown modify_field_select bits. */
	dvs_prm_put64(mctx, 0, 1ull << 40);
	CU_ASSERT_EQUAL(G->devx_obj_modify(o, in, DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE,
					   out, sizeof(out)), EREMOTEIO);
	CU_ASSERT_EQUAL(dvs_prm_out_syndrome(out), DVS_SIM_SYND_BAD_SELECT);
	G->devx_obj_destroy(o);
	teardown();
}

static void test_generic_object(void)
{
	uint8_t in[DVS_PRM_CMD_MAX], out[DVS_PRM_HDR_SIZE + DVS_PRM_GENERIC_CTX_SIZE];
	struct dvs_prm_hdr h = { DVS_PRM_CMD_CREATE_GENERAL_OBJECT, 0, DVS_PRM_OBJ_GENERIC, 0, 0 };
	uint8_t *gctx = in + DVS_PRM_HDR_SIZE;
	struct mlx5dv_devx_obj *o;
	uint32_t id = 0;

	setup();
	dvs_prm_hdr_encode(in, &h);
	memset(gctx, 0, DVS_PRM_GENERIC_CTX_SIZE);
	memcpy(gctx + DVS_PRM_GENERIC_DATA_OFF, "hello, device", 13);
	o = G->devx_obj_create(ctx, in, sizeof(in), out, DVS_PRM_HDR_SIZE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(o);
	id = dvs_prm_out_obj_id(out);
	CU_ASSERT_EQUAL(query(o, DVS_PRM_OBJ_GENERIC, id, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(memcmp(out + DVS_PRM_HDR_SIZE + DVS_PRM_GENERIC_DATA_OFF, "hello, device", 13), 0);
	h.opcode = DVS_PRM_CMD_MODIFY_GENERAL_OBJECT;
	h.obj_id = id;
	dvs_prm_hdr_encode(in, &h);
	dvs_prm_put64(gctx, 0, DVS_PRM_GENERIC_MODIFY_DATA);
	memcpy(gctx + DVS_PRM_GENERIC_DATA_OFF, "changed", 8);
	CU_ASSERT_EQUAL(G->devx_obj_modify(o, in, sizeof(in), out, DVS_PRM_HDR_SIZE), 0);
	CU_ASSERT_EQUAL(query(o, DVS_PRM_OBJ_GENERIC, id, out, sizeof(out)), 0);
	CU_ASSERT_STRING_EQUAL((char *)out + DVS_PRM_HDR_SIZE + DVS_PRM_GENERIC_DATA_OFF, "changed");
	G->devx_obj_destroy(o);
	teardown();
}

static void test_create_errors(void)
{
	uint8_t in[DVS_PRM_CMD_MAX], out[DVS_PRM_HDR_SIZE];
	struct dvs_prm_hdr h = { 0x0400 /* CREATE_CQ */, 0, 0, 0, 0 };
	size_t n;

	setup();
	/* A create the kernel knows but the device does not implement. */
	memset(in, 0, sizeof(in));
	dvs_prm_hdr_encode(in, &h);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EREMOTEIO);
	CU_ASSERT_EQUAL(dvs_prm_out_status(out), DVS_PRM_STATUS_BAD_OP);
	CU_ASSERT_EQUAL(dvs_prm_out_syndrome(out), DVS_SIM_SYND_BAD_OPCODE);
	/* An opcode the kernel does not pass to firmware at all. */
	h.opcode = 0x7777;
	dvs_prm_hdr_encode(in, &h);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* Unknown general-object type. */
	h.opcode = DVS_PRM_CMD_CREATE_GENERAL_OBJECT;
	h.obj_type = 0x0123;
	dvs_prm_hdr_encode(in, &h);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)));
	CU_ASSERT_EQUAL(dvs_prm_out_status(out), DVS_PRM_STATUS_BAD_PARAM);
	CU_ASSERT_EQUAL(dvs_prm_out_syndrome(out), DVS_SIM_SYND_BAD_OBJ_TYPE);
	/* Truncated context. */
	n = dvs_prm_virtq_create(in, 0, 64, 0);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, n - 1, out, sizeof(out)));
	CU_ASSERT_EQUAL(dvs_prm_out_status(out), DVS_PRM_STATUS_BAD_INPUT_LEN);
	/* Queue size not a power of two. */
	dvs_prm_virtq_create(in, 0, 100, 0);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, n, out, sizeof(out)));
	CU_ASSERT_EQUAL(dvs_prm_out_syndrome(out), DVS_SIM_SYND_BAD_QUEUE_SIZE);
	/* Created in a state other than INIT. */
	dvs_prm_virtq_create(in, 0, 64, 0);
	dvs_prm_put8(in + DVS_PRM_HDR_SIZE, DVS_PRM_VIRTQ_STATE, DVS_PRM_VIRTQ_RDY);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, n, out, sizeof(out)));
	CU_ASSERT_EQUAL(dvs_prm_out_syndrome(out), DVS_SIM_SYND_BAD_STATE);
	/* Kernel-level shape checks. */
	errno = 0;
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, 8, out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, n, out, 4));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, NULL, n, out, sizeof(out)));
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 0u);
	teardown();
}

static void test_query_errors(void)
{
	uint8_t in[DVS_PRM_HDR_SIZE], out[DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE];
	struct mlx5dv_devx_obj *o, *o2;
	uint32_t id = 0, id2 = 0;

	setup();
	o = sim_virtq(ctx, 0, 0, &id);
	o2 = sim_virtq(ctx, 1, 0, &id2);
	/* Output too small for the context: firmware says so. */
	CU_ASSERT_EQUAL(query(o, DVS_PRM_OBJ_VIRTQ, id, out, DVS_PRM_HDR_SIZE + 8), EREMOTEIO);
	CU_ASSERT_EQUAL(dvs_prm_out_status(out), DVS_PRM_STATUS_BAD_OUTPUT_LEN);
	/* A command naming another object through this handle. */
	CU_ASSERT_EQUAL(query(o, DVS_PRM_OBJ_VIRTQ, id2, out, sizeof(out)), EINVAL);
	CU_ASSERT_EQUAL(query(o, DVS_PRM_OBJ_GENERIC, id, out, sizeof(out)), EINVAL);
	/* Wrong opcode for a query. */
	dvs_prm_obj_cmd(in, DVS_PRM_CMD_DESTROY_GENERAL_OBJECT, DVS_PRM_OBJ_VIRTQ, id);
	CU_ASSERT_EQUAL(G->devx_obj_query(o, in, sizeof(in), out, sizeof(out)), EINVAL);
	CU_ASSERT_EQUAL(G->devx_obj_query(o, in, 4, out, sizeof(out)), EINVAL);
	G->devx_obj_destroy(o);
	G->devx_obj_destroy(o2);
	teardown();
}

/* Export, import in the same and an imported context, unrelated refused. */
static void test_export_import(void)
{
	struct mlx5dv_export_sizes s;
	uint8_t blob[DVS_SIM_OBJ_EXPORT_SIZE + 4], out[DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE];
	struct ibv_context *stranger = sim_open("sim0", 1);
	struct mlx5dv_devx_obj *o, *same, *other, *so;
	uint32_t id = 0;

	setup();
	G->get_export_sizes(&s, sizeof(s));
	CU_ASSERT_EQUAL(s.devx_obj_attrs_size, DVS_SIM_OBJ_EXPORT_SIZE);
	so = sim_virtq(stranger, 7, 0, NULL);
	o = sim_virtq(ctx, 7, 0, &id);
	memset(blob, 0x5a, sizeof(blob));
	CU_ASSERT_EQUAL(G->devx_obj_export(o, blob), 0);
	CU_ASSERT_EQUAL(blob[s.devx_obj_attrs_size], 0x5a);
	same = G->devx_obj_import(ctx, blob);
	other = G->devx_obj_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(same);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	/* The imported object runs commands on the same kernel object. */
	CU_ASSERT_EQUAL(set_state(other, id, DVS_PRM_VIRTQ_RDY, out), 0);
	CU_ASSERT_EQUAL(query(o, DVS_PRM_OBJ_VIRTQ, id, out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(dvs_prm_get8(out + DVS_PRM_HDR_SIZE, DVS_PRM_VIRTQ_STATE), DVS_PRM_VIRTQ_RDY);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->devx_obj_import(stranger, blob));
	CU_ASSERT_EQUAL(errno, EINVAL);
	/* A corrupted blob is refused, not trusted. */
	blob[0] ^= 0x40;
	CU_ASSERT_PTR_NULL(G->devx_obj_import(imp, blob));
	G->devx_obj_unimport(same);
	G->devx_obj_unimport(other);
	G->devx_obj_destroy(o);
	G->devx_obj_destroy(so);
	G->close_device(stranger);
	teardown();
}

/* Unimport keeps the object; destroy through any context kills it for all,
 * after which only unimport is left. */
static void test_unimport_and_destroy(void)
{
	uint8_t blob[DVS_SIM_OBJ_EXPORT_SIZE], out[DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE];
	struct mlx5dv_devx_obj *o, *other;
	uint32_t id = 0;

	setup();
	o = sim_virtq(ctx, 2, 0, &id);
	G->devx_obj_export(o, blob);
	other = G->devx_obj_import(imp, blob);
	G->devx_obj_unimport(other);
	CU_ASSERT_EQUAL(query(o, DVS_PRM_OBJ_VIRTQ, id, out, sizeof(out)), 0);
	other = G->devx_obj_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(other), 0);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 0u);
	CU_ASSERT_EQUAL(query(o, DVS_PRM_OBJ_VIRTQ, id, out, sizeof(out)), EINVAL);
	CU_ASSERT_EQUAL(set_state(o, id, DVS_PRM_VIRTQ_RDY, out), EINVAL);
	CU_ASSERT_EQUAL(G->devx_obj_export(o, blob), EINVAL);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(o), EINVAL);
	CU_ASSERT_PTR_NULL(G->devx_obj_import(ctx, blob));
	G->devx_obj_unimport(o);
	teardown();
}

/* A stale handle does not reach the object that took its slot. */
static void test_stale_handle_after_reuse(void)
{
	uint8_t out[DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE];
	uint8_t blob[DVS_SIM_OBJ_EXPORT_SIZE];
	struct mlx5dv_devx_obj *o, *other, *fresh[64];
	uint32_t id = 0;

	setup();
	o = sim_virtq(ctx, 1, 0, &id);
	G->devx_obj_export(o, blob);
	other = G->devx_obj_import(imp, blob);
	G->devx_obj_destroy(o);
	for (int i = 0; i < 64; i++)
		fresh[i] = sim_virtq(ctx, (uint16_t)i, 0, NULL);
	CU_ASSERT_EQUAL(query(other, DVS_PRM_OBJ_VIRTQ, id, out, sizeof(out)), EINVAL);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(other), EINVAL);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 64u);
	G->devx_obj_unimport(other);
	for (int i = 0; i < 64; i++)
		G->devx_obj_destroy(fresh[i]);
	teardown();
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_create_query_virtq),
	DVS_TEST(test_virtq_state_machine),
	DVS_TEST(test_virtq_addresses_need_stopped_queue),
	DVS_TEST(test_generic_object),
	DVS_TEST(test_create_errors),
	DVS_TEST(test_query_errors),
	DVS_TEST(test_export_import),
	DVS_TEST(test_unimport_and_destroy),
	DVS_TEST(test_stale_handle_after_reuse),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_devx", cases);
}

DVS_CUNIT_MAIN("test_sim_devx", register_tests)
