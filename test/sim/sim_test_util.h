/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Helpers shared by the sim suite: open, import and map through the glue,
 * and real objects (a PD, UMEMs, a VIRTIO_NET_Q, a flow counter) built
 * with dvshare_prm.h as an application would.
 */
#ifndef SIM_TEST_UTIL_H
#define SIM_TEST_UTIL_H

#include <errno.h>
#include <stdio.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dvs_cunit.h"
#include "dvs_sim.h"
#include "dvshare_prm.h"

#define G (dvs_sim_glue())

/* Open simN by walking the device list, as an application would. */
static inline struct ibv_context *sim_open(const char *name, int devx)
{
	struct mlx5dv_context_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.flags = devx ? (uint32_t)MLX5DV_CONTEXT_FLAGS_DEVX : 0;
	struct ibv_device **list = G->get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list != NULL && list[i] != NULL; i++)
		if (strcmp(G->get_device_name(list[i]), name) == 0)
			ctx = G->dv_open_device(list[i], &attr);
	G->free_device_list(list);
	return ctx;
}

/* A second context on the same ufile, as ibv_import_device(dup(fd)). */
static inline struct ibv_context *sim_import(struct ibv_context *ctx)
{
	int fd = dup(ctx->cmd_fd);
	struct ibv_context *imp = G->import_device(fd);

	if (imp == NULL && fcntl(fd, F_GETFD) != -1)
		close(fd);
	return imp;
}

/* Map a VAR page the way the library does (mmap of the cmd_fd). */
static inline volatile uint32_t *sim_map_var(struct ibv_context *ctx, const struct mlx5dv_var *v)
{
	return (volatile uint32_t *)G->mmap_cmd(ctx, NULL, v->length, PROT_READ | PROT_WRITE, MAP_SHARED,
						v->mmap_off);
}

/* The doorbell register of a mapped VAR page. */
static inline volatile uint32_t *sim_db(volatile uint32_t *page)
{
	return page + DVS_SIM_DB_OFFSET / 4;
}

#ifdef SIM_TEST_PAIR
/* The pair most tests work on: an opened context and one imported from it. */
static struct ibv_context *ctx, *imp;

static inline void setup(void)
{
	ctx = sim_open("sim0", 1);
	imp = sim_import(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ctx);
	CU_ASSERT_PTR_NOT_NULL_FATAL(imp);
}

static inline void teardown(void)
{
	G->close_device(imp);
	G->close_device(ctx);
}
#endif

/* Does this process have CAP_IPC_LOCK (pinning past RLIMIT_MEMLOCK)? */
static inline int has_ipc_lock_cap(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	unsigned long long eff = 0;

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "CapEff: %llx", &eff) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return (eff >> 14) & 1; /* CAP_IPC_LOCK */
}

static inline struct dvs_sim_stats sim_stats(struct ibv_context *ctx)
{
	struct dvs_sim_stats s;

	memset(&s, 0, sizeof(s));
	dvs_sim_stats(ctx, &s);
	return s;
}

/* ALLOC_PD; its pd in *pd. */
static inline struct mlx5dv_devx_obj *sim_pd(struct ibv_context *ctx, uint32_t *pd)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	struct mlx5dv_devx_obj *o = G->devx_obj_create(ctx, in, dvshare_prm_alloc_pd(in), out,
						       sizeof(out));

	if (o != NULL && pd != NULL)
		*pd = dvshare_prm_alloc_pd_out_pd(out);
	return o;
}

