/* SPDX-License-Identifier: BSD-3-Clause */
/* Section 4: a secondary's attach inside rte_eal_init() against the
 * number of published objects, in each attach mode: its wall time
 * (dvshare_stats.attach_ns) and its CPU time on the thread that runs it
 * (attach_cpu_ns: the waits for the primary cost none), each per object
 * less the same with no objects. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_bulk.h"
#include "bench.h"

enum { EAGER, LAZY, SELECTIVE, NMODES };
static const char *const mode_arg[NMODES] = { "eager", "lazy", BENCH_SELECTIVE };
static const char *const mode_name[NMODES] = { "eager", "lazy", "selective" };

static const unsigned int counts[] = { 0, 100, 1000, 10000 };
#define NCOUNTS (sizeof(counts) / sizeof(counts[0]))
#define NPOINTS (NCOUNTS + 1) /* + lazy at BIG */
#define BIG 100000u
#define BIG_VARS 4000u  /* of the device's 4096 VAR pages */
#define MAX_RUNS 64

struct point {
	unsigned int n;
	double eal_ms;
	double attach_ms;
	double per_obj_us;
	double cpu_ms;     /* dvshare_stats.attach_cpu_ns */
	double cpu_obj_us; /* (cpu(N) - cpu(0)) / N */
	unsigned long long imports;
};

static struct point pts[NMODES][NPOINTS];

/* One attach of a secondary in @mode: its eal_init and attach times (ms). */
static int attach_once(const struct bench_ctx *x, const char *dev, int mode, double *eal,
		       double *att, double *cpu, unsigned long long *imports)
{
	char line[256];
	unsigned int got_mode;
	int status;

	if (bench_run_child(x, dev, "attach", mode_arg[mode], 0, line, sizeof(line)) != 0)
		return -1;
	if (sscanf(line, "%lf %d %lf %llu %u %lf", eal, &status, att, imports, &got_mode, cpu) != 6 ||
	    status != 1 || got_mode != (unsigned int)mode) {
		bench_fail("%s attach on %s reported \"%s\" (want status 1 and mode %d)",
			   mode_name[mode], dev, line, mode);
		return -1;
	}
	*eal *= 1e3;
	*att *= 1e3;
	*cpu *= 1e3;
	return 0;
}

/* --runs attaches in each of @modes (interleaved), medians into pts[][p]. */
static int measure(const struct bench_ctx *x, const char *dev, unsigned int n, int p,
		   const int *modes, int nmodes)
{
	static double eal[NMODES][MAX_RUNS], att[NMODES][MAX_RUNS], cpu[NMODES][MAX_RUNS];
	unsigned long long imports = 0;

	for (int r = 0; r < x->o->runs; r++)
		for (int m = 0; m < nmodes; m++)
			if (attach_once(x, dev, modes[m], &eal[m][r], &att[m][r], &cpu[m][r],
					&imports) != 0)
				return -1;
			else
				pts[modes[m]][p].imports = imports;
	for (int m = 0; m < nmodes; m++) {
		struct point *pt = &pts[modes[m]][p];
		pt->n = n;
		pt->eal_ms = bench_median(eal[m], x->o->runs);
		pt->attach_ms = bench_median(att[m], x->o->runs);
		pt->cpu_ms = bench_median(cpu[m], x->o->runs);
	}
	return 0;
}

static int big_registry(const struct bench_ctx *x, unsigned int big)
{
	static const int both[] = { EAGER, LAZY };
	char name[32];
	struct dvshare_dev *dev;
	double t0 = bench_now();
	int rc;

	if (bench_dev_name(x, 1, name, sizeof(name)) != 0)
		return -1;
	dev = bench_dev_open(name, big + 64);
	if (dev == NULL)
		return -1;
	rc = bench_publish(dev, BENCH_BULK, 0, big, BIG_VARS);
	if (rc == 0) {
		printf("   (%s: %u objects published in %.1f s, max_objects %u, %u of them VARs)\n",
		       name, big, bench_now() - t0, big + 64, BIG_VARS);
		rc = measure(x, name, big, NCOUNTS, both, 2);
	}
	if (bench_dev_close(dev) != 0)
		rc = -1;
	return rc;
}

static void print_mode(int m, int npts)
{
	const struct point *base = &pts[m][0];

	bj_obj(mode_name[m]);
	bj_arr("points");
	for (int p = 0; p < npts; p++) {
		struct point *pt = &pts[m][p];
		char per[32] = "-", cpu[32] = "-";
		if (pt->n > 0) {
			pt->per_obj_us = (pt->attach_ms - base->attach_ms) * 1e3 / pt->n;
			pt->cpu_obj_us = (pt->cpu_ms - base->cpu_ms) * 1e3 / pt->n;
			snprintf(per, sizeof(per), "%.3f", pt->per_obj_us);
			snprintf(cpu, sizeof(cpu), "%.3f", pt->cpu_obj_us);
		}
		printf("   %-10s %8u %12.2f %10.3f %14s %14s %9llu\n", p == 0 ? mode_name[m] : "",
		       pt->n, pt->eal_ms, pt->attach_ms, per, cpu, pt->imports);
		bj_obj(NULL);
		bj_int("objects", pt->n);
		bj_num("eal_init_ms", pt->eal_ms);
		bj_num("attach_ms", pt->attach_ms);
		bj_num("attach_cpu_ms", pt->cpu_ms);
		if (pt->n > 0) {
			bj_num("per_object_us", pt->per_obj_us);
			bj_num("cpu_per_object_us", pt->cpu_obj_us);
		}
		bj_int("imports", (long long)pt->imports);
		bj_end();
	}
	bj_end();
	bj_end();
}

