/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite hostile, test exhaust: one peer must not exhaust the primary (its
 * fds, threads, memory, registry room, quota) or pass for a process it is
 * not. Each test is the attack as an attacker writes it (test/fault/exhaust
 * without EAL, or mp_peer as a real secondary), with the primary's
 * resources measured before and after.
 *
 * argv: PEER EXHAUST
 */
#include <signal.h>
#include <time.h>

#include "dvs_cunit.h"
#include "mp_harness.h"

#define DEV "sim0"

static const char *exhaust_prog;

#define scene mp_scene
#define scene_end mp_scene_end

static void scene_start(struct scene *s, const char *tag)
{
	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(mp_scene_start(s, tag, NULL), 0);
	OK(&s->prim, "open " DEV);
}

/* rte_mp messages under the names dvshare's channel replaced, each with 8
 * real fds: dvshare registers nothing there, so DPDK drops each message
 * and closes its fds (as for any name it has no action for); the primary
 * keeps none. (Protocol 5 registered those names to count forgeries, and
 * the fds stayed open in the primary: +160 for these 20 messages.) */
static void test_rte_mp_fds_not_kept(void)
{
	struct scene s;

	scene_start(&s, "mpfds");
	long fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	long r0 = mp_refused(&s.prim);
	CU_ASSERT_EQUAL(mp_attacker_run(exhaust_prog, &s, "mpfds", "20", NULL), 0);
	long fds = mp_fds_settle(&s.prim, fds0);
	printf("%s: primary fds %ld before, %ld after 20 messages of 8 fds\n", __func__, fds0, fds);
	CU_ASSERT(fds <= fds0);
	CU_ASSERT_EQUAL(mp_refused(&s.prim), r0);
	/* A secondary still attaches. */
	struct peer *p = mp_scene_secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	REPLY_IS(p, "ok 1", "status");
	scene_end(&s);
}

/* A live process says hello, closes its channel, and says hello again,
 * 300 times. One death watch per process: each reconnect hands it to the
 * new channel and frees the old one at once, so the primary's fds and
 * threads stay where they were; past 8 reconnects at once (then one a
 * second) its hellos are refused, each counted. (Before: each cycle left
 * the old channel's pidfd and its DPDK interrupt source in the primary,
 * +1 fd and about 44 kB a cycle, until the process exited; with the usual
 * 1,024-fd limit, about 970 cycles locked every new secondary out.) */
static void test_reconnect_no_leak(void)
{
	struct scene s;

	scene_start(&s, "reconn");
	long fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	long th0 = ok_num(peer_cmd(&s.prim, "threadcount"));
	long r0 = mp_refused(&s.prim);
	struct peer h;
	CU_ASSERT_EQUAL_FATAL(mp_attacker_start(&h, exhaust_prog, &s, "reconnect", "300", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(peer_read(&h, MP_TIMEOUT_MS), 0);
	long n = atol(h.last);
	/* Measured while it lives: what it leaves goes only at its exit. It
	 * holds its last channel (a peer's pidfd and channel: +2 at most). */
	long fds = mp_fds_settle(&s.prim, fds0 + 2), th = ok_num(peer_cmd(&s.prim, "threadcount"));
	printf("%s: primary fds %ld -> %ld, threads %ld -> %ld; %ld of 300 hellos refused\n",
	       __func__, fds0, fds, th0, th, n);
	CU_ASSERT(fds <= fds0 + 2);
	CU_ASSERT(th <= th0);
	CU_ASSERT_EQUAL(peer_send(&h, "go"), 0);
	CU_ASSERT_EQUAL(peer_wait(&h, MP_TIMEOUT_MS), 0);
	CU_ASSERT(mp_fds_settle(&s.prim, fds0) <= fds0);
	/* At least 8 welcomed (the burst), most refused, each counted. */
	CU_ASSERT(n >= 200 && n <= 300 - 8);
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "refused", r0 + n), r0 + n);
	struct peer *p = mp_scene_secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	REPLY_IS(p, "ok 1", "status");
	scene_end(&s);
}

