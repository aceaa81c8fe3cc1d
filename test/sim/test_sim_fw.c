/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim: the firmware commands the software device implements, with
 * the layouts of DPDK's drivers/common/mlx5/mlx5_prm.h and the checks
 * DPDK's mlx5_devx_cmd_create_virtq and mlx5_vdpa_virtq.c show the device
 * makes: QUERY_HCA_CAP, ALLOC_PD, ALLOC/QUERY_FLOW_COUNTER, VIRTIO_NET_Q.
 * Statuses are the PRM's; syndromes are the sim's own (firmware's differ).
 */
#define SIM_TEST_PAIR
#include "sim_test_util.h"

static uint8_t cap_out[DVSHARE_PRM_HCA_CAP_OUT_SIZE];

static int caps(struct ibv_context *c, uint16_t type, size_t outlen)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE];

	dvshare_prm_query_hca_cap(in, type);
	return G->devx_general_cmd(c, in, sizeof(in), cap_out, outlen);
}

/* The caps the sim reports say what it implements: VIRTIO_NET_Q and its
 * counters, a
 * split ring without MSI-X, UMEM sizes a * queue_size + b, and a doorbell
 * whose in-page offset is not zero. */
static void test_caps(void)
{
	struct dvshare_prm_hca_caps g;
	struct dvshare_prm_virtio_caps v;

	setup();
	CU_ASSERT_EQUAL_FATAL(caps(imp, DVSHARE_PRM_CAP_GENERAL, sizeof(cap_out)), 0);
	dvshare_prm_hca_caps_parse(cap_out, &g);
	CU_ASSERT_EQUAL(g.general_obj_types, 1ull << DVSHARE_PRM_OBJ_VIRTIO_NET_Q |
						1ull << DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS);
	CU_ASSERT_EQUAL(g.log_max_pd, DVS_SIM_LOG_MAX_PD);
	CU_ASSERT_EQUAL(g.flow_counter_bulk_alloc, 0);
	CU_ASSERT_EQUAL_FATAL(caps(ctx, DVSHARE_PRM_CAP_VIRTIO_EMULATION, sizeof(cap_out)), 0);
	dvshare_prm_virtio_caps_parse(cap_out, &v);
	CU_ASSERT_EQUAL(v.doorbell_bar_offset, DVS_SIM_DOORBELL_BAR_OFFSET);
	/* A VAR's doorbell lies in its own stride window, and off its start
	 * (the in-page offset every doorbell must add). */
	CU_ASSERT(v.doorbell_bar_offset + 4 <= (1ull << v.log_doorbell_stride));
	CU_ASSERT(v.doorbell_bar_offset % 4 == 0 && v.doorbell_bar_offset != 0);
	CU_ASSERT_NOT_EQUAL(v.doorbell_bar_offset & (DVS_SIM_PAGE_SIZE - 1), 0u);
	CU_ASSERT_EQUAL(v.log_doorbell_stride, 12);
	CU_ASSERT_EQUAL((1u << v.log_doorbell_bar_size) * 4096u >> v.log_doorbell_stride,
			DVS_SIM_VAR_PAGES);
	CU_ASSERT_EQUAL(v.max_num_virtio_queues, DVS_SIM_MAX_VIRTQ);
	CU_ASSERT_EQUAL(v.freeze_to_rdy_supported, DVS_SIM_FREEZE_TO_RDY);
	CU_ASSERT_EQUAL(v.queue_types, 1u << DVSHARE_PRM_VIRTQ_TYPE_SPLIT);
	CU_ASSERT_EQUAL(v.event_modes, 1u << DVSHARE_PRM_VIRTQ_EVENT_NO_MSIX);
	CU_ASSERT_TRUE(v.vnet_modify_ext && v.virtio_net_q_addr_modify && v.virtio_q_index_modify);
	CU_ASSERT_EQUAL(dvshare_prm_virtq_umem_size(&v, 0, 256), sim_umem_size(0, 256));
	CU_ASSERT_EQUAL(dvshare_prm_virtq_umem_size(&v, 2, 64), sim_umem_size(2, 64));
	/* A capability type the sim does not model, and a short output. */
	CU_ASSERT_EQUAL(caps(ctx, 0x0a, sizeof(cap_out)), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(cap_out), DVSHARE_PRM_STATUS_BAD_PARAM);
	CU_ASSERT_EQUAL(caps(ctx, DVSHARE_PRM_CAP_GENERAL, 256), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(cap_out), DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN);
	teardown();
}

