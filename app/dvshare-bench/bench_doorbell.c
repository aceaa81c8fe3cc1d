/* SPDX-License-Identifier: BSD-3-Clause */
/* Sections 1 and 2: a doorbell through dvshare, and without it. */
#include <stdio.h>
#include <stdlib.h>

#include <rte_errno.h>

#include "bench.h"

/* The device of sections 1 and 2, with the VAR the doorbells go to. */
static struct dvshare_dev *open_db(const struct bench_ctx *x, struct dvshare_var **v)
{
	struct dvshare_dev *dev = bench_dev_open(x->o->dev, 0);

	if (dev == NULL)
		return NULL;
	*v = dvshare_var_alloc(dev, BENCH_DB_NAME, 0);
	if (*v == NULL) {
		bench_fail("dvshare_var_alloc(%s): %s", BENCH_DB_NAME, rte_strerror(rte_errno));
		dvshare_dev_close(dev);
		return NULL;
	}
	return dev;
}

static int close_db(struct dvshare_dev *dev, struct dvshare_var *v)
{
	dvshare_var_release(v);
	return bench_dev_close(dev);
}

/* Doorbells/s of a secondary ringing the VAR it imported. */
static double secondary_rate(const struct bench_ctx *x)
{
	char line[128];
	double r;

	if (bench_run_child(x, x->o->dev, "doorbell", NULL, 0, line, sizeof(line)) != 0)
		return -1;
	r = atof(line);
	if (r <= 0)
		bench_fail("doorbell secondary reported %s", line);
	return r;
}

int bench_s1_doorbell(struct bench_ctx *x)
{
	struct dvshare_var *v;
	struct dvshare_dev *dev = open_db(x, &v);
	double priv, prim, sec;

	if (dev == NULL)
		return -1;
	priv = bench_private_store(x->o->seconds);
	prim = bench_doorbell(dvshare_var_doorbell(v), x->o->seconds);
	sec = secondary_rate(x);
	if (close_db(dev, v) != 0 || sec <= 0 || priv <= 0)
		return -1;
	x->doorbell_sec = sec;
	printf("\n1. Doorbell writes (%.2f s each, batches of 10^6 stores)\n", x->o->seconds);
	printf("   %-52s %14.0f /s\n", "private anonymous page, plain volatile store (baseline)",
	       priv);
	printf("   %-52s %14.0f /s\n", "primary, dvshare_doorbell32 on its VAR page", prim);
	printf("   %-52s %14.0f /s\n", "secondary, dvshare_doorbell32 on the imported page", sec);
	printf("   ratio secondary/primary %.3f, secondary/private %.3f\n", sec / prim, sec / priv);
	bj_num("private_per_s", priv);
	bj_num("primary_per_s", prim);
	bj_num("secondary_per_s", sec);
	bj_num("ratio_secondary_primary", sec / prim);
	bj_num("ratio_secondary_private", sec / priv);
	return 0;
}

int bench_s2_mp(struct bench_ctx *x)
{
	struct dvshare_var *v;
	struct dvshare_dev *dev = open_db(x, &v);
	double sec = x->doorbell_sec, mp = -1;
	char line[128];
	int rc;

	if (dev == NULL)
		return -1;
	rc = bench_mp_serve(dvshare_var_doorbell(v));
	if (rc != 0)
		bench_fail("rte_mp_action_register: %s", rte_strerror(-rc));
	if (rc == 0 && bench_run_child(x, x->o->dev, "mp", NULL, 0, line, sizeof(line)) == 0)
		mp = atof(line);
	bench_mp_unserve();
	if (mp > 0 && sec <= 0) /* section 1 did not run: the baseline now */
		sec = secondary_rate(x);
	if (close_db(dev, v) != 0 || mp <= 0 || sec <= 0)
		return -1;
	printf("\n2. Doorbell without dvshare: the secondary asks the primary to ring "
	       "(rte_mp_request_sync per doorbell)\n");
	printf("   %-52s %14.0f /s  (%.1f us each)\n", "secondary, rte_mp request per doorbell",
	       mp, 1e6 / mp);
	printf("   %-52s %14.0f /s\n", "secondary, dvshare_doorbell32 (this run)", sec);
	printf("   ratio dvshare/rte_mp %.0fx\n", sec / mp);
	bj_num("rte_mp_per_s", mp);
	bj_num("rte_mp_us", 1e6 / mp);
	bj_num("dvshare_per_s", sec);
	bj_num("ratio_dvshare_rte_mp", sec / mp);
	return 0;
}
