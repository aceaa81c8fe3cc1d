/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suites mp and hw: a real primary and real secondaries (mp_peer), sharing
 * a device through dvshare. Default device: sim0. With --hw, the ibdev
 * named by DVSHARE_HW_IBDEV (or the hw_ibdev Meson option) is used: every
 * command is then a real one (VIRTIO_NET_Q with its PD, TIS, counters and
 * UMEMs sized from the caps, flow counters), no doorbell page is ever read
 * back, each test says what it assumes of the device and why, the checks
 * that need the software engine are left out, and a scenario the device
 * has no capability for is skipped with the reason printed.
 *
 * argv: PEER PLAIN_PRIMARY [--skew SKEWED_PEER] [--hw IBDEV]
 */
#include "dvs_cunit.h"
#include "mp_harness.h"

static const char *dev0 = "sim0"; /* the device every scenario shares */
static int hw;
static const char *skew_prog; /* mp_peer built as another dvshare release */

#define scene mp_scene

static int scene_start(struct scene *s, const char *tag)
{
	return mp_scene_start(s, tag, NULL);
}

static struct peer *scene_secondary(struct scene *s)
{
	return mp_scene_secondary(s, NULL);
}

/* Does the device have VIRTIO_NET_Q (and so VAR pages)? Says why not; a
 * device whose caps cannot be read at all fails the test. */
/* May a queue's fields be modified on the device (its three modify
 * caps)? Says so when not: the test then leaves the modify out. */
static int can_modify(struct scene *s, const char *test)
{
	int virtq = 0, modify = 0;
	long off = 0, vars = 0;

	if (sscanf(peer_cmd(&s->prim, "caps %s", dev0), "ok %d %ld %ld %d", &virtq, &off, &vars,
		   &modify) != 4)
		return 0;
	if (!modify)
		printf("%s: queue modify left out: %s lacks a virtio queue modify cap "
		       "(vnet_modify_ext, virtio_net_q_addr_modify, virtio_q_index_modify)\n",
		       test, dev0);
	return modify;
}

/* 1 when app_virtq_create() gives each queue its own counters object
 * (the device offers VIRTIO_Q_COUNTERS), else 0. */
static int queue_counters(struct scene *s)
{
	int counters = 0;

	CU_ASSERT_EQUAL(sscanf(peer_cmd(&s->prim, "caps %s", dev0), "ok %*d %*d %*d %*d %*u %d",
			       &counters), 1);
	return counters;
}

/* Objects the first app_virtq_create() on a device publishes: the queue,
 * its three UMEMs, the shared PD, transport domain and TIS, and its
 * counters when the device offers them. */
static long first_queue_objs(struct scene *s)
{
	return 7 + queue_counters(s);
}

static int has_virtq(struct scene *s, const char *test)
{
	const char *r = peer_cmd(&s->prim, "caps %s", dev0);

	if (strncmp(r, "ok 1 ", 5) == 0)
		return 1;
	if (strncmp(r, "ok 0 ", 5) == 0) {
		printf("%s: skipped: %s has no VIRTIO_NET_Q capability (no VAR pages, no "
		       "virtio queues)\n", test, dev0);
	} else {
		printf("%s: cannot read the capabilities of %s: %s\n", test, dev0, r);
		CU_FAIL("device capabilities unreadable");
	}
	return 0;
}

#define scene_end mp_scene_end

/* Everything the primary published is there right after rte_eal_init.
 * Assumes of a NIC: a VIRTIO_NET_Q built as app_virtq_create() builds it
 * (PD, TD, TIS, UMEMs of a * size + b bytes from the caps, its own
 * counters when general_obj_types lists them, INIT, NO_MSIX) is created:
 * DPDK's vdpa/mlx5 builds the same (mlx5_vdpa_create_dev_resources,
 * mlx5_vdpa_virtq_sub_objs_prepare); firmware ids may be 0 (nothing
 * promises otherwise). */
