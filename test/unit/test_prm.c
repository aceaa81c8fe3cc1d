/* SPDX-License-Identifier: BSD-3-Clause */
/* Suite unit: PRM encode/decode helpers. */
#include <stdint.h>
#include <string.h>

#include "dvs_cunit.h"
#include "dvs_prm.h"

static void test_big_endian_bytes(void)
{
	uint8_t b[16];

	memset(b, 0, sizeof(b));
	dvs_prm_put16(b, 0, 0x0a01);
	CU_ASSERT_EQUAL(b[0], 0x0a);
	CU_ASSERT_EQUAL(b[1], 0x01);
	dvs_prm_put32(b, 4, 0x11223344);
	CU_ASSERT_EQUAL(b[4], 0x11);
	CU_ASSERT_EQUAL(b[7], 0x44);
	dvs_prm_put64(b, 8, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(b[8], 0x01);
	CU_ASSERT_EQUAL(b[15], 0x08);
	CU_ASSERT_EQUAL(dvs_prm_get16(b, 0), 0x0a01);
	CU_ASSERT_EQUAL(dvs_prm_get32(b, 4), 0x11223344u);
	CU_ASSERT_EQUAL(dvs_prm_get64(b, 8), 0x0102030405060708ull);
}

static void test_unaligned_access(void)
{
	uint8_t b[32];

	memset(b, 0xee, sizeof(b));
	dvs_prm_put32(b, 3, 0xdeadbeef);
	CU_ASSERT_EQUAL(dvs_prm_get32(b, 3), 0xdeadbeefu);
	CU_ASSERT_EQUAL(b[2], 0xee);
	CU_ASSERT_EQUAL(b[7], 0xee);
	dvs_prm_put64(b, 9, 1);
	CU_ASSERT_EQUAL(dvs_prm_get64(b, 9), 1u);
}

static void test_hdr_roundtrip(void)
{
	uint8_t in[DVS_PRM_HDR_SIZE];
	struct dvs_prm_hdr h = { DVS_PRM_CMD_QUERY_GENERAL_OBJECT, 7, DVS_PRM_OBJ_VIRTQ, 0xabcdef, 3 };
	struct dvs_prm_hdr d;

	memset(in, 0xff, sizeof(in));
	dvs_prm_hdr_encode(in, &h);
	d = dvs_prm_hdr_decode(in);
	CU_ASSERT_EQUAL(d.opcode, h.opcode);
	CU_ASSERT_EQUAL(d.uid, 7);
	CU_ASSERT_EQUAL(d.obj_type, DVS_PRM_OBJ_VIRTQ);
	CU_ASSERT_EQUAL(d.obj_id, 0xabcdefu);
	CU_ASSERT_EQUAL(d.log_obj_range, 3);
	/* Reserved bytes are cleared, not left as garbage. */
	CU_ASSERT_EQUAL(in[4], 0);
	CU_ASSERT_EQUAL(in[13], 0);
	CU_ASSERT_EQUAL(in[0], 0x0a);
	CU_ASSERT_EQUAL(in[1], 0x02);
}

static void test_log_obj_range_masked(void)
{
	uint8_t in[DVS_PRM_HDR_SIZE];
	struct dvs_prm_hdr h = { DVS_PRM_CMD_CREATE_GENERAL_OBJECT, 0, 1, 0, 0xff };

	dvs_prm_hdr_encode(in, &h);
	CU_ASSERT_EQUAL(dvs_prm_hdr_decode(in).log_obj_range, 0x1f);
}

static void test_out_fields(void)
{
	uint8_t out[DVS_PRM_HDR_SIZE] = { 0 };

	out[0] = DVS_PRM_STATUS_BAD_PARAM;
	dvs_prm_put32(out, 4, 0x5d000003);
	dvs_prm_put32(out, 8, 0x1234);
	CU_ASSERT_EQUAL(dvs_prm_out_status(out), DVS_PRM_STATUS_BAD_PARAM);
	CU_ASSERT_EQUAL(dvs_prm_out_syndrome(out), 0x5d000003u);
	CU_ASSERT_EQUAL(dvs_prm_out_obj_id(out), 0x1234u);
	CU_ASSERT_STRING_EQUAL(dvs_prm_status_str(DVS_PRM_STATUS_BAD_PARAM), "BAD_PARAM");
	CU_ASSERT_STRING_EQUAL(dvs_prm_status_str(0x77), "UNKNOWN");
}

static void test_virtq_builders(void)
{
	uint8_t in[DVS_PRM_CMD_MAX];
	size_t n = dvs_prm_virtq_create(in, 3, 256, 0x99);
	const uint8_t *ctx = in + DVS_PRM_HDR_SIZE;

	CU_ASSERT_EQUAL(n, DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE);
	CU_ASSERT_EQUAL(dvs_prm_hdr_decode(in).opcode, DVS_PRM_CMD_CREATE_GENERAL_OBJECT);
	CU_ASSERT_EQUAL(dvs_prm_hdr_decode(in).obj_type, DVS_PRM_OBJ_VIRTQ);
	CU_ASSERT_EQUAL(dvs_prm_get16(ctx, DVS_PRM_VIRTQ_QUEUE_INDEX), 3);
	CU_ASSERT_EQUAL(dvs_prm_get16(ctx, DVS_PRM_VIRTQ_QUEUE_SIZE), 256);
	CU_ASSERT_EQUAL(dvs_prm_get32(ctx, DVS_PRM_VIRTQ_UMEM_ID), 0x99u);
	CU_ASSERT_EQUAL(dvs_prm_get8(ctx, DVS_PRM_VIRTQ_STATE), DVS_PRM_VIRTQ_INIT);

	n = dvs_prm_virtq_modify_state(in, 0x42, DVS_PRM_VIRTQ_RDY);
	CU_ASSERT_EQUAL(n, DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE);
	CU_ASSERT_EQUAL(dvs_prm_hdr_decode(in).obj_id, 0x42u);
	CU_ASSERT_EQUAL(dvs_prm_get64(ctx, 0), DVS_PRM_VIRTQ_MODIFY_STATE);
	CU_ASSERT_EQUAL(dvs_prm_get8(ctx, DVS_PRM_VIRTQ_STATE), DVS_PRM_VIRTQ_RDY);

	n = dvs_prm_obj_cmd(in, DVS_PRM_CMD_DESTROY_GENERAL_OBJECT, DVS_PRM_OBJ_GENERIC, 5);
	CU_ASSERT_EQUAL(n, DVS_PRM_HDR_SIZE);
	CU_ASSERT_EQUAL(dvs_prm_hdr_decode(in).opcode, DVS_PRM_CMD_DESTROY_GENERAL_OBJECT);
	CU_ASSERT_EQUAL(dvs_prm_hdr_decode(in).obj_id, 5u);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_big_endian_bytes),
	DVS_TEST(test_unaligned_access),
	DVS_TEST(test_hdr_roundtrip),
	DVS_TEST(test_log_obj_range_masked),
	DVS_TEST(test_out_fields),
	DVS_TEST(test_virtq_builders),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("prm", cases);
}

DVS_CUNIT_MAIN("test_prm", register_tests)
