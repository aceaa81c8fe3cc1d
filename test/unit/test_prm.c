/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite unit: dvshare_prm.h, checked field by field against the PRM's own
 * description. Each field is read back here by its bit offset and width as
 * DPDK's drivers/common/mlx5/mlx5_prm.h declares them (mlx5_ifc_*_bits,
 * packed MSB first), with a bit reader written for the test, so a wrong
 * byte offset in the header cannot agree with itself.
 */
#include <stdint.h>
#include <string.h>

#include "dvs_cunit.h"
#include "dvshare_prm.h"

/* MLX5_GET: @width bits starting at bit @off, bit 0 the MSB of byte 0. */
static uint64_t bits(const void *buf, unsigned int off, unsigned int width)
{
	const uint8_t *b = buf;
	uint64_t v = 0;

	for (unsigned int i = 0; i < width; i++) {
		unsigned int bit = off + i;
		v = v << 1 | ((b[bit / 8] >> (7 - bit % 8)) & 1);
	}
	return v;
}

/* True when the @width bits from bit @off are all 0 (any width). */
static int zero_bits(const void *buf, unsigned int off, unsigned int width)
{
	for (unsigned int i = 0; i < width; i += 64)
		if (bits(buf, off + i, width - i < 64 ? width - i : 64) != 0)
			return 0;
	return 1;
}

static void set_bits(uint8_t *buf, unsigned int off, unsigned int width, uint64_t v);

static void test_big_endian_and_unaligned(void)
{
	uint8_t b[32];

	memset(b, 0xee, sizeof(b));
	dvshare_prm_put16(b, 0, 0x0a01);
	CU_ASSERT_EQUAL(b[0], 0x0a);
	CU_ASSERT_EQUAL(b[1], 0x01);
	dvshare_prm_put32(b, 3, 0xdeadbeef);
	CU_ASSERT_EQUAL(dvshare_prm_get32(b, 3), 0xdeadbeefu);
	CU_ASSERT_EQUAL(b[2], 0xee);
	CU_ASSERT_EQUAL(b[7], 0xee);
	dvshare_prm_put64(b, 9, 0x0102030405060708ull);
	CU_ASSERT_EQUAL(b[9], 0x01);
	CU_ASSERT_EQUAL(b[16], 0x08);
	dvshare_prm_put24(b, 20, 0xabcdef);
	CU_ASSERT_EQUAL(b[19], 0xee); /* the byte before is left alone */
	CU_ASSERT_EQUAL(dvshare_prm_get24(b, 20), 0xabcdefu);
	CU_ASSERT_EQUAL(bits(b, 20 * 8, 24), 0xabcdefu);
}

/* general_obj_in_cmd_hdr: opcode 0x0/16, obj_type 0x30/16, obj_id 0x40/32,
 * log_obj_range 0x63/5; general_obj_out_cmd_hdr: status 0x0/8,
 * syndrome 0x20/32, obj_id 0x40/32. */
static void test_header(void)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_HDR_SIZE] = { 0 };
	struct dvshare_prm_hdr h = { DVSHARE_PRM_CMD_QUERY_GENERAL_OBJECT, 7,
				     DVSHARE_PRM_OBJ_VIRTIO_NET_Q, 0xabcdef, 0xff };

	memset(in, 0xff, sizeof(in));
	dvshare_prm_hdr_encode(in, &h);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0x0a02u);
	CU_ASSERT_EQUAL(bits(in, 0x10, 16), 7u);
	CU_ASSERT_EQUAL(bits(in, 0x30, 16), 0x000du);
	CU_ASSERT_EQUAL(bits(in, 0x40, 32), 0xabcdefu);
	CU_ASSERT_EQUAL(bits(in, 0x63, 5), 0x1fu);
	CU_ASSERT_EQUAL(bits(in, 0x20, 16), 0u); /* vhca_tunnel_id cleared */
	CU_ASSERT_EQUAL(dvshare_prm_hdr_decode(in).obj_id, 0xabcdefu);
	CU_ASSERT_EQUAL(dvshare_prm_hdr_decode(in).log_obj_range, 0x1f);
	out[0] = DVSHARE_PRM_STATUS_BAD_PARAM;
	dvshare_prm_put32(out, 4, 0x5d000003);
	dvshare_prm_put32(out, 8, 0x1234);
	CU_ASSERT_EQUAL(bits(out, 0x20, 32), 0x5d000003u);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_PARAM);
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), 0x5d000003u);
	CU_ASSERT_EQUAL(dvshare_prm_out_obj_id(out), 0x1234u);
	CU_ASSERT_STRING_EQUAL(dvshare_prm_status_str(DVSHARE_PRM_STATUS_BAD_PARAM), "BAD_PARAM");
	CU_ASSERT_STRING_EQUAL(dvshare_prm_status_str(0x77), "UNKNOWN");
}

