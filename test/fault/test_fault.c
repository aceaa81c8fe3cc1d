/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite fault: coordinated destroy, fencing, dead and hung peers, uid
 * checks, registry write attempts and churn, with real DPDK processes
 * (test/mp/mp_peer). Peers are killed with SIGKILL, from outside or at an
 * exact protocol step (DVSHARE_FAULT=<point>, see lib/dvshare/fault.h).
 *
 * argv: PEER HOSTILE SUITE. SUITE "fault" is the above; "hostile" is a
 * same-uid attacker (test/fault/hostile: forged messages over rte_mp and
 * channels, attach-and-die storms, an attach flood, creates and destroys
 * asked of the primary wrongly, a flood of them never read) and stopped or
 * stuck peers (SIGSTOP, a blocked callback, a SIGSTOP/SIGCONT/SIGKILL
 * storm).
 */
#include "dvs_cunit.h"
#include "mp_harness.h"

#define DEV "sim0"

#define scene mp_scene

/* A primary sharing DEV. */
static int scene_start(struct scene *s, const char *tag)
{
	if (mp_scene_start(s, tag, NULL) != 0)
		return -1;
	return is_ok(peer_cmd(&s->prim, "open " DEV)) ? 0 : -1;
}

/* A secondary, optionally armed to die at fault point @fault. */
static struct peer *secondary(struct scene *s, const char *fault)
{
	static char env[64];

	snprintf(env, sizeof(env), "DVSHARE_FAULT=%s", fault != NULL ? fault : "");
	return mp_scene_secondary(s, fault != NULL ? env : NULL);
}

/* The secondaries import nothing inside rte_eal_init (the suite also runs
 * with DVSHARE_ATTACH_MODE=lazy). */
static int lazy_attach(void)
{
	const char *m = getenv("DVSHARE_ATTACH_MODE");

	return m != NULL && strcmp(m, "lazy") == 0;
}

/* Kill a peer with SIGKILL and reap it. */
static void kill9(struct peer *p)
{
	kill(p->pid, SIGKILL);
	CU_ASSERT_EQUAL(peer_wait(p, MP_TIMEOUT_MS), 128 + SIGKILL);
}

/* End: stop the survivors; the primary closes the device and the sim must
 * hold no kernel object any more. */
static void scene_end(struct scene *s)
{
	CU_ASSERT_EQUAL(mp_scene_stop_secondaries(s), 0);
	if (s->prim.pid > 0) {
		REPLY_IS(&s->prim, "ok 0 0 0", "closecheck " DEV);
		CU_ASSERT_EQUAL(peer_stop(&s->prim), 0);
	}
	mp_cleanup(s->prefix);
}

/* Two VARs, a UMEM, and two VIRTIO_NET_Qs (each with three UMEMs, on the
 * device's PD): 12 objects. */
static void publish_set(struct scene *s)
{
	OK(&s->prim, "create " DEV " var db0");
	OK(&s->prim, "create " DEV " var db1");
	OK(&s->prim, "create " DEV " umem m0 0");
	OK(&s->prim, "create " DEV " obj q0 0 64");
	OK(&s->prim, "create " DEV " obj q1 1 64");
}

/* A primary with the usual set published and @n plain secondaries. */
static void published_with(struct scene *s, const char *tag, struct peer **p, int n)
{
	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(s, tag), 0);
	publish_set(s);
	for (int i = 0; i < n; i++) {
		p[i] = secondary(s, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p[i]);
	}
}

/* A doorbell from @p on @var reaches the device: the primary's engine
 * (made on first use) counts it. */
static void doorbell_reaches_device(struct scene *s, struct peer *p, const char *var)
{
	if (!s->engine) {
		OK(&s->prim, "engine " DEV);
		s->engine = 1;
	}
	OK(p, "ring " DEV " %s 0 99 1", var);
	REPLY_IS(&s->prim, "ok 1", "poll " DEV);
}

/* What every kill scenario checks afterwards: the primary and a healthy
 * secondary go on, and destroys do not wait for the dead. */
static void survivors_work(struct scene *s, struct peer *healthy)
{
	doorbell_reaches_device(s, healthy, "db0");
	REPLY_IS(healthy, "ok 0 64 0 0", "query " DEV " q0");
	/* 20 s: if the dead peer were waited for, this would be -EBUSY. */
	OK(&s->prim, "destroyq " DEV " q1 20000");
	CU_ASSERT_FALSE(is_ok(peer_cmd(healthy, "lookup " DEV " obj q1")));
	OK(healthy, "lookup " DEV " obj q0");
}

/* --------------------------------------------------------------- destroy */

static void test_destroy_reaches_every_secondary(void)
{
	struct scene s;
	struct peer *p[2], *a, *b;

	published_with(&s, "destroy", p, 2);
	a = p[0];
	b = p[1];
	REPLY_IS(a, "ok 0", "hold " DEV " obj q0");
	REPLY_IS(b, "ok 0", "hold " DEV " var db0");
	OK(&s.prim, "destroy " DEV " q0 5000");
	/* Gone for lookups everywhere, refused through a held handle. */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(a, "lookup " DEV " obj q0"), "err 2", 5), 0);
	CU_ASSERT_EQUAL(strncmp(peer_cmd(a, "queryheld 0"), "err 19", 6), 0);
	REPLY_IS(a, "ok 1", "ev 5"); /* REVOKED */
	/* q1, both queues' counters, the PD, TD and TIS; 7 UMEMs */
	REPLY_IS(&s.prim, "ok 2 6 7", "simstats " DEV);
	/* Its UMEMs and counters go the same way; then the names can be
	 * published again. */
	for (int i = 1; i <= 3; i++)
		OK(&s.prim, "destroy " DEV " q0.umem%d 5000", i);
	OK(&s.prim, "destroy " DEV " q0.counters 5000");
	REPLY_IS(&s.prim, "ok 2 5 4", "simstats " DEV);
	OK(&s.prim, "create " DEV " obj q0 7 64");
	REPLY_IS(a, "ok 7 64 0 0", "query " DEV " q0");
	OK(a, "releaseheld 0");
	OK(b, "releaseheld 0");
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "destroy " DEV " nope 100"), "err 2", 5), 0);
	CU_ASSERT_EQUAL(strncmp(peer_cmd(a, "destroy " DEV " db0 100"), "err 1", 5), 0);
	scene_end(&s);
}

/* After revoke and re-allocation of the same VAR page, the revoked
 * secondary's writes reach nobody. */
static void test_fencing(void)
{
	struct scene s;
	struct peer *a;
	long page1, page2;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "fence"), 0);
	page1 = ok_num(peer_cmd(&s.prim, "create " DEV " var v1"));
	a = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	REPLY_IS(a, "ok 0", "hold " DEV " var v1");
	OK(&s.prim, "engine " DEV);
	OK(a, "ringheld 0 0 5");
	REPLY_IS(&s.prim, "ok 1", "poll " DEV); /* before: it reaches the device */
	OK(&s.prim, "destroy " DEV " v1 5000");
	page2 = ok_num(peer_cmd(&s.prim, "create " DEV " var v2"));
	CU_ASSERT_EQUAL(page2, page1); /* the device reuses the page */
	for (int i = 0; i < 100; i++)
		OK(a, "ringheld 0 0 %d", i);
	REPLY_IS(&s.prim, "ok 0", "poll " DEV);
	REPLY_IS(&s.prim, "ok 0 0", "kicks " DEV " v2");
	/* Control: the new owner's own doorbell is counted. */
	OK(&s.prim, "ring " DEV " v2 0 8 1");
	REPLY_IS(&s.prim, "ok 1", "poll " DEV);
	OK(a, "releaseheld 0");
	scene_end(&s);
}

/* A secondary that does not answer: -EBUSY and nothing changes; success
 * once it answers, and at once when it dies. */