/* A process that maps a file whose path, 512 bytes into its maps line,
 * reads as the config's inode and path: protocol 5 read /proc/<pid>/maps
 * by 512-byte lines and took it for a DPDK process of the prefix
 * (welcomed, attached, allowed to create). The primary now decides by the
 * mapped files' device and inode (/proc/<pid>/map_files/; whole maps
 * lines where it may not look there): refused, counted. */
static void test_long_path_no_dpdk_process(void)
{
	struct scene s;

	scene_start(&s, "longpath");
	long r0 = mp_refused(&s.prim);
	CU_ASSERT_EQUAL(mp_attacker_run(exhaust_prog, &s, "longpath", NULL, NULL), 1);
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "refused", r0 + 1), r0 + 1);
	REPLY_IS(&s.prim, "ok 0", "peers");
	scene_end(&s);
}

/* A scene whose primary logs to a file of its own (MP_PEER_LOG). */
static void logged_scene(struct scene *s, const char *tag, char *path, size_t len)
{
	char env[160];

	CU_ASSERT_FATAL(mp_have_hugepages());
	snprintf(path, len, "/tmp/dvs-%s-%d.log", tag, (int)getpid());
	snprintf(env, sizeof(env), "MP_PEER_LOG=%s", path);
	CU_ASSERT_EQUAL_FATAL(mp_scene_start(s, tag, env), 0);
}

/* Out of fds: 40 connections that never say hello, against a primary
 * that may open only 12 more fds. Each connection it cannot take (no fd
 * to accept it, taken then with the fd it keeps in reserve and closed;
 * or none to watch it) is refused and counted, its log lines under the
 * attacker's log budget; the connections that said no hello in time are
 * closed, so a real secondary gets in while the squatters still hold
 * theirs. (Before, each connection it could not watch logged an ERR line
 * of its own, 34 for these 40, and none was counted.) */