/* The id of a created object, where each create puts it: alloc_pd_out.pd
 * 0x48/24, alloc_flow_counter_out.flow_counter_id 0x40/32,
 * general_obj_out_cmd_hdr.obj_id 0x40/32. */
static void test_created_id(void)
{
	uint8_t out[DVSHARE_PRM_HDR_SIZE];

	memset(out, 0, sizeof(out));
	out[8] = 0x99; /* reserved above the 24-bit pd */
	dvshare_prm_put24(out, 9, 0x12345);
	CU_ASSERT_EQUAL(bits(out, 0x48, 24), 0x12345u);
	CU_ASSERT_EQUAL(dvshare_prm_created_id(DVSHARE_PRM_CMD_ALLOC_PD, out), 0x12345u);
	CU_ASSERT_EQUAL(dvshare_prm_alloc_pd_out_pd(out), 0x12345u);
	dvshare_prm_put32(out, 8, 0x80000077);
	CU_ASSERT_EQUAL(dvshare_prm_created_id(DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER, out), 0x80000077u);
	CU_ASSERT_EQUAL(dvshare_prm_created_id(DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT, out),
			0x80000077u);
	CU_ASSERT_EQUAL(dvshare_prm_created_id(0x0400 /* CREATE_CQ */, out), 0u);
	/* create_mkey_out.mkey_index 0x48/24: the key with mkey_7_0 0. */
	out[8] = 0x99;
	dvshare_prm_put24(out, 9, 0x00abcd);
	CU_ASSERT_EQUAL(dvshare_prm_created_id(DVSHARE_PRM_CMD_CREATE_MKEY, out), 0xabcd00u);
}

/* create_mkey_in (mlx5_prm.h): opcode 0x0/16, pg_access 0x60/1, the
 * kernel's mkey_umem_valid 0x61/1, mkc at 0x80, translations_octword_
 * actual_size 0x300/32, mkey_umem_id 0x320/32, mkey_umem_offset 0x340/64,
 * klm_pas_mtt at 0x880; mkc: access_mode_4_2 0x3/3, rw 0x12, rr 0x13,
 * lw 0x14, lr 0x15, access_mode_1_0 0x16/2, qpn 0x20/24, mkey_7_0 0x38/8,
 * pd 0x68/24, start_addr 0x80/64, len 0xc0/64, translations_octword_size
 * 0x1a0/32, log_page_size 0x1db/5; klm: byte_count 0x0/32, mkey 0x20/32,
 * address 0x40/64. */
#define MKC(x) (0x80u + (x))