static void test_visible_after_eal_init(void)
{
	struct scene s;
	long page, obj, umem;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "visible"), 0);
	OK(&s.prim, "open %s", dev0);
	if (!has_virtq(&s, __func__)) {
		scene_end(&s);
		return;
	}
	page = ok_num(peer_cmd(&s.prim, "create %s var db0", dev0));
	obj = ok_num(peer_cmd(&s.prim, "create %s obj q0 3 256", dev0));
	umem = ok_num(peer_cmd(&s.prim, "create %s umem m0 0", dev0));
	CU_ASSERT(page >= 0 && obj >= 0 && umem >= 0); /* firmware ids may be 0 */
	for (int i = 0; i < 3; i++) {
		struct peer *p = scene_secondary(&s);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "status")), 1);
		/* db0, m0, and q0 with its UMEMs, PD, TD, TIS (and counters). */
		CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "count %s", dev0)), 2 + first_queue_objs(&s));
		CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "lookup %s var db0", dev0)), page);
		CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "lookup %s obj q0", dev0)), obj);
		CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "lookup %s umem m0", dev0)), umem);
		OK(p, "lookup %s obj pd", dev0);
		OK(p, "lookup %s umem q0.umem3", dev0);
		CU_ASSERT_STRING_EQUAL(peer_cmd(p, "query %s q0", dev0), "ok 3 256 0 0");
		/* A name of the wrong type is not found. */
		CU_ASSERT_FALSE(is_ok(peer_cmd(p, "lookup %s var q0", dev0)));
		CU_ASSERT_FALSE(is_ok(peer_cmd(p, "lookup %s obj nope", dev0)));
	}
	/* The primary saw each secondary attach. */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "events"), "ok 0 3 0", 8), 0);
	scene_end(&s);
}

/* Every process's doorbell address is its own mapping plus the device's
 * in-page doorbell offset, and a doorbell written by a secondary reaches
 * the device (on the sim, its engine counts it). Assumes of a NIC: the
 * doorbell is at doorbell_bar_offset & (page size - 1) of the mapped VAR
 * page (DPDK's mlx5_vdpa_create_dev_resources adds exactly that); the page
 * is register space, never read back here. */
static void test_doorbell_reaches_device(void)
{
	struct scene s;
	struct peer *a, *b;
	long off;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "doorbell"), 0);
	OK(&s.prim, "open %s", dev0);
	if (!has_virtq(&s, __func__)) {
		scene_end(&s);
		return;
	}
	/* A doorbell's value is a queue index: only kick queues that exist. */
	OK(&s.prim, "create %s var db0", dev0);
	OK(&s.prim, "create %s obj q0 0 64", dev0);
	a = scene_secondary(&s);
	b = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	{
		const char *r = peer_cmd(&s.prim, "caps %s", dev0);
		CU_ASSERT_EQUAL(sscanf(r, "ok 1 %ld", &off), 1);
	}
	CU_ASSERT_EQUAL(ok_num(peer_cmd(&s.prim, "dboff %s db0", dev0)), off);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "dboff %s db0", dev0)), off);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(b, "dboff %s db0", dev0)), off);
	if (!hw) /* the sim puts it mid-page, to prove the offset is added */
		CU_ASSERT_NOT_EQUAL(off, 0);
	OK(a, "ring %s db0 0 0 1", dev0); /* kick queue 0 */
	if (!hw) {
		/* The sim's queues ignore kicks: any value shows what the device
		 * saw last. */
		OK(&s.prim, "engine %s", dev0);
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "poll %s", dev0), "ok 1");
		OK(b, "ring %s db0 0 9 1", dev0);
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "poll %s", dev0), "ok 1");
		OK(a, "ring %s db0 0 11 1", dev0);
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "poll %s", dev0), "ok 1");
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "kicks %s db0", dev0), "ok 3 11");
		/* A store elsewhere in the page is not a doorbell. */
		OK(a, "ring %s db0 4 5 1", dev0);
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "poll %s", dev0), "ok 0");
	}
	scene_end(&s);
}

/* A flow counter, the object rdma-core's own export/import test shares:
 * read by a secondary through its own context. Assumes of a NIC:
 * ALLOC_FLOW_COUNTER without a pd or bulk is taken (rdma-core's
 * tests/test_mlx5_devx.py test_devx_obj_export_import sends it with every
 * field 0); on a NIC the values are the device's, not checked. */
static void test_shared_flow_counter(void)
{
	struct scene s;
	struct peer *p;
	long id;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "counter"), 0);
	OK(&s.prim, "open %s", dev0);
	id = ok_num(peer_cmd(&s.prim, "create %s counter c0", dev0));
	CU_ASSERT(id >= 0); /* a firmware id, 0 included */
	p = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "lookup %s obj c0", dev0)), id);
	CU_ASSERT_TRUE(is_ok(peer_cmd(p, "counter %s c0", dev0)));
	if (!hw) /* no traffic on the sim */
		CU_ASSERT_STRING_EQUAL(peer_cmd(p, "counter %s c0", dev0), "ok 0 0");
	OK(&s.prim, "destroy %s c0 5000", dev0);
	CU_ASSERT_FALSE(is_ok(peer_cmd(p, "counter %s c0", dev0)));
	scene_end(&s);
}

