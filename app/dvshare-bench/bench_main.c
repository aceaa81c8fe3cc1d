/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dvshare-bench: what sharing buys, measured in one run.
 *
 *   1. doorbells/s through dvshare_doorbell32() from a secondary, the same
 *      loop in the primary, and a plain store loop on a private page;
 *   2. a secondary's rte_eal_init() time (which contains the dvshare attach)
 *      with 0, 100, 1000 and 10000 published objects, and the cost per object;
 *   3. the doorbell as an application without dvshare delivers it: one
 *      rte_mp request to the primary per doorbell;
 *   4. dvshare_destroy() latency (revoke in every secondary, then destroy)
 *      with 1, 4 and 8 secondaries holding the object.
 *
 * Usage: dvshare-bench [EAL options] -- [--dev sim0] [--seconds 0.5]
 *                      [--objects 0,100,1000,10000] [--runs 3]
 * The secondaries are this program again, started on the same file prefix.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "app_bulk.h"
#include "bench.h"
#include "dvshare.h"

#define MAX_COUNTS 8

struct opts {
	const char *role;
	const char *dev;
	double seconds;
	unsigned int counts[MAX_COUNTS];
	int ncounts;
	int runs;
};

static int parse_counts(struct opts *o, char *list)
{
	o->ncounts = 0;
	for (char *t = strtok(list, ","); t != NULL; t = strtok(NULL, ",")) {
		if (o->ncounts == MAX_COUNTS)
			return -1;
		o->counts[o->ncounts++] = (unsigned int)strtoul(t, NULL, 10);
	}
	return o->ncounts > 0 ? 0 : -1;
}

static int parse_opts(int argc, char **argv, struct opts *o)
{
	static const struct option lo[] = {
		{ "role", required_argument, NULL, 'r' },
		{ "dev", required_argument, NULL, 'd' },
		{ "seconds", required_argument, NULL, 's' },
		{ "objects", required_argument, NULL, 'o' },
		{ "runs", required_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	char defcounts[] = "0,100,1000,10000";
	int c;

	o->role = "primary";
	o->dev = BENCH_DEV_DEFAULT;
	o->seconds = 0.5;
	o->runs = 3;
	parse_counts(o, defcounts);
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'r': o->role = optarg; break;
		case 'd': o->dev = optarg; break;
		case 's': o->seconds = atof(optarg); break;
		case 'n': o->runs = atoi(optarg); break;
		case 'o':
			if (parse_counts(o, optarg) != 0)
				return -1;
			break;
		default: return -1;
		}
	}
	return o->seconds > 0 && o->runs > 0 ? 0 : -1;
}

/* The --file-prefix the primary was started with (secondaries need it). */
static const char *file_prefix(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		if (strncmp(argv[i], "--file-prefix=", 14) == 0)
			return argv[i] + 14;
		if (strcmp(argv[i], "--file-prefix") == 0 && i + 1 < argc)
			return argv[i + 1];
		if (strcmp(argv[i], "--") == 0)
			break;
	}
	return "rte";
}

/* Secondary roles: print one "result ..." line. */
static int run_secondary(const struct opts *o, double eal_seconds)
{
	struct dvshare_dev *dev;
	struct dvshare_var *v;

	if (strcmp(o->role, "attach") == 0) {
		struct dvshare_stats st;
		dvshare_stats_get(&st);
		printf("result %.6f %d %.6f\n", eal_seconds, st.attach_status,
		       (double)st.attach_ns * 1e-9);
		return 0;
	}
	if (strcmp(o->role, "mp") == 0) {
		printf("result %.1f\n", bench_mp_doorbell(o->seconds));
		return 0;
	}
	if (strcmp(o->role, "idle") == 0) {
		/* Attached (everything imported): stay until stdin closes. */
		char buf[64];
		printf("result ready %d\n", dvshare_attach_status());
		fflush(stdout);
		while (fgets(buf, sizeof(buf), stdin) != NULL)
			;
		printf("result done\n");
		return 0;
	}
	dev = dvshare_dev_lookup(o->dev);
	v = dev != NULL ? dvshare_var_lookup(dev, BENCH_DB_NAME) : NULL;
	if (v == NULL) {
		fprintf(stderr, "bench: no %s on %s: %s\n", BENCH_DB_NAME, o->dev,
			rte_strerror(rte_errno));
		return 1;
	}
	printf("result %.1f\n", bench_doorbell(dvshare_var_doorbell(v), o->seconds));
	dvshare_var_release(v);
	return 0;
}