static void test_mkey_direct(void)
{
	uint8_t in[DVSHARE_PRM_MKEY_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	struct dvshare_prm_mkey m, back;

	memset(&m, 0, sizeof(m));
	m.lr = m.lw = 1;
	m.key = 0x5a;
	m.qpn = DVSHARE_PRM_MKEY_NO_QPN;
	m.pd = 0xabcdef;
	m.start_addr = 0x7f0012345000ull;
	m.len = 3 * 4096 + 1;
	m.umem_id = 0xdeadbeef;
	m.umem_offset = 0x1122334455ull;
	memset(in, 0xff, sizeof(in));
	CU_ASSERT_EQUAL(dvshare_prm_mkey_create_direct(in, &m), DVSHARE_PRM_MKEY_SIZE);
	CU_ASSERT_EQUAL(DVSHARE_PRM_MKEY_SIZE, 0x880u / 8);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0x200u);
	CU_ASSERT_TRUE(zero_bits(in, 0x10, 0x70)); /* uid, op_mod, reserved, pg_access */
	CU_ASSERT_EQUAL(bits(in, 0x61, 1), 0u);    /* mkey_umem_valid: the kernel's */
	CU_ASSERT_EQUAL(bits(in, MKC(0x3), 3), 0u);
	CU_ASSERT_EQUAL(bits(in, MKC(0x16), 2), DVSHARE_PRM_MKEY_MODE_MTT);
	CU_ASSERT_EQUAL(bits(in, MKC(0x12), 4), 0x3u); /* rw rr lw lr */
	CU_ASSERT_EQUAL(bits(in, MKC(0x10), 2), 0u);   /* umr_en, a */
	CU_ASSERT_EQUAL(bits(in, MKC(0x20), 24), 0xffffffu);
	CU_ASSERT_EQUAL(bits(in, MKC(0x38), 8), 0x5au);
	CU_ASSERT_EQUAL(bits(in, MKC(0x60), 1), 0u); /* length64 */
	CU_ASSERT_EQUAL(bits(in, MKC(0x68), 24), 0xabcdefu);
	CU_ASSERT_EQUAL(bits(in, MKC(0x80), 64), 0x7f0012345000ull);
	CU_ASSERT_EQUAL(bits(in, MKC(0xc0), 64), 3 * 4096 + 1u);
	CU_ASSERT_EQUAL(bits(in, MKC(0x1a0), 32), 2u); /* 4 pages, 2 per octword */
	CU_ASSERT_EQUAL(bits(in, MKC(0x1db), 5), 12u);
	CU_ASSERT_EQUAL(bits(in, 0x300, 32), 2u);
	CU_ASSERT_EQUAL(bits(in, 0x320, 32), 0xdeadbeefu);
	CU_ASSERT_EQUAL(bits(in, 0x340, 64), 0x1122334455ull);
	CU_ASSERT_TRUE(zero_bits(in, 0x280, 0x80)); /* reserved */
	CU_ASSERT_TRUE(zero_bits(in, 0x380, 0x500));
	dvshare_prm_mkey_parse(in, &back);
	CU_ASSERT_EQUAL(back.access_mode, DVSHARE_PRM_MKEY_MODE_MTT);
	CU_ASSERT_TRUE(back.lr && back.lw && !back.rr && !back.rw && !back.umem_valid);
	CU_ASSERT_EQUAL(back.key, 0x5a);
	CU_ASSERT_EQUAL(back.qpn, 0xffffffu);
	CU_ASSERT_EQUAL(back.pd, 0xabcdefu);
	CU_ASSERT_EQUAL(back.start_addr, m.start_addr);
	CU_ASSERT_EQUAL(back.len, m.len);
	CU_ASSERT_EQUAL(back.log_page_size, 12);
	CU_ASSERT_EQUAL(back.translations, 2u);
	CU_ASSERT_EQUAL(back.umem_id, m.umem_id);
	CU_ASSERT_EQUAL(back.umem_offset, m.umem_offset);
	set_bits(in, 0x61, 1, 1);
	set_bits(in, MKC(0x12), 2, 3);
	dvshare_prm_mkey_parse(in, &back);
	CU_ASSERT_TRUE(back.umem_valid && back.rr && back.rw);
	/* The key: mkey_index << 8 | the command's mkey_7_0. */
	memset(out, 0, sizeof(out));
	set_bits(out, 0x48, 24, 0x12345);
	CU_ASSERT_EQUAL(dvshare_prm_mkey_created(in, out), 0x123455au);
	/* query_mkey_in.mkey_index 0x48/24 (the kernel's mlx5_ifc.h). */
	uint8_t q[DVSHARE_PRM_HDR_SIZE];
	CU_ASSERT_EQUAL(dvshare_prm_mkey_query(q, 0x123455a), DVSHARE_PRM_HDR_SIZE);
	CU_ASSERT_EQUAL(bits(q, 0x0, 16), 0x201u);
	CU_ASSERT_EQUAL(bits(q, 0x48, 24), 0x12345u);
	CU_ASSERT_EQUAL(bits(q, 0x60, 32), 0u);
}

