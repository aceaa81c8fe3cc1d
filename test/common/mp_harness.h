/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Multi-process harness: start real DPDK processes (mp_peer), talk to them
 * line by line, stop them, and remove their hugepage files and runtime
 * directory. Every wait is bounded, so a hung peer fails the test instead
 * of hanging it.
 */
#ifndef MP_HARNESS_H
#define MP_HARNESS_H

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MP_REPLY_MAX 512
#define MP_TIMEOUT_MS 30000
/* EAL's memory base, clear of ASan's shadow and of its allocator space
 * (0x600000000000 up on x86_64, where the hint is not kept and secondaries
 * then cannot attach): the suites also run under ASan. Every process of a
 * scene gets it. */
#define MP_BASE_VIRTADDR "--base-virtaddr=0x200000000000"

struct peer {
	pid_t pid;
	int to;   /* its stdin */
	int from; /* its stdout */
	char buf[8192];
	size_t len;
	char last[MP_REPLY_MAX];
	const char *tag; /* reply lines start with it; NULL: "@@ " */
	int with_stderr; /* its stderr (the DPDK log) comes through too */
};

/* Program paths and options, set by the test's main(). */
static const char *mp_peer_prog __attribute__((unused)), *mp_plain_prog __attribute__((unused));

static inline void mp_prefix(char *buf, size_t n, const char *tag)
{
	snprintf(buf, n, "dvs-%s-%d", tag, (int)getpid());
}

/* Read one "@@ " line into p->last; other lines (DPDK logs) go to stderr. */
static inline int peer_read(struct peer *p, int timeout_ms)
{
	struct timespec t0, t1;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		char *nl = memchr(p->buf, '\n', p->len);
		if (nl != NULL) {
			size_t l = (size_t)(nl - p->buf);
			*nl = '\0';
			const char *tag = p->tag != NULL ? p->tag : "@@ ";
			int mine = strncmp(p->buf, tag, strlen(tag)) == 0;
			if (mine)
				snprintf(p->last, sizeof(p->last), "%s", p->buf + strlen(tag));
			else
				fprintf(stderr, "  [%d] %s\n", (int)p->pid, p->buf);
			memmove(p->buf, nl + 1, p->len - l - 1);
			p->len -= l + 1;
			if (mine)
				return 0;
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t1);
		long spent = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
		if (spent >= timeout_ms) {
			snprintf(p->last, sizeof(p->last), "err timeout");
			return -ETIMEDOUT;
		}
		struct pollfd pfd = { p->from, POLLIN, 0 };
		if (poll(&pfd, 1, (int)(timeout_ms - spent)) <= 0)
			continue;
		if (p->len + 1 >= sizeof(p->buf))
			p->len = 0; /* an absurd line: drop it */
		ssize_t n = read(p->from, p->buf + p->len, sizeof(p->buf) - p->len - 1);
		if (n <= 0) {
			snprintf(p->last, sizeof(p->last), "err eof");
			return -EPIPE;
		}
		p->len += (size_t)n;
	}
}

/* Start a process with @args (NULL-terminated), stdin and stdout piped
 * to us, @env ("NAME=value" or NULL) added to its environment. */
static inline int peer_spawn(struct peer *p, char *const args[], const char *env)
{
	int in[2], out[2];

	if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0)
		return -errno;
	p->pid = fork();
	if (p->pid < 0)
		return -errno;
	if (p->pid == 0) {
		dup2(in[0], 0);
		dup2(out[1], 1);
		if (p->with_stderr)
			dup2(out[1], 2);
		/* Secondaries map DPDK memory at the primary's addresses. */
		personality(ADDR_NO_RANDOMIZE);
		if (env != NULL)
			putenv((char *)env);
		execv(args[0], args);
		_exit(127);
	}
	close(in[0]);
	close(out[1]);
	p->to = in[1];
	p->from = out[0];
	return 0;
}

/* Start @prog as a DPDK process on @prefix, with @env ("NAME=value" or
 * NULL) added to its environment. Returns 0 once it said ready. */
static inline int peer_start_env(struct peer *p, const char *prog, const char *prefix,
				 int primary, const char *env)
{
	char fp[128];
	char *args[] = { (char *)prog, "-l", "0", "--no-pci", "--no-telemetry", fp,
			 MP_BASE_VIRTADDR, "--log-level=lib.dvshare:info",
			 "--log-level=lib.eal:notice",
			 primary ? "--proc-type=primary" : "--proc-type=secondary",
			 "-m", "64", NULL };

	memset(p, 0, sizeof(*p));
	snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
	if (!primary)
		args[10] = NULL; /* -m is the primary's business */
	if (peer_spawn(p, args, env) != 0)
		return -errno;
	if (peer_read(p, MP_TIMEOUT_MS) != 0 || strncmp(p->last, "ready", 5) != 0) {
		fprintf(stderr, "peer %s did not start: %s\n", prog, p->last);
		return -EIO;
	}
	return 0;
}

