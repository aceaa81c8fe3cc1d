/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite sim: memory keys. The kernel's rules (devx.c: a CREATE_MKEY
 * shorter than its mkc is EINVAL, mkey_umem_valid set for every mode but
 * the indirect ones, QUERY_MKEY must name the handle's key, DESTROY_MKEY
 * built by the kernel), the key as DPDK and the kernel compute it
 * (mkey_index << 8 | mkey_7_0), and the device's references: a key holds
 * its PD, its UMEM or the keys its entries name, a queue holds its key.
 * Refusal statuses other than the kernel's are the sim's own (doc/sim.md).
 */
#define SIM_TEST_PAIR
#include "sim_test_util.h"

#include <infiniband/verbs.h>

#define MEM (64u * 1024)

static void *mem;
static struct mlx5dv_devx_obj *pd;
static struct mlx5dv_devx_umem *umem;
static uint32_t pd_id;

static void open_all(void)
{
	setup();
	pd = sim_pd(ctx, &pd_id);
	CU_ASSERT_PTR_NOT_NULL_FATAL(pd);
	CU_ASSERT_EQUAL_FATAL(posix_memalign(&mem, 4096, MEM), 0);
	umem = G->devx_umem_reg(ctx, mem, MEM, IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(umem);
}

static void close_all(void)
{
	CU_ASSERT_EQUAL(G->devx_umem_dereg(umem), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(pd), 0);
	free(mem);
	teardown();
}

static uint64_t va(void)
{
	return (uint64_t)(uintptr_t)mem;
}

/* A direct key: the key is index << 8 | mkey_7_0, QUERY_MKEY returns the
 * context, and the firmware took the translations from the UMEM (the
 * builder leaves mkey_umem_valid 0; the kernel set it). */
static void test_direct(void)
{
	uint8_t in[DVSHARE_PRM_MKEY_SIZE], out[DVSHARE_PRM_MKEY_QUERY_OUT_SIZE];
	struct dvshare_prm_mkey m, got;
	struct mlx5dv_devx_obj *k, *shared;
	uint8_t blob[DVS_SIM_OBJ_EXPORT_SIZE];
	uint32_t key;

	open_all();
	memset(&m, 0, sizeof(m));
	m.lr = m.lw = 1;
	m.key = 0x42;
	m.qpn = DVSHARE_PRM_MKEY_NO_QPN;
	m.pd = pd_id;
	m.start_addr = va() + 4096;
	m.len = 8192;
	m.umem_id = umem->umem_id;
	m.umem_offset = 4096;
	k = G->devx_obj_create(ctx, in, dvshare_prm_mkey_create_direct(in, &m), out, 16);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	key = dvshare_prm_mkey_created(in, out);
	CU_ASSERT_EQUAL(key & 0xff, 0x42u);
	CU_ASSERT_EQUAL(key >> 8, dvshare_prm_get24(out, 9));
	CU_ASSERT_EQUAL(dvshare_prm_created_id(DVSHARE_PRM_CMD_CREATE_MKEY, out), key & ~0xffu);
	/* Queried through another context, as a secondary would. */
	CU_ASSERT_EQUAL(G->devx_obj_export(k, blob), 0);
	shared = G->devx_obj_import(imp, blob);
	CU_ASSERT_PTR_NOT_NULL_FATAL(shared);
	memset(out, 0xff, sizeof(out));
	CU_ASSERT_EQUAL(G->devx_obj_query(shared, in, dvshare_prm_mkey_query(in, key), out,
					  sizeof(out)), 0);
	dvshare_prm_mkey_parse(out, &got);
	CU_ASSERT_EQUAL(got.access_mode, DVSHARE_PRM_MKEY_MODE_MTT);
	CU_ASSERT_TRUE(got.lr && got.lw && !got.rr && !got.rw);
	CU_ASSERT_EQUAL(got.key, 0x42);
	CU_ASSERT_EQUAL(got.qpn, DVSHARE_PRM_MKEY_NO_QPN);
	CU_ASSERT_EQUAL(got.pd, pd_id);
	CU_ASSERT_EQUAL(got.start_addr, m.start_addr);
	CU_ASSERT_EQUAL(got.len, 8192u);
	CU_ASSERT_EQUAL(got.log_page_size, 12);
	CU_ASSERT_EQUAL(got.translations, 1u);
	/* The kernel matches the query's mkey_index to the handle's key. */
	CU_ASSERT_EQUAL(G->devx_obj_query(shared, in, dvshare_prm_mkey_query(in, key + 0x100), out,
					  sizeof(out)), EINVAL);
	CU_ASSERT_EQUAL(G->devx_obj_query(shared, in, dvshare_prm_mkey_query(in, key), out, 80),
			EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_OUTPUT_LEN);
	G->devx_obj_unimport(shared);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(k), 0);
	close_all();
}

