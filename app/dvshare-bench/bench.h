/* SPDX-License-Identifier: BSD-3-Clause */
/* dvshare-bench: shared pieces of the benchmark program. */
#ifndef DVS_BENCH_H
#define DVS_BENCH_H

#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>
#include <time.h>

#include "dvshare.h"

#define BENCH_DEV_DEFAULT "sim0"
#define BENCH_DB_NAME "bench-db"
#define BENCH_MP_ACTION "dvshare_bench_ring"
/* Objects of app_bulk are named o0, o1, ...; the selective mode takes
 * o0, o100, o200, ...: 1% of them, all VARs (i % 4 == 0). */
#define BENCH_BULK "o"
#define BENCH_SELECTIVE "selective:o0,o*00"
#define BENCH_SECTIONS 10
#define BENCH_TIMEOUT_MS 5000u

struct bench_opts {
	const char *role;   /* secondary: what to do; primary: NULL */
	const char *dev;    /* --dev */
	const char *mode;   /* secondary: --mode (attach mode) */
	const char *json;   /* --json FILE */
	double seconds;     /* --seconds: each timed loop */
	int runs;           /* --runs: attach measurements per point */
	int quick;          /* --quick */
	int index;          /* secondary: --index */
	int objects;        /* secondary: --objects (bulk names to look up) */
	unsigned char run[BENCH_SECTIONS + 1]; /* --sections */
};

/* What every section of the primary gets. */
struct bench_ctx {
	const struct bench_opts *o;
	char self[PATH_MAX]; /* this program, started again as the secondaries */
	const char *prefix;  /* the primary's --file-prefix */
	int cores;
	double doorbell_sec; /* section 1's secondary doorbells/s (0: not run) */
	int pass_fd;         /* >= 0: handed to the next secondary as its fd 3 */
};

/* The fd a secondary finds bench_ctx.pass_fd at. */
#define BENCH_PASSED_FD 3

static inline double bench_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sections (bench_doorbell.c, bench_lookup.c, bench_attach.c,
 * bench_revoke.c, bench_scale.c, bench_report.c): 0, or -1 after saying
 * why with bench_fail(). */
int bench_s1_doorbell(struct bench_ctx *x);
int bench_s2_mp(struct bench_ctx *x);
int bench_s3_lookup(struct bench_ctx *x);
int bench_s4_attach(struct bench_ctx *x);
int bench_s5_revoke(struct bench_ctx *x);
int bench_s6_batch(struct bench_ctx *x);
int bench_s7_scale(struct bench_ctx *x);
int bench_s8_create(struct bench_ctx *x);
int bench_s9_packets(struct bench_ctx *x);
int bench_s10_summary(struct bench_ctx *x);

/* Secondary roles (bench_child.c): the process's exit code. */
int bench_secondary(const struct bench_opts *o, double eal_seconds);
/* Role "create" (bench_create.c): creates and round trips, timed. */
int bench_create_role(const struct bench_opts *o, struct dvshare_dev *dev);
/* Roles "pktfwd" and "ringfwd" (bench_packets.c): forwarding, timed. */
int bench_pktfwd_role(const struct bench_opts *o, struct dvshare_dev *dev);
int bench_ringfwd_role(const struct bench_opts *o);
/* dvshare_attach_mode_set() from "eager", "lazy" or "selective:<glob>,...". */
int bench_attach_mode(const char *mode);

/* Common helpers (bench_util.c). */
void bench_fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Device @k of the run: --dev itself for 0, the software devices after it
 * (sim1, sim2, ... when --dev is sim0) for k > 0. 0 or -1 (said why). */
int bench_dev_name(const struct bench_ctx *x, int k, char *buf, size_t len);
/* dvshare_dev_open() with @max_objects (0: default), saying why on failure. */
struct dvshare_dev *bench_dev_open(const char *name, uint32_t max_objects);
/* dvshare_dev_close(), saying why on failure. 0 or -1. */
int bench_dev_close(struct dvshare_dev *dev);
/* app_bulk_publish_vars() of BENCH_BULK objects [first, first + n). */
int bench_publish(struct dvshare_dev *dev, const char *prefix, unsigned int first,
		  unsigned int n, unsigned int max_vars);
/* Sort @v and return the median / the @p-th percentile (0..100). */
double bench_median(double *v, int n);
double bench_percentile(double *v, int n, double p);
/* Lines of a file (/proc/self/maps) and entries of /proc/self/fd. */
int bench_count_lines(const char *path);
int bench_count_fds(void);
/* VmRSS of this process in KiB, or -1. */
long bench_rss_kb(void);

/* Machine (bench_machine.c): read once, printed and put in the JSON. */
struct bench_machine {
	int cores;
	char cpu[128];
	char kernel[256];
	char date[32];
	double syscall_ns;    /* getppid() through syscall(2) */
	double fault_ns;      /* first touch of an anonymous 4 KiB page */
	double mmap_ns;       /* mmap() of one 4 KiB page of a memfd */
};
void bench_machine_read(struct bench_machine *m);