/* ALLOC_FLOW_COUNTER; its id in *id. */
static inline struct mlx5dv_devx_obj *sim_counter(struct ibv_context *ctx, uint32_t pd, uint32_t *id)
{
	uint8_t in[DVSHARE_PRM_FLOW_COUNTER_ALLOC_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	struct mlx5dv_devx_obj *o = G->devx_obj_create(ctx, in, dvshare_prm_alloc_flow_counter(in, pd),
						       out, sizeof(out));

	if (o != NULL && id != NULL)
		*id = dvshare_prm_created_id(DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER, out);
	return o;
}

/* DEVX objects a sim_q holds besides the queue: PD, TD, TIS, counters. */
#define SIM_Q_PARTS 4u

/* A DEVX object made by the create command @in (@len bytes); its id,
 * where that command's output puts it, in *id. */
static inline struct mlx5dv_devx_obj *sim_make(struct ibv_context *ctx, const void *in, size_t len,
					       uint32_t *id)
{
	uint8_t out[DVSHARE_PRM_HDR_SIZE];
	struct mlx5dv_devx_obj *o = G->devx_obj_create(ctx, in, len, out, sizeof(out));

	if (o != NULL && id != NULL)
		*id = dvshare_prm_created_id(dvshare_prm_opcode(in), out);
	return o;
}

/* A VIRTIO_NET_Q with everything it needs, as DPDK's vdpa driver makes
 * it: its PD, a TIS on a transport domain, its counters, three UMEMs
 * sized by the sim's caps, the memory behind them. */
struct sim_q {
	struct mlx5dv_devx_obj *pd, *td, *tis, *counters, *q;
	struct mlx5dv_devx_umem *umem[3];
	void *mem[3];
	uint32_t pd_id, td_id, id;
	struct dvshare_prm_virtq attr; /* what it was created with */
	uint8_t out[DVSHARE_PRM_HDR_SIZE];
};

static inline uint32_t sim_umem_size(unsigned int n, uint16_t qsize)
{
	const uint32_t a[3] = { DVS_SIM_UMEM_A0, DVS_SIM_UMEM_A1, DVS_SIM_UMEM_A2 };
	const uint32_t b[3] = { DVS_SIM_UMEM_B0, DVS_SIM_UMEM_B1, DVS_SIM_UMEM_B2 };

	return a[n] * qsize + b[n];
}

/* The parts of a queue (PD, TD, TIS, counters, UMEMs) and its create
 * command in s->attr, the PD and TIS those of @share when not NULL (as a
 * device's queues share them); 0 or an errno. */
static inline int sim_q_parts_on(struct ibv_context *ctx, struct sim_q *s, uint16_t qidx,
				 uint16_t qsize, const struct sim_q *share)
{
	uint8_t in[DVSHARE_PRM_CREATE_TIS_SIZE + DVSHARE_PRM_VIRTQ_COUNTERS_SIZE];

	memset(s, 0, sizeof(*s));
	if (share != NULL) {
		s->pd_id = share->pd_id;
		s->td_id = share->td_id;
		s->attr.tisn_or_qpn = share->attr.tisn_or_qpn;
	} else {
		s->pd = sim_pd(ctx, &s->pd_id);
		if (s->pd == NULL)
			return errno;
		s->td = sim_make(ctx, in, dvshare_prm_alloc_td(in), &s->td_id);
		if (s->td == NULL)
			return errno;
		s->tis = sim_make(ctx, in, dvshare_prm_create_tis(in, s->td_id, 1),
				  &s->attr.tisn_or_qpn);
		if (s->tis == NULL)
			return errno;
	}
	s->counters = sim_make(ctx, in, dvshare_prm_virtq_counters_create(in), &s->attr.counter_set_id);
	if (s->counters == NULL)
		return errno;
	s->attr.queue_index = qidx;
	s->attr.queue_size = qsize;
	s->attr.pd = s->pd_id;
	for (unsigned int i = 0; i < 3; i++) {
		uint32_t size = sim_umem_size(i, qsize);
		if (posix_memalign(&s->mem[i], 4096, size) != 0)
			return ENOMEM;
		s->umem[i] = G->devx_umem_reg(ctx, s->mem[i], size, IBV_ACCESS_LOCAL_WRITE);
		if (s->umem[i] == NULL)
			return errno;
		s->attr.umem[i].id = s->umem[i]->umem_id;
		s->attr.umem[i].size = size;
	}
	return 0;
}

static inline int sim_q_parts(struct ibv_context *ctx, struct sim_q *s, uint16_t qidx,
			      uint16_t qsize)
{
	return sim_q_parts_on(ctx, s, qidx, qsize, NULL);
}

/* Create the queue of s->attr; 0 or an errno (s->out holds the output). */
static inline int sim_q_make(struct ibv_context *ctx, struct sim_q *s)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];
	size_t n = dvshare_prm_virtq_create(in, &s->attr);

	s->q = G->devx_obj_create(ctx, in, n, s->out, sizeof(s->out));
	if (s->q == NULL)
		return errno;
	s->id = dvshare_prm_out_obj_id(s->out);
	return 0;
}