int bench_s4_attach(struct bench_ctx *x)
{
	static const int all[] = { EAGER, LAZY, SELECTIVE };
	unsigned int published = 0, big = x->o->quick ? 20000 : BIG;
	struct dvshare_dev *dev;
	double lo = 1e30, hi = 0;
	int rc = 0;

	if (x->o->runs > MAX_RUNS)
		return -1;
	printf("\n4. Secondary attach inside rte_eal_init() vs objects published, per attach mode,"
	       " median of %d\n", x->o->runs);
	printf("   (attach: dvshare_stats.attach_ns; per object: (attach(N) - attach(0)) / N;\n"
	       "    CPU/object: the same with dvshare_stats.attach_cpu_ns, the attach's CPU time;\n"
	       "    objects: a quarter each VARs, UMEMs, flow counters, PDs; selective: %s)\n",
	       BENCH_SELECTIVE);
	dev = bench_dev_open(x->o->dev, 0);
	if (dev == NULL)
		return -1;
	for (size_t c = 0; rc == 0 && c < NCOUNTS; c++) {
		if (counts[c] > published) {
			rc = bench_publish(dev, BENCH_BULK, published, counts[c] - published,
					   APP_BULK_ALL_VARS);
			published = counts[c];
		}
		if (rc == 0)
			rc = measure(x, x->o->dev, counts[c], (int)c, all, NMODES);
	}
	if (bench_dev_close(dev) != 0 || rc != 0)
		return -1;
	if (big_registry(x, big) != 0)
		return -1;
	printf("   %-10s %8s %12s %10s %14s %14s %9s\n", "mode", "objects", "eal_init ms",
	       "attach ms", "per object us", "CPU/object us", "imported");
	bj_int("runs", x->o->runs);
	bj_str("selective", BENCH_SELECTIVE);
	bj_obj("modes");
	for (int m = 0; m < NMODES; m++)
		print_mode(m, m == SELECTIVE ? (int)NCOUNTS : (int)NPOINTS);
	bj_end();
	/* Flatness in CPU time from 1,000 objects to the largest registry.
	 * That one has fewer VARs (the software device has 4,096 VAR pages):
	 * the two mixes give a cost per kind, which says whether a VAR still
	 * costs more than the rest (it did while imports mapped it). */
	for (size_t c = 2; c <= NCOUNTS; c++) {
		lo = pts[EAGER][c].cpu_obj_us < lo ? pts[EAGER][c].cpu_obj_us : lo;
		hi = pts[EAGER][c].cpu_obj_us > hi ? pts[EAGER][c].cpu_obj_us : hi;
	}
	printf("   eager CPU per object from 1,000 to %u objects: %.3f to %.3f us, "
	       "max/min %.2f\n", big, lo, hi, hi / lo);
	const double fs = 0.25, fb = (double)BIG_VARS / big;
	const double ys = pts[EAGER][NCOUNTS - 1].cpu_obj_us, yb = pts[EAGER][NCOUNTS].cpu_obj_us;
	const double var_us = (ys - yb) / (fs - fb), other_us = ys - fs * var_us;
	printf("   eager at %u objects (%.0f %% VARs): %.3f us CPU per object; by kind, from it and "
	       "10,000 (a quarter VARs): a VAR %.2f us, another object %.3f us\n", big, fb * 100, yb,
	       var_us, other_us);
	bj_num("cpu_per_var_us", var_us);
	bj_num("cpu_per_other_us", other_us);
	printf("   lazy at %u objects (max_objects %u): %.3f ms, %.2fx the empty registry\n",
	       big, big + 64, pts[LAZY][NCOUNTS].attach_ms,
	       pts[LAZY][NCOUNTS].attach_ms / pts[LAZY][0].attach_ms);
	bj_num("eager_flatness_max_min", hi / lo);
	bj_num("lazy_big_over_empty", pts[LAZY][NCOUNTS].attach_ms / pts[LAZY][0].attach_ms);
	bench_goal(4, "eager attach at 10,000 objects", pts[EAGER][NCOUNTS - 1].attach_ms, 10,
		   "ms");
	const char *flat = big == BIG ? "eager CPU per object 1,000..100,000, max/min" :
					"eager CPU per object 1,000..20,000 (quick), max/min";
	char flat_goal[96];
	snprintf(flat_goal, sizeof(flat_goal), "%s <= 1.2 x", flat);
	if (lo > 0)
		bench_goal(4, flat, hi / lo, 1.2, "x");
	else /* attach(0) outlasted a larger one: noise beyond the per-object cost */
		bench_goal_unmeasured(4, flat_goal, "a per-object figure came out <= 0 (attach(0) "
				      "took longer than attach(N): more --runs)");
	bench_goal(4, big == BIG ? "lazy attach at 100,000 objects" : "lazy attach at 20,000 "
		   "objects (quick)", pts[LAZY][NCOUNTS].attach_ms, 1, "ms");
	bench_goal(4, "lazy attach, largest / empty registry", pts[LAZY][NCOUNTS].attach_ms /
		   pts[LAZY][0].attach_ms, 1.2, "x");
	return 0;
}