static void test_mkey_klm(void)
{
	uint8_t in[DVSHARE_PRM_MKEY_KLM_SIZE(5)];
	const struct dvshare_prm_klm klm[5] = {
		{ 0x1000, 0x100, 0x10000 }, { 0x2000, 0x200, 0x20000 }, { 0x3000, 0x300, 0x30000 },
		{ 0x4000, 0x400, 0x40000 }, { 0x80000000u, 0xabcdef01u, 0x123456789abcull },
	};
	struct dvshare_prm_mkey m, back;
	struct dvshare_prm_klm k;

	CU_ASSERT_EQUAL(DVSHARE_PRM_MKEY_KLM_SIZE(1), 272u + 4 * 16);
	CU_ASSERT_EQUAL(DVSHARE_PRM_MKEY_KLM_SIZE(4), 272u + 4 * 16);
	CU_ASSERT_EQUAL(DVSHARE_PRM_MKEY_KLM_SIZE(5), 272u + 8 * 16);
	memset(&m, 0, sizeof(m));
	m.lr = m.lw = 1;
	m.qpn = DVSHARE_PRM_MKEY_NO_QPN;
	m.pd = 7;
	m.start_addr = 0x10000;
	m.len = 0x8000a000ull;
	m.umem_id = 99; /* ignored */
	memset(in, 0xff, sizeof(in));
	CU_ASSERT_EQUAL(dvshare_prm_mkey_create_klm(in, &m, klm, 5), sizeof(in));
	CU_ASSERT_EQUAL(bits(in, MKC(0x3), 3), 0u);
	CU_ASSERT_EQUAL(bits(in, MKC(0x16), 2), DVSHARE_PRM_MKEY_MODE_KLM);
	CU_ASSERT_EQUAL(bits(in, MKC(0x1a0), 32), 8u);
	CU_ASSERT_EQUAL(bits(in, MKC(0x1db), 5), 0u); /* must be 0 for KLM (DPDK) */
	CU_ASSERT_EQUAL(bits(in, 0x300, 32), 8u);
	CU_ASSERT_TRUE(zero_bits(in, 0x320, 32 + 64));
	for (unsigned int i = 0; i < 5; i++) {
		unsigned int e = 0x880 + 0x80 * i;
		CU_ASSERT_EQUAL(bits(in, e, 32), klm[i].byte_count);
		CU_ASSERT_EQUAL(bits(in, e + 0x20, 32), klm[i].mkey);
		CU_ASSERT_EQUAL(bits(in, e + 0x40, 64), klm[i].address);
		dvshare_prm_klm_parse(in, i, &k);
		CU_ASSERT_EQUAL(k.byte_count, klm[i].byte_count);
		CU_ASSERT_EQUAL(k.mkey, klm[i].mkey);
		CU_ASSERT_EQUAL(k.address, klm[i].address);
	}
	CU_ASSERT_TRUE(zero_bits(in, 0x880 + 0x80 * 5, 0x80 * 3)); /* padding entries */
	dvshare_prm_mkey_parse(in, &back);
	CU_ASSERT_EQUAL(back.access_mode, DVSHARE_PRM_MKEY_MODE_KLM);
	CU_ASSERT_EQUAL(back.len, m.len);
	/* access_mode_4_2 is read back too (KSM is 3, a 4_2 mode 4 and up). */
	set_bits(in, MKC(0x3), 3, 1);
	dvshare_prm_mkey_parse(in, &back);
	CU_ASSERT_EQUAL(back.access_mode, 4 | DVSHARE_PRM_MKEY_MODE_KLM);
}

/* virtio_net_q at bit 0x80 of create_virtq_in; virtio_q at its 0x200. */
#define NQ(x) (0x80u + (x))
#define VQ(x) (0x80u + 0x200u + (x))