/* Timed loops (bench_loops.c). */
double bench_private_store(double seconds);
double bench_doorbell(void *db, double seconds);
double bench_mp_doorbell(double seconds);
int bench_mp_serve(void *db);
void bench_mp_unserve(void);
/* ns per lookup + release of names[i] (of kinds[i], enum app_bulk_kind),
 * round-robin over @n names for about @seconds; -1 when a lookup failed. */
double bench_lookup_loop(struct dvshare_dev *dev, const char (*names)[DVSHARE_NAME_MAX],
			 const uint8_t *kinds, unsigned int n, double seconds);
/* ns per rte_hash_lookup() of the same names (64-byte keys) in a private
 * rte_hash; -1 on failure. */
double bench_hash_loop(const char (*names)[DVSHARE_NAME_MAX], unsigned int n, double seconds);

/* JSON and goals (bench_report.c). The document (a jansson tree) is built
 * as the run goes: bj_obj/bj_arr open a level (key NULL inside an array),
 * bj_end closes it. */
void bj_obj(const char *key);
void bj_arr(const char *key);
void bj_end(void);
void bj_num(const char *key, double v);
void bj_int(const char *key, long long v);
void bj_str(const char *key, const char *s);
void bj_bool(const char *key, int v);
/* Close every open level, then write the document to @path. 0 or -1. */
int bj_write(const char *path);
/* Print "goal <= LIMIT UNIT: met" or "missed by Fx" under a section and
 * remember it for the summary (section 10) and the JSON. */
void bench_goal(int section, const char *what, double value, double limit, const char *unit);
/* A goal the run could not measure, and @why: printed, and in the summary
 * and the JSON as "unmeasured" (never met, never missed). */
void bench_goal_unmeasured(int section, const char *what, const char *why);

/* Pairs of dpdk-testpmd processes (bench_testpmd.c): the packet paths
 * section 9 sets dvshare's beside, io forwarding over each. */
enum bench_tp_kind {
	BENCH_TP_VHOST,       /* net_vhost + net_virtio_user */
	BENCH_TP_MEMIF,       /* net_memif server + client */
	BENCH_TP_NET_DVSHARE, /* net_dvshare: a primary, a forwarding secondary */
};
struct bench_testpmd {
	pid_t pid;
	int in, out; /* its stdin, its stdout and stderr */
};
struct bench_tp_pair {
	enum bench_tp_kind kind;
	struct bench_testpmd a; /* vhost, memif server, net_dvshare's primary */
	struct bench_testpmd b; /* the side measured */
	char pa[96], pb[96];    /* their file prefixes */
	char sock[128];
	char plugdir[PATH_MAX]; /* a private copy of the plugin, or "" */
};
/* Start both, up to their prompts and the measured side's link up; @dev
 * is net_dvshare's software device. 0, or -1 with @why (stop it then). */
int bench_tp_start(struct bench_tp_pair *t, enum bench_tp_kind kind, const struct bench_ctx *x,
		   const char *dev, char *why, size_t wlen);
/* One round: forwarding started (tx_first 32 on the measured side), its
 * Rx-pps over @seconds, stopped. The rate, or -1 with @why. */
double bench_tp_round(struct bench_tp_pair *t, double seconds, char *why, size_t wlen);
/* End both and remove their files. */
void bench_tp_stop(struct bench_tp_pair *t);
const char *bench_tp_name(enum bench_tp_kind kind);

/* Secondaries: this program again (bench_spawn.c). */
struct bench_child {
	pid_t pid;
	int out;          /* its stdout */
	int in;           /* its stdin: closing it ends the waiting roles */
	size_t len;       /* bytes in buf */
	char buf[2048];
};
/* Start a secondary in @role on device @dev; @mode is the attach mode
 * (NULL: the default, eager); @index and @objects go to the child. */
int bench_spawn(struct bench_child *c, const struct bench_ctx *x, const char *dev,
		const char *role, const char *mode, int index, int objects);
/* The child's next "result ..." line (without the word), waiting up to
 * @timeout_s. 0, or -1 after saying why (it ended, or timed out). */
int bench_next_result(struct bench_child *c, char *line, size_t len, double timeout_s);
/* Write @line to the child's stdin. 0, or -1 after saying why. */
int bench_tell(struct bench_child *c, const char *line);
/* Close the child's stdin, keep its last "result ..." line (if @line),
 * reap it. 0 when it exited with 0, else -1 after saying why. */
int bench_collect(struct bench_child *c, char *line, size_t len);
/* Spawn, then collect: the one line of a child that runs and exits. */
/* Section 3's objects: VARs at most this many (the sim has 4,096 pages). */
#define BENCH_LOOKUP_VARS 4000u

int bench_run_child(const struct bench_ctx *x, const char *dev, const char *role,
		    const char *mode, int objects, char *line, size_t len);
/* Kill and reap every child still running (on failure). */
void bench_kill_children(void);

#endif
