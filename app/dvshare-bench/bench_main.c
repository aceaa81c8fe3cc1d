/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dvshare-bench: what sharing costs and buys, each figure against a
 * baseline measured in the same run, each goal said met or missed.
 *
 *   1. doorbell writes: private page, primary, secondary
 *   2. the same doorbell without dvshare: an rte_mp request per doorbell
 *   3. lookup + release in a secondary at 10,000 objects vs rte_hash
 *   4. secondary attach time vs objects, per attach mode (100,000 lazy)
 *   5. single-object revoke latency with 1, 4, 8 secondaries
 *   6. batched destroy: dvshare_dev_close() of 10,000 objects with 8
 *      secondaries; one-by-one destroy vs dvshare_destroy_many()
 *   7. 64 secondaries x 10,000 objects per attach mode, then a close:
 *      attach, RSS, mappings, nothing leaked
 *   8. a create from a secondary against the same create in the primary
 *   9. packets: a secondary forwarding through shared queues against
 *      rte_ring, vhost-user + virtio-user, the primary, kicks over rte_mp
 *  10. summary of the goals
 *
 * Usage: dvshare-bench [EAL options] -- [--dev sim0] [--seconds 0.5]
 *          [--runs 5] [--sections 1,3,5] [--quick] [--json FILE]
 * The secondaries are this program again, started on the same file prefix
 * with --role; sections 4, 6, 7 and 9 use the software devices after
 * --dev (sim1, sim2, sim3, sim4) so that each section has a device of its
 * own.
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_version.h>

#include "bench.h"

static const struct {
	int (*run)(struct bench_ctx *x);
	const char *name;
} sections[BENCH_SECTIONS + 1] = {
	[1] = { bench_s1_doorbell, "doorbell writes" },
	[2] = { bench_s2_mp, "doorbell without dvshare" },
	[3] = { bench_s3_lookup, "lookup" },
	[4] = { bench_s4_attach, "attach vs objects" },
	[5] = { bench_s5_revoke, "revoke latency" },
	[6] = { bench_s6_batch, "batched destroy" },
	[7] = { bench_s7_scale, "64 secondaries" },
	[8] = { bench_s8_create, "create from a secondary" },
	[9] = { bench_s9_packets, "packets" },
	[10] = { bench_s10_summary, "summary" },
};

static int parse_sections(struct bench_opts *o, char *list)
{
	memset(o->run, 0, sizeof(o->run));
	for (char *t = strtok(list, ","); t != NULL; t = strtok(NULL, ",")) {
		char *end;
		long s = strtol(t, &end, 10);
		if (*end != '\0' || s < 1 || s > BENCH_SECTIONS)
			return -1;
		o->run[s] = 1;
	}
	return 0;
}