static inline int sim_q_create(struct ibv_context *ctx, struct sim_q *s, uint16_t qidx,
			       uint16_t qsize)
{
	int rc = sim_q_parts(ctx, s, qidx, qsize);

	return rc != 0 ? rc : sim_q_make(ctx, s);
}

/* Destroy what sim_q_create made, newest first (as the device needs). */
static inline void sim_q_destroy(struct sim_q *s)
{
	if (s->q != NULL)
		CU_ASSERT_EQUAL(G->devx_obj_destroy(s->q), 0);
	for (int i = 2; i >= 0; i--) {
		if (s->umem[i] != NULL)
			CU_ASSERT_EQUAL(G->devx_umem_dereg(s->umem[i]), 0);
		free(s->mem[i]);
	}
	struct mlx5dv_devx_obj *parts[] = { s->counters, s->tis, s->td, s->pd };
	for (unsigned int i = 0; i < 4; i++)
		if (parts[i] != NULL)
			CU_ASSERT_EQUAL(G->devx_obj_destroy(parts[i]), 0);
	memset(s, 0, sizeof(*s));
}

/* A direct key (MTT) over @umem_id: [@start, @start + @len) at @off of
 * the UMEM, readable, writable when @lw. The key in *mkey; the output in
 * @out (DVSHARE_PRM_HDR_SIZE bytes). */
static inline struct mlx5dv_devx_obj *sim_mkey(struct ibv_context *ctx, uint32_t pd,
					       uint32_t umem_id, uint64_t start, uint64_t len,
					       uint64_t off, int lw, uint32_t *mkey, uint8_t *out)
{
	uint8_t in[DVSHARE_PRM_MKEY_SIZE];
	struct dvshare_prm_mkey m;
	struct mlx5dv_devx_obj *o;

	memset(&m, 0, sizeof(m));
	m.lr = 1;
	m.lw = (uint8_t)(lw != 0);
	m.qpn = DVSHARE_PRM_MKEY_NO_QPN;
	m.pd = pd;
	m.start_addr = start;
	m.len = len;
	m.umem_id = umem_id;
	m.umem_offset = off;
	o = G->devx_obj_create(ctx, in, dvshare_prm_mkey_create_direct(in, &m), out,
			       DVSHARE_PRM_HDR_SIZE);
	if (o != NULL && mkey != NULL)
		*mkey = dvshare_prm_mkey_created(in, out);
	return o;
}

/* An indirect key (KLM) over @n entries from @start. */
static inline struct mlx5dv_devx_obj *sim_mkey_klm(struct ibv_context *ctx, uint32_t pd,
						   uint64_t start, const struct dvshare_prm_klm *klm,
						   unsigned int n, uint32_t *mkey, uint8_t *out)
{
	uint8_t in[DVSHARE_PRM_MKEY_KLM_SIZE(16)];
	struct dvshare_prm_mkey m;
	struct mlx5dv_devx_obj *o;

	memset(&m, 0, sizeof(m));
	m.lr = m.lw = 1;
	m.qpn = DVSHARE_PRM_MKEY_NO_QPN;
	m.pd = pd;
	m.start_addr = start;
	for (unsigned int i = 0; i < n; i++)
		m.len += klm[i].byte_count;
	o = G->devx_obj_create(ctx, in, dvshare_prm_mkey_create_klm(in, &m, klm, n), out,
			       DVSHARE_PRM_HDR_SIZE);
	if (o != NULL && mkey != NULL)
		*mkey = dvshare_prm_mkey_created(in, out);
	return o;
}

#endif
