/* SPDX-License-Identifier: BSD-3-Clause */
#include "pmd_harness.h"

#include <pty.h>

#include "dvs_cunit.h"

const char *pmd;

/* argv for a pmd on @prefix: EAL options, "--", @extra. @fp is the
 * --file-prefix buffer (128 bytes); @args has room for 48. */
static void pmd_args(char **args, char *fp, const char *prefix, int flags,
		     const char *const extra[])
{
	int n = 0;

	args[n++] = (char *)pmd;
	args[n++] = "--no-pci";
	args[n++] = fp;
	args[n++] = "--log-level=lib.eal:error";
	args[n++] = MP_BASE_VIRTADDR;
	snprintf(fp, 128, "--file-prefix=%s", prefix);
	if ((flags & PMD_PRIMARY) != 0 && (flags & PMD_NO_SERVICE_CORE) != 0) {
		args[n++] = "-l";
		args[n++] = "0";
		args[n++] = "-m";
		args[n++] = "64";
	} else if ((flags & PMD_PRIMARY) != 0) {
		/* A service lcore for the engine. */
		args[n++] = "-l";
		args[n++] = "0,1";
		args[n++] = "-s";
		args[n++] = "0x2";
		args[n++] = "-m";
		args[n++] = "64";
	} else {
		args[n++] = "-l";
		args[n++] = "0";
		args[n++] = "--proc-type=secondary";
	}
	if ((flags & PMD_TELEMETRY) == 0)
		args[n++] = "--no-telemetry";
	args[n++] = "--";
	for (int i = 0; extra[i] != NULL && n < 47; i++)
		args[n++] = (char *)extra[i];
	args[n] = NULL;
}

/* A pmd process whose every output line is a reply line. */
int pmd_start(struct peer *p, const char *prefix, int primary, int telemetry,
	      const char *const extra[])
{
	char fp[128];
	char *args[48];

	memset(p, 0, sizeof(*p));
	p->tag = "";
	p->with_stderr = 1; /* the library's log lines are checked too */
	pmd_args(args, fp, prefix, (primary ? PMD_PRIMARY : 0) | (telemetry ? PMD_TELEMETRY : 0),
		 extra);
	return peer_spawn(p, args, NULL);
}

/* Read lines until one starts with @prefix; that line, or NULL. */
const char *expect_line(struct peer *p, const char *prefix)
{
	while (peer_read(p, MP_TIMEOUT_MS) == 0)
		if (strncmp(p->last, prefix, strlen(prefix)) == 0)
			return p->last;
	fprintf(stderr, "no line starting with '%s' (last: %s)\n", prefix, p->last);
	return NULL;
}

int send_line(struct peer *p, const char *line)
{
	return peer_send(p, "%s", line);
}

/* A primary with a VAR, a VIRTIO_NET_Q (with metadata; its PD and three
 * UMEMs come with it), a flow counter and the engine. */
int start_primary(struct peer *p, const char *prefix, int telemetry)
{
	const char *const opts[] = { "--dev", "sim0", "--var", "db0", "--virtq",
				     "q0:3:128:queue=3", "--counter", "c0", "--engine", "--stdin",
				     NULL };

	if (pmd_start(p, prefix, 1, telemetry, opts) != 0)
		return -1;
	return expect_line(p, "ready primary") != NULL ? 0 : -1;
}

void stop(struct peer *p)
{
	send_line(p, "quit");
	CU_ASSERT_PTR_NOT_NULL(expect_line(p, "bye: 0 failed"));
	CU_ASSERT_EQUAL(peer_wait(p, MP_TIMEOUT_MS), 0);
}

/* ---------------------------------------------------------------- tables */

static const char *skip_blanks(const char *s)
{
	return s + strspn(s, " \t");
}

int fields_match(const char *line, const char *fields)
{
	const char *l = skip_blanks(line), *f = skip_blanks(fields);

	while (*f != '\0') {
		size_t lw = strcspn(l, " \t"), fw = strcspn(f, " \t");

		if (lw != fw || strncmp(l, f, fw) != 0)
			return 0;
		l = skip_blanks(l + lw);
		f = skip_blanks(f + fw);
	}
	return 1;
}

const char *expect_row(struct peer *p, const char *fields)
{
	while (peer_read(p, MP_TIMEOUT_MS) == 0)
		if (fields_match(p->last, fields))
			return p->last;
	fprintf(stderr, "no row '%s' (last: %s)\n", fields, p->last);
	return NULL;
}