/* What the kernel refuses (EINVAL, no output: shorter than the mkc) and
 * what the sim's firmware refuses: a command without its fixed part, an
 * unknown UMEM or PD, a range past the UMEM, an empty or wrapping range,
 * a writable key over memory pinned read-only, modes it does not model. */
static void test_direct_refusals(void)
{
	uint8_t in[DVSHARE_PRM_MKEY_SIZE], out[16];
	struct dvshare_prm_mkey m;
	struct mlx5dv_devx_umem *ro;
	void *romem;

	open_all();
	memset(&m, 0, sizeof(m));
	m.lr = 1;
	m.pd = pd_id;
	m.start_addr = va();
	m.len = MEM;
	m.umem_id = umem->umem_id;
	dvshare_prm_mkey_create_direct(in, &m);
	memset(out, 0x77, sizeof(out));
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, 79, out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EINVAL);
	CU_ASSERT_EQUAL(out[0], 0x77); /* the kernel answered: no output */
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, 80, out, sizeof(out)));
	CU_ASSERT_EQUAL(errno, EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_INPUT_LEN);

	struct {
		uint64_t off, len;
		uint32_t umem, pd;
		uint32_t synd;
	} bad[] = {
		{ 0, MEM + 1, umem->umem_id, pd_id, DVS_SIM_SYND_BAD_MKEY_RANGE },
		{ 4096, MEM - 4095, umem->umem_id, pd_id, DVS_SIM_SYND_BAD_MKEY_RANGE },
		{ 0, 0, umem->umem_id, pd_id, DVS_SIM_SYND_BAD_MKEY_RANGE },
		{ 0, 4096, umem->umem_id + 1, pd_id, DVS_SIM_SYND_BAD_UMEM },
		{ 0, 4096, umem->umem_id, pd_id + 1, DVS_SIM_SYND_BAD_PD },
	};
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		m.umem_offset = bad[i].off;
		m.len = bad[i].len;
		m.umem_id = bad[i].umem;
		m.pd = bad[i].pd;
		CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, dvshare_prm_mkey_create_direct(in, &m),
						      out, sizeof(out)));
		CU_ASSERT_EQUAL(errno, EREMOTEIO);
		CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_PARAM);
		CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), bad[i].synd);
	}
	/* A range whose end wraps. */
	m.umem_id = umem->umem_id;
	m.pd = pd_id;
	m.umem_offset = 0;
	m.len = 4096;
	m.start_addr = UINT64_MAX - 100;
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, dvshare_prm_mkey_create_direct(in, &m), out,
					      sizeof(out)));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_MKEY_RANGE);
	m.start_addr = va();
	/* lw over a UMEM pinned without LOCAL_WRITE; lr alone is fine. */
	CU_ASSERT_EQUAL_FATAL(posix_memalign(&romem, 4096, 4096), 0);
	ro = G->devx_umem_reg(ctx, romem, 4096, 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ro);
	m.umem_id = ro->umem_id;
	m.lw = 1;
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, dvshare_prm_mkey_create_direct(in, &m), out,
					      sizeof(out)));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_MKEY_ACCESS);
	m.lw = 0;
	struct mlx5dv_devx_obj *k = G->devx_obj_create(ctx, in, dvshare_prm_mkey_create_direct(in, &m),
						       out, sizeof(out));
	CU_ASSERT_PTR_NOT_NULL(k);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(k), 0);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(ro), 0);
	free(romem);
	/* PA (the kernel's own mode) and KSM are not modelled. */
	m.umem_id = umem->umem_id;
	dvshare_prm_mkey_create_direct(in, &m);
	in[DVSHARE_PRM_MKEY_ACCESS] &= 0xfc; /* access_mode_1_0: PA */
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, sizeof(in), out, sizeof(out)));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_UNSUPPORTED);
	in[DVSHARE_PRM_MKEY_ACCESS] |= DVSHARE_PRM_MKEY_MODE_KSM;
	CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, in, DVSHARE_PRM_MKEY_KLM_SIZE(0), out,
					      sizeof(out)));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_UNSUPPORTED);
	CU_ASSERT_EQUAL(sim_stats(ctx).devx_objs, 1u); /* the PD */
	close_all();
}