/* Run a secondary in @role; its first value, its status and (attach
 * role) its attach time in *extra. */
static double child_value(const char *self, const char *prefix, const struct opts *o,
			  const char *role, int *status, double *extra)
{
	struct bench_child c;
	char line[256];
	double v = -1, x = -1;

	if (bench_spawn(&c, self, prefix, o->dev, role, o->seconds) != 0 ||
	    bench_collect(&c, line, sizeof(line)) != 0)
		return -1;
	if (sscanf(line, "%lf %d %lf", &v, status, &x) < 1)
		return -1;
	if (extra != NULL)
		*extra = x;
	return v;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

static int bench_doorbells(const char *self, const char *prefix, const struct opts *o,
			   void *db)
{
	int st = 0;
	double priv = bench_private_store(o->seconds);
	double prim = bench_doorbell(db, o->seconds);
	double sec = child_value(self, prefix, o, "doorbell", &st, NULL);
	double mp = child_value(self, prefix, o, "mp", &st, NULL);

	if (sec <= 0 || mp <= 0) {
		fprintf(stderr, "bench: a secondary failed\n");
		return -1;
	}
	printf("\n1. Doorbell writes (%.2f s each)\n", o->seconds);
	printf("   %-44s %14.0f /s\n", "private page, plain volatile store", priv);
	printf("   %-44s %14.0f /s\n", "primary, dvshare_doorbell32 on VAR page", prim);
	printf("   %-44s %14.0f /s\n", "secondary, dvshare_doorbell32 on import", sec);
	printf("   ratio secondary/primary   %.3f\n", sec / prim);
	printf("   ratio secondary/private   %.3f\n", sec / priv);
	printf("\n3. Doorbell without dvshare (rte_mp request to the primary per doorbell)\n");
	printf("   %-44s %14.0f /s\n", "secondary, rte_mp_request_sync per doorbell", mp);
	printf("   ratio dvshare/rte_mp      %.0f x\n", sec / mp);
	return 0;
}

static double median(double *v, int n)
{
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return v[n / 2];
}

static int bench_attach(const char *self, const char *prefix, const struct opts *o,
			struct dvshare_dev *dev)
{
	unsigned int published = 0;
	double base = -1;

	printf("\n2. Secondary attach inside rte_eal_init(), median of %d\n", o->runs);
	printf("   (per object: (attach(N) - attach(0)) / N)\n");
	printf("   %10s %14s %12s %16s\n", "objects", "eal_init ms", "attach ms", "per object us");
	for (int i = 0; i < o->ncounts; i++) {
		unsigned int n = o->counts[i];
		double t[16], a[16];
		int runs = o->runs < 16 ? o->runs : 16, st = -1;

		if (n > published) {
			int rc = app_bulk_publish(dev, "o", published, n - published);
			if (rc != 0) {
				fprintf(stderr, "bench: publishing %u objects: %s\n", n, strerror(-rc));
				return -1;
			}
			published = n;
		}
		for (int r = 0; r < runs; r++) {
			t[r] = child_value(self, prefix, o, "attach", &st, &a[r]);
			if (t[r] < 0 || st != 1) {
				fprintf(stderr, "bench: attach run failed (status %d)\n", st);
				return -1;
			}
		}
		double tm = median(t, runs), am = median(a, runs);
		if (n == 0)
			base = am;
		if (n > 0 && base >= 0)
			printf("   %10u %14.2f %12.2f %16.2f\n", n, tm * 1e3, am * 1e3,
			       (am - base) / n * 1e6);
		else
			printf("   %10u %14.2f %12.2f %16s\n", n, tm * 1e3, am * 1e3, "-");
	}
	return 0;
}

static int bench_revoke(const char *self, const char *prefix, const struct opts *o,
			struct dvshare_dev *dev)
{
	static const int nsec[] = { 1, 4, 8 };
	const int rounds = 200;

	printf("\n4. dvshare_destroy() of a VAR every secondary imported, %d destroys each\n",
	       rounds);
	printf("   %12s %12s %12s %12s\n", "secondaries", "median us", "p99 us", "max us");
	for (size_t k = 0; k < sizeof(nsec) / sizeof(nsec[0]); k++) {
		struct bench_child kids[8];
		double lat[256];
		char name[32], line[64];
		int n = nsec[k], ok = 1;

		for (int i = 0; i < rounds; i++) {
			snprintf(name, sizeof(name), "rv%d_%d", n, i);
			struct dvshare_var *v = dvshare_var_alloc(dev, name, 0);
			if (v == NULL)
				return -1;
			dvshare_var_release(v);
		}
		for (int i = 0; i < n; i++)
			if (bench_spawn(&kids[i], self, prefix, o->dev, "idle", o->seconds) != 0 ||
			    bench_next_result(&kids[i], line, sizeof(line)) != 0)
				ok = 0;
		for (int i = 0; ok && i < rounds; i++) {
			snprintf(name, sizeof(name), "rv%d_%d", n, i);
			double t0 = bench_now();
			if (dvshare_destroy(dev, name, 5000) != 0)
				ok = 0;
			lat[i] = (bench_now() - t0) * 1e6;
		}
		for (int i = 0; i < n; i++)
			ok &= bench_collect(&kids[i], line, sizeof(line)) == 0;
		if (!ok) {
			fprintf(stderr, "bench: revoke round with %d secondaries failed\n", n);
			return -1;
		}
		median(lat, rounds); /* sorts */
		printf("   %12d %12.1f %12.1f %12.1f\n", n, lat[rounds / 2], lat[rounds * 99 / 100],
		       lat[rounds - 1]);
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *prefix = file_prefix(argc, argv);
	char self[PATH_MAX];
	struct opts o;
	double t0 = bench_now();
	int ret = rte_eal_init(argc, argv);
	double eal = bench_now() - t0;

	if (ret < 0) {
		fprintf(stderr, "bench: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (parse_opts(argc - ret, argv + ret, &o) != 0) {
		fprintf(stderr, "usage: %s [EAL options] -- [--dev NAME] [--seconds S] "
				"[--objects N,N,...] [--runs R]\n", argv[0]);
		return 2;
	}
	if (rte_eal_process_type() == RTE_PROC_SECONDARY)
		return run_secondary(&o, eal);

	ssize_t l = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (l <= 0)
		return 1;
	self[l] = '\0';
	struct dvshare_dev *dev = dvshare_dev_open(o.dev, NULL);
	struct dvshare_var *v = dev != NULL ? dvshare_var_alloc(dev, BENCH_DB_NAME, 0) : NULL;
	if (v == NULL || bench_mp_serve(dvshare_var_doorbell(v)) != 0) {
		fprintf(stderr, "bench: cannot set up %s: %s\n", o.dev, rte_strerror(rte_errno));
		return 1;
	}
	printf("dvshare-bench on %s (file prefix %s)\n", o.dev, prefix);
	ret = bench_doorbells(self, prefix, &o, dvshare_var_doorbell(v));
	if (ret == 0)
		ret = bench_attach(self, prefix, &o, dev);
	if (ret == 0)
		ret = bench_revoke(self, prefix, &o, dev);
	dvshare_var_release(v);
	dvshare_dev_close(dev);
	rte_eal_cleanup();
	return ret == 0 ? 0 : 1;
}