static void test_virtq_create_layout(void)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];
	struct dvshare_prm_virtq q, back;

	memset(&q, 0, sizeof(q));
	q.queue_index = 3;
	q.queue_size = 256;
	q.state = DVSHARE_PRM_VIRTQ_STATE_INIT;
	q.virtio_q_type = DVSHARE_PRM_VIRTQ_TYPE_PACKED;
	q.event_mode = DVSHARE_PRM_VIRTQ_EVENT_QP;
	q.virtio_version_1_0 = 1;
	q.hw_available_index = 0x1111;
	q.hw_used_index = 0x2222;
	q.doorbell_stride_idx = 5;
	q.event_qpn_or_msix = 0x654321;
	q.tisn_or_qpn = 0xabcdef;
	q.pd = 0x00cafe;
	q.mkey = 0x12345600;
	q.counter_set_id = 0x77;
	q.desc_addr = 0x1000;
	q.used_addr = 0x2000;
	q.available_addr = 0x3000;
	for (unsigned int i = 0; i < 3; i++) {
		q.umem[i].id = 0x100 + i;
		q.umem[i].size = 0x2000 + i;
		q.umem[i].offset = 0x40ull * i;
	}
	memset(in, 0xee, sizeof(in));
	CU_ASSERT_EQUAL(dvshare_prm_virtq_create(in, &q), 208u);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0x0a00u);
	CU_ASSERT_EQUAL(bits(in, 0x30, 16), 0x000du);
	CU_ASSERT_EQUAL(bits(in, NQ(0x0), 64), 0u);        /* modify_field_select */
	CU_ASSERT_EQUAL(bits(in, NQ(0x9c), 4), 0u);        /* state */
	CU_ASSERT_EQUAL(bits(in, NQ(0xa8), 24), 0xabcdefu); /* tisn_or_qpn */
	CU_ASSERT_EQUAL(bits(in, NQ(0x140), 16), 0x1111u);  /* hw_available_index */
	CU_ASSERT_EQUAL(bits(in, NQ(0x150), 16), 0x2222u);  /* hw_used_index */
	CU_ASSERT_EQUAL(bits(in, VQ(0x0), 8), 1u);          /* virtio_q_type */
	CU_ASSERT_EQUAL(bits(in, VQ(0xd), 3), 1u);          /* event_mode */
	CU_ASSERT_EQUAL(bits(in, VQ(0x10), 16), 3u);        /* queue_index */
	CU_ASSERT_EQUAL(bits(in, VQ(0x21), 1), 1u);         /* virtio_version_1_0 */
	CU_ASSERT_EQUAL(bits(in, VQ(0x28), 24), 0x654321u); /* event_qpn_or_msix */
	CU_ASSERT_EQUAL(bits(in, VQ(0x40), 16), 5u);        /* doorbell_stride_idx */
	CU_ASSERT_EQUAL(bits(in, VQ(0x50), 16), 256u);      /* queue_size */
	CU_ASSERT_EQUAL(bits(in, VQ(0x80), 64), 0x1000u);   /* desc_addr */
	CU_ASSERT_EQUAL(bits(in, VQ(0xc0), 64), 0x2000u);   /* used_addr */
	CU_ASSERT_EQUAL(bits(in, VQ(0x100), 64), 0x3000u);  /* available_addr */
	CU_ASSERT_EQUAL(bits(in, VQ(0x140), 32), 0x12345600u); /* virtio_q_mkey */
	for (unsigned int i = 0; i < 3; i++) {
		unsigned int u = VQ(0x180) + 0x80 * i;
		CU_ASSERT_EQUAL(bits(in, u, 32), 0x100u + i);        /* umem_N_id */
		CU_ASSERT_EQUAL(bits(in, u + 0x20, 32), 0x2000u + i); /* umem_N_size */
		CU_ASSERT_EQUAL(bits(in, u + 0x40, 64), 0x40ull * i); /* umem_N_offset */
	}
	CU_ASSERT_EQUAL(bits(in, VQ(0x300), 32), 0x77u);    /* counter_set_id */
	CU_ASSERT_EQUAL(bits(in, VQ(0x328), 24), 0xcafeu);  /* pd */
	/* Every reserved byte is cleared: nothing of the buffer leaks in. */
	for (unsigned int i = 0; i < sizeof(in); i++)
		CU_ASSERT_NOT_EQUAL(in[i], 0xee);
	dvshare_prm_virtq_parse(in, &back);
	CU_ASSERT_EQUAL(memcmp(&back, &q, sizeof(q)), 0);
}

static void test_virtq_modify_and_query(void)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];

	CU_ASSERT_EQUAL(dvshare_prm_virtq_modify_state(in, 0x42, DVSHARE_PRM_VIRTQ_STATE_RDY), 208u);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0x0a01u);
	CU_ASSERT_EQUAL(bits(in, 0x40, 32), 0x42u);
	CU_ASSERT_EQUAL(bits(in, NQ(0x0), 64), 1u << 0);   /* MODIFY_STATE */
	CU_ASSERT_EQUAL(bits(in, NQ(0x9c), 4), 1u);
	CU_ASSERT_EQUAL(DVSHARE_PRM_VIRTQ_MODIFY_ADDR, 1ull << 6);
	CU_ASSERT_EQUAL(DVSHARE_PRM_VIRTQ_MODIFY_HW_AVAILABLE_INDEX, 1ull << 7);
	CU_ASSERT_EQUAL(DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY, 1ull << 11);
	CU_ASSERT_EQUAL(DVSHARE_PRM_VIRTQ_MODIFY_EVENT_MODE, 1ull << 13);
	CU_ASSERT_EQUAL(dvshare_prm_virtq_query(in, 9), 16u);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0x0a02u);
	CU_ASSERT_EQUAL(bits(in, 0x30, 16), 0x000du);
	CU_ASSERT_EQUAL(bits(in, 0x40, 32), 9u);
	CU_ASSERT_STRING_EQUAL(dvshare_prm_virtq_state_str(DVSHARE_PRM_VIRTQ_STATE_SUSPEND), "suspend");
}

