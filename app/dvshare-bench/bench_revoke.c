/* SPDX-License-Identifier: BSD-3-Clause */
/* Sections 5 and 6: destroying what secondaries hold, one object at a time
 * and in one revoke round. */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <rte_errno.h>

#include "app_bulk.h"
#include "bench.h"

#define MAX_IDLE 8

/* Start @n eager secondaries that stay attached. */
static int start_idle(const struct bench_ctx *x, const char *dev, struct bench_child *kids, int n)
{
	char line[128];
	int status;

	for (int i = 0; i < n; i++) {
		if (bench_spawn(&kids[i], x, dev, "idle", "eager", i, 0) != 0 ||
		    bench_next_result(&kids[i], line, sizeof(line), 60) != 0)
			return -1;
		if (sscanf(line, "ready %d", &status) != 1 || status != 1) {
			bench_fail("idle secondary %d reported \"%s\"", (int)kids[i].pid, line);
			return -1;
		}
	}
	return 0;
}

/* Let them go; each says how many CLOSED events it saw. */
static int stop_idle(struct bench_child *kids, int n, unsigned int want_closed)
{
	char line[128];
	unsigned int closed;
	int rc = 0;

	for (int i = 0; i < n; i++) {
		if ((want_closed && bench_tell(&kids[i], "closed\n") != 0) ||
		    bench_collect(&kids[i], line, sizeof(line)) != 0) {
			rc = -1;
		} else if (sscanf(line, "done %u", &closed) != 1 || closed != want_closed) {
			bench_fail("secondary %d reported \"%s\" (want done %u)", (int)kids[i].pid,
				   line, want_closed);
			rc = -1;
		}
	}
	return rc;
}

static int publish_vars(struct dvshare_dev *dev, const char *fmt, int n, int rounds)
{
	char name[DVSHARE_NAME_MAX];

	for (int i = 0; i < rounds; i++) {
		snprintf(name, sizeof(name), fmt, n, i);
		struct dvshare_var *v = dvshare_var_alloc(dev, name, 0);
		if (v == NULL) {
			bench_fail("dvshare_var_alloc(%s): %s", name, rte_strerror(rte_errno));
			return -1;
		}
		dvshare_var_release(v);
	}
	return 0;
}

/* A secondary SIGSTOPped: @n publishes with it running (baseline) and
 * stopped, seconds each, and how long a destroy it must answer takes with
 * a @timeout_ms timeout (it must end in -EBUSY by then). */
static int stopped_peer(const struct bench_ctx *x, struct dvshare_dev *dev, int n,
			unsigned int timeout_ms, double *run_s, double *stop_s, double *destroy_s)
{
	struct bench_child kid;
	struct dvshare_var *held = dvshare_var_alloc(dev, "held", 0);
	int rc;

	if (held == NULL) {
		bench_fail("dvshare_var_alloc(held): %s", rte_strerror(rte_errno));
		return -1;
	}
	dvshare_var_release(held);
	if (start_idle(x, x->o->dev, &kid, 1) != 0)
		return -1;
	double t0 = bench_now();
	if (publish_vars(dev, "pr%d_%d", 0, n) != 0)
		return -1;
	*run_s = bench_now() - t0;
	kill(kid.pid, SIGSTOP);
	t0 = bench_now();
	rc = publish_vars(dev, "ps%d_%d", 0, n);
	*stop_s = bench_now() - t0;
	t0 = bench_now();
	int busy = dvshare_destroy(dev, "held", timeout_ms);
	*destroy_s = bench_now() - t0;
	kill(kid.pid, SIGCONT);
	if (rc != 0)
		return -1;
	if (busy != -EBUSY) {
		bench_fail("destroy held by a stopped secondary: %s (want -EBUSY)", strerror(-busy));
		return -1;
	}
	rc = dvshare_destroy(dev, "held", BENCH_TIMEOUT_MS);
	if (rc != 0) {
		bench_fail("destroy of held once its secondary runs again: %s", strerror(-rc));
		return -1;
	}
	return stop_idle(&kid, 1, 0);
}