/* ALLOC_PD: a 24-bit pd in the output; DEALLOC_PD (built by the kernel)
 * is refused while a queue or counter still uses it. */
static void test_pd(void)
{
	struct mlx5dv_devx_obj *p1, *p2, *c;
	uint32_t pd1 = 0, pd2 = 0;

	setup();
	p1 = sim_pd(ctx, &pd1);
	p2 = sim_pd(imp, &pd2);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p1);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p2);
	CU_ASSERT_NOT_EQUAL(pd1, 0u);
	CU_ASSERT_NOT_EQUAL(pd1, pd2);
	CU_ASSERT(pd1 <= 0xffffffu && pd2 <= 0xffffffu);
	c = sim_counter(ctx, pd1, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(p1), EBUSY);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 3u);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(c), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(p1), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(p2), 0);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 0u);
	teardown();
}

/* The flow counter, the object rdma-core's own export/import test shares:
 * ALLOC_FLOW_COUNTER, QUERY_FLOW_COUNTER (values in the output, clear),
 * and what the sim's caps do not offer (bulk, dump to memory). */
static void test_flow_counter(void)
{
	uint8_t in[32], out[32];
	struct mlx5dv_devx_obj *c, *shared;
	uint8_t blob[DVS_SIM_OBJ_EXPORT_SIZE];
	uint32_t id = 0;

	setup();
	c = sim_counter(ctx, 0, &id);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	CU_ASSERT_NOT_EQUAL(id, 0u);
	CU_ASSERT_EQUAL(G->devx_obj_export(c, blob), 0);
	shared = G->devx_obj_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(shared);
	memset(out, 0xff, sizeof(out));
	dvshare_prm_query_flow_counter(in, id, 1);
	CU_ASSERT_EQUAL(G->devx_obj_query(shared, in, sizeof(in), out, sizeof(out)), 0);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_OK);
	CU_ASSERT_EQUAL(dvshare_prm_flow_counter_packets(out), 0u); /* no traffic in the sim */
	CU_ASSERT_EQUAL(dvshare_prm_flow_counter_octets(out), 0u);
	CU_ASSERT_EQUAL(G->devx_obj_query(shared, in, sizeof(in), out, 16), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN);
	dvshare_prm_put8(in, 24, 0x40); /* dump_to_memory */
	CU_ASSERT_EQUAL(G->devx_obj_query(c, in, sizeof(in), out, sizeof(out)), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_PARAM);
	/* Bulk allocation and an unknown pd are refused. */
	dvshare_prm_alloc_flow_counter(in, 0);
	dvshare_prm_put8(in, 15, 1);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, 16, out, 16));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_UNSUPPORTED);
	dvshare_prm_alloc_flow_counter(in, 0x4242);
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, 16, out, 16));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_PD);
	G->devx_obj_unimport(shared);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(c), 0);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 0u);
	teardown();
}

/* Create as DPDK's vdpa driver prepares a queue; query returns the
 * 208-byte VIRTIO_NET_Q as created. */
static void test_virtq_create_query(void)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_VIRTQ_SIZE];
	struct dvshare_prm_virtq got;
	struct sim_q q;

	setup();
	CU_ASSERT_EQUAL_FATAL(sim_q_parts(ctx, &q, 5, 256), 0);
	q.attr.desc_addr = 0x1000;
	q.attr.virtio_version_1_0 = 1;
	CU_ASSERT_EQUAL_FATAL(sim_q_make(ctx, &q), 0);
	CU_ASSERT_NOT_EQUAL(q.id, 0u);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 1 + SIM_Q_PARTS);
	CU_ASSERT_EQUAL(G->devx_obj_query(q.q, in, dvshare_prm_virtq_query(in, q.id), out,
					  sizeof(out)), 0);
	dvshare_prm_virtq_parse(out, &got);
	CU_ASSERT_EQUAL(got.queue_index, 5);
	CU_ASSERT_EQUAL(got.queue_size, 256);
	CU_ASSERT_EQUAL(got.state, DVSHARE_PRM_VIRTQ_STATE_INIT);
	CU_ASSERT_EQUAL(got.pd, q.pd_id);
	CU_ASSERT_EQUAL(got.desc_addr, 0x1000u);
	CU_ASSERT_EQUAL(got.tisn_or_qpn, q.attr.tisn_or_qpn);
	CU_ASSERT_EQUAL(got.counter_set_id, q.attr.counter_set_id);
	CU_ASSERT_EQUAL(got.virtio_version_1_0, 1);
	for (int i = 0; i < 3; i++) {
		CU_ASSERT_EQUAL(got.umem[i].id, q.attr.umem[i].id);
		CU_ASSERT_EQUAL(got.umem[i].size, sim_umem_size((unsigned int)i, 256));
	}
	/* Too small an output for the queue: the firmware says so. */
	CU_ASSERT_EQUAL(G->devx_obj_query(q.q, in, 16, out, 64), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN);
	sim_q_destroy(&q);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 0u);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 0u);
	teardown();
}