/* A key holds its UMEM and PD: neither goes while it lives (the
 * kernel's destroy gets RESOURCE_BUSY, EBUSY). */
static void test_direct_references(void)
{
	uint8_t out[16];
	struct mlx5dv_devx_obj *k;

	open_all();
	k = sim_mkey(ctx, pd_id, umem->umem_id, va(), MEM, 0, 1, NULL, out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(umem), EBUSY);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(pd), EBUSY);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(k), 0);
	close_all();
}

/* An indirect key over two direct ones, as DPDK's vdpa driver maps guest
 * memory: the entries hold their keys; an entry outside its key, naming
 * an indirect key or one on another PD, entries not covering the length,
 * too many entries or a short command are refused. */
static void test_klm(void)
{
	uint8_t out[DVSHARE_PRM_MKEY_QUERY_OUT_SIZE], in[16];
	struct mlx5dv_devx_obj *a, *b, *ind, *other_pd, *k2;
	uint32_t ka = 0, kb = 0, kind = 0, k2id = 0, opd = 0;
	struct dvshare_prm_mkey got;

	open_all();
	a = sim_mkey(ctx, pd_id, umem->umem_id, 0x100000, 16384, 0, 1, &ka, out);
	b = sim_mkey(ctx, pd_id, umem->umem_id, 0x900000, 16384, 32768, 1, &kb, out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	struct dvshare_prm_klm klm[2] = { { 8192, ka, 0x100000 + 4096 }, { 4096, kb, 0x900000 } };
	ind = sim_mkey_klm(ctx, pd_id, 0x7000, klm, 2, &kind, out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ind);
	CU_ASSERT_EQUAL(G->devx_obj_query(ind, in, dvshare_prm_mkey_query(in, kind), out,
					  sizeof(out)), 0);
	dvshare_prm_mkey_parse(out, &got);
	CU_ASSERT_EQUAL(got.access_mode, DVSHARE_PRM_MKEY_MODE_KLM);
	CU_ASSERT_EQUAL(got.start_addr, 0x7000u);
	CU_ASSERT_EQUAL(got.len, 12288u);
	CU_ASSERT_EQUAL(got.translations, 4u); /* two entries, padded to four */
	CU_ASSERT_EQUAL(G->devx_obj_destroy(a), EBUSY);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(b), EBUSY);

	/* The refusals. */
	struct dvshare_prm_klm past[1] = { { 8192, ka, 0x100000 + 12288 } };
	CU_ASSERT_PTR_NULL(sim_mkey_klm(ctx, pd_id, 0, past, 1, NULL, out));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_MKEY_RANGE);
	struct dvshare_prm_klm below[1] = { { 4096, ka, 0x1000 } };
	CU_ASSERT_PTR_NULL(sim_mkey_klm(ctx, pd_id, 0, below, 1, NULL, out));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_MKEY_RANGE);
	struct dvshare_prm_klm nested[1] = { { 4096, kind, 0x7000 } };
	CU_ASSERT_PTR_NULL(sim_mkey_klm(ctx, pd_id, 0, nested, 1, NULL, out));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_KLM);
	struct dvshare_prm_klm none[1] = { { 4096, ka + 1, 0x100000 } } /* the key byte differs */;
	CU_ASSERT_PTR_NULL(sim_mkey_klm(ctx, pd_id, 0, none, 1, NULL, out));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_KLM);
	other_pd = sim_pd(ctx, &opd);
	CU_ASSERT_PTR_NOT_NULL_FATAL(other_pd);
	CU_ASSERT_PTR_NULL(sim_mkey_klm(ctx, opd, 0, klm, 2, NULL, out));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_KLM);
	struct dvshare_prm_klm many[9];
	for (unsigned int i = 0; i < 9; i++)
		many[i] = (struct dvshare_prm_klm){ 1024, ka, 0x100000 + 1024 * i };
	k2 = sim_mkey_klm(ctx, pd_id, 0, many, 8, &k2id, out); /* 1 << log_max_klm_list_size */
	CU_ASSERT_PTR_NOT_NULL(k2);
	CU_ASSERT_PTR_NULL(sim_mkey_klm(ctx, pd_id, 0, many, 9, NULL, out));
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_KLM);
	{
		uint8_t cmd[DVSHARE_PRM_MKEY_KLM_SIZE(2)];
		struct dvshare_prm_mkey m;
		memset(&m, 0, sizeof(m));
		m.lr = 1;
		m.pd = pd_id;
		m.len = 8192; /* the entries cover 12288 */
		dvshare_prm_mkey_create_klm(cmd, &m, klm, 2);
		CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, cmd, sizeof(cmd), out, 16));
		CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_MKEY_RANGE);
		m.len = 12288;
		dvshare_prm_mkey_create_klm(cmd, &m, klm, 2);
		CU_ASSERT_PTR_NULL(G->devx_obj_create(ctx, cmd, sizeof(cmd) - 16, out, 16));
		CU_ASSERT_EQUAL(dvshare_prm_out_status(out), DVSHARE_PRM_STATUS_BAD_INPUT_LEN);
	}
	CU_ASSERT_EQUAL(G->devx_obj_destroy(k2), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(other_pd), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(ind), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(b), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(a), 0);
	close_all();
}

