/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Section 7: 64 secondaries on one device of 10,000 objects, in each
 * attach mode, all ringing a VAR and querying a flow counter; then the
 * primary closes the device under them, and nothing may be left behind:
 * its file descriptors and mappings as before, the device's kernel
 * objects back to where they started.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <infiniband/verbs.h>

#include "app_bulk.h"
#include "bench.h"
#include "dvs_sim.h"

#define MAX_KIDS 64
#define WAVE 8
#define OBJECTS 10000

enum { EAGER, LAZY, SELECTIVE, NMODES };
static const char *const mode_arg[NMODES] = { "eager", "lazy", BENCH_SELECTIVE };
static const char *const mode_name[NMODES] = { "eager", "lazy", "selective" };

struct row {
	double attach_ms[MAX_KIDS], rss_mib[MAX_KIDS], maps[MAX_KIDS];
	double imports;
	double start_s, close_ms;
	int fds0, fds1, maps0, maps1;
	unsigned int kobj0, kobj1, held1;
};

static unsigned int kobjs(const struct dvs_sim_stats *s)
{
	return s->vars + s->devx_objs + s->umems;
}

/* Start @n secondaries in waves of WAVE, each waiting for the previous
 * wave to be attached; their "ready" figures into @r. */
static int start_kids(const struct bench_ctx *x, const char *dev, int mode, int n,
		      struct bench_child *kids, struct row *r)
{
	char line[256];
	double t0 = bench_now();

	for (int w = 0; w < n; w += WAVE) {
		for (int i = w; i < n && i < w + WAVE; i++)
			if (bench_spawn(&kids[i], x, dev, "scale", mode_arg[mode], i, OBJECTS) != 0)
				return -1;
		for (int i = w; i < n && i < w + WAVE; i++) {
			long rss;
			unsigned long long imp;
			if (bench_next_result(&kids[i], line, sizeof(line), 120) != 0)
				return -1;
			if (sscanf(line, "ready %lf %ld %lf %llu", &r->attach_ms[i], &rss,
				   &r->maps[i], &imp) != 4) {
				bench_fail("secondary %d reported \"%s\"", (int)kids[i].pid, line);
				return -1;
			}
			r->rss_mib[i] = (double)rss / 1024;
			r->imports = (double)imp;
		}
	}
	r->start_s = bench_now() - t0;
	return 0;
}

/* After the close and the secondaries' exit the primary's peer watches go
 * on DPDK's interrupt thread: give them up to 2 s to settle. */
static void settle(struct row *r)
{
	for (int i = 0; i < 200; i++) {
		r->fds1 = bench_count_fds();
		r->maps1 = bench_count_lines("/proc/self/maps");
		if (r->fds1 <= r->fds0 && r->maps1 <= r->maps0)
			return;
		usleep(10000);
	}
}

static int scale_mode(const struct bench_ctx *x, const char *name, int mode, int n,
		      struct row *r)
{
	static struct bench_child kids[MAX_KIDS];
	const struct dvs_glue *g = dvs_sim_glue();
	struct dvs_sim_stats s0, s1;
	struct ibv_context *probe = NULL;
	struct dvshare_dev *dev;
	char line[128];
	unsigned int closed;
	double t0;

	r->fds0 = bench_count_fds();
	r->maps0 = bench_count_lines("/proc/self/maps");
	dev = bench_dev_open(name, 0);
	if (dev == NULL)
		return -1;
	/* A context of our own on the device, to count its objects after
	 * the close (as the mp test does). */
	int fd = dup(dvshare_dev_ctx(dev)->cmd_fd);
	probe = fd >= 0 ? g->import_device(fd) : NULL;
	if (probe == NULL || dvs_sim_stats(probe, &s0) != 0) {
		bench_fail("cannot read the objects of %s (dvs_sim_stats): %s", name,
			   strerror(errno));
		return -1;
	}
	r->kobj0 = kobjs(&s0);
	if (bench_publish(dev, BENCH_BULK, 0, OBJECTS, APP_BULK_ALL_VARS) != 0 ||
	    start_kids(x, name, mode, n, kids, r) != 0)
		return -1;
	t0 = bench_now();
	if (bench_dev_close(dev) != 0)
		return -1;
	r->close_ms = (bench_now() - t0) * 1e3;
	dvs_sim_stats(probe, &s1);
	g->close_device(probe);
	r->kobj1 = kobjs(&s1);
	r->held1 = s1.pages_held;
	for (int i = 0; i < n; i++) {
		if (bench_tell(&kids[i], "closed\n") != 0 ||
		    bench_collect(&kids[i], line, sizeof(line)) != 0)
			return -1;
		if (sscanf(line, "done %u", &closed) != 1 || closed != 1) {
			bench_fail("secondary %d saw %s CLOSED events (want 1)", (int)kids[i].pid,
				   line);
			return -1;
		}
	}
	settle(r);
	return 0;
}