static void test_metadata_roundtrip(void)
{
	struct scene s;
	struct peer *p;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "meta"), 0);
	OK(&s.prim, "open %s", dev0);
	OK(&s.prim, "create %s counter q1", dev0);
	OK(&s.prim, "setmeta %s q1 queue=1,size=128", dev0);
	p = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_STRING_EQUAL(peer_cmd(p, "getmeta %s q1", dev0), "ok queue=1,size=128");
	OK(&s.prim, "setmeta %s q1 queue=1,size=256", dev0);
	CU_ASSERT_STRING_EQUAL(peer_cmd(p, "getmeta %s q1", dev0), "ok queue=1,size=256");
	/* Secondaries cannot write metadata; unknown names are refused. */
	CU_ASSERT_FALSE(is_ok(peer_cmd(p, "setmeta %s q1 x", dev0)));
	CU_ASSERT_FALSE(is_ok(peer_cmd(&s.prim, "setmeta %s nope x", dev0)));
	CU_ASSERT_FALSE(is_ok(peer_cmd(&s.prim,
		"setmeta %s q1 %0129d", dev0, 0))); /* 129 bytes: too long */
	CU_ASSERT_STRING_EQUAL(peer_cmd(p, "getmeta %s q1", dev0), "ok queue=1,size=256");
	scene_end(&s);
}

/* Objects published after a secondary started: announced, then imported
 * at the first lookup. Assumes of a NIC: the modify of hw_available_index
 * in INIT needs vnet_modify_ext, virtio_net_q_addr_modify and
 * virtio_q_index_modify (DPDK's mlx5_vdpa_virtq.c modifies only with all
 * three; left out, saying so, without them) and is allowed in INIT (Linux
 * mlx5_vnet.c modifiable_virtqueue_fields: INIT or SUSPEND). */
static void test_late_publish(void)
{
	struct scene s;
	struct peer *p;
	long page;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "late"), 0);
	OK(&s.prim, "open %s", dev0);
	if (!has_virtq(&s, __func__)) {
		scene_end(&s);
		return;
	}
	p = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "count %s", dev0)), 0);
	page = ok_num(peer_cmd(&s.prim, "create %s var late0", dev0));
	OK(&s.prim, "create %s obj lateq 5 64", dev0);
	CU_ASSERT(peer_poll_num(p, "events", 6) >= 6); /* var, PD, 3 UMEMs, queue */
	CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "lookup %s var late0", dev0)), page);
	CU_ASSERT_STRING_EQUAL(peer_cmd(p, "query %s lateq", dev0), "ok 5 64 0 0");
	/* The secondary drives the queue it imported late; the primary sees it. */
	int modify = can_modify(&s, __func__);
	if (!hw) /* the software device has the three caps: the modify must run there */
		CU_ASSERT_TRUE(modify);
	if (modify) {
		OK(p, "modify %s lateq avail 77", dev0);
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "query %s lateq", dev0), "ok 5 64 0 77");
	}
	scene_end(&s);
}

/* Several devices, more than fit in one attach message. On a NIC: flow
 * counters on the one device named, assumed as in test_shared_flow_counter. */
static void test_many_devices(void)
{
	struct scene s;
	struct peer *p;
	int ndev = hw ? 1 : 6;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "devs"), 0);
	for (int i = 0; i < ndev; i++) {
		char d[16];
		snprintf(d, sizeof(d), "sim%d", i);
		OK(&s.prim, "open %s", hw ? dev0 : d);
		OK(&s.prim, "create %s counter v%d", hw ? dev0 : d, i);
	}
	p = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "status")), ndev);
	for (int i = 0; i < ndev; i++) {
		char d[16];
		snprintf(d, sizeof(d), "sim%d", i);
		OK(p, "lookup %s obj v%d", hw ? dev0 : d, i);
		/* Each device's objects live on that device only. */
		if (!hw && i > 0)
			CU_ASSERT_FALSE(is_ok(peer_cmd(p, "lookup sim0 obj v%d", i)));
	}
	scene_end(&s);
}