/* One wrong field at a time: each is refused with BAD_PARAM (or
 * BAD_INPUT_LEN) and leaves no object behind. */
static void expect_refused(struct sim_q *q, size_t inlen, uint8_t status, uint32_t synd)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	uint32_t before = sim_stats(ctx).devx_objs;

	dvshare_prm_virtq_create(in, &q->attr);
	errno = 0;
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, inlen, out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), status);
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), synd);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, before);
}

static void test_virtq_create_checks(void)
{
	struct sim_q q;
	struct dvshare_prm_virtq good;

	setup();
	CU_ASSERT_EQUAL_FATAL(sim_q_parts(ctx, &q, 0, 64), 0);
	good = q.attr;
	expect_refused(&q, DVSHARE_PRM_VIRTQ_SIZE - 1, DVSHARE_PRM_STATUS_BAD_INPUT_LEN,
		       DVS_SIM_SYND_INPUT_LEN);
	q.attr.state = DVSHARE_PRM_VIRTQ_STATE_RDY;
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_STATE);
	q.attr = good;
	q.attr.queue_size = 0;
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_QUEUE_SIZE);
	q.attr.queue_size = 48; /* not a power of two */
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_QUEUE_SIZE);
	q.attr = good;
	q.attr.queue_index = DVS_SIM_MAX_VIRTQ;
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_QUEUE_INDEX);
	q.attr = good;
	q.attr.pd = 0;
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_PD);
	q.attr.pd = good.pd + 1;
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_PD);
	q.attr = good;
	q.attr.umem[1].id = 0;
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_UMEM);
	q.attr = good;
	q.attr.umem[2].size = good.umem[2].size - 1; /* below a * queue_size + b */
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_UMEM);
	q.attr = good;
	q.attr.umem[0].offset = 4096; /* runs past the UMEM */
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_UMEM);
	q.attr = good;
	q.attr.queue_size = 128; /* the UMEMs were sized for 64 */
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_UMEM);
	q.attr = good;
	q.attr.virtio_q_type = DVSHARE_PRM_VIRTQ_TYPE_PACKED;
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_UNSUPPORTED);
	q.attr = good;
	q.attr.event_mode = DVSHARE_PRM_VIRTQ_EVENT_MSIX;
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_UNSUPPORTED);
	q.attr = good;
	q.attr.tisn_or_qpn = good.tisn_or_qpn + 1; /* no such TIS */
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_TIS);
	q.attr.tisn_or_qpn = q.td_id; /* a live object, but a domain */
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_TIS);
	q.attr = good;
	q.attr.counter_set_id = good.pd; /* a live object, but no counters */
	expect_refused(&q, 208, DVSHARE_PRM_STATUS_BAD_PARAM, DVS_SIM_SYND_BAD_COUNTERS);
	/* A general-object type the device does not list. */
	{
		uint8_t in[DVSHARE_PRM_VIRTQ_SIZE], out[DVSHARE_PRM_HDR_SIZE];
		dvshare_prm_virtq_create(in, &good);
		dvshare_prm_put16(in, 6, 0x000c);
		CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)));
		CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_OBJ_TYPE);
	}
	q.attr = good;
	CU_ASSERT_EQUAL(sim_q_make(ctx, &q), 0); /* and the good one passes */
	sim_q_destroy(&q);
	teardown();
}

/* The transport domain, the TIS on it and the queue's counters, as the
 * queue names them: a TIS needs a live domain; each is kept while a live
 * object names it (the sim's model, as for the PD); QUERY_TIS returns the
 * tisc; the counters read 0 (the sim moves no descriptors). */