int bench_s5_revoke(struct bench_ctx *x)
{
	static const int nsec[] = { 1, 4, 8 };
	const int rounds = x->o->quick ? 50 : 200;
	struct bench_child kids[MAX_IDLE];
	double lat[200], med[3], p99[3], max[3];
	struct dvshare_dev *dev = bench_dev_open(x->o->dev, 0);
	char name[DVSHARE_NAME_MAX];

	if (dev == NULL)
		return -1;
	for (size_t k = 0; k < 3; k++) {
		int n = nsec[k], rc;

		if (publish_vars(dev, "rv%d_%d", n, rounds) != 0 ||
		    start_idle(x, x->o->dev, kids, n) != 0)
			return -1;
		for (int i = 0; i < rounds; i++) {
			snprintf(name, sizeof(name), "rv%d_%d", n, i);
			double t0 = bench_now();
			rc = dvshare_destroy(dev, name, BENCH_TIMEOUT_MS);
			lat[i] = (bench_now() - t0) * 1e6;
			if (rc != 0) {
				bench_fail("dvshare_destroy(%s) with %d secondaries: %s", name, n,
					   strerror(-rc));
				return -1;
			}
		}
		if (stop_idle(kids, n, 0) != 0)
			return -1;
		med[k] = bench_median(lat, rounds);
		p99[k] = bench_percentile(lat, rounds, 99);
		max[k] = lat[rounds - 1];
	}
	const int npub = x->o->quick ? 500 : 2000;
	const unsigned int stop_timeout_ms = 200;
	double run_s, stop_s, destroy_s;
	if (stopped_peer(x, dev, npub, stop_timeout_ms, &run_s, &stop_s, &destroy_s) != 0)
		return -1;
	if (bench_dev_close(dev) != 0)
		return -1;
	printf("\n5. dvshare_destroy() of a VAR every secondary imported, %d destroys per row\n",
	       rounds);
	printf("   (%d cores; the secondaries are idle processes sharing them with the primary)\n",
	       x->cores);
	printf("   %12s %12s %12s %12s\n", "secondaries", "median us", "p99 us", "max us");
	bj_int("cores", x->cores);
	bj_int("destroys", rounds);
	bj_arr("rows");
	for (size_t k = 0; k < 3; k++) {
		printf("   %12d %12.1f %12.1f %12.1f\n", nsec[k], med[k], p99[k], max[k]);
		bj_obj(NULL);
		bj_int("secondaries", nsec[k]);
		bj_num("median_us", med[k]);
		bj_num("p99_us", p99[k]);
		bj_num("max_us", max[k]);
		bj_end();
	}
	bj_end();
	printf("   one secondary SIGSTOPped (it reads nothing; doc/protocol.md, \"The channel\"):\n");
	printf("   %d publishes %.1f ms, with it running %.1f ms (%.2fx); a destroy it must\n",
	       npub, stop_s * 1e3, run_s * 1e3, stop_s / run_s);
	printf("   answer: -EBUSY after %.1f ms, timeout %u ms\n", destroy_s * 1e3, stop_timeout_ms);
	bj_obj("stopped_peer");
	bj_int("publishes", npub);
	bj_num("publish_running_ms", run_s * 1e3);
	bj_num("publish_stopped_ms", stop_s * 1e3);
	bj_num("destroy_busy_ms", destroy_s * 1e3);
	bj_int("destroy_timeout_ms", stop_timeout_ms);
	bj_end();
	bench_goal(5, "revoke p99 with 8 secondaries", p99[2] * 1e-3, 1, "ms");
	bench_goal(5, "publishes with a stopped secondary / running", stop_s / run_s, 1.5, "x");
	bench_goal(5, "destroy a stopped secondary holds, 200 ms timeout", destroy_s * 1e3, 250,
		   "ms");
	return 0;
}

/* dvshare_destroy() of @n objects one at a time, then dvshare_destroy_many()
 * of @n others: seconds each. */