/* A device opened after the secondary attached is found on lookup. */
static void test_late_device(void)
{
	struct scene s;
	struct peer *p;

	if (hw) {
		printf("%s: skipped: opens several software devices\n", __func__);
		return;
	}
	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "latedev"), 0);
	OK(&s.prim, "open sim0");
	p = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	OK(&s.prim, "open sim3");
	OK(&s.prim, "create sim3 var x");
	OK(p, "lookup sim3 var x");
	CU_ASSERT_FALSE(is_ok(peer_cmd(p, "lookup sim5 var x")));
	scene_end(&s);
}

/* 1,000 objects of every kind imported by a secondary. Assumes of a NIC:
 * as many VAR pages as BAR size over doorbell stride (mlx5_ib's VAR table
 * is sized so, mlx5_ib_init_var_table), at least 250 of them. */
static void test_thousand_objects(void)
{
	struct scene s;
	struct peer *p;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "thousand"), 0);
	OK(&s.prim, "open %s", dev0);
	if (!has_virtq(&s, __func__)) { /* a quarter are VARs */
		scene_end(&s);
		return;
	}
	{
		long vars = 0;
		sscanf(peer_cmd(&s.prim, "caps %s", dev0), "ok 1 %*d %ld", &vars);
		if (vars < 250) {
			printf("%s: skipped: %s has %ld VAR pages, the scenario needs 250\n",
			       __func__, dev0, vars);
			scene_end(&s);
			return;
		}
	}
	OK(&s.prim, "bulk %s 1000", dev0);
	p = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "count %s", dev0)), 1000);
	OK(p, "checkbulk %s 1000", dev0);
	scene_end(&s);
}

/* A secondary leaving (by close and by exit) destroys nothing. Assumes of
 * a NIC what test_late_publish does for its modify. */
static void test_secondary_exit_keeps_objects(void)
{
	struct scene s;
	struct peer *a, *b;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "exit"), 0);
	OK(&s.prim, "open %s", dev0);
	if (!has_virtq(&s, __func__)) {
		scene_end(&s);
		return;
	}
	OK(&s.prim, "create %s var db0", dev0);
	OK(&s.prim, "create %s obj q0 0 64", dev0);
	OK(&s.prim, "create %s umem m0 0", dev0);
	a = scene_secondary(&s);
	b = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	CU_ASSERT_PTR_NOT_NULL_FATAL(b);
	OK(a, "lookup %s obj q0", dev0);
	OK(a, "ring %s db0 0 0 1", dev0);
	/* The primary's context and each secondary's import hold a UAR. */
	long uars = hw ? 0 : ok_num(peer_cmd(&s.prim, "simuars %s", dev0));
	if (!hw)
		CU_ASSERT_EQUAL(uars, 3);
	OK(a, "close %s", dev0);
	CU_ASSERT_EQUAL(peer_stop(a), 0);
	if (!hw) /* its close gave its UAR back */
		CU_ASSERT_EQUAL(ok_num(peer_cmd(&s.prim, "simuars %s", dev0)), uars - 1);
	if (!hw) /* var; queue, counters, PD, TD, TIS; its three UMEMs and m0 */
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "simstats %s", dev0), "ok 1 5 4");
	CU_ASSERT_STRING_EQUAL(peer_cmd(b, "query %s q0", dev0), "ok 0 64 0 0");
	int modify = can_modify(&s, __func__);
	if (!hw)
		CU_ASSERT_TRUE(modify);
	if (modify)
		OK(b, "modify %s q0 avail 9", dev0);
	OK(b, "ring %s db0 0 0 1", dev0);
	if (!hw) {
		OK(&s.prim, "engine %s", dev0);
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "poll %s", dev0), "ok 1");
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "kicks %s db0", dev0), "ok 1 0");
	}
	CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "query %s q0", dev0),
			       modify ? "ok 0 64 0 9" : "ok 0 64 0 0");
	/* The primary heard the explicit detach. */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "events"), "ok 0 2 1", 8), 0);
	scene_end(&s);
}

/* Secondaries exit (with and without rte_eal_cleanup()) while the
 * primary destroys objects as fast as it can, so that each exit meets
 * revokes on its interrupt thread: none may crash, and every destroy
 * completes. The exit once unmapped a device's registry under a revoke
 * that had just taken a reference to it (a SIGSEGV in the secondary).
 * Assumes of a NIC: a flow counter can be created and destroyed
 * (test_shared_flow_counter's assumption). */
