/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Pairs of dpdk-testpmd processes, the packet paths section 9 sets
 * dvshare's beside: each pair moves 64-byte frames in io mode, bursts of
 * 32, 32 bursts in flight ("start tx_first 32"), one forwarding core per
 * process, with the same testpmd binary (Debian's):
 *   - vhost-user + virtio-user (net_vhost, net_virtio_user): both forward;
 *   - memif, server and client (net_memif): both forward;
 *   - net_dvshare: a primary that probes the port (the software device's
 *     engine on core 1) and a forwarding secondary (core 0), as
 *     doc/net_dvshare.md runs them.
 * The rate is the measured side's Rx-pps between two "show port stats".
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "bench.h"

static char out[1 << 16];

static int testpmd_start(struct bench_testpmd *t, char *const args[], const char *ld_path)
{
	int in[2], outp[2];

	if (pipe2(in, O_CLOEXEC) != 0)
		return -1;
	if (pipe2(outp, O_CLOEXEC) != 0) {
		close(in[0]);
		close(in[1]);
		return -1;
	}
	t->pid = fork();
	if (t->pid < 0)
		return -1;
	if (t->pid == 0) {
		dup2(in[0], 0);
		dup2(outp[1], 1);
		dup2(outp[1], 2);
		if (ld_path != NULL) {
			const char *was = getenv("LD_LIBRARY_PATH");
			char v[PATH_MAX * 2];
			snprintf(v, sizeof(v), "%s%s%s", ld_path, was != NULL ? ":" : "",
				 was != NULL ? was : "");
			setenv("LD_LIBRARY_PATH", v, 1);
		}
		execvp(args[0], args);
		_exit(127);
	}
	close(in[0]);
	close(outp[1]);
	t->in = in[1];
	t->out = outp[0];
	fcntl(t->out, F_SETFL, O_NONBLOCK);
	return 0;
}

/* Read what @t printed for up to @sec seconds into out[] (appending);
 * stop early once @until appears (if not NULL) in what was read. */
static void testpmd_read(struct bench_testpmd *t, double sec, const char *until)
{
	double end = bench_now() + sec;
	size_t used = strlen(out);

	while (bench_now() < end && used + 1 < sizeof(out)) {
		struct pollfd p = { t->out, POLLIN, 0 };
		if (poll(&p, 1, 50) <= 0)
			continue;
		ssize_t n = read(t->out, out + used, sizeof(out) - used - 1);
		if (n <= 0)
			break;
		used += (size_t)n;
		out[used] = '\0';
		if (until != NULL && strstr(out, until) != NULL)
			break;
	}
}

static int testpmd_say(struct bench_testpmd *t, const char *cmd)
{
	return write(t->in, cmd, strlen(cmd)) == (ssize_t)strlen(cmd) ? 0 : -1;
}

/* SIGINT, then SIGKILL if it has not exited within 3 s. */
static void testpmd_stop(struct bench_testpmd *t)
{
	if (t->pid <= 0)
		return;
	close(t->in);
	kill(t->pid, SIGINT);
	for (int i = 0; i < 300 && waitpid(t->pid, NULL, WNOHANG) == 0; i++)
		usleep(10000);
	if (waitpid(t->pid, NULL, WNOHANG) == 0) {
		kill(t->pid, SIGKILL);
		waitpid(t->pid, NULL, 0);
	}
	close(t->out);
	t->pid = 0;
}

static void remove_prefix(const char *prefix)
{
	char cmd[512];

	snprintf(cmd, sizeof(cmd), "rm -rf /dev/hugepages/%s* /var/run/dpdk/%s", prefix, prefix);
	if (system(cmd) != 0)
		fprintf(stderr, "cannot remove %s's files\n", prefix);
}

/* Up to its prompt, and (the measured side) its port's link up. */
static int testpmd_ready(struct bench_testpmd *t, int link, const char *what, char *why,
			 size_t len)
{
	out[0] = '\0';
	testpmd_read(t, 20, "testpmd> ");
	if (strstr(out, "testpmd> ") == NULL || strstr(out, "No probed ethernet devices") != NULL) {
		snprintf(why, len, "dpdk-testpmd with %s did not start%s", what,
			 strstr(out, "No such file") != NULL || out[0] == '\0'
				 ? " (is dpdk-testpmd installed? buildtools/deps.sh)" : "");
		return -1;
	}
	/* memif's link comes up when the client has connected. */
	for (int i = 0; link && i < 100; i++) {
		out[0] = '\0';
		if (testpmd_say(t, "show port info 0\n") != 0)
			break;
		testpmd_read(t, 2, "testpmd> ");
		if (strstr(out, "Link status: up") != NULL)
			return 0;
		usleep(100 * 1000); /* a bounded poll: testpmd has no link event to wait on */
	}
	if (link) {
		snprintf(why, len, "%s: the link did not come up in 10 s", what);
		return -1;
	}
	return 0;
}

/* Is no directory from @path up to / world-writable? DPDK's EAL loads a
 * -d plugin only from such a place. */
static int private_path(const char *path)
{
	char d[PATH_MAX];
	struct stat st;

	if (realpath(path, d) == NULL)
		return 0;
	for (char *s = strrchr(d, '/'); s != NULL; s = strrchr(d, '/')) {
		*s = '\0';
		if (stat(d[0] != '\0' ? d : "/", &st) != 0 || (st.st_mode & S_IWOTH))
			return 0;
		if (d[0] == '\0')
			break;
	}
	return 1;
}

/* The plugin testpmd loads: the build's, or a private copy of it (a build
 * under /tmp), in @t->plugdir. */
static int plugin_path(struct bench_tp_pair *t, char *path, size_t len, char *why, size_t wlen)
{
	const char *p = getenv("DVS_BENCH_NET_PLUGIN");
	char cmd[PATH_MAX * 5];

#ifdef DVS_BENCH_NET_PLUGIN
	if (p == NULL)
		p = DVS_BENCH_NET_PLUGIN;
#endif
	if (p == NULL || access(p, R_OK) != 0) {
		snprintf(why, wlen, "no net_dvshare plugin (%s)%s", p != NULL ? p : "not built",
			 p != NULL ? "" : ": DPDK's driver-SDK headers, buildtools/deps.sh");
		return -1;
	}
	if (private_path(p)) {
		snprintf(path, len, "%s", p);
		return 0;
	}
	snprintf(t->plugdir, sizeof(t->plugdir), "%s/.cache/dvshare/bench-%d",
		 getenv("HOME") != NULL ? getenv("HOME") : "/root", (int)getpid());
	if (snprintf(cmd, sizeof(cmd), "mkdir -p '%s' && chmod 700 '%s' && cp '%s' '%s/'",
		     t->plugdir, t->plugdir, p, t->plugdir) >= (int)sizeof(cmd) ||
	    snprintf(path, len, "%s/%s", t->plugdir,
		     strrchr(p, '/') != NULL ? strrchr(p, '/') + 1 : p) >= (int)len ||
	    system(cmd) != 0 || !private_path(path)) {
		snprintf(why, wlen, "%s lies under a world-writable directory and cannot be copied "
			 "to %s", p, t->plugdir);
		return -1;
	}
	return 0;
}

const char *bench_tp_name(enum bench_tp_kind kind)
{
	switch (kind) {
	case BENCH_TP_VHOST:
		return "vhost-user + virtio-user";
	case BENCH_TP_MEMIF:
		return "memif server + client";
	case BENCH_TP_NET_DVSHARE:
		return "net_dvshare primary + secondary";
	}
	return "?";
}

int bench_tp_start(struct bench_tp_pair *t, enum bench_tp_kind kind, const struct bench_ctx *x,
		   const char *dev, char *why, size_t wlen)
{
	char afp[128], bfp[128], adev[PATH_MAX + 64], bdev[192], plugin[PATH_MAX] = "";
	const char *ld = NULL;

	memset(t, 0, sizeof(*t));
	t->kind = kind;
	snprintf(t->pa, sizeof(t->pa), "%s-tp%da", x->prefix, (int)kind);
	snprintf(t->pb, sizeof(t->pb), "%s-tp%db", x->prefix, (int)kind);
	snprintf(afp, sizeof(afp), "--file-prefix=%s", t->pa);
	snprintf(bfp, sizeof(bfp), "--file-prefix=%s", t->pb);
	snprintf(t->sock, sizeof(t->sock), "/tmp/%s-tp%d.sock", x->prefix, (int)kind);
	unlink(t->sock);
	switch (kind) {
	case BENCH_TP_VHOST:
		snprintf(adev, sizeof(adev), "net_vhost0,iface=%s,queues=1", t->sock);
		snprintf(bdev, sizeof(bdev), "net_virtio_user0,path=%s,queues=1", t->sock);
		break;
	case BENCH_TP_MEMIF:
		snprintf(adev, sizeof(adev), "net_memif0,role=server,socket=%s", t->sock);
		snprintf(bdev, sizeof(bdev), "net_memif0,role=client,socket=%s", t->sock);
		break;
	case BENCH_TP_NET_DVSHARE:
		if (plugin_path(t, plugin, sizeof(plugin), why, wlen) != 0)
			return -1;
		snprintf(adev, sizeof(adev), "net_dvshare0,dev=%s", dev);
		/* The secondary is the primary's: one file prefix. */
		snprintf(bfp, sizeof(bfp), "--file-prefix=%s", t->pa);
#ifdef DVS_BENCH_LIBDIR
		ld = DVS_BENCH_LIBDIR; /* libdvshare.so, for a copied plugin */
#endif
		break;
	}
	/* stdbuf: testpmd's printf()s reach a pipe only at exit otherwise.
	 * Side a forwards on core 1 (its main lcore on 0); net_dvshare's
	 * primary runs the engine on core 1 (its main lcore's thread). */
	char *a_args[32] = { "stdbuf", "-oL", "dpdk-testpmd", "-l", "0,1", "--main-lcore",
			     kind == BENCH_TP_NET_DVSHARE ? "1" : "0", "--no-pci", afp,
			     "-m", "128", "--single-file-segments", "--no-telemetry",
			     "--log-level=lib.eal:error" };
	int n = 14;
	if (plugin[0] != '\0') {
		a_args[n++] = "-d";
		a_args[n++] = plugin;
	}
	a_args[n++] = "--vdev";
	a_args[n++] = adev;
	char *const tail[] = { "--", "-i", "--nb-cores=1", "--forward-mode=io",
			       "--total-num-mbufs=16384", NULL };
	memcpy(&a_args[n], tail, sizeof(tail));
	/* ... side b, measured, on core 0 (its main lcore on 1). */
	char *b_args[32] = { "stdbuf", "-oL", "dpdk-testpmd", "-l", "0,1", "--main-lcore", "1",
			     "--no-pci", bfp, "--no-telemetry", "--log-level=lib.eal:error" };
	n = 11;
	if (kind == BENCH_TP_NET_DVSHARE) {
		b_args[n++] = "-d";
		b_args[n++] = plugin;
		b_args[n++] = "--proc-type=secondary";
	} else {
		b_args[n++] = "-m";
		b_args[n++] = "128";
		b_args[n++] = "--single-file-segments";
		b_args[n++] = "--vdev";
		b_args[n++] = bdev;
	}
	memcpy(&b_args[n], tail, sizeof(tail));

	if (testpmd_start(&t->a, a_args, ld) != 0) {
		snprintf(why, wlen, "cannot start dpdk-testpmd: %s", strerror(errno));
		return -1;
	}
	if (testpmd_ready(&t->a, 0, bench_tp_name(kind), why, wlen) != 0)
		return -1;
	if (testpmd_start(&t->b, b_args, ld) != 0) {
		snprintf(why, wlen, "cannot start dpdk-testpmd: %s", strerror(errno));
		return -1;
	}
	if (testpmd_ready(&t->b, 1, bench_tp_name(kind), why, wlen) != 0)
		return -1;
	/* A round not counted: the first moves mbufs never touched yet. */
	return bench_tp_round(t, 0.5, why, wlen) > 0 ? 0 : -1;
}

double bench_tp_round(struct bench_tp_pair *t, double seconds, char *why, size_t wlen)
{
	double pps = -1;
	/* net_dvshare's primary does not forward: its secondary drives the queues. */
	const int a_fwd = t->kind != BENCH_TP_NET_DVSHARE;

	if ((a_fwd && testpmd_say(&t->a, "start\n") != 0) ||
	    testpmd_say(&t->b, "start tx_first 32\n") != 0)
		goto done;
	out[0] = '\0';
	testpmd_read(&t->b, 0.3, NULL);
	/* The rate is over the time between two shows. */
	if (testpmd_say(&t->b, "show port stats all\n") != 0)
		goto done;
	testpmd_read(&t->b, seconds, NULL);
	out[0] = '\0';
	if (testpmd_say(&t->b, "show port stats all\n") != 0)
		goto done;
	testpmd_read(&t->b, 5, "Tx-pps");
	const char *r = strstr(out, "Rx-pps:");
	if (r != NULL)
		pps = atof(r + 7);
done:
	testpmd_say(&t->b, "stop\n");
	if (a_fwd)
		testpmd_say(&t->a, "stop\n");
	out[0] = '\0';
	testpmd_read(&t->b, 5, "Done.");
	out[0] = '\0';
	if (a_fwd)
		testpmd_read(&t->a, 5, "Done.");
	if (pps <= 0)
		snprintf(why, wlen, "%s: no Rx-pps from dpdk-testpmd", bench_tp_name(t->kind));
	return pps;
}

void bench_tp_stop(struct bench_tp_pair *t)
{
	/* A secondary goes before its primary. */
	testpmd_stop(&t->b);
	testpmd_stop(&t->a);
	unlink(t->sock);
	remove_prefix(t->pa);
	remove_prefix(t->pb);
	if (t->plugdir[0] != '\0') {
		char cmd[PATH_MAX + 16];
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->plugdir);
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", t->plugdir);
		t->plugdir[0] = '\0';
	}
}
