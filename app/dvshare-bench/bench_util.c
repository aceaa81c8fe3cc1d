/* SPDX-License-Identifier: BSD-3-Clause */
/* Helpers the sections share: devices, statistics, /proc counts. */
#include <dirent.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <rte_errno.h>

#include "app_bulk.h"
#include "bench.h"

void bench_fail(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fprintf(stderr, "dvshare-bench: ");
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fprintf(stderr, "\n");
}

int bench_dev_name(const struct bench_ctx *x, int k, char *buf, size_t len)
{
	const char *dev = x->o->dev;
	char *end;
	unsigned long n;

	if (k == 0) {
		snprintf(buf, len, "%s", dev);
		return 0;
	}
	n = strncmp(dev, "sim", 3) == 0 ? strtoul(dev + 3, &end, 10) : 0;
	if (strncmp(dev, "sim", 3) != 0 || end == dev + 3 || *end != '\0') {
		bench_fail("this section needs a software device: --dev simN (not %s)", dev);
		return -1;
	}
	snprintf(buf, len, "sim%lu", n + (unsigned long)k);
	return 0;
}

struct dvshare_dev *bench_dev_open(const char *name, uint32_t max_objects)
{
	struct dvshare_dev_conf conf = { .max_objects = max_objects };
	struct dvshare_dev *dev = dvshare_dev_open(name, &conf);

	if (dev == NULL)
		bench_fail("cannot open %s: %s", name, rte_strerror(rte_errno));
	return dev;
}

int bench_dev_close(struct dvshare_dev *dev)
{
	int rc = dvshare_dev_close(dev);

	if (rc != 0) {
		bench_fail("dvshare_dev_close(%s): %s", dvshare_dev_name(dev), strerror(-rc));
		return -1;
	}
	return 0;
}

int bench_publish(struct dvshare_dev *dev, const char *prefix, unsigned int first,
		  unsigned int n, unsigned int max_vars)
{
	int rc = app_bulk_publish_vars(dev, prefix, first, n, max_vars);

	if (rc != 0) {
		bench_fail("publishing objects %s%u..%s%u on %s: %s", prefix, first, prefix,
			   first + n - 1, dvshare_dev_name(dev), strerror(-rc));
		return -1;
	}
	return 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double bench_percentile(double *v, int n, double p)
{
	int i;

	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	/* nearest rank */
	i = (int)(p / 100.0 * n + 0.999999) - 1;
	if (i < 0)
		i = 0;
	if (i >= n)
		i = n - 1;
	return v[i];
}

double bench_median(double *v, int n)
{
	if (n <= 0)
		return 0;
	qsort(v, (size_t)n, sizeof(v[0]), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int bench_count_lines(const char *path)
{
	FILE *f = fopen(path, "r");
	int n = 0, c;

	if (f == NULL)
		return -1;
	while ((c = getc(f)) != EOF)
		n += c == '\n';
	fclose(f);
	return n;
}

int bench_count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n - 1; /* not the directory's own fd */
}

long bench_rss_kb(void)
{
	FILE *f = fopen("/proc/self/status", "r");
	char buf[256];
	long kb = -1;

	while (f != NULL && fgets(buf, sizeof(buf), f) != NULL)
		if (sscanf(buf, "VmRSS: %ld kB", &kb) == 1)
			break;
	if (f != NULL)
		fclose(f);
	return kb;
}
