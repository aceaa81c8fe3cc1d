/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The secondaries: this program started again with --role. Each prints its
 * figures on a line starting with "result "; the roles that wait ("idle",
 * "scale") print "result ready ..." once attached and stay until their
 * stdin closes, then print "result done <CLOSED events seen>".
 */
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_errno.h>

#include "app_bulk.h"
#include "app_objects.h"
#include "bench.h"

int bench_attach_mode(const char *mode)
{
	static char buf[256];
	const char *pats[8] = { NULL };
	int n = 0, rc;

	if (strcmp(mode, "eager") == 0)
		return dvshare_attach_mode_set(DVSHARE_ATTACH_EAGER, NULL);
	if (strcmp(mode, "lazy") == 0)
		return dvshare_attach_mode_set(DVSHARE_ATTACH_LAZY, NULL);
	if (strncmp(mode, "selective:", 10) != 0)
		return -EINVAL;
	snprintf(buf, sizeof(buf), "%s", mode + 10);
	for (char *t = strtok(buf, ","); t != NULL && n < 7; t = strtok(NULL, ","))
		pats[n++] = t;
	rc = dvshare_attach_mode_set(DVSHARE_ATTACH_SELECTIVE, pats);
	return rc;
}

static atomic_uint closed_seen;

static void on_event(struct dvshare_dev *dev, enum dvshare_event ev, const char *name, pid_t pid,
		     void *arg)
{
	(void)dev, (void)name, (void)pid, (void)arg;
	if (ev == DVSHARE_EVENT_CLOSED)
		atomic_fetch_add(&closed_seen, 1);
}

/* Wait until stdin closes. A line "closed" before that says the primary
 * closed the device: its CLOSED event (sent after the close returned) is
 * then waited for, up to 2 s, to be counted. */
static void wait_stdin_eof(void)
{
	char buf[64];
	int closed = 0;

	while (fgets(buf, sizeof(buf), stdin) != NULL)
		closed |= strncmp(buf, "closed", 6) == 0;
	for (int i = 0; closed && i < 2000 && atomic_load(&closed_seen) == 0; i++)
		usleep(1000);
}

static struct dvshare_dev *dev_of(const struct bench_opts *o)
{
	struct dvshare_dev *dev = dvshare_dev_lookup(o->dev);

	if (dev == NULL)
		fprintf(stderr, "secondary: %s is not shared: %s\n", o->dev,
			rte_strerror(rte_errno));
	return dev;
}

static int role_doorbell(const struct bench_opts *o)
{
	struct dvshare_dev *dev = dev_of(o);
	struct dvshare_var *v = dev != NULL ? dvshare_var_lookup(dev, BENCH_DB_NAME) : NULL;

	if (v == NULL) {
		fprintf(stderr, "secondary: no %s on %s: %s\n", BENCH_DB_NAME, o->dev,
			rte_strerror(rte_errno));
		return 1;
	}
	printf("result %.1f\n", bench_doorbell(dvshare_var_doorbell(v), o->seconds));
	dvshare_var_release(v);
	return 0;
}

/* The names o0..o<n-1> as 64-byte keys, and their kinds. */
static int bulk_names(unsigned int n, char (**names)[DVSHARE_NAME_MAX], uint8_t **kinds)
{
	*names = calloc(n, sizeof(**names));
	*kinds = calloc(n, 1);
	if (*names == NULL || *kinds == NULL)
		return -1;
	for (unsigned int i = 0; i < n; i++) {
		snprintf((*names)[i], DVSHARE_NAME_MAX, "%s%u", BENCH_BULK, i);
		(*kinds)[i] = (uint8_t)app_bulk_kind(i, BENCH_LOOKUP_VARS);
	}
	return 0;
}

static int role_lookup(const struct bench_opts *o, const struct dvshare_stats *st)
{
	struct dvshare_dev *dev = dev_of(o);
	char (*names)[DVSHARE_NAME_MAX];
	uint8_t *kinds;
	double dv, hash;

	if (dev == NULL || o->objects <= 0 || bulk_names((unsigned int)o->objects, &names, &kinds))
		return 1;
	dv = bench_lookup_loop(dev, (const char (*)[DVSHARE_NAME_MAX])names, kinds,
			       (unsigned int)o->objects, o->seconds);
	hash = bench_hash_loop((const char (*)[DVSHARE_NAME_MAX])names, (unsigned int)o->objects,
			       o->seconds);
	free(names);
	free(kinds);
	if (dv < 0 || hash < 0)
		return 1;
	printf("result %.2f %.2f %llu\n", dv, hash, (unsigned long long)st->imports);
	return 0;
}