static void test_hung_secondary(void)
{
	struct scene s;
	struct peer *p[2], *a, *b;

	published_with(&s, "hung", p, 2);
	a = p[0];
	b = p[1];
	OK(a, "blockrevoke 1");
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "destroy " DEV " db1 300"), "err 16", 6), 0);
	/* Intact and usable everywhere, including where it was let go of. */
	doorbell_reaches_device(&s, b, "db1");
	OK(&s.prim, "lookup " DEV " var db1");
	REPLY_IS(&s.prim, "ok 2 7 7", "simstats " DEV); /* 2 queues, 2 counters, PD, TD, TIS */
	/* It answers now: the destroy goes through. */
	OK(a, "blockrevoke 0");
	doorbell_reaches_device(&s, a, "db1");
	OK(&s.prim, "destroy " DEV " db1 5000");
	/* Hung again, and killed while the primary waits: it proceeds. */
	OK(a, "blockrevoke 1");
	peer_send(&s.prim, "destroy " DEV " m0 20000");
	usleep(200000);
	kill9(a);
	CU_ASSERT_STRING_EQUAL(peer_reply(&s.prim), "ok");
	survivors_work(&s, b);
	scene_end(&s);
}

/* ------------------------------------------------------------ kill -9 */

/* A secondary dies at @fault (or, with NULL, is killed holding objects). */
static void kill_secondary_at(const char *tag, const char *fault, int during_destroy)
{
	struct scene s;
	struct peer *a, *b;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, tag), 0);
	publish_set(&s);
	b = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	if (fault != NULL && !during_destroy) {
		struct peer dead;
		char env[64];
		snprintf(env, sizeof(env), "DVSHARE_FAULT=%s", fault);
		if (lazy_attach() && strcmp(fault, "attach-import") == 0) {
			/* Nothing is imported inside rte_eal_init: it dies
			 * importing at its first lookup. */
			CU_ASSERT_EQUAL_FATAL(peer_start_env(&dead, mp_peer_prog, s.prefix, 0, env), 0);
			peer_send(&dead, "lookup " DEV " var db0");
		} else {
			/* Dies inside rte_eal_init: it never says ready. */
			CU_ASSERT_NOT_EQUAL(peer_start_env(&dead, mp_peer_prog, s.prefix, 0, env), 0);
		}
		CU_ASSERT_EQUAL(peer_wait(&dead, MP_TIMEOUT_MS), 128 + SIGKILL);
	} else {
		a = secondary(&s, fault);
		CU_ASSERT_PTR_NOT_NULL_FATAL(a);
		REPLY_IS(a, "ok 0", "hold " DEV " var db0");
		OK(a, "lookup " DEV " obj q0");
		if (during_destroy) {
			/* It dies on its way through the revoke. */
			OK(&s.prim, "destroyq " DEV " q0 20000");
			CU_ASSERT_EQUAL(peer_wait(a, MP_TIMEOUT_MS), 128 + SIGKILL);
			OK(&s.prim, "create " DEV " obj q0 0 64");
		} else {
			long uars = ok_num(peer_cmd(&s.prim, "simuars " DEV));
			kill9(a);
			/* The primary heard it die (PEER_DIED), not detach. */
			CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "ev 6", 1), 1);
			REPLY_IS(&s.prim, "ok 0", "ev 3");
			/* Its context's UAR stays until the primary closes the
			 * device, as the kernel keeps a dead process's uverbs
			 * objects until the last fd of the ufile goes. */
			CU_ASSERT_EQUAL(ok_num(peer_cmd(&s.prim, "simuars " DEV)), uars);
		}
	}
	survivors_work(&s, b);
	/* A newcomer attaches fine afterwards. */
	struct peer *c = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	REPLY_IS(c, "ok 1", "status");
	OK(c, "lookup " DEV " var db0");
	scene_end(&s);
}

static void test_kill_secondary_after_attach_reply(void)
{
	kill_secondary_at("k-reply", "attach-reply", 0);
}

static void test_kill_secondary_mid_import(void)
{
	kill_secondary_at("k-import", "attach-import", 0);
}

static void test_kill_secondary_holding_objects(void)
{
	kill_secondary_at("k-hold", NULL, 0);
}

static void test_kill_secondary_after_fence(void)
{
	kill_secondary_at("k-fence", "revoke-fence", 1);
}

static void test_kill_secondary_after_ack(void)
{
	kill_secondary_at("k-ack", "revoke-ack", 1);
}

/* The primary dies (idle, or in the middle of a destroy): secondaries are
 * told, keep using what they imported, and refuse new lookups. */
static void kill_primary(const char *tag, int mid_destroy)
{
	struct scene s;
	struct peer *a, *b;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(mp_scene_start(&s, tag,
					     mid_destroy ? "DVSHARE_FAULT=primary-revoke" : NULL), 0);
	OK(&s.prim, "open " DEV);
	publish_set(&s);
	a = secondary(&s, NULL);
	b = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	REPLY_IS(a, "ok 0", "hold " DEV " var db0");
	REPLY_IS(a, "ok 1", "hold " DEV " obj q0");
	REPLY_IS(b, "ok 0", "hold " DEV " var db0");
	if (mid_destroy) {
		peer_send(&s.prim, "destroy " DEV " q0 5000");
		CU_ASSERT_EQUAL(peer_wait(&s.prim, MP_TIMEOUT_MS), 128 + SIGKILL);
	} else {
		kill9(&s.prim);
	}
	CU_ASSERT_EQUAL(peer_poll_num(a, "ev 7", 1), 1); /* PRIMARY_DIED */
	REPLY_IS(a, "ok 0", "ev 8");                     /* not CLOSED */
	/* What was imported keeps working: the cmd_fd keeps it alive. A
	 * doorbell still reaches the device (an engine of b's own sees it). */
	OK(b, "engine " DEV);
	OK(a, "ringheld 0 0 42");
	REPLY_IS(b, "ok 1", "poll " DEV);
	REPLY_IS(a, "ok 0 64 0 0", "queryheld 1");
	/* No new lookups. */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(a, "lookup " DEV " var db1"), "err 107", 7), 0);
	OK(a, "releaseheld 0");
	OK(a, "releaseheld 1");
	OK(b, "releaseheld 0");
	s.prim.pid = 0;
	CU_ASSERT_EQUAL(mp_scene_stop_secondaries(&s), 0);
	mp_cleanup(s.prefix);
}

static void test_kill_primary_idle(void)
{
	kill_primary("k-prim", 0);
}

static void test_kill_primary_mid_destroy(void)
{
	kill_primary("k-primrev", 1);
}

/* A secondary's own objects when it dies: one after the primary made its
 * object and answered, before it imported it (create-reply); one holding
 * objects another secondary imported and rings. Each is reclaimed with
 * the destroy protocol: the other secondary lets go (REVOKED), its
 * doorbell lands in the fence, and the survivors go on. */
static void test_kill_creator(void)
{
	struct scene s;
	struct peer *a, *b, *dead;
	char env[64], cmd[64];

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "k-creator"), 0);
	publish_set(&s);
	b = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);

	snprintf(env, sizeof(env), "DVSHARE_FAULT=create-reply");
	dead = mp_scene_secondary(&s, env);
	CU_ASSERT_PTR_NOT_NULL_FATAL(dead);
	pid_t dpid = dead->pid;
	peer_send(dead, "create " DEV " var mine");
	CU_ASSERT_EQUAL(peer_wait(dead, MP_TIMEOUT_MS), 128 + SIGKILL);
	snprintf(cmd, sizeof(cmd), "owned " DEV " %d", (int)dpid);
	for (int i = 0; i < 300 && strcmp(peer_cmd(&s.prim, "%s", cmd), "ok 0") != 0; i++)
		usleep(10000);
	REPLY_IS(&s.prim, "ok 0", "%s", cmd);
	CU_ASSERT_EQUAL(strncmp(peer_cmd(b, "lookup " DEV " var mine"), "err 2 ", 6), 0);

	a = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	OK(a, "create " DEV " var av");
	OK(a, "create " DEV " flowcounter ac");
	REPLY_IS(b, "ok 0", "hold " DEV " var av");
	long revoked = ok_num(peer_cmd(b, "ev 5"));
	kill9(a);
	/* b let go of the VAR it held: asked, and answered. */
	CU_ASSERT_EQUAL(peer_poll_num(b, "ev 5", revoked + 2), revoked + 2);
	OK(b, "ringheld 0 0 7"); /* into the fence */
	OK(b, "releaseheld 0");
	CU_ASSERT_EQUAL(strncmp(peer_cmd(b, "lookup " DEV " obj ac"), "err 2 ", 6), 0);
	survivors_work(&s, b);
	scene_end(&s);
}