static void test_fd_exhaustion_refused_cleanly(void)
{
	struct scene s;
	struct peer h;
	char path[128];

	logged_scene(&s, "nofile", path, sizeof(path));
	OK(&s.prim, "open " DEV);
	long fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	long r0 = mp_refused(&s.prim);
	OK(&s.prim, "nofile %ld", fds0 + 12);
	CU_ASSERT_EQUAL_FATAL(mp_attacker_start(&h, exhaust_prog, &s, "squat", "40", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(peer_read(&h, MP_TIMEOUT_MS), 0);
	usleep(2500 * 1000); /* past the 2 s a connection has for its hello */
	struct peer *p = NULL;
	for (int tries = 0; tries < 3 && p == NULL; tries++) {
		p = mp_scene_secondary(&s, NULL); /* one attempt may meet the limit */
		if (p != NULL && strcmp(peer_cmd(p, "count " DEV), "ok 0") != 0) {
			peer_stop(p);
			p = NULL;
		}
	}
	long refused = mp_refused(&s.prim) - r0;
	printf("%s: a secondary attached %s, 40 squatters holding; %ld refusal(s) counted\n",
	       __func__, p != NULL ? "" : "NOT", refused);
	CU_ASSERT_PTR_NOT_NULL(p);
	CU_ASSERT(refused >= 20);
	CU_ASSERT_EQUAL(peer_send(&h, "go"), 0);
	CU_ASSERT_EQUAL(peer_wait(&h, MP_TIMEOUT_MS), 0);
	OK(&s.prim, "nofile 1024");
	scene_end(&s);
	/* A connection with no fd to accept it is refused before its pid is
	 * known (the budget of refusals without a pid: 8 lines); one that
	 * could not be watched, under its pid's (8, then one saying the rest
	 * go at debug). Which of the two each meets depends on the fds left. */
	int lines = mp_count_in_file(path, "cannot watch the channel") +
		    mp_count_in_file(path, "no fd left for a new connection");
	printf("%s: %d line(s) said so\n", __func__, lines);
	CU_ASSERT(lines >= 1 && lines <= 17);
	unlink(path);
}

/* Routine use logs nothing at the default level: 16 secondaries one after
 * another attach, create a flow counter and exit (which takes it). Before,
 * each cycle logged a NOTICE line ("1 object(s) of pid N destroyed: it is
 * gone"). */
static void test_routine_use_quiet(void)
{
	struct scene s;
	char path[128];

	logged_scene(&s, "quietuse", path, sizeof(path));
	OK(&s.prim, "open " DEV);
	int before = mp_count_loud(path);
	for (int i = 0; i < 16; i++) {
		struct peer *p = mp_scene_secondary(&s, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		OK(p, "create " DEV " flowcounter c%d", i);
		CU_ASSERT_EQUAL(peer_stop(p), 0);
	}
	/* Their reclaims are done once the names are gone. */
	for (int i = 0; i < 300 && ok_num(peer_cmd(&s.prim, "count " DEV)) != 0; i++)
		usleep(10000);
	REPLY_IS(&s.prim, "ok 0", "count " DEV);
	int after = mp_count_loud(path);
	printf("%s: %d line(s) at the default level for 16 attach/create/exit cycles\n", __func__,
	       after - before);
	CU_ASSERT_EQUAL(after, before);
	scene_end(&s);
	if (after == before)
		unlink(path);
}

/* A secondary's log budget is its own for its life: one create, 10
 * failing requests, a detach from the device of its create (which
 * reclaims it), 10 more. Before, the detach reset the
 * count and 8 more lines were logged; now the budget (8 lines) holds
 * across it and the notice that the rest go at debug level is said once. */
static void test_log_budget_survives_detach(void)
{
	struct scene s;
	char path[128];

	logged_scene(&s, "budget", path, sizeof(path));
	OK(&s.prim, "open " DEV);
	OK(&s.prim, "open sim1");
	struct peer *p = mp_scene_secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	OK(p, "create sim1 flowcounter mine"); /* a creator: its detach reclaims */
	for (int i = 0; i < 10; i++) /* CREATE_CQ: not a create dvshare takes */
		CU_ASSERT_EQUAL(strncmp(peer_cmd(p, "rawcreate " DEV " r%d 400", i), "err 95", 6), 0);
	OK(p, "close sim1");
	for (int i = 10; i < 20; i++)
		CU_ASSERT_EQUAL(strncmp(peer_cmd(p, "rawcreate " DEV " r%d 400", i), "err 95", 6), 0);
	scene_end(&s);
	int said = mp_count_in_file(path, "is not one dvshare_obj_create() takes");
	printf("%s: %d of 20 failures logged\n", __func__, said);
	CU_ASSERT(said >= 1 && said <= 8);
	CU_ASSERT_EQUAL(mp_count_in_file(path, "its requests keep failing"), 1);
	unlink(path);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

/* No create waits for a destroy. A creator dies while the primary makes
 * its object (DVSHARE_FAULT=primary-create:stall holds the primary's
 * worker there 1 s), and a SIGSTOPped peer will never answer the destroy
 * of what was made for it. Before, the worker itself destroyed it and
 * waited the device's close timeout (2 s) for that peer, and every other
 * secondary's create waited with it; now the destroy goes to the dead
 * creator's reclaim, and the next create is answered while that destroy
 * still waits. */
static void test_create_never_waits_for_destroy(void)
{
	struct scene s;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(mp_scene_start(&s, "nowait", "DVSHARE_FAULT=primary-create:stall"), 0);
	OK(&s.prim, "open " DEV);
	struct peer *stuck = mp_scene_secondary(&s, NULL), *c = mp_scene_secondary(&s, NULL);
	struct peer *b = mp_scene_secondary(&s, NULL);
	CU_ASSERT_FATAL(stuck != NULL && c != NULL && b != NULL);
	kill(stuck->pid, SIGSTOP);
	CU_ASSERT_EQUAL(peer_send(c, "create " DEV " flowcounter x"), 0);
	usleep(300 * 1000); /* the worker holds in primary-create */
	kill(c->pid, SIGKILL);
	CU_ASSERT_EQUAL(peer_wait(c, MP_TIMEOUT_MS), 128 + SIGKILL);
	double t0 = now_s();
	OK(b, "create " DEV " flowcounter y");
	double took = now_s() - t0;
	/* x is still being destroyed (the stopped peer holds it), or still
	 * the dead creator's: not what a finished destroy leaves. */
	const char *r = peer_cmd(&s.prim, "owner " DEV " x");
	printf("%s: the next create took %.0f ms; x: %s\n", __func__, took * 1000, r);
	CU_ASSERT(strcmp(r, "ok 0") != 0);
	kill(stuck->pid, SIGCONT);
	scene_end(&s);
}

/* A primary whose device has these limits: max_objects 16, so 4 per
 * secondary and 8 for all of them, and a 1 s close timeout. */
static void limited_scene(struct scene *s, const char *tag)
{
	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(mp_scene_start(s, tag, NULL), 0);
	OK(&s->prim, "openlim " DEV " 16 0 0 1000");
}

/* Objects @pid owns on DEV, as the primary sees them. */
static long owned(struct scene *s, pid_t pid)
{
	return ok_num(peer_cmd(&s->prim, "owned " DEV " %d", (int)pid));
}

/* A peer that never answers (SIGSTOPped) holds up every destroy; another
 * creates up to its limit (4), detaches, attaches again and tries once
 * more, three times. Its reclaims time out (1 s): what it made stays its
 * own, charged to it, so each new try gets EDQUOT. (Before, a reclaim
 * that timed out gave its objects to the primary and erased the count:
 * the peer held 4 more after each round, 64 of a limit of 16 in under a
 * second on a larger registry.) */
static void test_quota_not_escaped_by_detach(void)
{
	struct scene s;

	limited_scene(&s, "escape");
	struct peer *stuck = mp_scene_secondary(&s, NULL), *a = mp_scene_secondary(&s, NULL);
	CU_ASSERT_FATAL(stuck != NULL && a != NULL);
	REPLY_IS(stuck, "ok 0", "count " DEV); /* attached: destroys wait for it */
	kill(stuck->pid, SIGSTOP);
	int made = 0;
	for (int round = 0; round < 3; round++) {
		for (int i = 0; i < 4; i++)
			made += strncmp(peer_cmd(a, "create " DEV " flowcounter e%d_%d", round, i),
					"ok", 2) == 0;
		OK(a, "close " DEV);
		usleep(1500 * 1000); /* its reclaim waits 1 s for the stopped peer */
	}
	long held = owned(&s, a->pid);
	printf("%s: made %d objects in 3 rounds with a limit of 4; it owns %ld\n", __func__, made,
	       held);
	CU_ASSERT_EQUAL(made, 4);
	CU_ASSERT_EQUAL(held, 4);
	/* Detached: marked so once the last round's reclaim has timed out. */
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "orphans " DEV, 4), 4);
	/* Once the stopped peer goes, the orphans go too, and the count. */
	kill(stuck->pid, SIGKILL);
	CU_ASSERT_EQUAL(peer_wait(stuck, MP_TIMEOUT_MS), 128 + SIGKILL);
	for (int i = 0; i < 500 && owned(&s, a->pid) != 0; i++)
		usleep(10000);
	CU_ASSERT_EQUAL(owned(&s, a->pid), 0);
	OK(a, "create " DEV " flowcounter again");
	scene_end(&s);
}

/* A detach's reclaim takes what the peer made before it, never what it
 * makes after attaching again: o1 is made, the peer detaches while a
 * stopped peer holds the reclaim up (o1 an orphan), attaches again and
 * makes o2; once the stopped peer answers, the retry destroys o1 and o2
 * stays the peer's. (Without the bound, the retry took o2 as well: the
 * soak saw a create answered and its object gone before its import.) */
static void test_reattach_keeps_new_objects(void)
{
	struct scene s;
	char want[32];

	limited_scene(&s, "reattach");
	struct peer *stuck = mp_scene_secondary(&s, NULL), *a = mp_scene_secondary(&s, NULL);
	CU_ASSERT_FATAL(stuck != NULL && a != NULL);
	REPLY_IS(stuck, "ok 0", "count " DEV);
	OK(a, "create " DEV " flowcounter o1");
	kill(stuck->pid, SIGSTOP);
	OK(a, "close " DEV);
	OK(a, "create " DEV " flowcounter o2"); /* attached again */
	/* The reclaim of o1 times out (1 s): an orphan. */
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "orphans " DEV, 1), 1);
	kill(stuck->pid, SIGCONT); /* it answers late: the reclaim is tried again */
	for (int i = 0; i < 500 && ok_num(peer_cmd(&s.prim, "count " DEV)) != 1; i++)
		usleep(10000);
	snprintf(want, sizeof(want), "ok %d", (int)a->pid);
	REPLY_IS(&s.prim, want, "owner " DEV " o2");
	REPLY_IS(&s.prim, "ok 1", "count " DEV);
	REPLY_IS(&s.prim, "ok 0", "orphans " DEV);
	scene_end(&s);
}