static void test_exit_during_revokes(void)
{
	struct scene s;
	unsigned long cycles = 0, failures = 1;
	int last = 0;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "exitrev"), 0);
	OK(&s.prim, "open %s", dev0);
	OK(&s.prim, "churnstart %s churn", dev0);
	for (int i = 0; i < 12; i++) {
		struct peer *p = scene_secondary(&s);
		CU_ASSERT_PTR_NOT_NULL_FATAL(p);
		CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "status")), 1);
		if (i % 2 == 0) {
			CU_ASSERT_EQUAL(peer_stop(p), 0);
		} else {
			peer_send(p, "exit plain");
			CU_ASSERT_EQUAL(peer_wait(p, MP_TIMEOUT_MS), 0);
		}
	}
	CU_ASSERT_EQUAL(sscanf(peer_cmd(&s.prim, "churnstop"), "ok %lu %lu %d", &cycles,
			       &failures, &last), 3);
	printf("%s: %lu destroys, %lu failed (last errno %d)\n", __func__, cycles, failures,
	       last);
	CU_ASSERT(cycles > 0);
	CU_ASSERT_EQUAL(failures, 0);
	scene_end(&s);
}

/* A primary that does not use dvshare: the secondary attaches nothing,
 * promptly, and runs normally. */
static void test_primary_without_dvshare(void)
{
	struct scene s;
	struct peer *p;

	CU_ASSERT_FATAL(mp_have_hugepages());
	memset(&s, 0, sizeof(s));
	mp_prefix(s.prefix, sizeof(s.prefix), "plain");
	mp_cleanup(s.prefix);
	CU_ASSERT_EQUAL_FATAL(peer_start_prog(&s.prim, mp_plain_prog, s.prefix, 1), 0);
	p = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	/* 0, not -ETIMEDOUT: no request was sent to a primary that would
	 * never have answered it. */
	CU_ASSERT_STRING_EQUAL(peer_cmd(p, "status"), "ok 0");
	CU_ASSERT_FALSE(is_ok(peer_cmd(p, "lookup %s var x", dev0)));
	/* The plain primary gets "quit" as an ordinary line and ends on EOF. */
	close(s.prim.to);
	s.prim.to = open("/dev/null", O_WRONLY);
	CU_ASSERT_EQUAL(peer_stop(p), 0);
	s.nsec = 0;
	CU_ASSERT_EQUAL(peer_wait(&s.prim, MP_TIMEOUT_MS), 0);
	mp_cleanup(s.prefix);
}

/* Bad input from the application gets a clear error and changes nothing.
 * Assumes nothing of a NIC's refusals: every refusal here is dvshare's or
 * rdma-core's own, before any command (a queue index of
 * max_num_virtio_queues is checked against the caps by the library). */
