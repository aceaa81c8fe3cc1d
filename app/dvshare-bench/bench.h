/* SPDX-License-Identifier: BSD-3-Clause */
/* dvshare-bench: shared pieces of the benchmark program. */
#ifndef DVS_BENCH_H
#define DVS_BENCH_H

#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#define BENCH_DEV_DEFAULT "sim0"
#define BENCH_DB_NAME "bench-db"
#define BENCH_MP_ACTION "dvshare_bench_ring"

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Loops: each returns doorbells per second over about @seconds. */
double bench_private_store(double seconds);
double bench_doorbell(void *db, double seconds);
double bench_mp_doorbell(double seconds);

/* Primary: answer BENCH_MP_ACTION requests by ringing @db. */
int bench_mp_serve(void *db);

/* A child process of the benchmark, running this program with @role. */
struct bench_child {
	pid_t pid;
	FILE *out;
	int in; /* its stdin: closing it ends the "idle" role */
};

/* Start this program as a secondary on the primary's file prefix. */
int bench_spawn(struct bench_child *c, const char *self, const char *prefix,
		const char *dev, const char *role, double seconds);
/* Read the child's "result ..." line into @line; reap it. 0 on success. */
int bench_collect(struct bench_child *c, char *line, size_t len);
/* Read the child's next "result ..." line without reaping it. */
int bench_next_result(struct bench_child *c, char *line, size_t len);

#endif