/* The primary dies right after making a secondary's object and answering
 * (primary-created): the creator has its object or is told ENOTCONN, and
 * goes on as any orphan does. */
static void test_kill_primary_after_create(void)
{
	struct scene s;
	struct peer *a;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(mp_scene_start(&s, "k-primcreate", "DVSHARE_FAULT=primary-created"),
			      0);
	OK(&s.prim, "open " DEV);
	a = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	const char *r = peer_cmd(a, "create " DEV " flowcounter orphan");
	CU_ASSERT(is_ok(r) || strncmp(r, "err 107 ", 8) == 0);
	CU_ASSERT_EQUAL(peer_wait(&s.prim, MP_TIMEOUT_MS), 128 + SIGKILL);
	CU_ASSERT_EQUAL(peer_poll_num(a, "ev 7", 1), 1); /* PRIMARY_DIED */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(a, "create " DEV " flowcounter later"), "err 107 ", 8),
			0);
	s.prim.pid = 0;
	CU_ASSERT_EQUAL(mp_scene_stop_secondaries(&s), 0);
	mp_cleanup(s.prefix);
}

/* The primary closes the device while a secondary's destroy of its own
 * object is under way (held 1 s after its mark: primary-revoke:stall).
 * The close waits for it: before, its batch left out what that destroy
 * had marked and returned with the object still in the device (seen as a
 * VAR left at "closecheck", 1 run in 5, when a reclaim was still running
 * at the end of test_request_flood_bad_commands). */
static double ms_since(const struct timespec *t0);

static void test_close_waits_for_destroy(void)
{
	struct scene s;
	struct peer *a;
	struct timespec t0;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(mp_scene_start(&s, "closewait", "DVSHARE_FAULT=primary-revoke:stall"),
			      0);
	OK(&s.prim, "open " DEV);
	a = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	OK(a, "create " DEV " flowcounter w1");
	OK(a, "create " DEV " var w2");
	CU_ASSERT_EQUAL(peer_send(a, "destroy " DEV " w2 3000"), 0);
	usleep(200 * 1000); /* its destroy holds between mark and broadcast */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	REPLY_IS(&s.prim, "ok 0 0 0", "closecheck " DEV);
	double ms = ms_since(&t0);
	printf("%s: the close took %.0f ms\n", __func__, ms);
	CU_ASSERT(ms > 400); /* it waited for the destroy */
	CU_ASSERT_EQUAL(peer_read(a, MP_TIMEOUT_MS), 0);
	CU_ASSERT(strncmp(a->last, "ok", 2) == 0 || strncmp(a->last, "err 19 ", 7) == 0);
	CU_ASSERT_EQUAL(mp_scene_stop_secondaries(&s), 0);
	CU_ASSERT_EQUAL(peer_stop(&s.prim), 0);
	mp_cleanup(s.prefix);
}

/* ------------------------------------------------------------ security */

static void test_uid_refusal(void)
{
	struct scene s;
	struct peer *a;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(mp_scene_start(&s, "uid", NULL), 0);
	/* Only uid 54321 may have sim0; sim1 is for this uid too. */
	OK(&s.prim, "open sim0 0 54321");
	OK(&s.prim, "open sim1 0 54321,%u", (unsigned int)geteuid());
	OK(&s.prim, "create sim0 var secret");
	OK(&s.prim, "create sim1 var open");
	a = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	REPLY_IS(a, "ok 1", "status");
	OK(a, "lookup sim1 var open");
	CU_ASSERT_FALSE(is_ok(peer_cmd(a, "lookup sim0 var secret")));
	/* Nothing at all allowed: the attach itself is refused. */
	OK(&s.prim, "close sim1");
	struct peer *b = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	REPLY_IS(b, "ok -1", "status"); /* -EPERM */
	CU_ASSERT_EQUAL(peer_stop(b), 0);
	CU_ASSERT_EQUAL(peer_stop(a), 0);
	s.nsec = 0;
	REPLY_IS(&s.prim, "ok 0 0 0", "closecheck sim0");
	CU_ASSERT_EQUAL(peer_stop(&s.prim), 0);
	mp_cleanup(s.prefix);
}

static void test_registry_write_attempts(void)
{
	struct scene s;
	struct peer *a;
	const char *r;
	int ok = -1, tried = 0;

	published_with(&s, "regw", &a, 1);
	r = peer_cmd(a, "regwrite " DEV);
	CU_ASSERT_EQUAL(sscanf(r, "ok %d %d", &ok, &tried), 2);
	CU_ASSERT_EQUAL(ok, 0);  /* every attempt failed */
	CU_ASSERT(tried >= 7);   /* and there were attempts to fail */
	if (tried < 7)
		fprintf(stderr, "regwrite: %s\n", r);
	REPLY_IS(a, "ok 16", "count " DEV);
	scene_end(&s);
}

/* ---------------------------------------------------------------- churn */

static void test_churn(void)
{
	struct scene s;
	struct peer *a;
	long fds0[2], maps0[2];
	const int cycles = 10000;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "churn"), 0);
	a = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	for (int i = 0; i < cycles; i++) {
		const char *r;
		if (i == 100) { /* after warm-up: the reference counts */
			fds0[0] = ok_num(peer_cmd(&s.prim, "fdcount"));
			maps0[0] = ok_num(peer_cmd(&s.prim, "mapcount"));
			fds0[1] = ok_num(peer_cmd(a, "fdcount"));
			maps0[1] = ok_num(peer_cmd(a, "mapcount"));
		}
		r = peer_cmd(&s.prim, "create " DEV " %s c%d", i % 2 ? "counter" : "var", i);
		CU_ASSERT_FATAL(is_ok(r));
		r = peer_cmd(a, "lookup " DEV " %s c%d", i % 2 ? "obj" : "var", i);
		CU_ASSERT_FATAL(is_ok(r));
		r = peer_cmd(&s.prim, "destroy " DEV " c%d 5000", i);
		CU_ASSERT_FATAL(is_ok(r));
	}
	REPLY_IS(&s.prim, "ok 0 0 0", "simstats " DEV);
	fprintf(stderr, "churn: %d publish/attach/destroy cycles; fds %ld/%ld maps %ld/%ld\n",
		cycles, fds0[0], fds0[1], maps0[0], maps0[1]);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(&s.prim, "fdcount")), fds0[0]);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(&s.prim, "mapcount")), maps0[0]);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "fdcount")), fds0[1]);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "mapcount")), maps0[1]);
	scene_end(&s);
}

/* Many secondaries on many objects (the bench's 64 x 10,000, reduced):
 * 16 secondaries attach to 1,000 objects (in the suite's attach mode),
 * each looks every one up, rings a VAR and reads a counter; then the
 * primary closes the device under them. Nothing leaks: no kernel object
 * left in the device, no fd or file mapping more in the primary. */
