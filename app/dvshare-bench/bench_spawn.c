/* SPDX-License-Identifier: BSD-3-Clause */
/* Running the benchmark's secondaries: this very program, another role. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

/* Children not reaped yet, to kill them all when a measurement fails. */
#define MAX_LIVE 256
static pid_t live[MAX_LIVE];

static void live_add(pid_t pid)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		if (live[i] == 0) {
			live[i] = pid;
			return;
		}
	}
}

static void live_del(pid_t pid)
{
	for (int i = 0; i < MAX_LIVE; i++)
		if (live[i] == pid)
			live[i] = 0;
}

void bench_kill_children(void)
{
	for (int i = 0; i < MAX_LIVE; i++) {
		if (live[i] == 0)
			continue;
		kill(live[i], SIGKILL);
		waitpid(live[i], NULL, 0);
		live[i] = 0;
	}
}

int bench_spawn(struct bench_child *c, const struct bench_ctx *x, const char *dev,
		const char *role, const char *mode, int index, int objects)
{
	char fp[160], lc[32], secs[32], idx[16], objs[16];
	int out[2], in[2];

	snprintf(fp, sizeof(fp), "--file-prefix=%s", x->prefix);
	/* The main lcore may run on any core, as the OS schedules it. */
	snprintf(lc, sizeof(lc), "--lcores=0@(0-%d)", x->cores > 1 ? x->cores - 1 : 0);
	snprintf(secs, sizeof(secs), "%g", x->o->seconds);
	snprintf(idx, sizeof(idx), "%d", index);
	snprintf(objs, sizeof(objs), "%d", objects);
	if (pipe2(out, O_CLOEXEC) != 0)
		goto fail;
	if (pipe2(in, O_CLOEXEC) != 0) {
		close(out[0]);
		close(out[1]);
		goto fail;
	}
	char *args[] = { (char *)x->self, lc, "--no-pci",
			 "--no-telemetry", "--proc-type=secondary", fp,
			 "--log-level=lib.eal:error", "--log-level=lib.dvshare:warning",
			 "--", "--role", (char *)role,
			 "--dev", (char *)dev, "--seconds", secs, "--index", idx,
			 "--objects", objs, "--mode", (char *)(mode ? mode : "eager"),
			 /* The same rounds as the primary's (section 8). */
			 x->o->quick ? "--quick" : NULL, NULL };
	posix_spawn_file_actions_t fa;
	int rc = posix_spawn_file_actions_init(&fa);
	if (rc == 0)
		rc = posix_spawn_file_actions_adddup2(&fa, out[1], 1);
	if (rc == 0)
		rc = posix_spawn_file_actions_adddup2(&fa, in[0], 0);
	if (rc == 0 && x->pass_fd >= 0) /* not close-on-exec there */
		rc = posix_spawn_file_actions_adddup2(&fa, x->pass_fd, BENCH_PASSED_FD);
	fflush(stdout);
	/* posix_spawn(), not fork(): a fork write-protects every private page
	 * of this process, and the primary's next writes to its handles
	 * and heap then fault, one page at a time (section 6 measured 580
	 * more page faults in a close after starting 8 secondaries). A
	 * deployment starts its secondaries from elsewhere, so those faults
	 * are the bench's, not the protocol's. Secondaries map DPDK memory
	 * at the primary's addresses: no address randomization at their
	 * exec, set here, where the child inherits it. */
	int persona = personality(0xffffffff);
	if (rc == 0 && persona != -1 && personality((unsigned long)persona | ADDR_NO_RANDOMIZE) == -1)
		rc = errno;
	if (rc == 0)
		rc = posix_spawn(&c->pid, x->self, &fa, NULL, args, environ);
	if (persona != -1)
		personality((unsigned long)persona);
	posix_spawn_file_actions_destroy(&fa);
	if (rc != 0) {
		close(out[0]);
		close(out[1]);
		close(in[0]);
		close(in[1]);
		errno = rc;
		goto fail;
	}
	live_add(c->pid);
	close(out[1]);
	close(in[0]);
	c->in = in[1];
	c->out = out[0];
	c->len = 0;
	return 0;
fail:
	bench_fail("cannot start a secondary (%s): %s", role, strerror(errno));
	return -1;
}