static void test_publish_errors(void)
{
	struct scene s;
	struct peer *p;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "errors"), 0);
	OK(&s.prim, "open %s 8", dev0); /* room for 8 objects */
	CU_ASSERT_FALSE(is_ok(peer_cmd(&s.prim, "open %s", dev0)));  /* already shared */
	/* Not a sim device: the real rdma-core says why, with its own errno
	 * (no kernel support, no such device, libraries absent or too old). */
	{
		int err = -1;
		const char *r = peer_cmd(&s.prim, "open nosuchdev9");
		CU_ASSERT_EQUAL(sscanf(r, "err %d", &err), 1);
		CU_ASSERT(err == ENOSYS || err == ENODEV || err == ENOENT || err == ENOTSUP);
	}
	OK(&s.prim, "create %s counter a", dev0);
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "create %s counter a", dev0), "err 17", 6), 0);
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "create %s counter %064d", dev0, 0),
				"err 36", 6), 0); /* ENAMETOOLONG */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "create %s obj %058d 0 64", dev0, 0),
				"err 36", 6), 0); /* no room for its UMEMs' names */
	/* A create dvshare_obj_create() does not take (CREATE_CQ) is refused
	 * before it reaches the device; ALLOC_PD from raw bytes is taken, its
	 * id read from the output's pd field. */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "rawcreate %s cq 400", dev0), "err 95", 6), 0);
	CU_ASSERT(ok_num(peer_cmd(&s.prim, "rawcreate %s rawpd 800", dev0)) >= 0); /* ids may be 0 */
	OK(&s.prim, "destroy %s rawpd 5000", dev0);
	if (has_virtq(&s, "test_publish_errors (bad queue)")) {
		/* A queue refused publishes no queue and keeps none of its
		 * UMEMs or counters; the PD, TD and TIS made for it stay,
		 * shared (8 objects at the peak: a, 3 shared, counters, 3
		 * UMEMs). The refusal is the library's, on any device: its
		 * index is past the caps' max_num_virtio_queues. */
		unsigned int maxq = 0;
		CU_ASSERT_EQUAL(sscanf(peer_cmd(&s.prim, "caps %s", dev0), "ok 1 %*d %*d %*d %u",
				       &maxq), 1);
		CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "create %s obj badq %u 64", dev0, maxq),
					"err 22", 6), 0); /* EINVAL, from the library */
		OK(&s.prim, "lookup %s obj pd", dev0);
		OK(&s.prim, "lookup %s obj tis", dev0);
		CU_ASSERT_FALSE(is_ok(peer_cmd(&s.prim, "lookup %s umem badq.umem1", dev0)));
		CU_ASSERT_FALSE(is_ok(peer_cmd(&s.prim, "lookup %s obj badq.counters", dev0)));
		if (!hw)
			CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "simstats %s", dev0), "ok 0 4 0");
	} else { /* the same count either way */
		OK(&s.prim, "create %s counter pd", dev0);
		OK(&s.prim, "create %s counter td", dev0);
		OK(&s.prim, "create %s counter tis", dev0);
	}
	OK(&s.prim, "create %s counter b", dev0);
	OK(&s.prim, "create %s counter c", dev0);
	OK(&s.prim, "create %s counter d", dev0);
	OK(&s.prim, "create %s counter e", dev0);
	CU_ASSERT_EQUAL(strncmp(peer_cmd(&s.prim, "create %s counter f", dev0), "err 28", 6), 0);
	if (!hw)
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "simstats %s", dev0), "ok 0 8 0");
	p = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "count %s", dev0)), 8);
	/* A secondary's create fails as the primary's does: the registry is
	 * full for both (test_mp_create.c has the rest of its creates). */
	CU_ASSERT_EQUAL(strncmp(peer_cmd(p, "create %s counter z", dev0), "err 28", 6), 0);
	scene_end(&s);
}

/* A context the application opened itself, and objects it made itself. */
static void test_adopt_and_publish(void)
{
	struct scene s;
	struct peer *p;
	long page, obj;

	if (hw) {
		printf("%s: skipped: opens the context through the software device's glue\n",
		       __func__);
		return;
	}
	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "adopt"), 0);
	OK(&s.prim, "adopt sim2");
	page = ok_num(peer_cmd(&s.prim, "publish sim2 var own-db"));
	obj = ok_num(peer_cmd(&s.prim, "publish sim2 obj own-c"));
	CU_ASSERT(page >= 0 && obj >= 0); /* firmware ids may be 0 */
	/* A duplicate name is refused and the object stays the caller's. */
	CU_ASSERT_FALSE(is_ok(peer_cmd(&s.prim, "publish sim2 var own-db")));
	CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "simstats sim2"), "ok 1 1 0");
	p = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "lookup sim2 var own-db")), page);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "lookup sim2 obj own-c")), obj);
	CU_ASSERT_STRING_EQUAL(peer_cmd(p, "counter sim2 own-c"), "ok 0 0");
	OK(&s.prim, "engine sim2");
	OK(p, "ring sim2 own-db 0 5 1");
	CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "poll sim2"), "ok 1");
	CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "kicks sim2 own-db"), "ok 1 5");
	scene_end(&s);
}

/* A secondary built as another dvshare release is refused, with both
 * versions named and what to do, in one line however often it asks; its
 * device lookups say EPROTO (not ENOENT: the device is there), and it
 * runs on with nothing attached. */