static void test_tis_td_counters(void)
{
	uint8_t in[DVSHARE_PRM_CREATE_TIS_SIZE], out[DVSHARE_PRM_CREATE_TIS_SIZE];
	struct dvshare_prm_virtq_counters c;
	struct sim_q q;

	setup();
	CU_ASSERT_EQUAL_FATAL(sim_q_create(ctx, &q, 0, 64), 0);
	/* CREATE_TIS on no domain, or on a PD. */
	for (int i = 0; i < 2; i++) {
		uint32_t td = i == 0 ? q.td_id + 1 : q.pd_id;
		uint32_t before = sim_stats(ctx).devx_objs;
		CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, dvshare_prm_create_tis(in, td, 1), out, 16));
		CU_ASSERT_EQUAL(errno, EREMOTEIO);
		CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_TD);
		CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, before);
	}
	/* QUERY_TIS: the tisc as created; the kernel checks the tisn. */
	dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_QUERY_TIS, 0, 0);
	dvshare_prm_put24(in, 9, q.attr.tisn_or_qpn);
	CU_ASSERT_EQUAL(G->devx_obj_query(q.tis, in, 16, out, 184), 0);
	CU_ASSERT_EQUAL(dvshare_prm_get24(out, 24 + 37), q.td_id);
	CU_ASSERT_EQUAL(dvshare_prm_get8(out, 24) & 0xf, 1); /* lag_tx_port_affinity */
	dvshare_prm_put24(in, 9, q.attr.tisn_or_qpn + 1);
	CU_ASSERT_EQUAL(G->devx_obj_query(q.tis, in, 16, out, 184), EINVAL);
	/* The counters: a 72-byte query output, all 0; no modify. */
	CU_ASSERT_EQUAL(G->devx_obj_query(q.counters, in,
					  dvshare_prm_virtq_counters_query(in, q.attr.counter_set_id),
					  out, DVSHARE_PRM_VIRTQ_COUNTERS_SIZE), 0);
	dvshare_prm_virtq_counters_parse(out, &c);
	CU_ASSERT_EQUAL(c.received_desc + c.completed_desc + c.error_cqes + c.bad_desc_errors +
				c.exceed_max_chain + c.invalid_buffer, 0u);
	CU_ASSERT_EQUAL(G->devx_obj_query(q.counters, in,
					  dvshare_prm_virtq_counters_query(in, q.attr.counter_set_id),
					  out, 32), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN);
	dvshare_prm_obj_cmd(in, DVSHARE_PRM_CMD_MODIFY_GENERAL_OBJECT,
			    DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS, q.attr.counter_set_id);
	CU_ASSERT_EQUAL(G->devx_obj_modify(q.counters, in, 16, out, 16), EREMOTEIO);
	/* Busy while named: the domain by the TIS, the TIS and counters by
	 * the queue (the kernel's destroy turns RESOURCE_BUSY into EBUSY). */
	CU_ASSERT_EQUAL(G->devx_obj_destroy(q.td), EBUSY);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(q.tis), EBUSY);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(q.counters), EBUSY);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(q.q), 0);
	q.q = NULL;
	CU_ASSERT_EQUAL(G->devx_obj_destroy(q.td), EBUSY); /* the TIS still names it */
	sim_q_destroy(&q); /* counters, TIS, then the domain: all go */
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 0u);
	teardown();
}

static int modify(struct sim_q *q, uint64_t select, const struct dvshare_prm_virtq *want,
		  uint8_t *out)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];

	dvshare_prm_virtq_modify(in, q->id, select, want);
	return G->devx_obj_modify(q->q, in, sizeof(in), out, DVSHARE_PRM_HDR_SIZE);
}

static int set_state(struct sim_q *q, uint8_t state, uint8_t *out)
{
	struct dvshare_prm_virtq w;

	memset(&w, 0, sizeof(w));
	w.state = state;
	return modify(q, DVSHARE_PRM_VIRTQ_MODIFY_STATE, &w, out);
}

/* The changes Linux's mlx5_vdpa asks for (is_valid_state_change): INIT ->
 * RDY -> SUSPEND; SUSPEND -> RDY only where the caps say
 * freeze_to_rdy_supported (the sim's do not); nothing else, ERR and
 * staying put included. RDY needs a key with the rings in it
 * (test_sim_mkey.c has its rules); fields other than the state change
 * only in INIT or SUSPEND (modifiable_virtqueue_fields). */
