/* SPDX-License-Identifier: BSD-3-Clause */
/* The timed loops. Each runs in batches, checking the clock between them. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_hash.h>

#include "app_bulk.h"
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

void bench_mp_unserve(void)
{
	rte_mp_action_unregister(BENCH_MP_ACTION);
	served_db = NULL;
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

/* One lookup and its release; 0, or -1 when the name was not found. */
static inline int lookup_one(struct dvshare_dev *dev, const char *name, uint8_t kind)
{
	switch (kind) {
	case APP_BULK_VAR: {
		struct dvshare_var *v = dvshare_var_lookup(dev, name);
		dvshare_var_release(v);
		return v != NULL ? 0 : -1;
	}
	case APP_BULK_UMEM: {
		struct dvshare_umem *u = dvshare_umem_lookup(dev, name);
		dvshare_umem_release(u);
		return u != NULL ? 0 : -1;
	}
	default: {
		struct dvshare_obj *o = dvshare_obj_lookup(dev, name);
		dvshare_obj_release(o);
		return o != NULL ? 0 : -1;
	}
	}
}

double bench_lookup_loop(struct dvshare_dev *dev, const char (*names)[DVSHARE_NAME_MAX],
			 const uint8_t *kinds, unsigned int n, double seconds)
{
	double t0 = bench_now(), t;
	uint64_t ops = 0;

	do {
		for (unsigned int i = 0; i < n; i++) {
			if (lookup_one(dev, names[i], kinds[i]) != 0) {
				fprintf(stderr, "lookup of %s failed: %s\n", names[i],
					rte_strerror(rte_errno));
				return -1;
			}
		}
		ops += n;
		t = bench_now();
	} while (t - t0 < seconds);
	return (t - t0) * 1e9 / (double)ops;
}

double bench_hash_loop(const char (*names)[DVSHARE_NAME_MAX], unsigned int n, double seconds)
{
	char hname[RTE_HASH_NAMESIZE];
	struct rte_hash_parameters p = {
		.name = hname,
		.entries = n < 8 ? 8 : n,
		.key_len = DVSHARE_NAME_MAX,
		.socket_id = SOCKET_ID_ANY,
	};
	struct rte_hash *h;
	double t0, t;
	uint64_t ops = 0;

	snprintf(hname, sizeof(hname), "bench%d", (int)getpid());
	h = rte_hash_create(&p);
	if (h == NULL) {
		fprintf(stderr, "rte_hash_create: %s\n", rte_strerror(rte_errno));
		return -1;
	}
	for (unsigned int i = 0; i < n; i++) {
		if (rte_hash_add_key(h, names[i]) < 0) {
			fprintf(stderr, "rte_hash_add_key(%s) failed\n", names[i]);
			rte_hash_free(h);
			return -1;
		}
	}
	t0 = bench_now();
	do {
		for (unsigned int i = 0; i < n; i++) {
			int32_t pos = rte_hash_lookup(h, names[i]);
			if (pos < 0) {
				fprintf(stderr, "rte_hash_lookup(%s) failed\n", names[i]);
				rte_hash_free(h);
				return -1;
			}
		}
		ops += n;
		t = bench_now();
	} while (t - t0 < seconds);
	rte_hash_free(h);
	return (t - t0) * 1e9 / (double)ops;
}