static void test_many_secondaries(void)
{
	const int nsec = 16, nobj = 1000;
	struct scene s;
	long fds0, maps0;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "many"), 0);
	/* Warm-up: one secondary in and out, so that the threads serving
	 * them (rte_mp, interrupts) have their malloc arenas already. */
	struct peer *w = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(w);
	CU_ASSERT_EQUAL(peer_stop(w), 0);
	w->pid = 0;
	REPLY_IS(&s.prim, "ok 0", "peers");
	usleep(100000); /* its watch's last callback */
	fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	maps0 = ok_num(peer_cmd(&s.prim, "filemapcount"));
	OK(&s.prim, "bulk " DEV " %d", nobj);
	for (int i = 0; i < nsec; i++) {
		struct peer *p = secondary(&s, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	}
	for (int i = 1; i <= nsec; i++) {
		struct peer *p = &s.sec[i];
		OK(p, "checkbulk " DEV " %d", nobj); /* every object, by lookup */
		OK(p, "ring " DEV " b%d 0 10 0", 4 * i);   /* bulk's VARs: b4, b8, ... */
		REPLY_IS(p, "ok 0 0", "counter " DEV " b%d", 4 * i + 2); /* its counters */
	}
	/* The close revokes everything in every secondary in one round. */
	REPLY_IS(&s.prim, "ok 0 0 0", "closecheck " DEV);
	for (int i = 1; i <= nsec; i++)
		CU_ASSERT_EQUAL(peer_poll_num(&s.sec[i], "ev 8", 1), 1); /* CLOSED */
	CU_ASSERT_EQUAL(mp_scene_stop_secondaries(&s), 0);
	/* Their watches and goodbye sockets go as they exit (the interrupt
	 * thread closes a watch's pidfd after its last callback). */
	long fds = -1;
	for (int i = 0; i < 300 && (fds < 0 || fds > fds0); i++, usleep(10000))
		fds = ok_num(peer_cmd(&s.prim, "fdcount"));
	CU_ASSERT(fds >= 0 && fds <= fds0);
	/* File mappings only: malloc's arenas may stay grown (under ASan
	 * they do), a VAR page or registry mapping must not. */
	CU_ASSERT(ok_num(peer_cmd(&s.prim, "filemapcount")) <= maps0);
	CU_ASSERT_EQUAL(peer_stop(&s.prim), 0);
	mp_cleanup(s.prefix);
}

/* Lookups racing revokes: four threads in each of two secondaries, and
 * four in the primary, look up, ring or read, and release sixteen names
 * in a loop while the primary destroys and re-publishes them twenty times
 * (one by one, then as a batch, in turn). In lazy mode every re-published name is imported under
 * the threads' feet. Each lookup finds its object or fails with ENOENT,
 * every destroy completes, and the device ends with nothing left over. */
static void race_publish(struct scene *s, int names)
{
	for (int k = 0; k < names; k++)
		OK(&s->prim, "create " DEV " %s r%d", k % 2 ? "counter" : "var", k);
}

static void test_lookups_race_revokes(void)
{
	const int names = 16, rounds = 20;
	struct peer *p[3];
	struct scene s;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "race"), 0);
	race_publish(&s, names);
	p[2] = &s.prim; /* its own threads race its own destroys too */
	for (int i = 0; i < 3; i++) {
		if (i < 2)
			p[i] = secondary(&s, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p[i]);
		OK(p[i], "hammerstart " DEV " r %d", names);
	}
	for (int r = 0; r < rounds; r++) {
		if (r % 2 == 0) {
			for (int k = 0; k < names; k++)
				OK(&s.prim, "destroy " DEV " r%d 5000", k);
		} else {
			REPLY_IS(&s.prim, "ok 16", "destroyglob " DEV " r* 5000");
		}
		race_publish(&s, names);
	}
	for (int i = 0; i < 3; i++) {
		unsigned long hits = 0, misses = 0, other = 1;
		int err = 0;
		const char *r = peer_cmd(p[i], "hammerstop");
		CU_ASSERT_EQUAL(sscanf(r, "ok %lu %lu %lu %d", &hits, &misses, &other, &err), 4);
		fprintf(stderr, "race: %s %d: %lu found, %lu ENOENT, %lu other (errno %d)\n",
			i < 2 ? "secondary" : "primary", i, hits, misses, other, err);
		CU_ASSERT(hits > 0);
		CU_ASSERT_EQUAL(other, 0);
		/* Every name is found again once the churn stops. */
		for (int k = 0; k < names; k++)
			OK(p[i], "lookup " DEV " %s r%d", k % 2 ? "obj" : "var", k);
	}
	scene_end(&s);
}

/* The primary's close runs the destroy protocol for every object. */
static void test_close_is_coordinated(void)
{
	struct scene s;
	struct peer *a;

	published_with(&s, "close", &a, 1);
	REPLY_IS(a, "ok 0", "hold " DEV " var db0");
	OK(a, "blockrevoke 1");
	/* A secondary holding on keeps the device open... */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "close " DEV), "err 16", 6), 0);
	OK(a, "blockrevoke 0");
	/* ...until it lets go; the revoked secondary has REVOKED events. */
	REPLY_IS(&s.prim, "ok 0 0 0", "closecheck " DEV);
	CU_ASSERT(ok_num(peer_cmd(a, "ev 5")) >= 4);
	/* Told it was a close, not a death; lookups fail with ENODEV. */
	CU_ASSERT_EQUAL(peer_poll_num(a, "ev 8", 1), 1);
	REPLY_IS(a, "ok 0", "ev 7");
	CU_ASSERT_EQUAL(strncmp(peer_cmd(a, "lookup " DEV " var db1"), "err 19", 6), 0);
	OK(a, "releaseheld 0");
	CU_ASSERT_EQUAL(peer_stop(a), 0);
	CU_ASSERT_EQUAL(peer_stop(&s.prim), 0);
	mp_cleanup(s.prefix);
}

/* Many objects in one revoke round: by list and by glob, destroyed in the
 * order the device needs whatever the order given, all or nothing when a
 * name is unknown or a secondary holds on, and the device's refusal of
 * one leaves it (only it) published. */
static void test_batch_destroy(void)
{
	struct scene s;
	struct peer *p[2], *a, *b;

	published_with(&s, "batch", p, 2);
	a = p[0];
	b = p[1];
	REPLY_IS(a, "ok 0", "hold " DEV " var db0");
	REPLY_IS(b, "ok 0", "hold " DEV " obj q1");
	long revoked = ok_num(peer_cmd(a, "ev 5"));
	long batches = ok_num(peer_cmd(a, "ev 9")); /* BATCH_REVOKED */

	/* An unknown name: nothing done. */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "destroymany " DEV " db1,nosuch 5000"), "err 2 ", 6), 0);
	OK(a, "lookup " DEV " var db1");
	/* A secondary that does not let go: nothing destroyed, all usable. */
	OK(b, "blockrevoke 1");
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "destroyglob " DEV " q1* 300"), "err 16 ", 7), 0);
	OK(b, "blockrevoke 0");
	OK(a, "lookup " DEV " obj q1");
	REPLY_IS(b, "ok 1 64 0 0", "queryheld 0");
	/* The device refuses one destroy: that object alone stays. The
	 * refusal is injected: which destroys a firmware refuses, and with
	 * which status, is the firmware's to say (doc/sim.md). */
	OK(&s.prim, "simfaildestroy 16");
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "destroymany " DEV " pd,m0 5000"), "err 16 ", 7), 0);
	OK(a, "lookup " DEV " obj pd");
	CU_ASSERT_FALSE(is_ok(peer_cmd(a, "lookup " DEV " umem m0")));
	/* By glob: q1, its three UMEMs and its counters, in one round. */
	REPLY_IS(&s.prim, "ok 5", "destroyglob " DEV " q1* 5000");
	CU_ASSERT_FALSE(is_ok(peer_cmd(a, "lookup " DEV " obj q1")));
	CU_ASSERT_FALSE(is_ok(peer_cmd(b, "lookup " DEV " umem q1.umem2")));
	CU_ASSERT_EQUAL(strncmp(peer_cmd(b, "queryheld 0"), "err 19", 6), 0); /* revoked */
	/* By list, in an order the device would refuse: sorted for it. */
	REPLY_IS(&s.prim, "ok 5", "destroymany " DEV " pd,q0.umem1,db0,q0,db0,db1 5000");
	CU_ASSERT_FALSE(is_ok(peer_cmd(a, "lookup " DEV " var db1")));
	OK(a, "lookup " DEV " umem q0.umem2"); /* not asked for */
	/* a heard every one it was told of: REVOKED for m0, 4 and 5; and
	 * BATCH_REVOKED once per batch it let go of: the called-off one, the
	 * refused one, the glob and the list (the unknown name asked nothing
	 * of it). The primary: once per batch that destroyed something (the
	 * refused one took m0). */
	CU_ASSERT(peer_poll_num(a, "ev 5", revoked + 10) >= revoked + 10);
	CU_ASSERT_EQUAL(peer_poll_num(a, "ev 9", batches + 4), batches + 4);
	REPLY_IS(&s.prim, "ok 3", "ev 9");
	OK(a, "ringheld 0 0 1"); /* its db0 is fenced: a write lands nowhere */
	OK(a, "releaseheld 0");
	OK(b, "releaseheld 0");
	scene_end(&s);
}