static void test_version_mismatch_refused(void)
{
	struct scene s;
	struct peer p;
	char env[160], path[128], want[160];

	if (skew_prog == NULL)
		return;
	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "skew"), 0);
	OK(&s.prim, "open %s", dev0);
	OK(&s.prim, "create %s var db0", dev0);
	snprintf(path, sizeof(path), "/tmp/dvs-skewlog-%d.log", (int)getpid());
	snprintf(env, sizeof(env), "MP_PEER_LOG=%s", path);
	CU_ASSERT_EQUAL_FATAL(peer_start_env(&p, skew_prog, s.prefix, 0, env), 0);
	CU_ASSERT_STRING_EQUAL(peer_cmd(&p, "status"), "ok -71"); /* -EPROTO */
	for (int i = 0; i < 3; i++)
		CU_ASSERT_EQUAL(strncmp(peer_cmd(&p, "lookup %s var db0", dev0), "err 71 ", 7), 0);
	CU_ASSERT_EQUAL(peer_stop(&p), 0);
	snprintf(want, sizeof(want), "rebuild this process against the primary's dvshare %s",
		 DVS_PRIMARY_VERSION);
	CU_ASSERT_EQUAL(mp_count_in_file(path, want), 1);
	CU_ASSERT_EQUAL(mp_count_in_file(path, "dvshare 0.1.99"), 1);
	CU_ASSERT_EQUAL(mp_count_loud(path), 1); /* that line, nothing else */
	unlink(path);
	/* The primary is unharmed: a proper secondary still attaches. */
	struct peer *ok = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(ok);
	CU_ASSERT_STRING_EQUAL(peer_cmd(ok, "status"), "ok 1");
	scene_end(&s);
}

/* Attach modes, chosen through the API (MP_PEER_ATTACH: mp_peer calls
 * dvshare_attach_mode_set() before rte_eal_init) or DVSHARE_ATTACH_MODE:
 * lazy imports nothing until a lookup, selective only what matches, the
 * API wins over the environment, a bad value fails the attach, and the
 * choice cannot change once made. Destroys work whatever was imported. */
static void test_attach_modes(void)
{
	struct scene s;
	struct peer *p;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "modes"), 0);
	OK(&s.prim, "open %s", dev0);
	if (!has_virtq(&s, __func__)) {
		scene_end(&s);
		return;
	}
	/* db0, db1, m0, and q0 with its UMEMs, PD, TD, TIS (and counters). */
	const long nobj = 3 + first_queue_objs(&s);
	OK(&s.prim, "create %s var db0", dev0);
	OK(&s.prim, "create %s var db1", dev0);
	OK(&s.prim, "create %s umem m0 0", dev0);
	OK(&s.prim, "create %s obj q0 0 64", dev0);

	/* Lazy (API): nothing imported; a lookup imports that one object. */
	p = mp_scene_secondary(&s, "MP_PEER_ATTACH=lazy");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	REPLY_IS(p, "ok 1", "status");
	REPLY_IS(p, "ok 1 0 0", "attachstats");
	CU_ASSERT_EQUAL(ok_num(peer_cmd(p, "count %s", dev0)), nobj); /* all listed */
	OK(p, "lookup %s var db0", dev0);
	REPLY_IS(p, "ok 1 1 1", "attachstats");
	OK(p, "lookup %s var db0", dev0); /* imported once */
	REPLY_IS(p, "ok 1 1 2", "attachstats");
	CU_ASSERT_STRING_EQUAL(peer_cmd(p, "query %s q0", dev0), "ok 0 64 0 0");
	REPLY_IS(p, "ok 1 2 3", "attachstats");

	/* Selective (environment): only the names that match. */
	p = mp_scene_secondary(&s, "DVSHARE_ATTACH_MODE=selective:db*");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	REPLY_IS(p, "ok 2 2 0", "attachstats");
	OK(p, "lookup %s umem m0", dev0);
	REPLY_IS(p, "ok 2 3 1", "attachstats");

	/* The API wins over the environment. */
	setenv("DVSHARE_ATTACH_MODE", "lazy", 1);
	p = mp_scene_secondary(&s, "MP_PEER_ATTACH=selective:q0*");
	unsetenv("DVSHARE_ATTACH_MODE");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	/* q0, its three UMEMs (and its counters) */
	const char *want = queue_counters(&s) ? "ok 2 5 0" : "ok 2 4 0";
	REPLY_IS(p, want, "attachstats");

	/* A bad value fails the attach, saying why; too late to choose. */
	p = mp_scene_secondary(&s, "DVSHARE_ATTACH_MODE=sometimes");
	CU_ASSERT_PTR_NOT_NULL_FATAL(p);
	REPLY_IS(p, "ok -22", "status");
	REPLY_IS(p, "err 16 setmode", "setmode");

	/* Destroys reach every secondary whatever it imported: db1 is held by
	 * the selective one only, db0 by two. */
	OK(&s.prim, "destroy %s db1 5000", dev0);
	OK(&s.prim, "destroy %s db0 5000", dev0);
	scene_end(&s);
}