/* query_hca_cap_in: opcode 0x0/16, op_mod 0x30/16; output capability at
 * bit 0x80. cmd_hca_cap: vhca_id 0x30/16, flow_counter_bulk_alloc 0x310/8,
 * log_max_pd 0x32b/5, log_max_flow_counter_bulk 0x348/8,
 * general_obj_types 0x400/64. virtio_emulation_cap: virtio_version_1_0
 * 0x2/1, event_mode 0x10/8, virtio_queue_type 0x18/8, log_doorbell_stride
 * 0x33/5, vnet_modify_ext 0x38, virtio_net_q_addr_modify 0x39,
 * virtio_q_index_modify 0x3a, log_doorbell_bar_size 0x3b/5,
 * doorbell_bar_offset 0x40/64, max_num_virtio_queues 0x88/24,
 * umem_N_buffer_param_a/b 0x100 + 0x40 * N, + 0x20. */
static void set_bits(uint8_t *buf, unsigned int off, unsigned int width, uint64_t v)
{
	for (unsigned int i = 0; i < width; i++) {
		unsigned int bit = off + width - 1 - i;
		uint8_t mask = (uint8_t)(1u << (7 - bit % 8));
		buf[bit / 8] = (uint8_t)((v >> i) & 1 ? buf[bit / 8] | mask : buf[bit / 8] & ~mask);
	}
}

static void test_caps(void)
{
	static uint8_t out[DVSHARE_PRM_HCA_CAP_OUT_SIZE];
	uint8_t in[DVSHARE_PRM_HDR_SIZE], *cap = out + 16;
	struct dvshare_prm_hca_caps g;
	struct dvshare_prm_virtio_caps v;

	CU_ASSERT_EQUAL(dvshare_prm_query_hca_cap(in, DVSHARE_PRM_CAP_VIRTIO_EMULATION), 16u);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0x100u);
	CU_ASSERT_EQUAL(bits(in, 0x30, 16), 0x27u); /* 0x13 << 1 | current */
	dvshare_prm_query_hca_cap(in, DVSHARE_PRM_CAP_GENERAL);
	CU_ASSERT_EQUAL(bits(in, 0x30, 16), 0x01u);

	memset(out, 0, sizeof(out));
	set_bits(cap, 0x30, 16, 0x1234);
	set_bits(cap, 0xea, 6, 24);  /* log_max_mkey */
	set_bits(cap, 0x11a, 6, 3);  /* log_maxklm_list_size */
	set_bits(cap, 0x310, 8, 1);
	set_bits(cap, 0x32b, 5, 18);
	set_bits(cap, 0x348, 8, 7);
	set_bits(cap, 0x400, 64, 1ull << 13);
	dvshare_prm_hca_caps_parse(out, &g);
	CU_ASSERT_EQUAL(g.vhca_id, 0x1234);
	CU_ASSERT_EQUAL(g.flow_counter_bulk_alloc, 1);
	CU_ASSERT_EQUAL(g.log_max_pd, 18);
	CU_ASSERT_EQUAL(g.log_max_mkey, 24);
	CU_ASSERT_EQUAL(g.log_max_klm_list_size, 3);
	CU_ASSERT_EQUAL(g.log_max_flow_counter_bulk, 7);
	CU_ASSERT_TRUE(dvshare_prm_hca_has_obj(&g, DVSHARE_PRM_OBJ_VIRTIO_NET_Q));
	CU_ASSERT_FALSE(dvshare_prm_hca_has_obj(&g, 0x000c));

	memset(out, 0, sizeof(out));
	set_bits(cap, 0x2, 1, 1);
	set_bits(cap, 0x10, 8, 0x5);
	set_bits(cap, 0x18, 8, 0x1);
	set_bits(cap, 0x33, 5, 12);
	set_bits(cap, 0x38, 1, 1);
	set_bits(cap, 0x3a, 1, 1);
	set_bits(cap, 0x3b, 5, 10);
	set_bits(cap, 0x40, 64, 0x123456789abull);
	set_bits(cap, 0x88, 24, 256);
	set_bits(cap, 0xd3, 1, 1); /* desc_group_mkey_supported, its neighbour */
	for (unsigned int i = 0; i < 3; i++) {
		set_bits(cap, 0x100 + 0x40 * i, 32, 10 + i);
		set_bits(cap, 0x120 + 0x40 * i, 32, 100 + i);
	}
	dvshare_prm_virtio_caps_parse(out, &v);
	CU_ASSERT_EQUAL(v.virtio_version_1_0, 1);
	CU_ASSERT_EQUAL(v.event_modes, 0x5);
	CU_ASSERT_EQUAL(v.queue_types, 0x1);
	CU_ASSERT_EQUAL(v.log_doorbell_stride, 12);
	CU_ASSERT_EQUAL(v.vnet_modify_ext, 1);
	CU_ASSERT_EQUAL(v.virtio_net_q_addr_modify, 0);
	CU_ASSERT_EQUAL(v.virtio_q_index_modify, 1);
	CU_ASSERT_EQUAL(v.log_doorbell_bar_size, 10);
	CU_ASSERT_EQUAL(v.doorbell_bar_offset, 0x123456789abull);
	CU_ASSERT_EQUAL(v.max_num_virtio_queues, 256u);
	CU_ASSERT_EQUAL(v.freeze_to_rdy_supported, 0);
	set_bits(cap, 0xd4, 1, 1); /* freeze_to_rdy_supported (Linux mlx5_ifc.h) */
	dvshare_prm_virtio_caps_parse(out, &v);
	CU_ASSERT_EQUAL(v.freeze_to_rdy_supported, 1);
	for (unsigned int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(v.umem[i].a, 10u + i);
		CU_ASSERT_EQUAL(v.umem[i].b, 100u + i);
		CU_ASSERT_EQUAL(dvshare_prm_virtq_umem_size(&v, i, 64), (10u + i) * 64 + 100u + i);
	}
}