static int destroy_both(struct dvshare_dev *dev, int n, double *one, double *many)
{
	char (*names)[DVSHARE_NAME_MAX] = calloc((size_t)n, sizeof(*names));
	const char **ptrs = calloc((size_t)n, sizeof(*ptrs));
	int rc = -1;
	double t0;

	if (names == NULL || ptrs == NULL)
		goto out;
	t0 = bench_now();
	for (int i = 0; i < n; i++) {
		snprintf(names[i], DVSHARE_NAME_MAX, "s%d", i);
		rc = dvshare_destroy(dev, names[i], BENCH_TIMEOUT_MS);
		if (rc != 0) {
			bench_fail("dvshare_destroy(%s): %s", names[i], strerror(-rc));
			goto out;
		}
	}
	*one = bench_now() - t0;
	for (int i = 0; i < n; i++) {
		snprintf(names[i], DVSHARE_NAME_MAX, "m%d", i);
		ptrs[i] = names[i];
	}
	t0 = bench_now();
	rc = dvshare_destroy_many(dev, ptrs, (unsigned int)n, BENCH_TIMEOUT_MS);
	*many = bench_now() - t0;
	if (rc != n) {
		bench_fail("dvshare_destroy_many(%d objects): %s", n,
			   rc < 0 ? strerror(-rc) : "not all destroyed");
		rc = -1;
		goto out;
	}
	rc = 0;
out:
	free(names);
	free(ptrs);
	return rc;
}

/* Look up objects [0, @n) of BENCH_BULK and keep them (@hold), or
 * release what was kept (!@hold). 0, or -1 when a lookup failed. */
static int hold_all(struct dvshare_dev *dev, unsigned int n, void **h, int hold)
{
	char nm[DVSHARE_NAME_MAX];

	for (unsigned int i = 0; i < n; i++) {
		enum app_bulk_kind k = app_bulk_kind(i, BENCH_LOOKUP_VARS);
		snprintf(nm, sizeof(nm), "%s%u", BENCH_BULK, i);
		if (k == APP_BULK_VAR)
			hold ? (void)(h[i] = dvshare_var_lookup(dev, nm)) : dvshare_var_release(h[i]);
		else if (k == APP_BULK_UMEM)
			hold ? (void)(h[i] = dvshare_umem_lookup(dev, nm)) : dvshare_umem_release(h[i]);
		else
			hold ? (void)(h[i] = dvshare_obj_lookup(dev, nm)) : dvshare_obj_release(h[i]);
		if (hold && h[i] == NULL) {
			bench_fail("lookup of %s: %s", nm, rte_strerror(rte_errno));
			return -1;
		}
	}
	return 0;
}

/* ms for dvshare_dev_close() of @n objects with @nsec (0 or 1) eager
 * secondaries attached; with @held, the primary's application holds a
 * handle of each object through the close (releasing them after). */
static int close_point(struct bench_ctx *x, const char *name, unsigned int n, int nsec,
		       int held, double *ms)
{
	struct bench_child kid;
	struct dvshare_dev *dev = bench_dev_open(name, n > 16384 ? n : 0);
	void **h = held ? calloc(n, sizeof(*h)) : NULL;
	double t;
	int rc = -1;

	if (dev == NULL || (held && h == NULL) ||
	    bench_publish(dev, BENCH_BULK, 0, n, BENCH_LOOKUP_VARS) != 0 ||
	    (held && hold_all(dev, n, h, 1) != 0) ||
	    (nsec != 0 && start_idle(x, name, &kid, 1) != 0))
		goto out;
	t = bench_now();
	if (bench_dev_close(dev) != 0)
		goto out;
	*ms = (bench_now() - t) * 1e3;
	if (held)
		(void)hold_all(dev, n, h, 0);
	rc = nsec != 0 ? stop_idle(&kid, 1, 1) : 0;
out:
	free(h);
	return rc;
}