/* A secondary maps a VAR at its first dvshare_var_doorbell() (or _addr()),
 * not at its import: an eager attach of many VARs costs no mmap() each.
 * A mapping that fails can be tried again; a VAR destroyed before it was
 * ever mapped gives a private page, whose doorbell reaches no device. */
static void test_var_mapped_at_first_use(void)
{
	struct scene s;
	struct peer *a;
	unsigned int h0, h1;

	CU_ASSERT_FATAL(mp_have_hugepages());
	CU_ASSERT_EQUAL_FATAL(scene_start(&s, "firstuse"), 0);
	OK(&s.prim, "open %s", dev0);
	if (!has_virtq(&s, __func__)) {
		scene_end(&s);
		return;
	}
	OK(&s.prim, "create %s var fu0", dev0);
	OK(&s.prim, "create %s var fu1", dev0);
	a = scene_secondary(&s);
	CU_ASSERT_PTR_NOT_NULL_FATAL(a);
	const long maps0 = ok_num(peer_cmd(a, "filemapcount"));
	h0 = (unsigned int)ok_num(peer_cmd(a, "hold %s var fu0", dev0));
	h1 = (unsigned int)ok_num(peer_cmd(a, "hold %s var fu1", dev0));
	/* Imported (eagerly, or by the lookup), held, not mapped. */
	CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "filemapcount")), maps0);
	if (!hw) {
		OK(a, "simfailmmap %d", ENOMEM);
		REPLY_IS(a, "err 12 map: Cannot allocate memory", "mapheld %u", h0);
		CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "filemapcount")), maps0);
	}
	OK(a, "mapheld %u", h0); /* tried again: mapped */
	CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "filemapcount")), maps0 + 1);
	OK(a, "mapheld %u", h0); /* once */
	CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "filemapcount")), maps0 + 1);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "dboff %s fu0", dev0)),
			ok_num(peer_cmd(&s.prim, "dboff %s fu0", dev0)));

	/* fu1, never mapped here, is destroyed; its doorbell is then a
	 * private page's (no file behind it), and a store there is safe. */
	OK(&s.prim, "destroy %s fu1 5000", dev0);
	OK(a, "ringheld %u 0 7", h1);
	CU_ASSERT_EQUAL(ok_num(peer_cmd(a, "filemapcount")), maps0 + 1);
	if (!hw) {
		/* The page the sim gives next (fu1's, freed) saw no kick. */
		OK(&s.prim, "create %s var fu2", dev0);
		OK(&s.prim, "engine %s", dev0);
		OK(a, "ringheld %u 0 9", h1);
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "poll %s", dev0), "ok 0");
		CU_ASSERT_STRING_EQUAL(peer_cmd(&s.prim, "kicks %s fu2", dev0), "ok 0 0");
	}
	OK(a, "releaseheld %u", h0);
	OK(a, "releaseheld %u", h1);
	scene_end(&s);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_visible_after_eal_init),
	DVS_TEST(test_doorbell_reaches_device),
	DVS_TEST(test_shared_flow_counter),
	DVS_TEST(test_metadata_roundtrip),
	DVS_TEST(test_late_publish),
	DVS_TEST(test_many_devices),
	DVS_TEST(test_late_device),
	DVS_TEST(test_thousand_objects),
	DVS_TEST(test_secondary_exit_keeps_objects),
	DVS_TEST(test_exit_during_revokes),
	DVS_TEST(test_primary_without_dvshare),
	DVS_TEST(test_publish_errors),
	DVS_TEST(test_adopt_and_publish),
	DVS_TEST(test_version_mismatch_refused),
	DVS_TEST(test_attach_modes),
	DVS_TEST(test_var_mapped_at_first_use),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: %s PEER PLAIN_PRIMARY [--hw IBDEV]\n", argv[0]);
		return -1;
	}
	mp_peer_prog = argv[1];
	mp_plain_prog = argv[2];
	if (argc >= 5 && strcmp(argv[3], "--skew") == 0) {
		skew_prog = argv[4];
		argv += 2;
		argc -= 2;
	}
	if (argc >= 4 && strcmp(argv[3], "--hw") == 0) {
		dev0 = mp_hw_ibdev(argc >= 5 ? argv[4] : "");
		hw = 1;
	}
	return dvs_cunit_add(hw ? "hw" : "mp", cases);
}

DVS_CUNIT_MAIN("test_mp", register_tests)