static void print_row(int m, int n, struct row *r)
{
	double am = bench_median(r->attach_ms, n), rm = bench_median(r->rss_mib, n);
	double mm = bench_median(r->maps, n);
	double ax = r->attach_ms[n - 1], rx = r->rss_mib[n - 1], mx = r->maps[n - 1];

	printf("   %-10s %7.1f %7.1f %8.1f %7.1f %8.0f %7.0f %9.0f %7.1f %9.1f\n", mode_name[m], am,
	       ax, rm, rx, mm, mx, r->imports, r->start_s, r->close_ms);
	bj_obj(mode_name[m]);
	bj_num("attach_ms_median", am);
	bj_num("attach_ms_max", ax);
	bj_num("rss_mib_median", rm);
	bj_num("rss_mib_max", rx);
	bj_num("maps_median", mm);
	bj_num("maps_max", mx);
	bj_num("imports", r->imports);
	bj_num("start_s", r->start_s);
	bj_num("close_ms", r->close_ms);
	bj_int("fds_before", r->fds0);
	bj_int("fds_after", r->fds1);
	bj_int("maps_before", r->maps0);
	bj_int("maps_after", r->maps1);
	bj_int("kernel_objects_before", r->kobj0);
	bj_int("kernel_objects_after", r->kobj1);
	bj_int("var_pages_held_after", r->held1);
	bj_end();
}

int bench_s7_scale(struct bench_ctx *x)
{
	static struct row rows[NMODES];
	const int n = x->o->quick ? 16 : MAX_KIDS;
	double t0 = bench_now();
	int leaks = 0;
	char name[32];

	if (bench_dev_name(x, 3, name, sizeof(name)) != 0)
		return -1;
	/* A first close with a secondary attached starts the primary's
	 * worker threads, and glibc gives each thread that allocates a malloc
	 * arena of its own (two maps lines each, kept for the process's
	 * life): one warm-up round, so that the leak check counts only what
	 * a round leaves. */
	static struct row warm;
	if (scale_mode(x, name, LAZY, n, &warm) != 0)
		return -1;
	for (int m = 0; m < NMODES; m++)
		if (scale_mode(x, name, m, n, &rows[m]) != 0)
			return -1;
	printf("\n7. %d secondaries x %d objects on %s, per attach mode: each rings a VAR it "
	       "looked up\n   (1,000 doorbells) and queries a flow counter it looked up; started "
	       "in waves of %d,\n   then dvshare_dev_close() in the primary with all attached "
	       "(per secondary: median and max)\n", n, OBJECTS, name, WAVE);
	printf("   %-10s %15s %16s %16s %9s %7s %9s\n", "", "attach ms", "RSS MiB", "maps",
	       "", "start", "close");
	printf("   %-10s %7s %7s %8s %7s %8s %7s %9s %7s %9s\n", "mode", "median", "max", "median",
	       "max", "median", "max", "imported", "all s", "ms");
	bj_int("secondaries", n);
	bj_int("objects", OBJECTS);
	bj_obj("modes");
	for (int m = 0; m < NMODES; m++)
		print_row(m, n, &rows[m]);
	bj_end();
	printf("   after each close, with the secondaries gone (before -> after):\n");
	for (int m = 0; m < NMODES; m++) {
		struct row *r = &rows[m];
		int leak = (r->fds1 > r->fds0) + (r->maps1 > r->maps0) + (r->kobj1 != r->kobj0);
		printf("   %-10s primary fds %d -> %d, maps lines %d -> %d, sim kernel objects "
		       "%u -> %u (%u VAR pages still mapped): %s\n", mode_name[m], r->fds0, r->fds1,
		       r->maps0, r->maps1, r->kobj0, r->kobj1, r->held1,
		       leak ? "LEAKED" : "nothing leaked");
		leaks += leak;
	}
	printf("   every secondary saw the CLOSED event; section took %.1f s\n", bench_now() - t0);
	bj_int("leaks", leaks);
	bench_goal(7, "64 secondaries closed under: leaks (fds, maps, objects)", leaks, 0, "");
	if (n == MAX_KIDS)
		bench_goal(7, "dvshare_dev_close() under 64 eager secondaries, 10,000 objects, default "
			      "timeout", rows[0].close_ms, 200, "ms");
	return 0;
}