/* The control for (c), without dvshare: ns per object of a walk over
 * @n objects' worth of memory just written, newest first, as a close
 * walks what a publish wrote. Per object two 512-byte records (the
 * registry entry and the device's kernel object are 320 bytes each;
 * the handle and the glue's struct), two lines read and one word written
 * in each, and one 8-byte word written at a random place of an index
 * (the registry's slot). At 10,000 objects this fits the caches; at
 * 100,000 it does not. -1 if the memory cannot be had. */
static double memory_walk_ns(size_t n)
{
	const size_t rec = 512, len = n * rec, words = 4 * n;
	char *a = malloc(len), *b = malloc(len);
	uint64_t *ix = malloc(words * sizeof(*ix));
	uint32_t *at = malloc(n * sizeof(*at));
	uint64_t r = 0x9e3779b97f4a7c15ull, sum = 0;
	double t = -1;

	if (a != NULL && b != NULL && ix != NULL && at != NULL) {
		memset(a, 1, len);
		memset(b, 2, len);
		memset(ix, 0, words * sizeof(*ix));
		for (size_t i = 0; i < n; i++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			at[i] = (uint32_t)(r % words);
		}
		t = bench_now();
		for (size_t k = n; k-- > 0;) {
			volatile char *p = a + k * rec, *q = b + k * rec;
			sum += (uint64_t)(p[0] + p[256] + q[0] + q[128]);
			p[8] = 0;
			q[8] = 0;
			ix[at[k]] = sum;
		}
		t = (bench_now() - t) * 1e9 / (double)n;
	}
	free(a);
	free(b);
	free(ix);
	free(at);
	return t;
}

/* Section 6 (c): the close against the object count, alone and with one
 * secondary (and with the primary holding handles): it should grow in
 * proportion. Each figure is the median of --runs closes. */
static int close_curve(struct bench_ctx *x, const char *name)
{
	static const unsigned int counts[] = { 1000, 10000, 100000 };
	static const char *const cols[] = { "no secondary", "one secondary",
					    "one, handles held" };
	const int npts = x->o->quick ? 2 : 3, runs = x->o->runs < 1 ? 1 : x->o->runs > 5 ? 5 : x->o->runs;
	double ms[3][3], v[5], walk[2][5], cliff;
	char what[96];

	for (int i = 0; i < npts; i++)
		for (int k = 0; k < 3; k++) {
			for (int r = 0; r < runs; r++)
				if (close_point(x, name, counts[i], k != 0, k == 2, &v[r]) != 0)
					return -1;
			ms[i][k] = bench_median(v, runs);
		}
	printf("   (c) dvshare_dev_close() against the object count, ms, median of %d (held: the "
	       "primary's application holds a handle of each object through the close):\n", runs);
	printf("       %-10s %14s %14s %18s\n", "objects", cols[0], cols[1], cols[2]);
	for (int i = 0; i < npts; i++)
		printf("       %-10u %14.1f %14.1f %18.1f\n", counts[i], ms[i][0], ms[i][1],
		       ms[i][2]);
	bj_arr("close_curve");
	for (int i = 0; i < npts; i++) {
		bj_obj(NULL);
		bj_int("objects", counts[i]);
		bj_num("alone_ms", ms[i][0]);
		bj_num("one_secondary_ms", ms[i][1]);
		bj_num("held_ms", ms[i][2]);
		bj_end();
	}
	bj_end();
	if (npts < 3)
		return 0;
	for (int r = 0; r < runs; r++) {
		walk[0][r] = memory_walk_ns(10000);
		walk[1][r] = memory_walk_ns(100000);
	}
	cliff = bench_median(walk[1], runs) / bench_median(walk[0], runs);
	printf("   control, no dvshare: a walk of 1 KiB per object just written (two lines read and "
	       "a word written in each 512 bytes, a random word in an index), newest first: "
	       "%.1f ns per object at 10,000, %.1f at 100,000; 100,000 / 10,000 = %.1fx: "
	       "the caches' part of a ratio of the closes\n",
	       bench_median(walk[0], runs), bench_median(walk[1], runs), 10 * cliff);
	bj_num("control_walk_ratio", 10 * cliff);
	for (int k = 0; k < 3; k++) {
		snprintf(what, sizeof(what), "close of 100,000 / close of 10,000, %s", cols[k]);
		bench_goal(6, what, ms[2][k] / ms[1][k], 12, "x");
	}
	return 0;
}