/* A secondary's normal exit, with or without rte_eal_cleanup(), is a
 * detach (PEER_DETACHED); one with no exit-time code (_exit, like a kill)
 * is a death (PEER_DIED). What each held is reclaimed either way. */
static void test_secondary_exit_vs_death(void)
{
	static const char *const ends[] = { "quit", "exit plain", "exit _exit" };
	struct scene s;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "sexit"), 0);
	publish_set(&s);
	for (int i = 0; i < 3; i++) {
		struct peer *p = secondary(&s, NULL);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		REPLY_IS(p, "ok 0", "hold " DEV " var db0");
		peer_send(p, "%s", ends[i]);
		CU_ASSERT_EQUAL(peer_wait(p, MP_TIMEOUT_MS), 0);
		p->pid = 0;
		/* Two detaches, then one death. */
		CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "ev 3", i < 2 ? i + 1 : 2), i < 2 ? i + 1 : 2);
		CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "ev 6", i < 2 ? 0 : 1), i < 2 ? 0 : 1);
	}
	REPLY_IS(&s.prim, "ok 0", "peers");
	/* Nobody is waited for: every holder is reclaimed. */
	OK(&s.prim, "destroy " DEV " db0 20000");
	scene_end(&s);
}

/* A primary's normal exit is a close to its secondaries (CLOSED, not
 * PRIMARY_DIED): lookups fail with ENODEV, what they imported works on. */
static void test_primary_exit_is_a_close(void)
{
	struct scene s;
	struct peer *a;

	published_with(&s, "pexit", &a, 1);
	REPLY_IS(a, "ok 0", "hold " DEV " var db0");
	REPLY_IS(a, "ok 1", "hold " DEV " obj q0");
	CU_ASSERT_EQUAL(peer_stop(&s.prim), 0);
	s.prim.pid = 0;
	CU_ASSERT_EQUAL(peer_poll_num(a, "ev 8", 1), 1); /* CLOSED */
	REPLY_IS(a, "ok 0", "ev 7");                     /* not PRIMARY_DIED */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(a, "lookup " DEV " var db1"), "err 19", 6), 0);
	OK(a, "ringheld 0 0 42");
	REPLY_IS(a, "ok 0 64 0 0", "queryheld 1");
	OK(a, "releaseheld 0");
	OK(a, "releaseheld 1");
	CU_ASSERT_EQUAL(mp_scene_stop_secondaries(&s), 0);
	mp_cleanup(s.prefix);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_destroy_reaches_every_secondary),
	DVS_TEST(test_fencing),
	DVS_TEST(test_hung_secondary),
	DVS_TEST(test_kill_secondary_after_attach_reply),
	DVS_TEST(test_kill_secondary_mid_import),
	DVS_TEST(test_kill_secondary_holding_objects),
	DVS_TEST(test_kill_secondary_after_fence),
	DVS_TEST(test_kill_secondary_after_ack),
	DVS_TEST(test_kill_primary_idle),
	DVS_TEST(test_kill_primary_mid_destroy),
	DVS_TEST(test_kill_creator),
	DVS_TEST(test_kill_primary_after_create),
	DVS_TEST(test_close_waits_for_destroy),
	DVS_TEST(test_uid_refusal),
	DVS_TEST(test_registry_write_attempts),
	DVS_TEST(test_close_is_coordinated),
	DVS_TEST(test_batch_destroy),
	DVS_TEST(test_secondary_exit_vs_death),
	DVS_TEST(test_primary_exit_is_a_close),
	DVS_TEST(test_many_secondaries),
	DVS_TEST(test_lookups_race_revokes),
	DVS_TEST(test_churn),
	DVS_TEST_END,
};

/* --- hostile and stuck peers (test "hostile": once, not per attach mode) */

static const char *hostile_prog;

static int hostile_start(struct peer *h, const struct scene *s, const char *cmd,
			 const char *a1, const char *a2)
{
	return mp_attacker_start(h, hostile_prog, s, cmd, a1, a2);
}

static long hostile_run(const struct scene *s, const char *cmd, const char *a1, const char *a2)
{
	return mp_attacker_run(hostile_prog, s, cmd, a1, a2);
}


/* Forged acks, detaches, hellos, goodbyes, attaches and events, over
 * rte_mp and over channels, from a process of the same uid: each changes
 * nothing; on a channel each is refused and counted (over rte_mp, where
 * dvshare registers nothing, DPDK drops them). The victim blocks a
 * destroy in its REVOKING callback;
 * a forged ack must not make that destroy succeed (the VAR would be freed
 * under a process that still rings it). */
static void test_forged_messages(void)
{
	struct scene s;
	struct peer *p[2], *a, *b;
	char pid[16];

	published_with(&s, "forge", p, 2);
	a = p[0];
	b = p[1];
	REPLY_IS(a, "ok 0", "hold " DEV " var db1");
	OK(a, "blockrevoke 1");
	long r0 = mp_refused(&s.prim), fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	long detached0 = ok_num(peer_cmd(&s.prim, "ev 3"));
	CU_ASSERT_EQUAL(peer_send(&s.prim, "destroy " DEV " db1 3000"), 0);
	snprintf(pid, sizeof(pid), "%d", (int)a->pid);
	long n = hostile_run(&s, "forge", pid, NULL);
	CU_ASSERT_FATAL(n > 0);
	/* The victim never let go: the destroy is called off, not done. */
	CU_ASSERT_EQUAL(peer_read(&s.prim, MP_TIMEOUT_MS), 0);
	CU_ASSERT_EQUAL(strncmp(s.prim.last, "err 16", 6), 0);
	CU_ASSERT_EQUAL(mp_refused(&s.prim) - r0, n);
	/* Nobody was detached, and both secondaries are still counted. */
	REPLY_IS(&s.prim, "ok 2", "peers");
	CU_ASSERT_EQUAL(ok_num(peer_cmd(&s.prim, "ev 3")), detached0);
	OK(a, "blockrevoke 0");
	OK(a, "releaseheld 0");
	/* At a secondary: events and revokes as the primary, over rte_mp,
	 * where dvshare registers nothing: DPDK drops them, dvshare never
	 * sees them (none counted), and they change nothing. */
	long rb = mp_refused(b);
	snprintf(pid, sizeof(pid), "%d", (int)b->pid);
	CU_ASSERT_EQUAL_FATAL(hostile_run(&s, "forge-secondary", pid, NULL), 0);
	CU_ASSERT_EQUAL(mp_refused(b), rb);
	REPLY_IS(b, "ok 0", "ev 8"); /* never told CLOSED */
	REPLY_IS(b, "ok 0", "ev 7"); /* nor PRIMARY_DIED */
	OK(b, "lookup " DEV " var db0");
	/* What they did to the primary is undone: the hostile's channel and
	 * the fds it sent are gone, and destroys work. */
	CU_ASSERT(mp_fds_settle(&s.prim, fds0) <= fds0);
	OK(&s.prim, "destroy " DEV " db1 5000");
	scene_end(&s);
}

/* 200 processes a round, 10 rounds, that connect, say hello, perhaps ask
 * to attach, and die at once: the primary stays up, its fds flat, and a
 * real secondary attaches afterwards. */