/* Secondaries cannot fill the registry: two make 4 persistent objects
 * each and exit, two more make 4 of their own each. Past 8 (half of 16)
 * every secondary create gets EDQUOT, and the primary still publishes 8.
 * (Before, 4 secondaries at their quota, or persistent creates over 4
 * lifetimes, filled the registry: the primary's own publish got ENOSPC.) */
static void test_registry_room_kept(void)
{
	struct scene s;
	int made = 0, quota = 0;

	limited_scene(&s, "room");
	for (int k = 0; k < 4; k++) {
		struct peer *p = mp_scene_secondary(&s, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		for (int i = 0; i < 4; i++) {
			const char *r = peer_cmd(p, k < 2 ? "create " DEV " pvar r%d_%d"
							   : "create " DEV " flowcounter r%d_%d", k, i);
			made += strncmp(r, "ok", 2) == 0;
			quota += strncmp(r, "err 122", 7) == 0; /* EDQUOT */
		}
		if (k < 2)
			CU_ASSERT_EQUAL(peer_stop(p), 0);
	}
	printf("%s: secondaries made %d of 16, %d refused EDQUOT\n", __func__, made, quota);
	CU_ASSERT_EQUAL(made, 8);
	CU_ASSERT_EQUAL(quota, 8);
	for (int i = 0; i < 8; i++)
		OK(&s.prim, "create " DEV " flowcounter p%d", i);
	REPLY_IS(&s.prim, "ok 16", "count " DEV);
	scene_end(&s);
}

/* Start a secondary that gets pid @want (through ns_last_pid: root). */
static struct peer *secondary_with_pid(struct scene *s, pid_t want)
{
	for (int tries = 0; tries < 16; tries++) {
		FILE *f = fopen("/proc/sys/kernel/ns_last_pid", "w");
		if (f == NULL) {
			fprintf(stderr, "secondary_with_pid: ns_last_pid: %s (the test needs root)\n",
				strerror(errno));
			return NULL;
		}
		fprintf(f, "%d", (int)want - 1);
		fclose(f);
		struct peer *p = mp_scene_secondary(s, NULL);
		if (p == NULL || p->pid == want)
			return p;
		peer_stop(p); /* another process took it first */
	}
	return NULL;
}

/* A process that inherits a dead creator's pid keeps what it makes. A
 * creator dies while a stopped peer holds up its reclaim; a new
 * secondary with the same pid creates b1; the reclaim times out. b1 is
 * still the new process's and it destroys it; the dead one's a1 stays an
 * orphan until the stopped peer answers. (Before, ownership was the bare
 * pid: the timed-out reclaim gave b1 to the primary with a1, and the new
 * process's destroy got EPERM.) */
static void test_reused_pid_inherits_nothing(void)
{
	struct scene s;

	limited_scene(&s, "reuse");
	struct peer *stuck = mp_scene_secondary(&s, NULL), *a = mp_scene_secondary(&s, NULL);
	CU_ASSERT_FATAL(stuck != NULL && a != NULL);
	REPLY_IS(stuck, "ok 0", "count " DEV);
	OK(a, "create " DEV " flowcounter a1");
	pid_t pid = a->pid;
	kill(stuck->pid, SIGSTOP);
	kill(pid, SIGKILL);
	CU_ASSERT_EQUAL(peer_wait(a, MP_TIMEOUT_MS), 128 + SIGKILL);
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "peers", 1), 1); /* its death is read */
	struct peer *b = secondary_with_pid(&s, pid);
	if (b == NULL) {
		/* Not FATAL with a peer stopped: the scene would wait for it. */
		CU_FAIL("no new secondary got the dead creator's pid (others took it 16 times)");
		kill(stuck->pid, SIGKILL);
		peer_wait(stuck, MP_TIMEOUT_MS);
		scene_end(&s);
		return;
	}
	OK(b, "create " DEV " flowcounter b1");
	/* a's reclaim times out (1 s): a1 an orphan, b1 not. */
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "orphans " DEV, 1), 1);
	char want[32];
	snprintf(want, sizeof(want), "ok %d", (int)pid);
	REPLY_IS(&s.prim, want, "owner " DEV " b1");
	REPLY_IS(&s.prim, want, "owner " DEV " a1"); /* an orphan, under the pid it had */
	REPLY_IS(&s.prim, "ok 1", "orphans " DEV);    /* a1, not b1 */
	kill(stuck->pid, SIGCONT); /* it answers late: a1's reclaim is tried again */
	OK(b, "destroy " DEV " b1 5000");
	for (int i = 0; i < 500 && ok_num(peer_cmd(&s.prim, "count " DEV)) != 0; i++)
		usleep(10000);
	REPLY_IS(&s.prim, "ok 0", "count " DEV);
	scene_end(&s);
}

