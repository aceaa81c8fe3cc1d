/* SPDX-License-Identifier: BSD-3-Clause */
/* The machine the figures come from, and what its kernel charges for the
 * things dvshare's attach does: a system call, a page fault, an mmap(). */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "bench.h"

static void cpu_model(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cpuinfo", "r");
	char line[256];

	snprintf(buf, len, "unknown");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		char *colon = strchr(line, ':');
		if (strncmp(line, "model name", 10) != 0 || colon == NULL)
			continue;
		colon += 1 + (colon[1] == ' ');
		colon[strcspn(colon, "\n")] = '\0';
		snprintf(buf, len, "%s", colon);
		break;
	}
	if (f != NULL)
		fclose(f);
}

static double syscall_ns(void)
{
	const int n = 200000;
	double t0 = bench_now();

	for (int i = 0; i < n; i++)
		syscall(SYS_getppid);
	return (bench_now() - t0) * 1e9 / n;
}

/* First write to each page of a fresh anonymous mapping (no huge pages):
 * the fault, the zeroing of the page and the page table update. */
static double fault_ns(void)
{
	const size_t pages = 8192, len = pages * 4096;
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	double t0, t;

	if (p == MAP_FAILED)
		return -1;
	madvise(p, len, MADV_NOHUGEPAGE);
	t0 = bench_now();
	for (size_t i = 0; i < pages; i++)
		p[i * 4096] = 1;
	t = bench_now() - t0;
	munmap(p, len);
	return t * 1e9 / (double)pages;
}

/* mmap() of one page of a shared memfd, as a VAR page is mapped. */
static double mmap_ns(void)
{
	enum { PAGES = 1024 };
	static void *maps[PAGES];
	int fd = memfd_create("bench-mmap", MFD_CLOEXEC);
	double t0, t;

	if (fd < 0 || ftruncate(fd, (off_t)PAGES * 4096) != 0) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	t0 = bench_now();
	for (int i = 0; i < PAGES; i++)
		maps[i] = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			       (off_t)i * 4096);
	t = bench_now() - t0;
	for (int i = 0; i < PAGES; i++)
		if (maps[i] != MAP_FAILED)
			munmap(maps[i], 4096);
	close(fd);
	return t * 1e9 / PAGES;
}

void bench_machine_read(struct bench_machine *m)
{
	struct utsname u;
	time_t now = time(NULL);
	struct tm tm;

	memset(m, 0, sizeof(*m));
	m->cores = (int)sysconf(_SC_NPROCESSORS_ONLN);
	cpu_model(m->cpu, sizeof(m->cpu));
	if (uname(&u) == 0)
		snprintf(m->kernel, sizeof(m->kernel), "%s %s %s", u.sysname, u.release,
			 u.machine);
	gmtime_r(&now, &tm);
	strftime(m->date, sizeof(m->date), "%Y-%m-%dT%H:%M:%SZ", &tm);
	m->syscall_ns = syscall_ns();
	m->fault_ns = fault_ns();
	m->mmap_ns = mmap_ns();
}