/* Take one line out of the child's buffer. 1 if there was one. */
static int take_line(struct bench_child *c, char *line, size_t len)
{
	char *nl = memchr(c->buf, '\n', c->len);
	size_t n;

	if (nl == NULL && c->len < sizeof(c->buf))
		return 0;
	n = nl != NULL ? (size_t)(nl - c->buf) : c->len;
	snprintf(line, len, "%.*s", (int)n, c->buf);
	n += nl != NULL;
	memmove(c->buf, c->buf + n, c->len - n);
	c->len -= n;
	return 1;
}

/* Next line of output, whatever it is: 1, 0 at end of output, -ETIMEDOUT. */
static int next_line(struct bench_child *c, char *line, size_t len, double timeout_s)
{
	double end = bench_now() + timeout_s;

	while (!take_line(c, line, len)) {
		struct pollfd p = { .fd = c->out, .events = POLLIN };
		int ms = (int)((end - bench_now()) * 1e3);
		ssize_t n;

		if (ms <= 0 || poll(&p, 1, ms) == 0)
			return -ETIMEDOUT;
		n = read(c->out, c->buf + c->len, sizeof(c->buf) - c->len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (c->len == 0)
				return 0;
			c->buf[c->len++] = '\n'; /* the last line had no newline */
			continue;
		}
		c->len += (size_t)n;
	}
	return 1;
}

int bench_next_result(struct bench_child *c, char *line, size_t len, double timeout_s)
{
	char buf[sizeof(c->buf)];
	int rc;

	while ((rc = next_line(c, buf, sizeof(buf), timeout_s)) == 1) {
		if (strncmp(buf, "result ", 7) == 0) {
			snprintf(line, len, "%s", buf + 7);
			return 0;
		}
		fprintf(stderr, "[secondary %d] %s\n", (int)c->pid, buf);
	}
	if (rc == 0)
		bench_fail("secondary %d ended without its result", (int)c->pid);
	else
		bench_fail("secondary %d gave no result in %.0f s", (int)c->pid, timeout_s);
	return -1;
}

int bench_tell(struct bench_child *c, const char *line)
{
	size_t n = strlen(line);

	if (write(c->in, line, n) != (ssize_t)n) {
		bench_fail("cannot write to secondary %d: %s", (int)c->pid, strerror(errno));
		return -1;
	}
	return 0;
}

int bench_collect(struct bench_child *c, char *line, size_t len)
{
	char buf[sizeof(c->buf)];
	int st = 0, found = 0, rc;

	close(c->in);
	while ((rc = next_line(c, buf, sizeof(buf), 60.0)) == 1) {
		if (strncmp(buf, "result ", 7) == 0) {
			if (line != NULL)
				snprintf(line, len, "%s", buf + 7);
			found = 1;
		} else {
			fprintf(stderr, "[secondary %d] %s\n", (int)c->pid, buf);
		}
	}
	close(c->out);
	if (rc != 0)
		kill(c->pid, SIGKILL);
	waitpid(c->pid, &st, 0);
	live_del(c->pid);
	if (WIFSIGNALED(st)) {
		bench_fail("secondary %d was killed by signal %d (%s)", (int)c->pid,
			   WTERMSIG(st), strsignal(WTERMSIG(st)));
		return -1;
	}
	if (rc != 0) {
		bench_fail("secondary %d did not end in 60 s", (int)c->pid);
		return -1;
	}
	if (WEXITSTATUS(st) != 0) {
		bench_fail("secondary %d exited with status %d (its message is above)",
			   (int)c->pid, WEXITSTATUS(st));
		return -1;
	}
	if (line != NULL && !found) {
		bench_fail("secondary %d gave no result", (int)c->pid);
		return -1;
	}
	return 0;
}

int bench_run_child(const struct bench_ctx *x, const char *dev, const char *role,
		    const char *mode, int objects, char *line, size_t len)
{
	struct bench_child c;

	if (bench_spawn(&c, x, dev, role, mode, 0, objects) != 0)
		return -1;
	return bench_collect(&c, line, len);
}