/* Section 7: look up a VAR and ring it, look up a flow counter and query
 * it, hold both until told to go. */
static int role_scale(const struct bench_opts *o, const struct dvshare_stats *st)
{
	unsigned int n = (unsigned int)o->objects, k = (unsigned int)o->index;
	char vname[DVSHARE_NAME_MAX], cname[DVSHARE_NAME_MAX];
	struct dvshare_dev *dev = dev_of(o);
	struct dvshare_var *v = NULL;
	struct dvshare_obj *ctr = NULL;
	uint64_t packets = 0, octets = 0;
	int rc = -1;

	if (dev == NULL || n < 4)
		return 1;
	/* o<100k> is a VAR (1% of names: eager in selective mode too); the
	 * counter next to it is imported at its lookup in that mode. */
	snprintf(vname, sizeof(vname), "%s%u", BENCH_BULK, (100 * k) % n & ~3u);
	snprintf(cname, sizeof(cname), "%s%u", BENCH_BULK, ((100 * k) % n & ~3u) + 2);
	v = dvshare_var_lookup(dev, vname);
	if (v != NULL) {
		void *db = dvshare_var_doorbell(v);
		for (uint32_t i = 0; i < 1000; i++)
			dvshare_doorbell32(db, 0, i);
		ctr = dvshare_obj_lookup(dev, cname);
	}
	if (ctr != NULL)
		rc = app_counter_read(ctr, &packets, &octets);
	if (rc != 0) {
		fprintf(stderr, "secondary %u: %s: %s\n", k, v == NULL ? vname : cname,
			v == NULL || ctr == NULL ? rte_strerror(rte_errno) : strerror(-rc));
		return 1;
	}
	printf("result ready %.3f %ld %d %llu\n", (double)st->attach_ns * 1e-6, bench_rss_kb(),
	       bench_count_lines("/proc/self/maps"), (unsigned long long)st->imports);
	fflush(stdout);
	wait_stdin_eof();
	dvshare_var_release(v);
	dvshare_obj_release(ctr);
	printf("result done %u\n", atomic_load(&closed_seen));
	return 0;
}

int bench_secondary(const struct bench_opts *o, double eal_seconds)
{
	struct dvshare_stats st;

	dvshare_stats_get(&st);
	if (st.attach_status < 0) {
		fprintf(stderr, "secondary: attach failed: %s\n", strerror(-st.attach_status));
		return 1;
	}
	/* CLOSED only: a close raises REVOKING and REVOKED for each of its
	 * objects where someone listens to them. */
	if (dvshare_event_register_mask(NULL, DVSHARE_EVENT_BIT(DVSHARE_EVENT_CLOSED), on_event,
					NULL) != 0) {
		fprintf(stderr, "secondary: event register: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	if (strcmp(o->role, "attach") == 0) {
		printf("result %.6f %d %.6f %llu %u %.6f\n", eal_seconds, st.attach_status,
		       (double)st.attach_ns * 1e-9, (unsigned long long)st.imports,
		       st.attach_mode, (double)st.attach_cpu_ns * 1e-9);
		return 0;
	}
	if (strcmp(o->role, "doorbell") == 0)
		return role_doorbell(o);
	if (strcmp(o->role, "mp") == 0) {
		double r = bench_mp_doorbell(o->seconds);
		printf("result %.1f\n", r);
		return r > 0 ? 0 : 1;
	}
	if (strcmp(o->role, "lookup") == 0)
		return role_lookup(o, &st);
	if (strcmp(o->role, "create") == 0) {
		struct dvshare_dev *dev = dev_of(o);
		return dev != NULL ? bench_create_role(o, dev) : 1;
	}
	if (strcmp(o->role, "scale") == 0)
		return role_scale(o, &st);
	if (strcmp(o->role, "pktfwd") == 0) {
		struct dvshare_dev *dev = dev_of(o);
		return dev != NULL ? bench_pktfwd_role(o, dev) : 1;
	}
	if (strcmp(o->role, "ringfwd") == 0)
		return bench_ringfwd_role(o);
	if (strcmp(o->role, "idle") == 0) {
		/* Attached (everything imported): stay until stdin closes. */
		printf("result ready %d %llu\n", st.attach_status, (unsigned long long)st.imports);
		fflush(stdout);
		wait_stdin_eof();
		printf("result done %u\n", atomic_load(&closed_seen));
		return 0;
	}
	fprintf(stderr, "secondary: unknown role %s\n", o->role);
	return 1;
}