static int parse_opts(int argc, char **argv, struct bench_opts *o)
{
	static const struct option lo[] = {
		{ "role", required_argument, NULL, 'r' },
		{ "dev", required_argument, NULL, 'd' },
		{ "seconds", required_argument, NULL, 's' },
		{ "runs", required_argument, NULL, 'n' },
		{ "json", required_argument, NULL, 'j' },
		{ "sections", required_argument, NULL, 'S' },
		{ "quick", no_argument, NULL, 'q' },
		{ "mode", required_argument, NULL, 'm' },
		{ "index", required_argument, NULL, 'i' },
		{ "objects", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	int c, runs = 0;
	double seconds = 0;

	memset(o, 0, sizeof(*o));
	o->dev = BENCH_DEV_DEFAULT;
	memset(o->run, 1, sizeof(o->run));
	optind = 1;
	while ((c = getopt_long(argc, argv, "", lo, NULL)) != -1) {
		switch (c) {
		case 'r': o->role = optarg; break;
		case 'd': o->dev = optarg; break;
		case 's': seconds = atof(optarg); if (seconds <= 0) return -1; break;
		case 'n': runs = atoi(optarg); if (runs <= 0 || runs > 64) return -1; break;
		case 'j': o->json = optarg; break;
		case 'q': o->quick = 1; break;
		case 'm': o->mode = optarg; break;
		case 'i': o->index = atoi(optarg); break;
		case 'o': o->objects = atoi(optarg); break;
		case 'S':
			if (parse_sections(o, optarg) != 0)
				return -1;
			break;
		default: return -1;
		}
	}
	o->seconds = seconds > 0 ? seconds : o->quick ? 0.1 : 0.5;
	o->runs = runs > 0 ? runs : o->quick ? 2 : 5;
	return optind == argc ? 0 : -1;
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

/* A secondary's --mode must be applied before rte_eal_init(), which runs
 * the attach: find it among the application's options. */
static int apply_mode(int argc, char **argv)
{
	int i = 1;

	while (i < argc && strcmp(argv[i], "--") != 0)
		i++;
	for (; i < argc; i++) {
		const char *m = NULL;
		if (strcmp(argv[i], "--mode") == 0 && i + 1 < argc)
			m = argv[i + 1];
		else if (strncmp(argv[i], "--mode=", 7) == 0)
			m = argv[i] + 7;
		if (m != NULL) {
			int rc = bench_attach_mode(m);
			if (rc != 0)
				fprintf(stderr, "dvshare-bench: attach mode %s: %s\n", m,
					strerror(-rc));
			return rc;
		}
	}
	return 0;
}

static void header(const struct bench_ctx *x, const struct bench_machine *m)
{
	const struct bench_opts *o = x->o;

	printf("dvshare-bench: %d cores, %s, %s, %s\n", m->cores, m->cpu, m->kernel, m->date);
	printf("   system call %.2f us, first-touch page fault %.2f us, mmap() of a memfd page "
	       "%.2f us\n", m->syscall_ns * 1e-3, m->fault_ns * 1e-3, m->mmap_ns * 1e-3);
	printf("   %s; device %s, file prefix %s, loops %.2f s, attach runs %d%s\n", rte_version(),
	       o->dev, x->prefix, o->seconds, o->runs, o->quick ? ", quick" : "");
	bj_obj("machine");
	bj_int("cores", m->cores);
	bj_str("cpu", m->cpu);
	bj_str("kernel", m->kernel);
	bj_str("date", m->date);
	bj_str("dpdk", rte_version());
	bj_num("syscall_ns", m->syscall_ns);
	bj_num("page_fault_ns", m->fault_ns);
	bj_num("mmap_ns", m->mmap_ns);
	bj_end();
	bj_obj("options");
	bj_str("dev", o->dev);
	bj_num("seconds", o->seconds);
	bj_int("runs", o->runs);
	bj_bool("quick", o->quick);
	bj_end();
}

static int fail_run(const struct bench_opts *o, int s)
{
	bench_fail("section %d (%s) failed: no figures after this point", s, sections[s].name);
	bench_kill_children();
	if (o->json != NULL) {
		bj_str("error", "a section failed");
		bj_int("failed_section", s);
		bj_write(o->json);
	}
	return 1;
}

int main(int argc, char **argv)
{
	struct bench_ctx x = { .prefix = file_prefix(argc, argv), .pass_fd = -1 };
	struct bench_machine m;
	struct bench_opts o;
	double t0;
	int ret;

	if (apply_mode(argc, argv) != 0)
		return 1;
	t0 = bench_now();
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		char why[256];

		dvshare_eal_init_explain(0, NULL, rte_errno, why, sizeof(why));
		fprintf(stderr, "dvshare-bench: EAL init failed: %s\n", why);
		return 1;
	}
	if (parse_opts(argc - ret, argv + ret, &o) != 0) {
		fprintf(stderr, "usage: %s [EAL options] -- [--dev simN] [--seconds S] [--runs R]\n"
				"         [--sections N,N,...] [--quick] [--json FILE]\n", argv[0]);
		return 2;
	}
	if (rte_eal_process_type() == RTE_PROC_SECONDARY) {
		/* What EAL allocated for this process in the shared heap goes
		 * back at its cleanup, not at exit. */
		ret = bench_secondary(&o, bench_now() - t0);
		fflush(stdout);
		rte_eal_cleanup();
		return ret;
	}

	ssize_t l = readlink("/proc/self/exe", x.self, sizeof(x.self) - 1);
	if (l <= 0) {
		bench_fail("cannot read /proc/self/exe");
		return 1;
	}
	x.self[l] = '\0';
	x.o = &o;
	signal(SIGPIPE, SIG_IGN); /* a dead secondary's stdin: an error, not an end */
	bench_machine_read(&m);
	x.cores = m.cores;
	header(&x, &m);
	bj_obj("sections");
	for (int s = 1; s <= BENCH_SECTIONS; s++) {
		char key[8];
		double ts = bench_now();

		if (!o.run[s])
			continue;
		snprintf(key, sizeof(key), "%d", s);
		bj_obj(key);
		bj_str("title", sections[s].name);
		if (sections[s].run(&x) != 0)
			return fail_run(&o, s);
		bj_num("elapsed_s", bench_now() - ts);
		bj_end();
		fflush(stdout);
	}
	bj_end();
	if (o.json != NULL && bj_write(o.json) != 0)
		return 1;
	rte_eal_cleanup();
	return 0;
}