int row_aligned(const char *header, const char *row)
{
	size_t h = 0, r = 0;

	while (header[h] != '\0' && row[r] != '\0') {
		if (h != r) {
			fprintf(stderr, "not aligned:\n  %s\n  %s\n", header, row);
			return 0;
		}
		h += strcspn(header + h, " ");
		h += strspn(header + h, " ");
		r += strcspn(row + r, " ");
		r += strspn(row + r, " ");
	}
	/* As many fields; the last column may hold blanks (metadata). */
	return header[h] == '\0';
}

/* ------------------------------------------------------ captured runs */

struct sink {
	int fd;
	char *buf;
	size_t len, cap;
};

/* One read into @s; 0, or -1 at EOF. */
static int sink_read(struct sink *s)
{
	char chunk[4096];
	ssize_t n = read(s->fd, chunk, sizeof(chunk));

	if (n <= 0)
		return -1;
	if (s->len + (size_t)n + 1 > s->cap) {
		size_t cap = (s->cap + (size_t)n + 1) * 2;
		char *b = realloc(s->buf, cap);

		if (b == NULL)
			return -1;
		s->buf = b;
		s->cap = cap;
	}
	for (ssize_t i = 0; i < n; i++)
		if (chunk[i] != '\r')
			s->buf[s->len++] = chunk[i];
	s->buf[s->len] = '\0';
	return 0;
}

/* Read both sinks until both are at EOF or @ms pass. 0 or -ETIMEDOUT. */
static int drain(struct sink *s, int ns, int ms)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd pfd[2];
		int open = 0;

		for (int i = 0; i < ns; i++) {
			pfd[i] = (struct pollfd){ s[i].fd, POLLIN, 0 };
			open += s[i].fd >= 0;
		}
		if (open == 0)
			return 0;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long spent = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (spent >= ms)
			return -ETIMEDOUT;
		if (poll(pfd, (nfds_t)ns, (int)(ms - spent)) <= 0)
			continue;
		for (int i = 0; i < ns; i++) {
			if (s[i].fd >= 0 && (pfd[i].revents & (POLLIN | POLLHUP | POLLERR)) != 0 &&
			    sink_read(&s[i]) != 0) {
				close(s[i].fd);
				s[i].fd = -1;
			}
		}
	}
}

static int reap(pid_t pid, int ms)
{
	int st = 0;

	for (int waited = 0; waited <= ms; waited += 10) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &st, 0);
	return -1;
}

int run_capture(char *const args[], const char *input, struct run_output *o)
{
	int in[2], out[2], err[2];
	struct sink s[2];
	pid_t pid;
	int rc;

	memset(o, 0, sizeof(*o));
	o->status = -1;
	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0)
		return -1;
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		dup2(err[1], 2);
		personality(ADDR_NO_RANDOMIZE); /* as peer_spawn(): secondaries attach */
		execv(args[0], args);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	close(err[1]);
	if (input != NULL && write(in[1], input, strlen(input)) != (ssize_t)strlen(input))
		fprintf(stderr, "run_capture: short write to stdin\n");
	close(in[1]);
	memset(s, 0, sizeof(s));
	s[0].fd = out[0];
	s[1].fd = err[0];
	rc = drain(s, 2, MP_TIMEOUT_MS);
	for (int i = 0; i < 2; i++)
		if (s[i].fd >= 0)
			close(s[i].fd);
	o->out = s[0].buf != NULL ? s[0].buf : strdup("");
	o->err = s[1].buf != NULL ? s[1].buf : strdup("");
	o->status = reap(pid, rc == 0 ? MP_TIMEOUT_MS : 0);
	/* A crash's last words; otherwise the test reads o->err itself. */
	if (o->status != 0 && o->status != 1 && o->err[0] != '\0')
		fprintf(stderr, "\n  [stderr of %s, status %d]\n%s", args[0], o->status, o->err);
	return rc == 0 && o->status >= 0 ? 0 : -1;
}

int pmd_capture(const char *prefix, int flags, const char *input, const char *const extra[],
		struct run_output *o)
{
	char fp[128];
	char *args[48];

	pmd_args(args, fp, prefix, flags, extra);
	return run_capture(args, input, o);
}

void run_output_free(struct run_output *o)
{
	free(o->out);
	free(o->err);
	memset(o, 0, sizeof(*o));
}