/* Page faults of this process so far (minor and major). */
static long faults_now(void)
{
	struct rusage ru;

	return getrusage(RUSAGE_SELF, &ru) == 0 ? ru.ru_minflt + ru.ru_majflt : 0;
}

int bench_s6_batch(struct bench_ctx *x)
{
	const int objs = 10000, n = x->o->quick ? 200 : 1000, nsec = MAX_IDLE;
	struct bench_child kids[MAX_IDLE];
	double one = 0, many = 0, close_s;
	struct dvshare_dev *dev;
	char name[32];

	if (bench_dev_name(x, 2, name, sizeof(name)) != 0)
		return -1;
	/* Baseline: the same close with nobody attached (kernel objects
	 * destroyed, nothing to revoke). */
	double alone_s;
	long alone_faults, close_faults;
	dev = bench_dev_open(name, 0);
	if (dev == NULL || bench_publish(dev, BENCH_BULK, 0, objs, APP_BULK_ALL_VARS) != 0)
		return -1;
	alone_faults = faults_now();
	alone_s = bench_now();
	if (bench_dev_close(dev) != 0)
		return -1;
	alone_s = bench_now() - alone_s;
	alone_faults = faults_now() - alone_faults;
	dev = bench_dev_open(name, 0);
	if (dev == NULL || bench_publish(dev, BENCH_BULK, 0, objs, APP_BULK_ALL_VARS) != 0 ||
	    bench_publish(dev, "s", 0, n, APP_BULK_ALL_VARS) != 0 ||
	    bench_publish(dev, "m", 0, n, APP_BULK_ALL_VARS) != 0 ||
	    start_idle(x, name, kids, nsec) != 0 || destroy_both(dev, n, &one, &many) != 0)
		return -1;
	close_faults = faults_now();
	close_s = bench_now();
	if (bench_dev_close(dev) != 0)
		return -1;
	close_s = bench_now() - close_s;
	close_faults = faults_now() - close_faults;
	if (stop_idle(kids, nsec, 1) != 0)
		return -1;
	printf("\n6. Batched destroy on %s, %d eager secondaries attached (each imported all)\n",
	       name, nsec);
	printf("   (a) dvshare_dev_close() of %d objects: %.1f ms\n",
	       objs, close_s * 1e3);
	printf("       baseline, the same close with no secondary attached: %.1f ms (%.1fx)\n",
	       alone_s * 1e3, close_s / alone_s);
	/* The secondaries are spawned, not forked (bench_spawn.c): a fork
	 * would make the primary's writes here fault page by page. */
	printf("       page faults in the primary during the close: %ld; alone: %ld\n",
	       close_faults, alone_faults);
	bench_goal(6, "dvshare_dev_close, 10,000 objects, 8 secondaries", close_s * 1e3, 100,
		   "ms");
	bench_goal(6, "that close / the same close with no secondary", close_s / alone_s, 2, "x");
	printf("   (b) %d objects (a quarter each VARs, UMEMs, counters, PDs):\n", n);
	printf("       %-44s %10.1f ms  (%.0f us each)\n", "one by one, dvshare_destroy", one * 1e3,
	       one * 1e6 / n);
	printf("       %-44s %10.1f ms\n", "one dvshare_destroy_many", many * 1e3);
	printf("       ratio one-by-one / batched %.0fx\n", one / many);
	bj_str("device", name);
	bj_int("secondaries", nsec);
	bj_int("close_objects", objs);
	bj_num("close_ms", close_s * 1e3);
	bj_num("close_alone_ms", alone_s * 1e3);
	bj_int("close_faults", close_faults);
	bj_int("close_alone_faults", alone_faults);
	bj_int("batch_objects", n);
	bj_num("one_by_one_ms", one * 1e3);
	bj_num("destroy_many_ms", many * 1e3);
	bj_num("ratio", one / many);
	return close_curve(x, name);
}