static void test_virtq_state_machine(void)
{
	uint8_t out[DVSHARE_PRM_HDR_SIZE];
	struct dvshare_prm_virtq w;
	struct mlx5dv_devx_umem *um;
	struct mlx5dv_devx_obj *key;
	uint32_t mkey = 0;
	struct sim_q q;
	void *mem;

	setup();
	CU_ASSERT_EQUAL_FATAL(sim_q_create(ctx, &q, 0, 64), 0);
	CU_ASSERT_EQUAL_FATAL(posix_memalign(&mem, 4096, 8192), 0);
	um = G->devx_umem_reg(ctx, mem, 8192, IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(um);
	key = sim_mkey(ctx, q.pd_id, um->umem_id, (uintptr_t)mem, 8192, 0, 1, &mkey, out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(key);
	CU_ASSERT_EQUAL(set_state(&q, DVSHARE_PRM_VIRTQ_STATE_SUSPEND, out), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_STATE);
	for (uint8_t st = DVSHARE_PRM_VIRTQ_STATE_INIT; st <= DVSHARE_PRM_VIRTQ_STATE_ERR; st += 3) {
		CU_ASSERT_EQUAL(set_state(&q, st, out), EREMOTEIO); /* INIT -> INIT, -> ERR */
		CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_STATE);
	}
	CU_ASSERT_EQUAL(set_state(&q, DVSHARE_PRM_VIRTQ_STATE_RDY, out), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_NO_MKEY);
	memset(&w, 0, sizeof(w));
	w.mkey = mkey;
	w.desc_addr = (uintptr_t)mem;
	w.available_addr = (uintptr_t)mem + 1024;
	w.used_addr = (uintptr_t)mem + 2048;
	w.hw_available_index = 3;
	CU_ASSERT_EQUAL(modify(&q, DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY | DVSHARE_PRM_VIRTQ_MODIFY_ADDR |
				      DVSHARE_PRM_VIRTQ_MODIFY_HW_AVAILABLE_INDEX, &w, out), 0);
	CU_ASSERT_EQUAL(set_state(&q, DVSHARE_PRM_VIRTQ_STATE_RDY, out), 0);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_OK);
	CU_ASSERT_EQUAL(modify(&q, DVSHARE_PRM_VIRTQ_MODIFY_ADDR, &w, out), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_RES_STATE);
	CU_ASSERT_EQUAL(set_state(&q, DVSHARE_PRM_VIRTQ_STATE_SUSPEND, out), 0);
	w.hw_used_index = 2;
	CU_ASSERT_EQUAL(modify(&q, DVSHARE_PRM_VIRTQ_MODIFY_HW_USED_INDEX, &w, out), 0);
	CU_ASSERT_EQUAL(set_state(&q, DVSHARE_PRM_VIRTQ_STATE_RDY, out),
			DVS_SIM_FREEZE_TO_RDY ? 0 : EREMOTEIO);
	CU_ASSERT_EQUAL(set_state(&q, DVSHARE_PRM_VIRTQ_STATE_INIT, out), EREMOTEIO);
	CU_ASSERT_EQUAL(set_state(&q, DVSHARE_PRM_VIRTQ_STATE_ERR, out), EREMOTEIO);
	CU_ASSERT_EQUAL(set_state(&q, DVSHARE_PRM_VIRTQ_STATE_SUSPEND, out), EREMOTEIO);
	{
		uint8_t in[16], qout[DVSHARE_PRM_VIRTQ_SIZE];
		struct dvshare_prm_virtq got;
		CU_ASSERT_EQUAL(G->devx_obj_query(q.q, in, dvshare_prm_virtq_query(in, q.id), qout,
						  sizeof(qout)), 0);
		dvshare_prm_virtq_parse(qout, &got);
		CU_ASSERT_EQUAL(got.state, DVSHARE_PRM_VIRTQ_STATE_SUSPEND);
		CU_ASSERT_EQUAL(got.mkey, mkey);
		CU_ASSERT_EQUAL(got.desc_addr, (uintptr_t)mem);
		CU_ASSERT_EQUAL(got.hw_available_index, 3);
		CU_ASSERT_EQUAL(got.hw_used_index, 2);
	}
	CU_ASSERT_EQUAL(G->devx_obj_destroy(q.q), 0); /* the queue, then its key */
	q.q = NULL;
	CU_ASSERT_EQUAL(G->devx_obj_destroy(key), 0);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(um), 0);
	free(mem);
	sim_q_destroy(&q);
	teardown();
}