/* Destroys and reclaims run on a fixed pool. With a stopped peer holding
 * every destroy up, 8 secondaries each destroy an object of their own,
 * and one cycles attach, create, detach 20 times: the primary's threads
 * stay where they were. (Before, each destroy and reclaim had a thread of
 * its own, polling every 2 ms: +1 per destroy or reclaim held, +129 for
 * 8 peers with 16 destroys each, +205 for a detach cycle.) */
static void test_threads_bounded(void)
{
	struct scene s;
	struct peer *p[8];

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(mp_scene_start(&s, "threads", NULL), 0);
	OK(&s.prim, "openlim " DEV " 256 0 0 2000");
	struct peer *stuck = mp_scene_secondary(&s, NULL), *cyc = mp_scene_secondary(&s, NULL);
	CU_ASSERT_FATAL(stuck != NULL && cyc != NULL);
	REPLY_IS(stuck, "ok 0", "count " DEV);
	for (int k = 0; k < 8; k++) {
		p[k] = mp_scene_secondary(&s, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p[k]);
		OK(p[k], "create " DEV " flowcounter t%d", k);
	}
	OK(cyc, "create " DEV " flowcounter warm");
	long th0 = ok_num(peer_cmd(&s.prim, "threadcount"));
	kill(stuck->pid, SIGSTOP);
	for (int k = 0; k < 8; k++) /* held: their answers are read at the end */
		CU_ASSERT_EQUAL(peer_send(p[k], "destroy " DEV " t%d 2000", k), 0);
	for (int c = 0; c < 20; c++) {
		OK(cyc, "create " DEV " flowcounter c%d", c);
		OK(cyc, "close " DEV);
	}
	usleep(200 * 1000);
	long th = ok_num(peer_cmd(&s.prim, "threadcount"));
	printf("%s: primary threads %ld before, %ld with 8 destroys and 20 reclaims held up\n",
	       __func__, th0, th);
	CU_ASSERT(th <= th0);
	for (int k = 0; k < 8; k++) /* each called off (EBUSY) or done */
		CU_ASSERT_EQUAL(peer_read(p[k], MP_TIMEOUT_MS), 0);
	kill(stuck->pid, SIGKILL);
	CU_ASSERT_EQUAL(peer_wait(stuck, MP_TIMEOUT_MS), 128 + SIGKILL);
	scene_end(&s);
}

