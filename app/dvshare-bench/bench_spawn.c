/* SPDX-License-Identifier: BSD-3-Clause */
/* Running the benchmark's secondaries: this very program, another role. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

int bench_spawn(struct bench_child *c, const char *self, const char *prefix,
		const char *dev, const char *role, double seconds)
{
	char fp[160], secs[32];
	int out[2], in[2];

	snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
	snprintf(secs, sizeof(secs), "%g", seconds);
	if (pipe2(out, O_CLOEXEC) != 0 || pipe2(in, O_CLOEXEC) != 0)
		return -errno;
	c->pid = fork();
	if (c->pid < 0)
		return -errno;
	if (c->pid == 0) {
		char *args[] = { (char *)self, "-l", "0", "--no-pci", "--no-telemetry",
				 "--proc-type=secondary", fp, "--log-level=lib.eal:error",
				 "--", "--role", (char *)role, "--dev", (char *)dev,
				 "--seconds", secs, NULL };
		dup2(out[1], 1);
		dup2(in[0], 0);
		/* Secondaries map DPDK memory at the primary's addresses. */
		personality(ADDR_NO_RANDOMIZE);
		execv(self, args);
		_exit(127);
	}
	close(out[1]);
	close(in[0]);
	c->in = in[1];
	c->out = fdopen(out[0], "r");
	return c->out != NULL ? 0 : -errno;
}

int bench_next_result(struct bench_child *c, char *line, size_t len)
{
	char buf[512];

	while (fgets(buf, sizeof(buf), c->out) != NULL) {
		if (strncmp(buf, "result ", 7) == 0) {
			snprintf(line, len, "%s", buf + 7);
			line[strcspn(line, "\n")] = '\0';
			return 0;
		}
	}
	return -1;
}

int bench_collect(struct bench_child *c, char *line, size_t len)
{
	char buf[512];
	int st = 0, found = 0;

	close(c->in);
	while (fgets(buf, sizeof(buf), c->out) != NULL) {
		if (strncmp(buf, "result ", 7) == 0) {
			snprintf(line, len, "%s", buf + 7);
			line[strcspn(line, "\n")] = '\0';
			found = 1;
		}
	}
	fclose(c->out);
	waitpid(c->pid, &st, 0);
	return found && WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -1;
}