static inline int peer_start_prog(struct peer *p, const char *prog, const char *prefix,
				  int primary)
{
	return peer_start_env(p, prog, prefix, primary, NULL);
}

static inline int peer_start(struct peer *p, const char *prefix, int primary)
{
	return peer_start_prog(p, mp_peer_prog, prefix, primary);
}

static inline int peer_vsend(struct peer *p, const char *fmt, va_list ap)
{
	char line[MP_REPLY_MAX];
	int n = vsnprintf(line, sizeof(line) - 1, fmt, ap);

	line[n++] = '\n';
	return write(p->to, line, (size_t)n) == n ? 0 : -EPIPE;
}

/* Send a command without waiting; read its reply with peer_reply(). */
static inline int peer_send(struct peer *p, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = peer_vsend(p, fmt, ap);
	va_end(ap);
	return rc;
}

static inline const char *peer_reply(struct peer *p)
{
	peer_read(p, MP_TIMEOUT_MS);
	return p->last;
}

/* Send a command; returns the reply (valid until the next command). */
static inline const char *peer_cmd(struct peer *p, const char *fmt, ...)
{
	va_list ap;
	int rc;

	va_start(ap, fmt);
	rc = peer_vsend(p, fmt, ap);
	va_end(ap);
	if (rc != 0) {
		snprintf(p->last, sizeof(p->last), "err write");
		return p->last;
	}
	return peer_reply(p);
}

/* Reply is "ok" (optionally followed by values). */
static inline int is_ok(const char *r)
{
	return strncmp(r, "ok", 2) == 0 && (r[2] == '\0' || r[2] == ' ');
}

/* First number after "ok", or -1. */
static inline long ok_num(const char *r)
{
	return is_ok(r) && r[2] == ' ' ? strtol(r + 3, NULL, 0) : -1;
}

/* Log a reply that was not the one expected (the assert says where). */
static inline int mp_expect(int line, const char *cmd, const char *got, const char *want)
{
	int good = want != NULL ? strcmp(got, want) == 0 : is_ok(got);

	if (!good)
		fprintf(stderr, "line %d: '%s' -> %s (want %s)\n", line, cmd, got,
			want != NULL ? want : "ok ...");
	return good;
}