/* A secondary that makes @n UMEMs (@what: "amem", dvshare_umem_alloc();
 * "dumem", rte_zmalloc() + dvshare_umem_reg()) of @size bytes and is
 * SIGKILLed; back once its reclaim has destroyed them. */
static void make_and_die(struct scene *s, const char *what, int round, int n, unsigned int size)
{
	struct peer *p = mp_scene_secondary(s, NULL);

	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	for (int i = 0; i < n; i++) {
		const char *r = peer_cmd(p, "create " DEV " %s %s%d_%d %u", what, what, round, i, size);
		CU_ASSERT_EQUAL(strncmp(r, "ok", 2), 0);
		/* dvshare_umem_alloc()'s memory comes zeroed: "ok <addr> 0". */
		if (strcmp(what, "amem") == 0)
			CU_ASSERT(strlen(r) > 3 && strcmp(r + strlen(r) - 2, " 0") == 0);
	}
	kill(p->pid, SIGKILL);
	CU_ASSERT_EQUAL(peer_wait(p, MP_TIMEOUT_MS), 128 + SIGKILL);
	for (int i = 0; i < 500 && ok_num(peer_cmd(&s->prim, "count " DEV)) != 0; i++)
		usleep(10000);
	REPLY_IS(&s->prim, "ok 0", "count " DEV);
}