/* Call @fn on each line of @text (copied into @buf) until it returns non-zero. */
static const char *each_line(const char *text, char *buf, size_t len,
			     int (*fn)(const char *line, const char *arg), const char *arg,
			     int *count)
{
	const char *p = text;

	while (p != NULL && *p != '\0') {
		size_t l = strcspn(p, "\n");

		snprintf(buf, len, "%.*s", (int)l, p);
		if (fn(buf, arg)) {
			if (count == NULL)
				return buf;
			(*count)++;
		}
		p = p[l] == '\n' ? p + l + 1 : p + l;
	}
	return NULL;
}

static int starts_with(const char *line, const char *prefix)
{
	return strncmp(line, prefix, strlen(prefix)) == 0;
}

int count_lines(const char *text, const char *prefix)
{
	char buf[4096];
	int n = 0;

	each_line(text, buf, sizeof(buf), starts_with, prefix, &n);
	return n;
}

const char *find_line(const char *text, const char *prefix, char *buf, size_t len)
{
	return each_line(text, buf, len, starts_with, prefix, NULL);
}

const char *find_row(const char *text, const char *fields, char *buf, size_t len)
{
	return each_line(text, buf, len, fields_match, fields, NULL);
}

/* ------------------------------------------------------ pseudo-terminal */

int term_start(struct term *t, const char *prefix, int flags, const char *const extra[])
{
	char fp[128];
	char *args[48];
	int master;
	pid_t pid;

	memset(t, 0, sizeof(*t));
	pmd_args(args, fp, prefix, flags, extra);
	pid = forkpty(&master, NULL, NULL, NULL);
	if (pid < 0)
		return -1;
	if (pid == 0) {
		personality(ADDR_NO_RANDOMIZE);
		execv(args[0], args);
		_exit(127);
	}
	t->p.pid = pid;
	t->p.to = master;
	t->p.from = dup(master); /* peer_wait() closes both */
	return t->p.from >= 0 ? 0 : -1;
}

int term_type(struct term *t, const char *keys)
{
	size_t n = strlen(keys);

	return write(t->p.to, keys, n) == (ssize_t)n ? 0 : -1;
}

/* One read of the terminal into the log; -1 at EOF (EIO once the
 * program closed it). */
static int term_read(struct term *t, int ms)
{
	struct pollfd pfd = { t->p.from, POLLIN, 0 };
	char chunk[4096];
	ssize_t n;

	if (poll(&pfd, 1, ms) <= 0)
		return 0;
	n = read(t->p.from, chunk, sizeof(chunk));
	if (n <= 0)
		return -1;
	if (t->len + (size_t)n + 1 > t->cap) {
		size_t cap = (t->cap + (size_t)n + 1) * 2;
		char *b = realloc(t->log, cap);

		if (b == NULL)
			return -1;
		t->log = b;
		t->cap = cap;
	}
	memcpy(t->log + t->len, chunk, (size_t)n);
	t->len += (size_t)n;
	t->log[t->len] = '\0';
	return 0;
}

int term_expect(struct term *t, const char *text)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		const char *hit = t->log != NULL
			? memmem(t->log + t->seen, t->len - t->seen, text, strlen(text)) : NULL;

		if (hit != NULL) {
			t->seen = (size_t)(hit - t->log) + strlen(text);
			return 0;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long spent = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (spent >= MP_TIMEOUT_MS || term_read(t, (int)(MP_TIMEOUT_MS - spent)) != 0) {
			fprintf(stderr, "terminal never showed '%s'; it showed:\n%s\n", text,
				t->log != NULL ? t->log + t->seen : "");
			return -1;
		}
	}
}

int term_finish(struct term *t)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long spent = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (spent >= MP_TIMEOUT_MS || term_read(t, (int)(MP_TIMEOUT_MS - spent)) != 0)
			break;
	}
	if (t->log != NULL) { /* lines as a person sees them: no '\r' */
		size_t w = 0;

		for (size_t r = 0; r < t->len; r++)
			if (t->log[r] != '\r')
				t->log[w++] = t->log[r];
		t->len = w;
		t->log[w] = '\0';
		t->seen = t->seen < w ? t->seen : w;
	}
	return peer_wait(&t->p, MP_TIMEOUT_MS);
}

void term_free(struct term *t)
{
	free(t->log);
	t->log = NULL;
	t->len = t->cap = t->seen = 0;
}