/* Command must answer ok / exactly @want (inside a CUnit test). */
#define OK(p, ...) CU_ASSERT(mp_expect(__LINE__, #__VA_ARGS__, peer_cmd((p), __VA_ARGS__), NULL))
#define REPLY_IS(p, want, ...) \
	CU_ASSERT(mp_expect(__LINE__, #__VA_ARGS__, peer_cmd((p), __VA_ARGS__), (want)))

/* Wait up to @ms for a process to exit; kill it after that. Returns its
 * exit code, 128 + signal, or -1. */
static inline int peer_wait(struct peer *p, int ms)
{
	int st = 0;

	for (int waited = 0; waited <= ms; waited += 10) {
		pid_t r = waitpid(p->pid, &st, WNOHANG);
		if (r == p->pid)
			goto done;
		usleep(10000);
	}
	kill(p->pid, SIGKILL);
	waitpid(p->pid, &st, 0);
done:
	close(p->to);
	close(p->from);
	p->pid = 0;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

/* Ask a peer to quit and reap it; returns its exit code. */
static inline int peer_stop(struct peer *p)
{
	if (p->pid <= 0)
		return -1;
	peer_cmd(p, "quit");
	return peer_wait(p, MP_TIMEOUT_MS);
}

/* Repeat @cmd (every 10 ms, 10 s at most: a busy machine) until its number
 * reaches @want; returns the last number seen. For events that arrive
 * asynchronously. */
static inline long peer_poll_num(struct peer *p, const char *cmd, long want)
{
	long n = -1;

	for (int i = 0; i < 1000; i++) {
		n = ok_num(peer_cmd(p, "%s", cmd));
		if (n >= want)
			break;
		usleep(10000);
	}
	return n;
}

/* Remove what a DPDK run left for @prefix: hugepage files, runtime dir. */
static inline void mp_cleanup(const char *prefix)
{
	const char *dirs[] = { "/dev/hugepages", NULL };
	char path[512];
	DIR *d;
	struct dirent *e;

	for (int i = 0; dirs[i] != NULL; i++) {
		d = opendir(dirs[i]);
		while (d != NULL && (e = readdir(d)) != NULL) {
			if (strncmp(e->d_name, prefix, strlen(prefix)) == 0) {
				snprintf(path, sizeof(path), "%s/%s", dirs[i], e->d_name);
				unlink(path);
			}
		}
		if (d != NULL)
			closedir(d);
	}
	snprintf(path, sizeof(path), "/var/run/dpdk/%s", prefix);
	d = opendir(path);
	while (d != NULL && (e = readdir(d)) != NULL) {
		char f[1024];
		if (e->d_name[0] == '.')
			continue;
		snprintf(f, sizeof(f), "%s/%s", path, e->d_name);
		unlink(f);
	}
	if (d != NULL)
		closedir(d);
	rmdir(path);
}

/* A scenario's processes: one primary and up to four secondaries of
 * mp_peer on one file prefix. */
struct mp_scene {
	char prefix[96];
	struct peer prim;
	struct peer sec[17];
	int nsec;
	int engine; /* the primary runs a software-device engine */
};

/* Fresh prefix (leftovers removed), primary started. 0 or -1. */
static inline int mp_scene_start(struct mp_scene *s, const char *tag, const char *env)
{
	memset(s, 0, sizeof(*s));
	mp_prefix(s->prefix, sizeof(s->prefix), tag);
	mp_cleanup(s->prefix);
	return peer_start_env(&s->prim, mp_peer_prog, s->prefix, 1, env) == 0 ? 0 : -1;
}

/* One more secondary, with @env ("NAME=value" or NULL); NULL on failure. */
static inline struct peer *mp_scene_secondary(struct mp_scene *s, const char *env)
{
	struct peer *p = &s->sec[s->nsec];

	if (s->nsec == (int)(sizeof(s->sec) / sizeof(s->sec[0]))) {
		fprintf(stderr, "mp_scene_secondary: a scene holds %d secondaries at most\n", s->nsec);
		return NULL;
	}
	if (peer_start_env(p, mp_peer_prog, s->prefix, 0, env) != 0)
		return NULL;
	s->nsec++;
	return p;
}

/* Stop every secondary still running; each must exit 0. */
static inline int mp_scene_stop_secondaries(struct mp_scene *s)
{
	int bad = 0;

	for (int i = 0; i < s->nsec; i++)
		if (s->sec[i].pid > 0)
			bad += peer_stop(&s->sec[i]) != 0;
	return bad;
}

#ifdef CU_ASSERT_EQUAL
/* The end of a scene: every secondary still running and the primary stop
 * and exit 0 (asserted), their files go. */
static inline void mp_scene_end(struct mp_scene *s)
{
	CU_ASSERT_EQUAL(mp_scene_stop_secondaries(s), 0);
	if (s->prim.pid > 0)
		CU_ASSERT_EQUAL(peer_stop(&s->prim), 0);
	mp_cleanup(s->prefix);
}
#endif

/* Start an attacker program @prog (test/fault/hostile, exhaust) as
 * "@prog @cmd RUNTIME_DIR @a1 @a2" on @s's runtime directory; its output
 * comes through to the log, and peer_read() finds its "forged N" line. */
static inline int mp_attacker_start(struct peer *h, const char *prog, const struct mp_scene *s,
				    const char *cmd, const char *a1, const char *a2)
{
	static char rt[160];
	char *args[] = { (char *)prog, (char *)cmd, rt, (char *)a1, (char *)a2, NULL };

	snprintf(rt, sizeof(rt), "/var/run/dpdk/%s", s->prefix);
	memset(h, 0, sizeof(*h));
	h->tag = "forged ";
	return peer_spawn(h, args, NULL);
}

/* Run it to its end: how many of its messages must be refused, or -1 if
 * it could not do what it came for. */
static inline long mp_attacker_run(const char *prog, const struct mp_scene *s, const char *cmd,
				   const char *a1, const char *a2)
{
	struct peer h;

	if (mp_attacker_start(&h, prog, s, cmd, a1, a2) != 0)
		return -1;
	long n = peer_read(&h, MP_TIMEOUT_MS) == 0 ? atol(h.last) : -1;
	return peer_wait(&h, MP_TIMEOUT_MS) == 0 ? n : -1;
}

/* Messages @p refused (dvshare_stats.refused). */
static inline long mp_refused(struct peer *p)
{
	return ok_num(peer_cmd(p, "refused"));
}

/* @p's fds once they are back to @at_most (a dead peer's are closed by
 * the interrupt thread after its last callback), or the last count after
 * 3 s. */
static inline long mp_fds_settle(struct peer *p, long at_most)
{
	long fds = -1;

	for (int i = 0; i < 300 && (fds < 0 || fds > at_most); i++, usleep(10000))
		fds = ok_num(peer_cmd(p, "fdcount"));
	return fds;
}

/* Lines of @path containing @what. */
static inline int mp_count_in_file(const char *path, const char *what)
{
	char line[1024];
	int n = 0;
	FILE *f = fopen(path, "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		n += strstr(line, what) != NULL;
	if (f != NULL)
		fclose(f);
	return n;
}

/* dvshare's lines of an MP_PEER_LOG file (mp_peer) at NOTICE or above:
 * what an application's log shows at DPDK's default level. */
static inline int mp_count_loud(const char *path)
{
	char line[1024];
	int n = 0, level = 0, at = 0;
	FILE *f = fopen(path, "r");

	while (f != NULL && fgets(line, sizeof(line), f) != NULL)
		n += sscanf(line, "L%d %n", &level, &at) == 1 && level <= 6 /* RTE_LOG_NOTICE */ &&
		     strncmp(line + at, "dvshare:", 8) == 0;
	if (f != NULL)
		fclose(f);
	return n;
}

/* The NIC of the hw suites: DVSHARE_HW_IBDEV, else @opt (the hw_ibdev
 * Meson option). None named: the test says why and exits 77 (skipped). */
static inline const char *mp_hw_ibdev(const char *opt)
{
	const char *env = getenv("DVSHARE_HW_IBDEV");
	const char *dev = env != NULL && env[0] != '\0' ? env : opt;

	if (dev == NULL || dev[0] == '\0') {
		printf("hw suite: no device given (set DVSHARE_HW_IBDEV=mlx5_0 or "
		       "meson configure -Dhw_ibdev=mlx5_0); not run\n");
		exit(77);
	}
	printf("hw suite on %s\n", dev);
	return dev;
}

/* The arguments of the suites run once per attach mode: PEER [--mode
 * eager|lazy|selective] [--hw IBDEV]. Sets mp_peer_prog; *@mode_env is
 * the secondaries' MP_PEER_ATTACH ("selective:" takes @selective), NULL
 * for eager; *@dev and *@hw for --hw. Writes the suite's name
 * (<@kind>_<mode>, "hw_" for --hw) into @suite. 0, or -1 after saying why. */
static inline int mp_mode_args(int argc, char **argv, const char *kind, const char *selective,
			       const char **mode_env, const char **dev, int *hw, char *suite,
			       size_t len)
{
	static char sel[96];
	const char *mode = "eager";

	if (argc < 2) {
		fprintf(stderr, "usage: %s PEER [--mode eager|lazy|selective] [--hw IBDEV]\n",
			argv[0]);
		return -1;
	}
	mp_peer_prog = argv[1];
	if (argc >= 4 && strcmp(argv[2], "--mode") == 0) {
		mode = argv[3];
		argv += 2;
		argc -= 2;
	}
	*mode_env = NULL;
	if (strcmp(mode, "lazy") == 0) {
		*mode_env = "MP_PEER_ATTACH=lazy";
	} else if (strcmp(mode, "selective") == 0) {
		snprintf(sel, sizeof(sel), "MP_PEER_ATTACH=selective:%s", selective);
		*mode_env = sel;
	} else if (strcmp(mode, "eager") != 0) {
		fprintf(stderr, "unknown mode %s\n", mode);
		return -1;
	}
	if (argc >= 3 && strcmp(argv[2], "--hw") == 0) {
		*dev = mp_hw_ibdev(argc >= 4 ? argv[3] : "");
		*hw = 1;
	}
	snprintf(suite, len, "%s_%s_%s", *hw ? "hw" : "mp", kind, mode);
	return 0;
}

/* The hugepage check every mp test starts with: fail loudly, never skip. */
static inline int mp_have_hugepages(void)
{
	FILE *f = fopen("/sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages", "r");
	long n = 0;

	if (f != NULL) {
		if (fscanf(f, "%ld", &n) != 1)
			n = 0;
		fclose(f);
	}
	if (n < 64) {
		fprintf(stderr, "mp tests need free 2 MiB hugepages (have %ld): "
				"run buildtools/hugepages.sh as root\n", n);
		return 0;
	}
	return 1;
}

#endif
