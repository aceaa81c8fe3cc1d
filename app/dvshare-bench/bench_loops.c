/* SPDX-License-Identifier: BSD-3-Clause */
/* The timed loops. Each runs in batches, checking the clock between them. */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "bench.h"
#include "dvshare.h"

#define BATCH 1000000u

double bench_private_store(double seconds)
{
	volatile uint32_t *page = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t0 = bench_now(), t;
	uint64_t n = 0;

	if (page == MAP_FAILED)
		return -1;
	do {
		for (uint32_t i = 0; i < BATCH; i++)
			page[0] = i;
		n += BATCH;
		t = bench_now();
	} while (t - t0 < seconds);
	munmap((void *)page, 4096);
	return (double)n / (t - t0);
}

double bench_doorbell(void *db, double seconds)
{
	double t0 = bench_now(), t;
	uint64_t n = 0;

	do {
		for (uint32_t i = 0; i < BATCH; i++)
			dvshare_doorbell32(db, 0, i);
		n += BATCH;
		t = bench_now();
	} while (t - t0 < seconds);
	return (double)n / (t - t0);
}

static void *served_db;

static int on_ring(const struct rte_mp_msg *msg, const void *peer)
{
	struct rte_mp_msg rep;
	uint32_t v = 0;

	if (msg->len_param == sizeof(v))
		memcpy(&v, msg->param, sizeof(v));
	dvshare_doorbell32(served_db, 0, v);
	memset(&rep, 0, sizeof(rep));
	strcpy(rep.name, BENCH_MP_ACTION);
	return rte_mp_reply(&rep, peer);
}

int bench_mp_serve(void *db)
{
	served_db = db;
	if (rte_mp_action_register(BENCH_MP_ACTION, on_ring) != 0 && rte_errno != EEXIST)
		return -rte_errno;
	return 0;
}

/* Without dvshare, a secondary would ask the primary to ring for it. */
double bench_mp_doorbell(double seconds)
{
	struct timespec ts = { 5, 0 };
	double t0 = bench_now(), t;
	uint64_t n = 0;

	do {
		for (uint32_t i = 0; i < 100; i++) {
			struct rte_mp_msg req;
			struct rte_mp_reply reply;

			memset(&req, 0, sizeof(req));
			strcpy(req.name, BENCH_MP_ACTION);
			req.len_param = sizeof(uint32_t);
			memcpy(req.param, &i, sizeof(i));
			if (rte_mp_request_sync(&req, &reply, &ts) != 0 || reply.nb_received != 1)
				return -1;
			free(reply.msgs);
		}
		n += 100;
		t = bench_now();
	} while (t - t0 < seconds);
	return (double)n / (t - t0);
}