/* alloc_flow_counter_in: pd 0x48/24, flow_counter_bulk_log_size 0x73/5,
 * flow_counter_bulk 0x78/8. query_flow_counter_in: clear 0xc0/1,
 * dump_to_memory 0xc1/1, num_of_counters 0xc2/30, flow_counter_id 0xe0/32;
 * out: traffic_counter at 0x80: packets /64, octets 0xc0/64. */
static void test_flow_counter(void)
{
	uint8_t in[32], out[32];

	memset(in, 0xee, sizeof(in));
	CU_ASSERT_EQUAL(dvshare_prm_alloc_flow_counter(in, 0xbeef), 16u);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0x939u);
	CU_ASSERT_EQUAL(bits(in, 0x48, 24), 0xbeefu);
	CU_ASSERT_EQUAL(bits(in, 0x73, 5), 0u);
	CU_ASSERT_EQUAL(bits(in, 0x78, 8), 0u);
	CU_ASSERT_EQUAL(dvshare_prm_query_flow_counter(in, 0x1234, 1), 32u);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0x93bu);
	CU_ASSERT_EQUAL(bits(in, 0xc0, 1), 1u);
	CU_ASSERT_EQUAL(bits(in, 0xc1, 1), 0u);
	CU_ASSERT_EQUAL(bits(in, 0xe0, 32), 0x1234u);
	memset(out, 0, sizeof(out));
	set_bits(out, 0x80, 64, 5);
	set_bits(out, 0xc0, 64, 320);
	CU_ASSERT_EQUAL(dvshare_prm_flow_counter_packets(out), 5u);
	CU_ASSERT_EQUAL(dvshare_prm_flow_counter_octets(out), 320u);
	CU_ASSERT_EQUAL(dvshare_prm_alloc_pd(in), 16u);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0x800u);
}

/* alloc_transport_domain_out.transport_domain 0x48/24; create_tis_in:
 * opcode 0x0/16, the tisc at 0x100 with lag_tx_port_affinity 0x4/4,
 * prio 0xc/4, transport_domain 0x128/24; create_tis_out.tisn 0x48/24. */
