/* SPDX-License-Identifier: BSD-3-Clause */
/* Section 3: lookup + release of already imported objects, against DPDK's
 * rte_hash holding the same names, at 10,000 and 100,000 objects. */
#include <stdio.h>
#include <stdlib.h>

#include "app_bulk.h"
#include "bench.h"

struct lookup_point {
	unsigned int n;
	double goal;   /* dvshare/rte_hash ratio asked for (issue 25) */
	double prim, sec, hash;
	unsigned long long imports;
};

/* Publish @p->n objects, time lookups in the primary, then in a
 * secondary attached eagerly (which times rte_hash too). */
static int lookup_point(struct bench_ctx *x, struct lookup_point *p)
{
	const unsigned int n = p->n;
	char (*names)[DVSHARE_NAME_MAX] = calloc(n, sizeof(*names));
	uint8_t *kinds = calloc(n, 1);
	struct dvshare_dev *dev = NULL;
	char line[128];
	int rc = -1;

	if (names == NULL || kinds == NULL) {
		bench_fail("out of memory");
		goto out;
	}
	for (unsigned int i = 0; i < n; i++) {
		snprintf(names[i], DVSHARE_NAME_MAX, "%s%u", BENCH_BULK, i);
		kinds[i] = (uint8_t)app_bulk_kind(i, BENCH_LOOKUP_VARS);
	}
	dev = bench_dev_open(x->o->dev, n > 16384 ? n : 0);
	if (dev == NULL || bench_publish(dev, BENCH_BULK, 0, n, BENCH_LOOKUP_VARS) != 0)
		goto out;
	p->prim = bench_lookup_loop(dev, (const char (*)[DVSHARE_NAME_MAX])names, kinds, n,
				    x->o->seconds);
	if (p->prim < 0) {
		bench_fail("a lookup failed in the primary");
		goto out;
	}
	if (bench_run_child(x, x->o->dev, "lookup", "eager", (int)n, line, sizeof(line)) != 0)
		goto out;
	if (sscanf(line, "%lf %lf %llu", &p->sec, &p->hash, &p->imports) != 3 || p->sec <= 0 ||
	    p->hash <= 0) {
		bench_fail("lookup secondary reported \"%s\"", line);
		goto out;
	}
	rc = 0;
out:
	if (dev != NULL && bench_dev_close(dev) != 0)
		rc = -1;
	free(names);
	free(kinds);
	return rc;
}

int bench_s3_lookup(struct bench_ctx *x)
{
	struct lookup_point pts[] = { { .n = 10000, .goal = 2 }, { .n = 100000, .goal = 3 } };
	/* --quick: 10,000 only (publishing 100,000 takes seconds). */
	const int npts = x->o->quick ? 1 : 2;
	char what[96];

	for (int i = 0; i < npts; i++)
		if (lookup_point(x, &pts[i]) != 0)
			return -1;
	printf("\n3. Lookup + release, round-robin over all names (all imported: eager "
	       "attach); ns per lookup\n");
	printf("   %-10s %12s %12s %12s %8s\n", "objects", "secondary", "rte_hash", "primary",
	       "ratio");
	for (int i = 0; i < npts; i++)
		printf("   %-10u %12.1f %12.1f %12.1f %7.2fx\n", pts[i].n, pts[i].sec, pts[i].hash,
		       pts[i].prim, pts[i].sec / pts[i].hash);
	printf("   (secondary: dvshare_*_lookup + dvshare_*_release; rte_hash: rte_hash_lookup of "
	       "the same names as 64-byte keys, in the secondary)\n");
	for (int i = 0; i < npts; i++) {
		snprintf(what, sizeof(what), "lookup + release / rte_hash in a secondary, %u objects",
			 pts[i].n);
		bench_goal(3, what, pts[i].sec / pts[i].hash, pts[i].goal, "x");
	}
	bj_arr("points");
	for (int i = 0; i < npts; i++) {
		bj_obj(NULL);
		bj_int("objects", pts[i].n);
		bj_num("secondary_ns", pts[i].sec);
		bj_num("rte_hash_ns", pts[i].hash);
		bj_num("primary_ns", pts[i].prim);
		bj_num("ratio_dvshare_rte_hash", pts[i].sec / pts[i].hash);
		bj_int("imports", (long long)pts[i].imports);
		bj_end();
	}
	bj_end();
	return 0;
}