static void test_attach_and_die_storm(void)
{
	struct scene s;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "storm"), 0);
	publish_set(&s);
	long fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	CU_ASSERT_EQUAL(hostile_run(&s, "storm", "200", "10"), 0);
	/* The last deaths may still be on their way (pidfds fire on the
	 * primary's interrupt thread, in its own time). */
	for (int i = 0; i < 300 && strcmp(peer_cmd(&s.prim, "peers"), "ok 0") != 0; i++)
		usleep(10000);
	REPLY_IS(&s.prim, "ok 0", "peers");
	CU_ASSERT(mp_fds_settle(&s.prim, fds0) <= fds0);
	struct peer *c = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	REPLY_IS(c, "ok 1", "status");
	OK(c, "lookup " DEV " var db0");
	scene_end(&s);
}

/* A peer that asks to attach again and again on one token from a socket
 * it never reads: one answer at most, so DPDK's blocking reply never
 * waits on it; the rest are refused, and others attach meanwhile. */
static void test_attach_flood(void)
{
	struct scene s;
	struct peer h;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "flood"), 0);
	publish_set(&s);
	long r0 = mp_refused(&s.prim);
	CU_ASSERT_EQUAL_FATAL(hostile_start(&h, &s, "flood", "40", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(peer_read(&h, MP_TIMEOUT_MS), 0);
	CU_ASSERT_EQUAL(atol(h.last), 39);
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "refused", r0 + 39), r0 + 39);
	struct peer *c = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	REPLY_IS(c, "ok 1", "status");
	OK(&s.prim, "bulk " DEV " 100");
	kill(h.pid, SIGKILL);
	CU_ASSERT_EQUAL(peer_wait(&h, MP_TIMEOUT_MS), 128 + SIGKILL);
	scene_end(&s);
}

/* A stopped secondary: publishes go on (its messages queue, then are
 * dropped for a resync), a destroy it must answer ends at its timeout,
 * and once continued it catches up and lets go. */
static void test_stopped_secondary(void)
{
	struct scene s;
	struct peer *p[2], *a, *b;

	published_with(&s, "stopped", p, 2);
	a = p[0];
	b = p[1];
	REPLY_IS(a, "ok 0", "hold " DEV " obj q0");
	kill(a->pid, SIGSTOP);
	/* Far more events than its channel and queue hold. */
	OK(&s.prim, "bulk " DEV " 2000");
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "destroy " DEV " q0 300"), "err 16", 6), 0);
	OK(b, "checkbulk " DEV " 2000"); /* others are not held up */
	CU_ASSERT(ok_num(peer_cmd(&s.prim, "queued")) > 0);
	kill(a->pid, SIGCONT);
	/* What waited for it goes by itself, the primary doing nothing. */
	long q = -1;
	for (int i = 0; i < 300 && q != 0; i++, usleep(10000))
		q = ok_num(peer_cmd(&s.prim, "queued"));
	CU_ASSERT_EQUAL(q, 0);
	OK(a, "checkbulk " DEV " 2000");
	OK(&s.prim, "destroy " DEV " q0 5000");
	CU_ASSERT_EQUAL(strncmp(peer_cmd(a, "lookup " DEV " obj q0"), "err 2", 5), 0);
	REPLY_IS(&s.prim, "ok 0", "refused");
	scene_end(&s);
}

/* A secondary stuck in its REVOKING callback reads nothing: publishes go
 * on meanwhile, and its destroy ends at the timeout. */
static void test_stuck_in_callback(void)
{
	struct scene s;
	struct peer *p[1], *a;

	published_with(&s, "stuck", p, 1);
	a = p[0];
	REPLY_IS(a, "ok 0", "hold " DEV " var db1");
	OK(a, "blockrevoke 1");
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "destroy " DEV " db1 300"), "err 16", 6), 0);
	OK(&s.prim, "bulk " DEV " 1000");
	OK(a, "blockrevoke 0");
	OK(a, "releaseheld 0");
	OK(&s.prim, "destroy " DEV " db1 5000");
	OK(a, "checkbulk " DEV " 1000");
	scene_end(&s);
}

/* Eight secondaries stopped, continued and killed at random while the
 * primary publishes and destroys with short timeouts: every call returns
 * in its time, the primary stays up, and at the end everything is
 * destroyed and its fds are back where they were. */
static void test_signal_storm(void)
{
	struct scene s;
	const int n = 8;
	unsigned int seed = (unsigned int)getpid();

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "sigstorm"), 0);
	long fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	for (int i = 0; i < n; i++)
		CU_ASSERT_PTR_NOT_NULL_FATAL(secondary(&s, NULL));
	int stopped[8] = { 0 }, killed = 0;
	for (int round = 0; round < 40; round++) {
		int i = (int)(rand_r(&seed) % n);
		struct peer *v = &s.sec[i];
		int what = (int)(rand_r(&seed) % 10);
		if (v->pid > 0 && what < 4 && !stopped[i]) {
			kill(v->pid, SIGSTOP);
			stopped[i] = 1;
		} else if (v->pid > 0 && what < 8 && stopped[i]) {
			kill(v->pid, SIGCONT);
			stopped[i] = 0;
		} else if (v->pid > 0 && what == 9 && killed < n / 2) {
			kill9(v);
			killed++;
		}
		OK(&s.prim, "create " DEV " var s%d", round);
		const char *r = peer_cmd(&s.prim, "destroy " DEV " s%d 100", round);
		CU_ASSERT(is_ok(r) || strncmp(r, "err 16", 6) == 0);
	}
	for (int i = 0; i < n; i++)
		if (s.sec[i].pid > 0 && stopped[i])
			kill(s.sec[i].pid, SIGCONT);
	/* Everyone left reads again: every object goes now. */
	for (int round = 0; round < 40; round++) {
		const char *r = peer_cmd(&s.prim, "destroy " DEV " s%d 5000", round);
		CU_ASSERT(is_ok(r) || strncmp(r, "err 2", 5) == 0);
	}
	for (int i = 0; i < n; i++)
		if (s.sec[i].pid > 0)
			OK(&s.sec[i], "status");
	CU_ASSERT_EQUAL(mp_scene_stop_secondaries(&s), 0);
	CU_ASSERT(mp_fds_settle(&s.prim, fds0) <= fds0);
	REPLY_IS(&s.prim, "ok 0 0 0", "closecheck " DEV);
	CU_ASSERT_EQUAL(peer_stop(&s.prim), 0);
	mp_cleanup(s.prefix);
}

/* Connections that never say hello hold no door open: past 64 waiting
 * the oldest are closed, and a real secondary attaches meanwhile. */
static void test_hello_squatters(void)
{
	struct scene s;
	struct peer h;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "squat"), 0);
	publish_set(&s);
	long r0 = mp_refused(&s.prim);
	CU_ASSERT_EQUAL_FATAL(hostile_start(&h, &s, "squat", "100", NULL), 0);
	CU_ASSERT_EQUAL_FATAL(peer_read(&h, MP_TIMEOUT_MS), 0);
	struct peer *c = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	REPLY_IS(c, "ok 1", "status");
	OK(c, "lookup " DEV " var db0");
	CU_ASSERT(mp_refused(&s.prim) - r0 >= 100 - 64);
	kill(h.pid, SIGKILL);
	CU_ASSERT_EQUAL(peer_wait(&h, MP_TIMEOUT_MS), 128 + SIGKILL);
	scene_end(&s);
}

/* An event callback on DPDK's interrupt thread (a peer died) that tries
 * a destroy: refused with EDEADLK at once, not a wait for answers only
 * that thread could read. */
static void test_destroy_from_callback(void)
{
	struct scene s;
	struct peer *p[2], *a;

	published_with(&s, "cbdestroy", p, 2);
	a = p[0];
	OK(&s.prim, "destroyondeath db0");
	kill9(a);
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "ev 6", 1), 1); /* PEER_DIED */
	REPLY_IS(&s.prim, "ok -35", "deathrc"); /* -EDEADLK */
	OK(&s.prim, "destroy " DEV " db0 5000"); /* from a thread that may wait */
	scene_end(&s);
}