/* modify_field_select: empty, or bits of features the sim does not
 * implement (dirty bitmap, queue period, feature mask) are refused. */
static void test_virtq_modify_select(void)
{
	uint8_t out[DVSHARE_PRM_HDR_SIZE], in[DVSHARE_PRM_VIRTQ_SIZE];
	struct dvshare_prm_virtq w;
	struct sim_q q;

	setup();
	CU_ASSERT_EQUAL_FATAL(sim_q_create(ctx, &q, 0, 64), 0);
	memset(&w, 0, sizeof(w));
	CU_ASSERT_EQUAL(modify(&q, 0, &w, out), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_SELECT);
	CU_ASSERT_EQUAL(modify(&q, DVSHARE_PRM_VIRTQ_MODIFY_DIRTY_BITMAP_PARAMS, &w, out), EREMOTEIO);
	CU_ASSERT_EQUAL(modify(&q, 1ull << 40, &w, out), EREMOTEIO);
	w.event_mode = DVSHARE_PRM_VIRTQ_EVENT_QP;
	CU_ASSERT_EQUAL(modify(&q, DVSHARE_PRM_VIRTQ_MODIFY_EVENT_MODE, &w, out), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_UNSUPPORTED);
	dvshare_prm_virtq_modify_state(in, q.id, DVSHARE_PRM_VIRTQ_STATE_ERR);
	CU_ASSERT_EQUAL(G->devx_obj_modify(q.q, in, 100, out, sizeof(out)), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_INPUT_LEN);
	sim_q_destroy(&q);
	teardown();
}

/* A UMEM a queue uses cannot be deregistered (DESTROY_UMEM is refused and
 * the kernel keeps the object); once the queue is gone it can. */
static void test_umem_in_use(void)
{
	struct sim_q q;

	setup();
	CU_ASSERT_EQUAL_FATAL(sim_q_create(ctx, &q, 0, 64), 0);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(q.umem[1]), EBUSY);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 3u);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(q.pd), EBUSY);
	sim_q_destroy(&q); /* queue first: then they go */
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 0u);
	teardown();
}

/* dvs_sim_fail_next_destroy(): one refused destroy (object and handle
 * stay), then the same destroy goes through. */
static void test_injected_destroy_failure(void)
{
	struct sim_q q;

	setup();
	CU_ASSERT_EQUAL_FATAL(sim_q_create(ctx, &q, 0, 64), 0);
	dvs_sim_fail_next_destroy(EIO);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(q.q), EIO);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 1 + SIM_Q_PARTS); /* the queue and its parts */
	dvs_sim_fail_next_destroy(EIO);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(q.umem[0]), EIO);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 3u);
	sim_q_destroy(&q); /* disarmed: everything goes */
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 0u);
	CU_ASSERT_EQUAL(sim_stats(ctx).umems, 0u);
	teardown();
}

/* A destroy the kernel builds reports its status as mlx5_core's
 * cmd_status_to_err() does. */
static void test_kernel_status_errnos(void)
{
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_OK), 0);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_INTERNAL_ERR), EIO);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_BAD_OP), EINVAL);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_BAD_PARAM), EINVAL);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_BAD_SYS_STATE), EIO);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_BAD_RESOURCE), EINVAL);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_RESOURCE_BUSY), EBUSY);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_EXCEED_LIM), ENOMEM);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_BAD_RES_STATE), EINVAL);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_BAD_INDEX), EINVAL);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_NO_RESOURCES), EAGAIN);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_BAD_INPUT_LEN), EIO);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN), EIO);
	CU_ASSERT_EQUAL(dvs_sim_cmd_status_errno(0x77), EIO); /* unknown */
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_caps),
	DVS_TEST(test_pd),
	DVS_TEST(test_injected_destroy_failure),
	DVS_TEST(test_flow_counter),
	DVS_TEST(test_virtq_create_query),
	DVS_TEST(test_virtq_create_checks),
	DVS_TEST(test_tis_td_counters),
	DVS_TEST(test_virtq_state_machine),
	DVS_TEST(test_virtq_modify_select),
	DVS_TEST(test_umem_in_use),
	DVS_TEST(test_kernel_status_errnos),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_fw", cases);
}

DVS_CUNIT_MAIN("test_sim_fw", register_tests)