static int modify(struct sim_q *q, uint64_t sel, const struct dvshare_prm_virtq *w, uint8_t *out)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];

	return G->devx_obj_modify(q->q, in, dvshare_prm_virtq_modify(in, q->id, sel, w), out, 16);
}

/* Rings for a queue of @n entries at @base of the key's range. */
static void rings_at(struct dvshare_prm_virtq *w, uint64_t base, uint16_t n)
{
	w->desc_addr = base;
	w->available_addr = base + 16u * n;
	w->used_addr = (w->available_addr + 6 + 2u * n + 63) & ~63ull;
}

/* A queue holds its key; it goes RDY only with a live key on its own PD
 * through which its rings are readable (the used ring writable), each
 * aligned as virtio asks; one RDY queue per index. */
static void test_queue_holds_key(void)
{
	const uint64_t sel = DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY | DVSHARE_PRM_VIRTQ_MODIFY_ADDR;
	uint8_t out[16];
	struct sim_q q, twin;
	struct dvshare_prm_virtq w;
	struct mlx5dv_devx_obj *k, *ro, *small, *alien;
	uint32_t key = 0, rokey = 0, smallkey = 0, alienkey = 0;

	setup();
	CU_ASSERT_EQUAL_FATAL(sim_q_create(ctx, &q, 1, 64), 0);
	CU_ASSERT_EQUAL_FATAL(posix_memalign(&mem, 4096, MEM), 0);
	umem = G->devx_umem_reg(ctx, mem, MEM, IBV_ACCESS_LOCAL_WRITE);
	CU_ASSERT_PTR_NOT_NULL_FATAL(umem);
	k = sim_mkey(ctx, q.pd_id, umem->umem_id, va(), MEM, 0, 1, &key, out);
	ro = sim_mkey(ctx, q.pd_id, umem->umem_id, va(), MEM, 0, 0, &rokey, out);
	small = sim_mkey(ctx, q.pd_id, umem->umem_id, va(), 4096, 0, 1, &smallkey, out);
	CU_ASSERT_PTR_NOT_NULL_FATAL(k);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ro);
	CU_ASSERT_PTR_NOT_NULL_FATAL(small);
	{
		struct mlx5dv_devx_obj *opd = sim_pd(ctx, &pd_id);
		alien = sim_mkey(ctx, pd_id, umem->umem_id, va(), MEM, 0, 1, &alienkey, out);
		CU_ASSERT_PTR_NOT_NULL_FATAL(alien);
		pd = opd;
	}
	memset(&w, 0, sizeof(w));
	w.state = DVSHARE_PRM_VIRTQ_STATE_RDY;
	/* A key that does not exist is refused at once. */
	w.mkey = key + 1; /* the key byte differs */
	CU_ASSERT_EQUAL(modify(&q, DVSHARE_PRM_VIRTQ_MODIFY_Q_MKEY, &w, out), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_MKEY);
	struct {
		uint32_t key;
		uint64_t base;
		uint32_t synd;
	} bad[] = {
		{ alienkey, va(), DVS_SIM_SYND_BAD_MKEY },     /* another PD */
		{ rokey, va(), DVS_SIM_SYND_BAD_RINGS },       /* used ring not writable */
		{ smallkey, va() + 3072, DVS_SIM_SYND_BAD_RINGS }, /* past the key */
		{ key, va() - 4096, DVS_SIM_SYND_BAD_RINGS },  /* before it */
		{ key, va() + 8, DVS_SIM_SYND_BAD_RINGS },     /* descriptors not on 16 */
	};
	for (unsigned int i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		w.mkey = bad[i].key;
		rings_at(&w, bad[i].base, 64);
		CU_ASSERT_EQUAL(modify(&q, sel | DVSHARE_PRM_VIRTQ_MODIFY_STATE, &w, out), EREMOTEIO);
		CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), bad[i].synd);
	}
	w.mkey = key;
	rings_at(&w, va(), 64);
	w.used_addr += 2; /* used ring on 2, not 4 */
	CU_ASSERT_EQUAL(modify(&q, sel | DVSHARE_PRM_VIRTQ_MODIFY_STATE, &w, out), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_BAD_RINGS);
	rings_at(&w, va(), 64);
	CU_ASSERT_EQUAL(modify(&q, sel | DVSHARE_PRM_VIRTQ_MODIFY_STATE, &w, out), 0);
	/* Held: the key cannot go while the queue names it. */
	CU_ASSERT_EQUAL(G->devx_obj_destroy(k), EBUSY);
	/* Another queue of the same index cannot go RDY too. */
	CU_ASSERT_EQUAL_FATAL(sim_q_parts_on(ctx, &twin, 1, 64, &q), 0);
	twin.attr.mkey = key;
	CU_ASSERT_EQUAL_FATAL(sim_q_make(ctx, &twin), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(k), EBUSY);
	rings_at(&w, va() + 16384, 64);
	CU_ASSERT_EQUAL(modify(&twin, sel | DVSHARE_PRM_VIRTQ_MODIFY_STATE, &w, out), EREMOTEIO);
	CU_ASSERT_EQUAL(dvshare_prm_out_syndrome(out), DVS_SIM_SYND_INDEX_TAKEN);
	/* Gone with the first queue: the index is free, the key held once. */
	CU_ASSERT_EQUAL(G->devx_obj_destroy(q.q), 0);
	q.q = NULL;
	CU_ASSERT_EQUAL(modify(&twin, sel | DVSHARE_PRM_VIRTQ_MODIFY_STATE, &w, out), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(twin.q), 0);
	twin.q = NULL;
	CU_ASSERT_EQUAL(G->devx_obj_destroy(k), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(alien), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(pd), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(small), 0);
	CU_ASSERT_EQUAL(G->devx_obj_destroy(ro), 0);
	CU_ASSERT_EQUAL(G->devx_umem_dereg(umem), 0);
	free(mem);
	sim_q_destroy(&twin);
	sim_q_destroy(&q);
	teardown();
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_direct),
	DVS_TEST(test_direct_refusals),
	DVS_TEST(test_direct_references),
	DVS_TEST(test_klm),
	DVS_TEST(test_queue_holds_key),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	return dvs_cunit_add("sim_mkey", cases);
}

DVS_CUNIT_MAIN("test_sim_mkey", register_tests)