/* Secondaries outlive their primary (orphans, a normal state): a new
 * primary of the prefix is refused by EAL before it re-makes the shared
 * config under them (each orphan holds the config lock a primary takes),
 * the orphans go on with what they hold and exit cleanly, and once the
 * last one is gone a new primary starts and serves new secondaries. */
static void test_new_primary_beside_orphans(void)
{
	struct scene s;
	struct peer *p[2], *a, *b, p2;

	published_with(&s, "orphans", p, 2);
	a = p[0];
	b = p[1];
	REPLY_IS(a, "ok 0", "hold " DEV " var db0");
	kill9(&s.prim);
	CU_ASSERT_EQUAL(peer_poll_num(a, "ev 7", 1), 1); /* PRIMARY_DIED */
	CU_ASSERT_EQUAL(peer_poll_num(b, "ev 7", 1), 1);
	CU_ASSERT_NOT_EQUAL(peer_start(&p2, s.prefix, 1), 0);
	CU_ASSERT_EQUAL(peer_wait(&p2, MP_TIMEOUT_MS), 1);
	OK(a, "ringheld 0 0 5");
	CU_ASSERT_EQUAL(peer_stop(a), 0);
	/* One orphan left: still no new primary. */
	CU_ASSERT_NOT_EQUAL(peer_start(&p2, s.prefix, 1), 0);
	CU_ASSERT_EQUAL(peer_wait(&p2, MP_TIMEOUT_MS), 1);
	CU_ASSERT_EQUAL(peer_stop(b), 0); /* a clean exit, not a crash */
	CU_ASSERT_EQUAL_FATAL(peer_start(&s.prim, s.prefix, 1), 0);
	OK(&s.prim, "open " DEV);
	OK(&s.prim, "create " DEV " var db0");
	struct peer *c = secondary(&s, NULL);
	CU_ASSERT_PTR_NOT_NULL_FATAL(c);
	REPLY_IS(c, "ok 1", "status");
	OK(c, "lookup " DEV " var db0");
	scene_end(&s);
}

/* After rte_eal_cleanup() (doc/api.md): what a process attached and
 * holds stays its own, a destroy still reaches it over its channel, and
 * only what needs DPDK (attaching a device it does not have) fails. */
static void test_after_eal_cleanup(void)
{
	struct scene s;
	struct peer *p[1], *a;

	published_with(&s, "cleanup", p, 1);
	a = p[0];
	REPLY_IS(a, "ok 0", "hold " DEV " var db0");
	OK(a, "ealcleanup");
	OK(a, "lookup " DEV " obj q0");
	OK(a, "ringheld 0 0 5");
	OK(&s.prim, "open sim1");
	CU_ASSERT_EQUAL(strncmp(peer_cmd(a, "lookup sim1 var x"), "err 2", 5), 0);
	OK(&s.prim, "destroy " DEV " db0 5000");
	CU_ASSERT_EQUAL(peer_poll_num(a, "ev 5", 1), 1); /* REVOKED, over its channel */
	OK(&s.prim, "ealcleanup");
	OK(&s.prim, "destroy " DEV " q0 5000");
	REPLY_IS(&s.prim, "ok 0 0 0", "closecheck " DEV);
	CU_ASSERT_EQUAL(peer_poll_num(a, "ev 8", 1), 1); /* CLOSED */
	OK(&s.prim, "close sim1");
	/* Their exits still say goodbye: no rte_mp needed. */
	CU_ASSERT_EQUAL(peer_stop(a), 0);
	CU_ASSERT_EQUAL(peer_stop(&s.prim), 0);
	mp_cleanup(s.prefix);
}

/* Milliseconds since @t0. */
static double ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (double)(t1.tv_sec - t0->tv_sec) * 1e3 + (double)(t1.tv_nsec - t0->tv_nsec) / 1e6;
}

/* A real peer (welcomed, attached to DEV) asking the primary for creates
 * and destroys the wrong way (test/fault/hostile requests, which checks
 * every answer itself): commands in a pipe or a memfd of the wrong size,
 * messages the decoder refuses, requests in another pid's name, an opcode
 * no secondary may create, a key over the primary's own UMEM, a UMEM
 * outside DPDK memory, a destroy of the
 * primary's db0, a device that does not exist, more than 16 requests under
 * way. Only the refusals are counted; nothing it was refused exists; what
 * it owns when it dies is reclaimed, what it gave the primary stays. */
static void test_hostile_requests(void)
{
	struct scene s;
	struct peer *p[1], *a, h;
	char want[32];
	struct timespec t0;

	published_with(&s, "hreq", p, 1);
	a = p[0];
	long r0 = mp_refused(&s.prim), fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	long n0 = ok_num(peer_cmd(&s.prim, "count " DEV));
	long died0 = ok_num(peer_cmd(&s.prim, "ev 6"));
	char sim0[64];
	snprintf(sim0, sizeof(sim0), "%s", peer_cmd(&s.prim, "simstats " DEV));
	/* A UMEM of the primary's own, which no secondary may build a key on. */
	char pu[32];
	snprintf(pu, sizeof(pu), "%ld", ok_num(peer_cmd(&s.prim, "create " DEV " umem pu 4096")));
	CU_ASSERT_FATAL(atol(pu) > 0);
	n0++;
	CU_ASSERT_EQUAL_FATAL(hostile_start(&h, &s, "requests", "db0", pu), 0);
	CU_ASSERT_EQUAL_FATAL(peer_read(&h, MP_TIMEOUT_MS), 0);
	long n = atol(h.last);
	CU_ASSERT(n > 0);
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "refused", r0 + n), r0 + n);
	/* The primary's db0 is untouched; of the hostile's names only hv
	 * (its own) and hp (given to the primary) exist. */
	REPLY_IS(&s.prim, "ok 0", "owner " DEV " db0");
	snprintf(want, sizeof(want), "ok %d", (int)h.pid);
	REPLY_IS(&s.prim, want, "owner " DEV " hv");
	REPLY_IS(&s.prim, "ok 0", "owner " DEV " hp");
	REPLY_IS(&s.prim, "ok 1", "owned " DEV " %d", (int)h.pid);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(&s.prim, "count " DEV)), n0 + 2);
	static const char *const never[] = { "early", "o1", "o2", "o3", "o4", "o5", "o6", "o7",
					     "o8", "o9", "fv1", "fv2", "mkey", "mkey2", "u1", "u2",
					     "u3", "probe", "n1" };
	for (size_t i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
		const char *r = peer_cmd(&s.prim, "owner " DEV " %s", never[i]);
		CU_ASSERT_EQUAL(strncmp(r, "err 2", 5), 0);
	}
	for (int i = 0; i < 16; i++) /* created, then destroyed by it */
		CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "owner " DEV " hb%d", i), "err 2", 5), 0);
	OK(a, "lookup " DEV " var hv"); /* shared like any other */
	/* It dies (no goodbye) owning hv: reclaimed, with nobody asking. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	CU_ASSERT_EQUAL(peer_send(&h, "die"), 0);
	/* Its request line, which a child of it still holds, is closed by
	 * the primary once it is gone. */
	h.tag = "holder ";
	CU_ASSERT_EQUAL(peer_read(&h, MP_TIMEOUT_MS), 0);
	CU_ASSERT_STRING_EQUAL(h.last, "closed");
	CU_ASSERT_EQUAL(peer_wait(&h, MP_TIMEOUT_MS), 0);
	const char *r = "";
	for (int i = 0; i < 500; i++, usleep(10000))
		if (strncmp(r = peer_cmd(&s.prim, "owner " DEV " hv"), "err 2", 5) == 0)
			break;
	CU_ASSERT_EQUAL(strncmp(r, "err 2", 5), 0);
	fprintf(stderr, "hostile requests: %ld refused and counted; hv gone %.1f ms after its "
			"owner was told to die\n", n, ms_since(&t0));
	CU_ASSERT_EQUAL(peer_poll_num(&s.prim, "ev 6", died0 + 1), died0 + 1); /* PEER_DIED */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(a, "lookup " DEV " var hv"), "err 2", 5), 0);
	REPLY_IS(&s.prim, "ok 0", "owner " DEV " hp");
	CU_ASSERT_EQUAL(ok_num(peer_cmd(&s.prim, "count " DEV)), n0 + 1);
	OK(&s.prim, "destroy " DEV " hp 5000");
	OK(&s.prim, "destroy " DEV " pu 5000");
	/* Nothing of it left in the device or among the primary's fds. */
	REPLY_IS(&s.prim, sim0, "simstats " DEV);
	CU_ASSERT(mp_fds_settle(&s.prim, fds0) <= fds0);
	CU_ASSERT_EQUAL(mp_refused(&s.prim), r0 + n);
	scene_end(&s);
}