static void test_td_and_tis(void)
{
	uint8_t in[DVSHARE_PRM_CREATE_TIS_SIZE], out[DVSHARE_PRM_HDR_SIZE];

	memset(in, 0xee, sizeof(in));
	CU_ASSERT_EQUAL(dvshare_prm_alloc_td(in), 16u);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0x816u);
	CU_ASSERT_TRUE(zero_bits(in, 0x10, 0x70));
	memset(in, 0xee, sizeof(in));
	CU_ASSERT_EQUAL(dvshare_prm_create_tis(in, 0xabcdef, 1), 192u);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0x912u);
	CU_ASSERT_EQUAL(bits(in, 0x100 + 0x4, 4), 1u);
	CU_ASSERT_EQUAL(bits(in, 0x100 + 0xc, 4), 0u);
	CU_ASSERT_EQUAL(bits(in, 0x100 + 0x128, 24), 0xabcdefu);
	CU_ASSERT_EQUAL(bits(in, 0x100 + 0x120, 8), 0u);
	CU_ASSERT_EQUAL(in[191], 0u); /* the whole tisc is cleared */
	memset(out, 0, sizeof(out));
	out[8] = 0x99; /* reserved above the 24-bit ids */
	set_bits(out, 0x48, 24, 0x54321);
	CU_ASSERT_EQUAL(dvshare_prm_created_id(DVSHARE_PRM_CMD_ALLOC_TRANSPORT_DOMAIN, out), 0x54321u);
	CU_ASSERT_EQUAL(dvshare_prm_created_id(DVSHARE_PRM_CMD_CREATE_TIS, out), 0x54321u);
}

/* create_virtio_q_counters_in: general_obj_in_cmd_hdr with obj_type
 * 0x1c, then virtio_q_counters; query output: received_desc 0x80/64,
 * completed_desc 0xc0/64, error_cqes 0x100/32, bad_desc_errors 0x120/32,
 * exceed_max_chain 0x140/32, invalid_buffer 0x160/32, all after the
 * 0x80-bit header. MLX5_ST_SZ_DW of it is 18 dwords: 72 bytes. */
static void test_virtq_counters(void)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_COUNTERS_SIZE], out[DVSHARE_PRM_VIRTQ_COUNTERS_SIZE];
	struct dvshare_prm_virtq_counters c;

	memset(in, 0xee, sizeof(in));
	CU_ASSERT_EQUAL(dvshare_prm_virtq_counters_create(in), 72u);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0xa00u);
	CU_ASSERT_EQUAL(bits(in, 0x30, 16), 0x1cu);
	CU_ASSERT_EQUAL(in[71], 0u);
	CU_ASSERT_EQUAL(dvshare_prm_virtq_counters_query(in, 0x1234), 16u);
	CU_ASSERT_EQUAL(bits(in, 0x0, 16), 0xa02u);
	CU_ASSERT_EQUAL(bits(in, 0x30, 16), 0x1cu);
	CU_ASSERT_EQUAL(bits(in, 0x40, 32), 0x1234u);
	memset(out, 0, sizeof(out));
	set_bits(out, 0x80 + 0x80, 64, 11);
	set_bits(out, 0x80 + 0xc0, 64, 12);
	set_bits(out, 0x80 + 0x100, 32, 13);
	set_bits(out, 0x80 + 0x120, 32, 14);
	set_bits(out, 0x80 + 0x140, 32, 15);
	set_bits(out, 0x80 + 0x160, 32, 16);
	dvshare_prm_virtq_counters_parse(out, &c);
	CU_ASSERT_EQUAL(c.received_desc, 11u);
	CU_ASSERT_EQUAL(c.completed_desc, 12u);
	CU_ASSERT_EQUAL(c.error_cqes, 13u);
	CU_ASSERT_EQUAL(c.bad_desc_errors, 14u);
	CU_ASSERT_EQUAL(c.exceed_max_chain, 15u);
	CU_ASSERT_EQUAL(c.invalid_buffer, 16u);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_big_endian_and_unaligned),
	DVS_TEST(test_header),
	DVS_TEST(test_created_id),
	DVS_TEST(test_mkey_direct),
	DVS_TEST(test_mkey_klm),
	DVS_TEST(test_virtq_create_layout),
	DVS_TEST(test_virtq_modify_and_query),
	DVS_TEST(test_caps),
	DVS_TEST(test_flow_counter),
	DVS_TEST(test_td_and_tis),
	DVS_TEST(test_virtq_counters),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("prm", cases);
}

DVS_CUNIT_MAIN("test_prm", register_tests)