/* Secondaries that crash leave DPDK's heap where it was: 10 of them each
 * make 4 UMEMs of 256 KiB with dvshare_umem_alloc() and are SIGKILLed;
 * their reclaims free the memory with the UMEMs. Two controls in the same
 * run: secondaries that make nothing and are SIGKILLed show what DPDK
 * itself leaves in its heap per death (155,904 bytes on DPDK 22.11; a
 * secondary without dvshare at all leaves the same), which is all the 10
 * may leave; and a secondary whose UMEM is over its own rte_zmalloc()
 * (the way doc/api.md gave before) leaks its 1 MiB on top: DPDK's heap has
 * no owner to free it for. (The hostile run found 2.2 MB per death that
 * way, 64 to 346 MB of hugepages in 100 deaths.) */
static void test_crash_loop_frees_heap(void)
{
	struct scene s;
	const unsigned int size = 256 * 1024;

	scene_start(&s, "heap");
	make_and_die(&s, "amem", 99, 1, 4096); /* first-time allocations */
	long h0 = ok_num(peer_cmd(&s.prim, "heapused"));
	for (int round = 0; round < 2; round++)
		make_and_die(&s, "amem", 90 + round, 0, 0);
	long h1 = ok_num(peer_cmd(&s.prim, "heapused"));
	long dpdk = (h1 - h0) / 2; /* DPDK's own, per death */
	for (int round = 0; round < 10; round++)
		make_and_die(&s, "amem", round, 4, size);
	long h2 = ok_num(peer_cmd(&s.prim, "heapused"));
	make_and_die(&s, "dumem", 0, 1, 4 * size);
	long h3 = ok_num(peer_cmd(&s.prim, "heapused"));
	printf("%s: DPDK heap in use: %+ld bytes per death holding nothing (DPDK's own); %+ld "
	       "after 10 deaths holding 4 x 256 KiB of dvshare_umem_alloc() each; %+ld after "
	       "one death holding its own 1 MiB (the control)\n", __func__, dpdk, h2 - h1,
	       h3 - h2);
	/* Less than one of the 40 UMEMs' memory left over. What a secondary
	 * that makes nothing leaves varies by a few KiB from one death to
	 * the next (the two control deaths gave 155,904 or 153,792 bytes
	 * each in runs of the same build: 4,224 bytes over the two, one
	 * small allocation left or not; whose, not measured), so "no more
	 * than 10 x the control" exactly failed 1 run in 3 under ASan. */
	CU_ASSERT(h2 - h1 < 10 * dpdk + (long)size);
	CU_ASSERT(h3 - h2 >= dpdk + (long)(4 * size));
	scene_end(&s);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_rte_mp_fds_not_kept),
	DVS_TEST(test_reconnect_no_leak),
	DVS_TEST(test_long_path_no_dpdk_process),
	DVS_TEST(test_fd_exhaustion_refused_cleanly),
	DVS_TEST(test_routine_use_quiet),
	DVS_TEST(test_log_budget_survives_detach),
	DVS_TEST(test_create_never_waits_for_destroy),
	DVS_TEST(test_quota_not_escaped_by_detach),
	DVS_TEST(test_reattach_keeps_new_objects),
	DVS_TEST(test_registry_room_kept),
	DVS_TEST(test_reused_pid_inherits_nothing),
	DVS_TEST(test_threads_bounded),
	DVS_TEST(test_crash_loop_frees_heap),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s PEER EXHAUST\n", argv[0]);
		return -1;
	}
	mp_peer_prog = argv[1];
	exhaust_prog = argv[2];
	return dvs_cunit_add("hostile", cases);
}

DVS_CUNIT_MAIN("test_exhaust", register_tests)
