/* SPDX-License-Identifier: BSD-3-Clause */
/* The JSON document of a run, the goals, and section 10 (the summary). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "bench.h"

/* ------------------------------------------------------------------ JSON */

/* The document is a jansson tree built as the run goes; bj_write() dumps
 * it. levels[0] is the document, levels[depth - 1] the object or array
 * being filled; each level is owned by the one above it. */
#define BJ_DEPTH 16

static json_t *levels[BJ_DEPTH];
static int depth;

/* Add @v (a new reference, taken over) to the open level: under @key in an
 * object, at the end of an array (which has no keys). */
static void bj_put(const char *key, json_t *v)
{
	json_t *top;
	int rc;

	if (depth == 0) {
		levels[0] = json_object();
		if (levels[0] == NULL)
			abort();
		depth = 1;
	}
	if (v == NULL)
		abort(); /* out of memory */
	top = levels[depth - 1];
	if (json_is_array(top))
		rc = json_array_append_new(top, v);
	else if (key != NULL)
		rc = json_object_set_new(top, key, v);
	else
		abort(); /* a member of an object needs a key */
	if (rc != 0)
		abort();
}

static void bj_open(const char *key, json_t *level)
{
	if (depth == BJ_DEPTH)
		abort();
	bj_put(key, level);
	levels[depth++] = level;
}

void bj_obj(const char *key)
{
	bj_open(key, json_object());
}

void bj_arr(const char *key)
{
	bj_open(key, json_array());
}

void bj_end(void)
{
	if (depth > 1)
		depth--;
}

void bj_num(const char *key, double v)
{
	/* JSON has no NaN or infinity: a figure that is not one is null. */
	bj_put(key, isfinite(v) ? json_real(v) : json_null());
}

void bj_int(const char *key, long long v)
{
	bj_put(key, json_integer(v));
}

void bj_str(const char *key, const char *s)
{
	json_t *v = json_string(s != NULL ? s : "");

	if (v == NULL && s != NULL) {
		/* Not UTF-8 (a string read from the machine): keep its ASCII,
		 * '?' for every other byte. */
		char *ascii = strdup(s);

		if (ascii == NULL)
			abort();
		for (char *c = ascii; *c != '\0'; c++)
			if ((unsigned char)*c >= 0x80)
				*c = '?';
		v = json_string(ascii);
		free(ascii);
	}
	bj_put(key, v);
}

void bj_bool(const char *key, int v)
{
	bj_put(key, json_boolean(v));
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
	json_t *doc;
	FILE *f;
	int rc;

	depth = depth > 0 ? 1 : 0; /* close every open level */
	goals_json();
	doc = levels[0];
	depth = 0;
	levels[0] = NULL;
	/* Two spaces a level, keys in the order written, figures to 6
	 * significant digits (what a run measures, not float noise). */
	f = fopen(path, "w");
	rc = -1;
	if (f != NULL) {
		if (json_dumpf(doc, f, JSON_INDENT(2) | JSON_REAL_PRECISION(6)) == 0 &&
		    fputc('\n', f) != EOF)
			rc = 0;
		if (fclose(f) != 0)
			rc = -1;
	}
	json_decref(doc);
	if (rc != 0)
		bench_fail("cannot write %s", path);
	return rc;
}
