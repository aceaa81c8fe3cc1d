/* SPDX-License-Identifier: BSD-3-Clause */
/* Section 3: lookup + release of already imported objects, against DPDK's
 * rte_hash holding the same names. */
#include <stdio.h>
#include <stdlib.h>

#include "app_bulk.h"
#include "bench.h"

#define LOOKUP_OBJECTS 10000u

int bench_s3_lookup(struct bench_ctx *x)
{
	const unsigned int n = LOOKUP_OBJECTS;
	char (*names)[DVSHARE_NAME_MAX] = calloc(n, sizeof(*names));
	uint8_t *kinds = calloc(n, 1);
	double prim = -1, sec = -1, hash = -1;
	unsigned long long imports = 0;
	struct dvshare_dev *dev = NULL;
	char line[128];
	int rc = -1;

	if (names == NULL || kinds == NULL) {
		bench_fail("out of memory");
		goto out;
	}
	for (unsigned int i = 0; i < n; i++) {
		snprintf(names[i], DVSHARE_NAME_MAX, "%s%u", BENCH_BULK, i);
		kinds[i] = (uint8_t)app_bulk_kind(i, APP_BULK_ALL_VARS);
	}
	dev = bench_dev_open(x->o->dev, 0);
	if (dev == NULL || bench_publish(dev, BENCH_BULK, 0, n, APP_BULK_ALL_VARS) != 0)
		goto out;
	prim = bench_lookup_loop(dev, (const char (*)[DVSHARE_NAME_MAX])names, kinds, n,
				 x->o->seconds);
	if (prim < 0) {
		bench_fail("a lookup failed in the primary");
		goto out;
	}
	if (bench_run_child(x, x->o->dev, "lookup", "eager", (int)n, line, sizeof(line)) != 0)
		goto out;
	if (sscanf(line, "%lf %lf %llu", &sec, &hash, &imports) != 3 || sec <= 0 || hash <= 0) {
		bench_fail("lookup secondary reported \"%s\"", line);
		goto out;
	}
	rc = 0;
	printf("\n3. Lookup + release of %u objects, round-robin over all names "
	       "(all imported: eager attach)\n", n);
	printf("   %-58s %8.1f ns\n", "secondary, dvshare_*_lookup + dvshare_*_release", sec);
	printf("   %-58s %8.1f ns\n", "secondary, rte_hash_lookup, same names as 64-byte keys",
	       hash);
	printf("   %-58s %8.1f ns\n", "primary, dvshare_*_lookup + dvshare_*_release", prim);
	printf("   ratio dvshare/rte_hash in the secondary %.2f; secondary imported %llu objects\n",
	       sec / hash, imports);
	bench_goal(3, "lookup + release in a secondary, 10,000 objects", sec, 100, "ns");
	bj_int("objects", n);
	bj_num("secondary_ns", sec);
	bj_num("rte_hash_ns", hash);
	bj_num("primary_ns", prim);
	bj_num("ratio_dvshare_rte_hash", sec / hash);
	bj_int("imports", (long long)imports);
out:
	if (dev != NULL && bench_dev_close(dev) != 0)
		rc = -1;
	free(names);
	free(kinds);
	return rc;
}
