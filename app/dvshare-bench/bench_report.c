/* SPDX-License-Identifier: BSD-3-Clause */
/* The JSON document of a run, the goals, and section 10 (the summary). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench.h"

/* ------------------------------------------------------------------ JSON */

#define BJ_DEPTH 16

static FILE *bj;
static char *bj_buf;
static size_t bj_len;
static int depth;
static char closer[BJ_DEPTH]; /* '}' or ']' for each open level */
static int count[BJ_DEPTH];   /* members written at each level */

static void bj_key(const char *key)
{
	if (bj == NULL) {
		bj = open_memstream(&bj_buf, &bj_len);
		if (bj == NULL)
			abort();
		fputc('{', bj);
		closer[0] = '}';
		depth = 1;
	}
	if (count[depth - 1]++ > 0)
		fputc(',', bj);
	fprintf(bj, "\n%*s", 2 * depth, "");
	if (key != NULL && closer[depth - 1] == '}')
		fprintf(bj, "\"%s\": ", key);
}

static void bj_open(const char *key, char open, char close)
{
	bj_key(key);
	fputc(open, bj);
	if (depth == BJ_DEPTH)
		abort();
	closer[depth] = close;
	count[depth++] = 0;
}

void bj_obj(const char *key)
{
	bj_open(key, '{', '}');
}

void bj_arr(const char *key)
{
	bj_open(key, '[', ']');
}

void bj_end(void)
{
	if (bj == NULL || depth <= 1)
		return;
	depth--;
	if (count[depth] > 0)
		fprintf(bj, "\n%*s", 2 * depth, "");
	fputc(closer[depth], bj);
}

void bj_num(const char *key, double v)
{
	bj_key(key);
	if (isfinite(v))
		fprintf(bj, "%.6g", v);
	else
		fputs("null", bj);
}

void bj_int(const char *key, long long v)
{
	bj_key(key);
	fprintf(bj, "%lld", v);
}

void bj_str(const char *key, const char *s)
{
	bj_key(key);
	fputc('"', bj);
	for (; s != NULL && *s != '\0'; s++) {
		if (*s == '"' || *s == '\\')
			fprintf(bj, "\\%c", *s);
		else if ((unsigned char)*s < 0x20)
			fprintf(bj, "\\u%04x", *s);
		else
			fputc(*s, bj);
	}
	fputc('"', bj);
}

void bj_bool(const char *key, int v)
{
	bj_key(key);
	fputs(v ? "true" : "false", bj);
}

/* ----------------------------------------------------------------- goals */

#define MAX_GOALS 32

struct goal {
	int section;
	char what[96];
	char unit[16];
	double value;
	double limit;
	char why[160]; /* unmeasured: why ("" when measured) */
};

static struct goal goals[MAX_GOALS];
static int ngoals;

static int goal_met(const struct goal *g)
{
	return g->why[0] == '\0' && g->value <= g->limit;
}

static void goal_verdict(const struct goal *g, char *buf, size_t len)
{
	if (g->why[0] != '\0')
		snprintf(buf, len, "unmeasured");
	else if (goal_met(g))
		snprintf(buf, len, "met");
	else if (g->limit <= 0)
		snprintf(buf, len, "missed (%g)", g->value);
	else
		snprintf(buf, len, "missed by %.2fx", g->value / g->limit);
}

static struct goal *goal_new(void)
{
	if (ngoals == MAX_GOALS)
		abort(); /* a bench that states more goals needs a larger table */
	memset(&goals[ngoals], 0, sizeof(goals[ngoals]));
	return &goals[ngoals++];
}

void bench_goal(int section, const char *what, double value, double limit, const char *unit)
{
	struct goal *g = goal_new();
	char verdict[48];

	g->section = section;
	snprintf(g->what, sizeof(g->what), "%s", what);
	snprintf(g->unit, sizeof(g->unit), "%s", unit);
	g->value = value;
	g->limit = limit;
	goal_verdict(g, verdict, sizeof(verdict));
	printf("   goal: %s <= %g%s%s: %s (%.3g%s%s)\n", what, limit, *unit ? " " : "", unit,
	       verdict, value, *unit ? " " : "", unit);
}

void bench_goal_unmeasured(int section, const char *what, const char *why)
{
	struct goal *g = goal_new();

	g->section = section;
	snprintf(g->what, sizeof(g->what), "%s", what);
	snprintf(g->why, sizeof(g->why), "%s", why[0] != '\0' ? why : "no reason given");
	printf("   goal: %s: unmeasured: %s\n", what, g->why);
}

static void goals_json(void)
{
	char verdict[48];

	bj_arr("goals");
	for (int i = 0; i < ngoals; i++) {
		const struct goal *g = &goals[i];
		goal_verdict(g, verdict, sizeof(verdict));
		bj_obj(NULL);
		bj_int("section", g->section);
		bj_str("goal", g->what);
		bj_bool("met", goal_met(g));
		bj_str("verdict", verdict);
		if (g->why[0] != '\0') {
			bj_str("why", g->why);
			bj_end();
			continue;
		}
		bj_num("value", g->value);
		bj_num("limit", g->limit);
		bj_str("unit", g->unit);
		if (g->limit > 0)
			bj_num("factor", g->value / g->limit);
		bj_end();
	}
	bj_end();
}

int bench_s10_summary(struct bench_ctx *x)
{
	char verdict[48], fig[32], lim[32];
	int met = 0, unmeasured = 0;

	(void)x;
	printf("\n10. Summary: every goal of this run\n");
	printf("   %-2s %-52s %12s %12s  %s\n", "", "goal", "figure", "limit", "result");
	for (int i = 0; i < ngoals; i++) {
		const struct goal *g = &goals[i];
		goal_verdict(g, verdict, sizeof(verdict));
		if (g->why[0] != '\0') {
			printf("   %-2d %-52s %12s %12s  %s\n", g->section, g->what, "-", "-", verdict);
			unmeasured++;
			continue;
		}
		snprintf(fig, sizeof(fig), "%.3g %s", g->value, g->unit);
		snprintf(lim, sizeof(lim), "<= %g %s", g->limit, g->unit);
		printf("   %-2d %-52s %12s %12s  %s\n", g->section, g->what, fig, lim, verdict);
		met += goal_met(g);
	}
	printf("   %d of %d goals met", met, ngoals - unmeasured);
	if (unmeasured != 0)
		printf(", %d unmeasured (said why above)", unmeasured);
	printf("\n");
	return 0;
}

int bj_write(const char *path)
{
	FILE *f;

	while (depth > 1)
		bj_end();
	goals_json();
	fputs("\n}\n", bj);
	fclose(bj);
	bj = NULL;
	f = fopen(path, "w");
	if (f == NULL || fwrite(bj_buf, 1, bj_len, f) != bj_len) {
		if (f != NULL)
			fclose(f);
		bench_fail("cannot write %s", path);
		return -1;
	}
	free(bj_buf);
	return fclose(f) == 0 ? 0 : -1;
}