/* After a request, a primary thread stays on the line for the next one
 * (request_lines.cpp). A peer that lifts the line's timeout keeps it
 * there, and dies with the line handed to another process: what that
 * process sends on it then speaks for nobody, and is not acted on (not
 * answered, not even -ENODEV: nothing made, nothing counted), and the
 * line is closed (test/fault/hostile orphan-line). */
static void test_dead_peers_waited_line(void)
{
	struct scene s;
	struct peer h;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "orphan"), 0);
	long r0 = mp_refused(&s.prim), fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	long th0 = ok_num(peer_cmd(&s.prim, "threadcount"));
	long n0 = ok_num(peer_cmd(&s.prim, "count " DEV));
	CU_ASSERT_EQUAL_FATAL(hostile_start(&h, &s, "orphan-line", NULL, NULL), 0);
	CU_ASSERT_EQUAL_FATAL(peer_read(&h, MP_TIMEOUT_MS), 0);
	CU_ASSERT_EQUAL(atol(h.last), 0);
	for (int i = 0; i < 300 && strcmp(peer_cmd(&s.prim, "peers"), "ok 0") != 0; i++)
		usleep(10000);
	REPLY_IS(&s.prim, "ok 0", "peers");
	CU_ASSERT_EQUAL(peer_send(&h, "speak"), 0);
	h.tag = "orphan ";
	CU_ASSERT_EQUAL(peer_read(&h, MP_TIMEOUT_MS), 0);
	CU_ASSERT_STRING_EQUAL(h.last, "closed");
	CU_ASSERT_EQUAL(peer_wait(&h, MP_TIMEOUT_MS), 0);
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "owner " DEV " orphan"), "err 2", 5), 0);
	CU_ASSERT_EQUAL(mp_refused(&s.prim), r0);
	CU_ASSERT(mp_fds_settle(&s.prim, fds0) <= fds0);
	/* The thread that waited on the line is back (no thread more or
	 * less), and the registry has no entry more. */
	CU_ASSERT_EQUAL(ok_num(peer_cmd(&s.prim, "threadcount")), th0);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(&s.prim, "count " DEV)), n0);
	scene_end(&s);
}

/* A real peer sends 1000 creates and reads nothing (test/fault/hostile
 * request-flood; @how: NULL for UMEMs out of DPDK memory, "pipe" for OBJs
 * whose command is in a pipe), all on one request line it does not read
 * either. The primary reads them one at a time (one per line per turn)
 * and keeps no answer: what the line cannot take is dropped and counted;
 * its channel holds only the events it does not read, up to the
 * channel's bound. A real secondary's create meanwhile waits behind one
 * of its requests per turn. Told to read at last, the hostile
 * counts what it got: each request answered once or dropped, every
 * refusal counted. */
static void flood_requests(const char *tag, const char *how)
{
	struct scene s;
	struct peer *p[1], *a, h;
	struct timespec t0;
	const long queue_max = 256; /* Peers::kQueueMax */

	published_with(&s, tag, p, 1);
	a = p[0];
	/* Its request line stays open from its first request on: counted in
	 * the primary's fds before the flood. */
	OK(a, "create " DEV " var w");
	OK(a, "destroy " DEV " w 2000");
	long r0 = mp_refused(&s.prim), fds0 = ok_num(peer_cmd(&s.prim, "fdcount"));
	CU_ASSERT_EQUAL_FATAL(hostile_start(&h, &s, "request-flood", "1000", how), 0);
	h.tag = "flooded ";
	CU_ASSERT_EQUAL_FATAL(peer_read(&h, MP_TIMEOUT_MS), 0);
	CU_ASSERT_EQUAL(atol(h.last), 1000);
	/* It reads nothing from here on: the others go on, promptly. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	OK(a, "create " DEV " var x");
	double create_ms = ms_since(&t0);
	CU_ASSERT(create_ms < 2000);
	OK(&s.prim, "lookup " DEV " var x");
	OK(&s.prim, "create " DEV " var y");
	OK(a, "lookup " DEV " var y");
	OK(&s.prim, "bulk " DEV " 100"); /* events it does not read either */
	OK(a, "checkbulk " DEV " 100");
	long q = ok_num(peer_cmd(&s.prim, "queued"));
	CU_ASSERT(q >= 0 && q <= queue_max);
	long between = mp_refused(&s.prim) - r0;
	CU_ASSERT(between > 0 && between <= 1000);
	fprintf(stderr, "request flood (%s): a secondary's create took %.1f ms; %ld queued for "
			"the hostile (at most %ld), %ld refused so far\n",
		how != NULL ? how : "umem", create_ms, q, queue_max, between);
	/* Now it reads: every answer comes, and only those. */
	h.tag = "forged ";
	CU_ASSERT_EQUAL(peer_send(&h, "read"), 0);
	CU_ASSERT_EQUAL_FATAL(peer_read(&h, MP_TIMEOUT_MS), 0);
	long n = atol(h.last);
	CU_ASSERT_EQUAL(peer_wait(&h, MP_TIMEOUT_MS), 0);
	CU_ASSERT_EQUAL(mp_refused(&s.prim) - r0, n);
	for (int i = 0; i < 300 && q != 0; i++, usleep(10000))
		q = ok_num(peer_cmd(&s.prim, "queued"));
	CU_ASSERT_EQUAL(q, 0);
	/* Its exit reaches the primary's interrupt thread when it gets
	 * there (a CI run once asked before it had: "ok 2"). */
	for (int i = 0; i < 300 && strcmp(peer_cmd(&s.prim, "peers"), "ok 1") != 0; i++)
		usleep(10000);
	REPLY_IS(&s.prim, "ok 1", "peers");
	CU_ASSERT(mp_fds_settle(&s.prim, fds0) <= fds0);
	OK(a, "lookup " DEV " var x");
	scene_end(&s);
}

static void test_request_flood(void)
{
	flood_requests("rflood", NULL);
}

/* The same with commands the request thread refuses before the create
 * (not in a memfd): answered there, they must be bounded all the same. */
static void test_request_flood_bad_commands(void)
{
	flood_requests("rfloodp", "pipe");
}

static const struct dvs_test_case hostile_cases[] = {
	DVS_TEST(test_forged_messages),
	DVS_TEST(test_attach_and_die_storm),
	DVS_TEST(test_attach_flood),
	DVS_TEST(test_stopped_secondary),
	DVS_TEST(test_stuck_in_callback),
	DVS_TEST(test_signal_storm),
	DVS_TEST(test_hello_squatters),
	DVS_TEST(test_destroy_from_callback),
	DVS_TEST(test_new_primary_beside_orphans),
	DVS_TEST(test_after_eal_cleanup),
	DVS_TEST(test_hostile_requests),
	DVS_TEST(test_dead_peers_waited_line),
	DVS_TEST(test_request_flood),
	DVS_TEST(test_request_flood_bad_commands),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	if (argc != 4 || (strcmp(argv[3], "fault") != 0 && strcmp(argv[3], "hostile") != 0)) {
		fprintf(stderr, "usage: %s PEER HOSTILE fault|hostile\n", argv[0]);
		return -1;
	}
	mp_peer_prog = argv[1];
	hostile_prog = argv[2];
	signal(SIGPIPE, SIG_IGN);
	return dvs_cunit_add(argv[3], strcmp(argv[3], "fault") == 0 ? cases : hostile_cases);
}

DVS_CUNIT_MAIN("test_fault", register_tests)
