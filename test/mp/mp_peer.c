/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A DPDK process for the multi-process suites: primary or secondary by
 * the usual EAL options, then driven by one command per line on stdin,
 * answering one line ("ok ..." or "err <errno> ...") on stdout. It uses
 * dvshare only through dvshare.h (and the sim engine through dvs_sim.h),
 * as an application would. Replies start with "@@ " because DPDK logs to
 * stdout too.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/mman.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_malloc.h>

#include "app_bulk.h"
#include "app_objects.h"
#include "dvs_sim.h"
#include "dvshare.h"
#include "dvshare_prm.h"
#include "mp_peer.h"

#define MAX_DEVS 8

static struct dvs_sim_engine *engines[MAX_DEVS];
static char engine_dev[MAX_DEVS][64];
#define MAX_HELD 16

static unsigned int ev_count[16];
static char ev_last[DVSHARE_NAME_MAX];
static volatile int block_revoke;

/* Handles kept across commands (to act on them after a revoke). */
static struct {
	struct dvshare_var *var;
	struct dvshare_obj *obj;
} held[MAX_HELD];

void reply(const char *fmt, ...)
{
	va_list ap;

	fputs("@@ ", stdout);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

void reply_err(const char *what)
{
	reply("err %d %s: %s", rte_errno, what, strerror(rte_errno));
}

/* "destroyondeath": the object a PEER_DIED callback tries to destroy, and
 * what that destroy returned (1: not tried yet). */
static char death_destroy[DVSHARE_NAME_MAX];
static volatile int death_rc = 1;

static void on_event(struct dvshare_dev *dev, enum dvshare_event ev, const char *name,
		     pid_t pid, void *arg)
{
	(void)pid;
	(void)arg;
	if (ev == DVSHARE_EVENT_PEER_DIED && death_destroy[0] != '\0' && death_rc == 1)
		death_rc = dvshare_destroy(dev, death_destroy, 1000);
	if (ev == DVSHARE_EVENT_PUBLISHED)
		snprintf(ev_last, sizeof(ev_last), "%s", name);
	/* Counted once what it did is there: a test that sees the count
	 * then asks "deathrc" or "events" gets this event's (the count came
	 * first, and test_destroy_from_callback read "not tried yet" under
	 * load). */
	if ((unsigned int)ev < 16)
		__atomic_add_fetch(&ev_count[ev], 1, __ATOMIC_RELEASE);
	/* A "hung" secondary: the application sits in its REVOKING callback. */
	while (ev == DVSHARE_EVENT_REVOKING && block_revoke)
		usleep(1000);
}

struct dvshare_dev *dev_of(const char *name)
{
	struct dvshare_dev *d = dvshare_dev_lookup(name);

	if (d == NULL)
		reply_err("no such device");
	return d;
}

static struct dvs_sim_engine **engine_of(const char *dev)
{
	for (int i = 0; i < MAX_DEVS; i++)
		if (engines[i] != NULL && strcmp(engine_dev[i], dev) == 0)
			return &engines[i];
	return NULL;
}

struct owner_arg {
	const char *name;
	pid_t owner;
	unsigned int owned;   /* objects @owner owns, when @name is NULL */
	unsigned int orphans; /* objects marked orphans, when @name is NULL */
};

static int owner_cb(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	struct owner_arg *o = arg;

	(void)d;
	if (o->name == NULL) {
		o->owned += info->owner == o->owner;
		o->orphans += info->orphan != 0;
		return 0;
	}
	if (strcmp(info->name, o->name) != 0)
		return 0;
	o->owner = info->owner;
	return 1;
}

/* "owner <dev> <name>": its owner's pid (0: the primary); "owned <dev>
 * <pid>": how many objects pid owns; "orphans <dev>" (@pid -1): how many
 * objects are marked orphans. */
static void cmd_owner(struct dvshare_dev *d, const char *name, long pid)
{
	struct owner_arg o = { name, (pid_t)pid, 0, 0 };
	int rc = dvshare_foreach(d, owner_cb, &o);

	if (name == NULL)
		reply("ok %u", pid < 0 ? o.orphans : o.owned);
	else if (rc == 1)
		reply("ok %d", (int)o.owner);
	else
		reply("err %d no such object", ENOENT);
}

static int count_cb(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	(void)d;
	(void)info;
	(*(unsigned int *)arg)++;
	return 0;
}

/* "ok <queue_index> <queue_size> <state> <hw_available_index>" */
static void reply_virtq(struct dvshare_obj *o)
{
	struct dvshare_prm_virtq q;

	if (app_virtq_query(o, &q) != 0)
		reply_err("query");
	else
		reply("ok %u %u %u %u", q.queue_index, q.queue_size, q.state, q.hw_available_index);
}

static void cmd_obj_query(struct dvshare_dev *d, const char *name)
{
	struct dvshare_obj *o = dvshare_obj_lookup(d, name);

	if (o == NULL)
		return reply_err("lookup");
	reply_virtq(o);
	dvshare_obj_release(o);
}

/* Change a queue's state (@field "state") or its available index
 * ("avail"), as an application driving it would. */
static void cmd_obj_modify(struct dvshare_dev *d, const char *name, const char *field,
			   unsigned int value)
{
	struct dvshare_obj *o = dvshare_obj_lookup(d, name);
	struct dvshare_prm_virtq want;
	uint64_t select = strcmp(field, "avail") == 0 ? DVSHARE_PRM_VIRTQ_MODIFY_HW_AVAILABLE_INDEX
						     : DVSHARE_PRM_VIRTQ_MODIFY_STATE;

	if (o == NULL)
		return reply_err("lookup");
	memset(&want, 0, sizeof(want));
	want.state = (uint8_t)value;
	want.hw_available_index = (uint16_t)value;
	if (app_virtq_modify(o, select, &want, NULL, NULL) != 0)
		reply_err("modify");
	else
		reply("ok");
	dvshare_obj_release(o);
}

static void cmd_counter(struct dvshare_dev *d, const char *name)
{
	struct dvshare_obj *o = dvshare_obj_lookup(d, name);
	uint64_t packets = 0, octets = 0;

	if (o == NULL)
		return reply_err("lookup");
	if (app_counter_read(o, &packets, &octets) != 0)
		reply_err("counter");
	else
		reply("ok %lu %lu", (unsigned long)packets, (unsigned long)octets);
	dvshare_obj_release(o);
}

/* Doorbells at the VAR's doorbell register (+ @off). */
static void cmd_ring(struct dvshare_dev *d, const char *name, unsigned int off,
		     unsigned int value, unsigned int count)
{
	struct dvshare_var *v = dvshare_var_lookup(d, name);
	void *db;

	if (v == NULL)
		return reply_err("lookup");
	db = dvshare_var_doorbell(v);
	for (unsigned int i = 0; i < count; i++)
		dvshare_doorbell32(db, off, value);
	dvshare_var_release(v);
	reply("ok");
}

/* Requests from many threads at once. "parallel DEV PREFIX N": N
 * threads, each making a flow counter PREFIX<i>, letting go of it and
 * destroying it; answers how many saw both succeed. "pardestroy DEV
 * PREFIX N MS": N threads, each destroying PREFIX<i> with a timeout of
 * MS; answers how many got 0, EBUSY, EAGAIN and anything else. In a
 * secondary, threads past its request lines (16) wait for one. */
struct par_arg {
	struct dvshare_dev *d;
	char name[64];
	unsigned int timeout_ms; /* 0: create, then destroy */
	int rc;
};

static void *par_one(void *p)
{
	struct par_arg *a = p;
	uint8_t in[DVSHARE_PRM_FLOW_COUNTER_ALLOC_SIZE], out[DVSHARE_PRM_HDR_SIZE];
	size_t len = dvshare_prm_alloc_flow_counter(in, 0);

	if (a->timeout_ms != 0) {
		a->rc = dvshare_destroy(a->d, a->name, a->timeout_ms);
		return NULL;
	}
	struct dvshare_obj *o = dvshare_obj_create(a->d, a->name, in, len, out, sizeof(out));
	if (o == NULL) {
		a->rc = -rte_errno;
		return NULL;
	}
	dvshare_obj_release(o);
	a->rc = dvshare_destroy(a->d, a->name, 5000);
	return NULL;
}

static void cmd_parallel(struct dvshare_dev *d, const char *prefix, unsigned int n,
			 unsigned int timeout_ms)
{
	struct par_arg a[64];
	pthread_t th[64];
	unsigned int started = 0, ok = 0, busy = 0, again = 0, other = 0;

	if (n > 64)
		n = 64;
	for (unsigned int i = 0; i < n; i++) {
		a[i].d = d;
		a[i].timeout_ms = timeout_ms;
		a[i].rc = -ECHILD; /* no thread ran it */
		snprintf(a[i].name, sizeof(a[i].name), "%s%u", prefix, i);
		if (pthread_create(&th[i], NULL, par_one, &a[i]) != 0)
			break;
		started++;
	}
	for (unsigned int i = 0; i < started; i++)
		pthread_join(th[i], NULL);
	for (unsigned int i = 0; i < n; i++) {
		ok += a[i].rc == 0;
		busy += a[i].rc == -EBUSY;
		again += a[i].rc == -EAGAIN;
		other += a[i].rc != 0 && a[i].rc != -EBUSY && a[i].rc != -EAGAIN;
		if (a[i].rc != 0 && timeout_ms == 0)
			fprintf(stderr, "parallel: %s: %s\n", a[i].name, strerror(-a[i].rc));
	}
	if (timeout_ms == 0)
		reply("ok %u", ok);
	else
		reply("ok %u %u %u %u", ok, busy, again, other);
}

/* Lookups racing revokes: threads of this process look up names
 * <prefix>0..<prefix>N-1 (even: VARs, rung; odd: flow counters, read) and
 * release them in a loop, while the test destroys and re-publishes them.
 * A lookup either finds the object or fails with ENOENT; anything else is
 * counted (with the last errno) for the test to refuse. */
#define HAMMER_THREADS 4
static struct {
	pthread_t th[HAMMER_THREADS];
	struct dvshare_dev *dev;
	char prefix[32];
	unsigned int names;
	atomic_int stop;
	atomic_ulong hits, misses, other;
	atomic_int other_errno;
	int running;
} ham;

static void hammer_one(unsigned int k)
{
	char name[DVSHARE_NAME_MAX];
	int err = 0;

	snprintf(name, sizeof(name), "%s%u", ham.prefix, k);
	if (k % 2 == 0) {
		struct dvshare_var *v = dvshare_var_lookup(ham.dev, name);
		if (v != NULL) {
			/* After a revoke this lands in the fence, never on the page. */
			dvshare_doorbell32(dvshare_var_doorbell(v), 0, k);
			dvshare_var_release(v);
		} else {
			err = rte_errno;
		}
	} else {
		struct dvshare_obj *o = dvshare_obj_lookup(ham.dev, name);
		uint64_t packets, octets;
		if (o != NULL) {
			/* Refused with ENODEV once revoked: the handle stays valid. */
			int rc = app_counter_read(o, &packets, &octets);
			if (rc != 0 && rc != -ENODEV) {
				atomic_fetch_add(&ham.other, 1);
				atomic_store(&ham.other_errno, -rc);
			}
			dvshare_obj_release(o);
		} else {
			err = rte_errno;
		}
	}
	if (err == 0) {
		atomic_fetch_add_explicit(&ham.hits, 1, memory_order_relaxed);
	} else if (err == ENOENT) {
		atomic_fetch_add_explicit(&ham.misses, 1, memory_order_relaxed);
	} else {
		atomic_fetch_add(&ham.other, 1);
		atomic_store(&ham.other_errno, err);
	}
}

static void *hammer_loop(void *arg)
{
	unsigned int k = (unsigned int)(uintptr_t)arg;

	while (!atomic_load_explicit(&ham.stop, memory_order_relaxed))
		hammer_one(k++ % ham.names);
	return NULL;
}

static void cmd_hammer_start(struct dvshare_dev *d, const char *prefix, unsigned int names)
{
	if (ham.running || names == 0)
		return reply("err 22 hammer: running already, or no names");
	ham.dev = d;
	snprintf(ham.prefix, sizeof(ham.prefix), "%s", prefix);
	ham.names = names;
	atomic_store(&ham.stop, 0);
	atomic_store(&ham.hits, 0);
	atomic_store(&ham.misses, 0);
	atomic_store(&ham.other, 0);
	atomic_store(&ham.other_errno, 0);
	for (int i = 0; i < HAMMER_THREADS; i++) {
		int rc = pthread_create(&ham.th[i], NULL, hammer_loop, (void *)(uintptr_t)i);
		if (rc != 0) {
			atomic_store(&ham.stop, 1);
			while (--i >= 0)
				pthread_join(ham.th[i], NULL);
			return reply("err %d hammer: pthread_create", rc);
		}
	}
	ham.running = 1;
	reply("ok");
}

/* "ok <hits> <ENOENT misses> <other failures> <last other errno>". */
static void cmd_hammer_stop(void)
{
	if (!ham.running)
		return reply("err 22 hammer: not running");
	atomic_store(&ham.stop, 1);
	for (int i = 0; i < HAMMER_THREADS; i++)
		pthread_join(ham.th[i], NULL);
	ham.running = 0;
	reply("ok %lu %lu %lu %d", atomic_load(&ham.hits), atomic_load(&ham.misses),
	      atomic_load(&ham.other), atomic_load(&ham.other_errno));
}

/* The churn (primary): one thread creating a flow counter and destroying
 * it, again and again, so that every secondary keeps receiving revokes
 * (to exit in the middle of one). */
static struct {
	pthread_t th;
	struct dvshare_dev *dev;
	char name[DVSHARE_NAME_MAX];
	atomic_int stop;
	atomic_ulong cycles, failures;
	atomic_int last_errno;
	int running;
} churn;

static void *churn_loop(void *arg)
{
	uint32_t id;

	(void)arg;
	while (!atomic_load_explicit(&churn.stop, memory_order_relaxed)) {
		int rc = app_counter_create(churn.dev, churn.name, &id);
		if (rc == 0)
			rc = dvshare_destroy(churn.dev, churn.name, 2000);
		if (rc == 0) {
			atomic_fetch_add(&churn.cycles, 1);
		} else {
			atomic_fetch_add(&churn.failures, 1);
			atomic_store(&churn.last_errno, rc < 0 ? -rc : rc);
			usleep(1000);
		}
	}
	return NULL;
}

static void cmd_churn_start(struct dvshare_dev *d, const char *name)
{
	if (churn.running)
		return reply("err 22 churn: running already");
	churn.dev = d;
	snprintf(churn.name, sizeof(churn.name), "%s", name);
	atomic_store(&churn.stop, 0);
	atomic_store(&churn.cycles, 0);
	atomic_store(&churn.failures, 0);
	atomic_store(&churn.last_errno, 0);
	int rc = pthread_create(&churn.th, NULL, churn_loop, NULL);
	if (rc != 0)
		return reply("err %d churn: pthread_create", rc);
	churn.running = 1;
	reply("ok");
}

/* "ok <create + destroy cycles> <failed cycles> <last errno>". */
static void cmd_churn_stop(void)
{
	if (!churn.running)
		return reply("err 22 churn: not running");
	atomic_store(&churn.stop, 1);
	pthread_join(churn.th, NULL);
	churn.running = 0;
	reply("ok %lu %lu %d", atomic_load(&churn.cycles), atomic_load(&churn.failures),
	      atomic_load(&churn.last_errno));
}

/* "ok <has VIRTIO_NET_Q> <in-page doorbell offset> <VAR pages> <can
 * modify> <max queues> <queue counters>": what a scenario needs of the
 * device (queue counters: 1 when app_virtq_create() gives each queue its
 * own VIRTIO_Q_COUNTERS object), how the doorbell address
 * is made (the VAR count as mlx5_ib computes it: BAR size over doorbell
 * stride), and whether a queue's fields may be modified (DPDK's vdpa/mlx5
 * modifies one only when all three modify caps are set). */
static void cmd_caps(struct dvshare_dev *d)
{
	struct dvshare_prm_hca_caps gen;
	struct dvshare_prm_virtio_caps vio;
	int rc = app_caps(d, &gen, &vio);
	uint64_t vars = rc == 0 ? ((uint64_t)4096 << vio.log_doorbell_bar_size) >>
				  vio.log_doorbell_stride : 0;

	if (rc != 0 && rc != -EOPNOTSUPP)
		return reply("err %d caps", -rc);
	int modify = rc == 0 && vio.vnet_modify_ext && vio.virtio_net_q_addr_modify &&
		     vio.virtio_q_index_modify;

	reply("ok %d %lu %lu %d %u %d", rc == 0,
	      (unsigned long)(vio.doorbell_bar_offset & (uint64_t)(sysconf(_SC_PAGESIZE) - 1)),
	      (unsigned long)vars, modify, rc == 0 ? vio.max_num_virtio_queues : 0,
	      rc == 0 && dvshare_prm_hca_has_obj(&gen, DVSHARE_PRM_OBJ_VIRTIO_Q_COUNTERS));
}

/* "ok <doorbell address - mapping start>" of a VAR in this process. */
static void cmd_dboff(struct dvshare_dev *d, const char *name)
{
	struct dvshare_var *v = dvshare_var_lookup(d, name);

	if (v == NULL)
		return reply_err("lookup");
	reply("ok %ld", (long)((uint8_t *)dvshare_var_doorbell(v) - (uint8_t *)dvshare_var_addr(v)));
	dvshare_var_release(v);
}

static void cmd_kicks(struct dvshare_dev *d, const char *name)
{
	struct dvshare_var *v = dvshare_var_lookup(d, name);
	uint64_t kicks = 0;
	uint32_t last = 0;

	if (v == NULL)
		return reply_err("lookup");
	if (dvs_sim_page_kicks(dvshare_dev_ctx(d), dvshare_var_dv(v)->page_id, &kicks, &last) != 0)
		reply("err %d page", EINVAL);
	else
		reply("ok %lu %u", (unsigned long)kicks, last);
	dvshare_var_release(v);
}

static void cmd_create(struct dvshare_dev *d, const char *what, const char *name,
		       unsigned int a, unsigned int b)
{
	static char mem[1 << 16] __attribute__((aligned(4096)));
	uint32_t id = 0;
	int rc;

	/* A leading 'p': DVSHARE_CREATE_PERSIST (a secondary hands it to the
	 * primary). */
	const uint32_t persist = what[0] == 'p' ? DVSHARE_CREATE_PERSIST : 0;
	if (persist)
		what++;
	if (strcmp(what, "var") == 0) {
		struct dvshare_var *v = dvshare_var_alloc(d, name, persist);
		if (v == NULL)
			return reply_err("var alloc");
		reply("ok %u", dvshare_var_dv(v)->page_id);
		dvshare_var_release(v);
	} else if (strcmp(what, "flowcounter") == 0) {
		/* One ALLOC_FLOW_COUNTER through dvshare_obj_create_flags(). */
		uint8_t in[DVSHARE_PRM_FLOW_COUNTER_ALLOC_SIZE], out[DVSHARE_PRM_HDR_SIZE];
		size_t len = dvshare_prm_alloc_flow_counter(in, 0);
		struct dvshare_obj *o = dvshare_obj_create_flags(d, name, in, len, out, sizeof(out),
								 persist);
		if (o == NULL)
			return reply_err("obj create");
		reply("ok %u", dvshare_obj_id(o));
		dvshare_obj_release(o);
	} else if (strcmp(what, "amem") == 0) {
		/* dvshare_umem_alloc(): @a bytes (default 8192) aligned to @b;
		 * answers its address and the first byte, which must be 0. */
		struct dvshare_umem *u = dvshare_umem_alloc(d, name, a ? a : 8192, b, persist);
		if (u == NULL)
			return reply_err("umem alloc");
		const uint8_t *m = dvshare_umem_addr(u);
		reply("ok %p %u", (const void *)m, m != NULL ? m[0] : 255u);
		dvshare_umem_release(u);
	} else if (strcmp(what, "dumem") == 0) {
		/* DPDK memory, which a secondary's UMEM must be (@a bytes). */
		size_t len = a ? a : 8192;
		void *m = rte_zmalloc("mp-umem", len, 4096);
		struct dvshare_umem *u = m != NULL ? dvshare_umem_reg(d, name, m, len, persist) : NULL;
		if (u == NULL) {
			rte_free(m);
			return reply_err("umem reg");
		}
		reply("ok %u", dvshare_umem_id(u));
		dvshare_umem_release(u);
	} else if (strcmp(what, "obj") == 0) {
		/* A VIRTIO_NET_Q, with the device's PD and three UMEMs. */
		rc = app_virtq_create(d, name, (uint16_t)a, (uint16_t)b, &id, NULL, NULL);
		if (rc != 0)
			return reply("err %d obj create: %s", -rc, strerror(-rc));
		reply("ok %u", id);
	} else if (strcmp(what, "counter") == 0) {
		rc = app_counter_create(d, name, &id);
		if (rc != 0)
			return reply("err %d counter create: %s", -rc, strerror(-rc));
		reply("ok %u", id);
	} else if (strcmp(what, "mkey") == 0) {
		/* A direct key over @a bytes (4096) of DPDK memory, its UMEM
		 * NAME.umem: "ok <key> <address>". */
		size_t len = a ? a : 4096;
		char un[DVSHARE_NAME_MAX];
		void *m = rte_zmalloc("mp-mkey", len, 4096);
		snprintf(un, sizeof(un), "%s.umem", name);
		struct dvshare_umem *u =
			m != NULL ? dvshare_umem_reg(d, un, m, len, persist | IBV_ACCESS_LOCAL_WRITE) : NULL;
		if (u == NULL) {
			rte_free(m);
			return reply_err("umem reg");
		}
		uint32_t umem_id = dvshare_umem_id(u);
		dvshare_umem_release(u);
		rc = app_mkey_create(d, name, umem_id, m, len, &id);
		if (rc != 0)
			return reply("err %d mkey create: %s", -rc, strerror(-rc));
		reply("ok %u %lx", id, (unsigned long)(uintptr_t)m);
	} else if (strcmp(what, "umem") == 0) {
		struct dvshare_umem *u = dvshare_umem_reg(d, name, mem, a ? a : sizeof(mem), persist);
		if (u == NULL)
			return reply_err("umem reg");
		reply("ok %u", dvshare_umem_id(u));
		dvshare_umem_release(u);
	} else {
		reply("err %d unknown kind", EINVAL);
	}
}

static void cmd_lookup(struct dvshare_dev *d, const char *what, const char *name)
{
	if (strcmp(what, "var") == 0) {
		struct dvshare_var *v = dvshare_var_lookup(d, name);
		if (v == NULL)
			return reply_err("lookup");
		reply("ok %u", dvshare_var_dv(v)->page_id);
		dvshare_var_release(v);
	} else if (strcmp(what, "obj") == 0) {
		struct dvshare_obj *o = dvshare_obj_lookup(d, name);
		if (o == NULL)
			return reply_err("lookup");
		reply("ok %u", dvshare_obj_id(o));
		dvshare_obj_release(o);
	} else {
		struct dvshare_umem *u = dvshare_umem_lookup(d, name);
		if (u == NULL)
			return reply_err("lookup");
		reply("ok %u", dvshare_umem_id(u));
		dvshare_umem_release(u);
	}
}

struct dvs_sim_engine *mp_engine(const char *dev)
{
	struct dvshare_dev *d = dev_of(dev);
	struct dvs_sim_engine **e;

	if (d == NULL)
		return NULL;
	if ((e = engine_of(dev)) != NULL)
		return *e;
	for (int i = 0; i < MAX_DEVS; i++) {
		if (engines[i] == NULL) {
			engines[i] = dvs_sim_engine_create(dvshare_dev_ctx(d));
			snprintf(engine_dev[i], sizeof(engine_dev[i]), "%s", dev);
			return engines[i];
		}
	}
	errno = ENOSPC;
	return NULL;
}

static void cmd_engine(const char *dev, int poll)
{
	struct dvshare_dev *d = dev_of(dev);
	struct dvs_sim_engine **e;

	if (d == NULL)
		return;
	e = engine_of(dev);
	if (poll) {
		if (e == NULL)
			return reply("err %d no engine", ENOENT);
		return reply("ok %u", dvs_sim_engine_poll(*e));
	}
	for (int i = 0; i < MAX_DEVS; i++) {
		if (engines[i] == NULL) {
			engines[i] = dvs_sim_engine_create(dvshare_dev_ctx(d));
			if (engines[i] == NULL)
				return reply("err %d engine", errno);
			snprintf(engine_dev[i], sizeof(engine_dev[i]), "%s", dev);
			return reply("ok");
		}
	}
	reply("err %d too many engines", ENOSPC);
}

/* The sim's counts for @dev into *s: 0, or -1 after replying why not. */
static int sim_stats_of(const char *dev, struct dvs_sim_stats *s)
{
	struct dvshare_dev *d = dev_of(dev);

	if (d == NULL)
		return -1;
	if (dvs_sim_stats(dvshare_dev_ctx(d), s) != 0) {
		reply("err %d not a sim device", EINVAL);
		return -1;
	}
	return 0;
}

static void cmd_simstats(const char *dev)
{
	struct dvs_sim_stats s;

	if (sim_stats_of(dev, &s) == 0)
		reply("ok %u %u %u", s.vars, s.devx_objs, s.umems);
}

/* "ok <UARs>": the device's live UARs, one per context any process opened
 * or imported and did not close (a dead process's stays). */
static void cmd_simuars(const char *dev)
{
	struct dvs_sim_stats s;

	if (sim_stats_of(dev, &s) == 0)
		reply("ok %u", s.uars);
}

static void cmd_hold(struct dvshare_dev *d, const char *what, const char *name)
{
	for (unsigned int i = 0; i < MAX_HELD; i++) {
		if (held[i].var != NULL || held[i].obj != NULL)
			continue;
		if (strcmp(what, "var") == 0)
			held[i].var = dvshare_var_lookup(d, name);
		else
			held[i].obj = dvshare_obj_lookup(d, name);
		if (held[i].var == NULL && held[i].obj == NULL)
			return reply_err("hold");
		return reply("ok %u", i);
	}
	reply("err %d no room", ENOSPC);
}

static void cmd_query_held(unsigned int i)
{
	struct dvshare_obj *o = i < MAX_HELD ? held[i].obj : NULL;

	if (o == NULL)
		return reply("err %d no such held object", EINVAL);
	reply_virtq(o);
}

/* Entries in a directory, or lines in a file. */
static int count_entries(const char *path, int lines)
{
	int n = 0;

	if (lines) {
		FILE *f = fopen(path, "r");
		char buf[512];
		while (f != NULL && fgets(buf, sizeof(buf), f) != NULL)
			n++;
		if (f != NULL)
			fclose(f);
		return n;
	}
	DIR *dir = opendir(path);
	struct dirent *e;
	while (dir != NULL && (e = readdir(dir)) != NULL)
		n += e->d_name[0] != '.';
	if (dir != NULL)
		closedir(dir);
	return n - 1; /* the directory's own fd */
}

/* Mappings backed by a file: VAR pages, registries, hugepages. A leaked
 * doorbell or registry mapping shows here; the allocator's own anonymous
 * arenas (which ASan grows and keeps) do not. */
static int count_file_maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char buf[4096];
	int n = 0;

	while (f != NULL && fgets(buf, sizeof(buf), f) != NULL) {
		const char *path = strchr(buf, '/');
		n += path != NULL && strchr(buf, '[') == NULL;
	}
	if (f != NULL)
		fclose(f);
	return n;
}

/* Primary: close the device, then count what the device still holds
 * through a context of our own on the same ufile. */
static void cmd_closecheck(const char *name)
{
	const struct dvs_glue *g = dvs_sim_glue();
	struct dvshare_dev *d = dev_of(name);
	struct ibv_context *probe;
	struct dvs_sim_stats st;
	int fd;

	if (d == NULL)
		return;
	fd = dup(dvshare_dev_ctx(d)->cmd_fd);
	probe = g->import_device(fd);
	if (probe == NULL)
		return reply("err %d import", errno);
	if (dvshare_dev_close(d) != 0) {
		reply_err("close");
	} else {
		dvs_sim_stats(probe, &st);
		reply("ok %u %u %u", st.vars, st.devx_objs, st.umems);
	}
	g->close_device(probe);
}

/* Secondary: try every way to write the registry we were given. Replies
 * with the number of attempts that succeeded (0 expected) and made. */
static void cmd_regwrite(const char *dev)
{
	char want[128], link[300], target[256], line[512];
	int ok = 0, tried = 0;
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *e;

	snprintf(want, sizeof(want), "memfd:dvshare-registry-%s", dev); /* "/memfd:..." in /proc */
	while (dir != NULL && (e = readdir(dir)) != NULL) {
		ssize_t n;
		int fd = atoi(e->d_name), rw;
		void *p;

		snprintf(link, sizeof(link), "/proc/self/fd/%s", e->d_name);
		n = readlink(link, target, sizeof(target) - 1);
		if (n <= 0)
			continue;
		target[n] = '\0';
		if (strstr(target, want) == NULL)
			continue;
		tried += 3;
		p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
		ok += p != MAP_FAILED;
		ok += write(fd, "x", 1) == 1;
		ok += ftruncate(fd, 0) == 0;
		rw = open(link, O_RDWR);
		if (rw >= 0) {
			tried += 3;
			p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, rw, 0);
			ok += p != MAP_FAILED;
			ok += pwrite(rw, "x", 1, 0) == 1;
			ok += ftruncate(rw, 1 << 30) == 0;
			close(rw);
		}
	}
	if (dir != NULL)
		closedir(dir);
	/* The read-only mapping itself cannot be made writable. */
	FILE *f = fopen("/proc/self/maps", "r");
	while (f != NULL && fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;
		if (strstr(line, want) == NULL || sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		tried++;
		ok += mprotect((void *)lo, 4096, PROT_READ | PROT_WRITE) == 0;
	}
	if (f != NULL)
		fclose(f);
	reply("ok %d %d", ok, tried);
}

/* Share a context the application opened itself (the software device's
 * glue stands in for the application's own rdma-core calls). */
static void cmd_adopt(const char *name)
{
	const struct dvs_glue *g = dvs_sim_glue();
	struct mlx5dv_context_attr attr = { .flags = MLX5DV_CONTEXT_FLAGS_DEVX };
	struct ibv_device **list = g->get_device_list(NULL);
	struct ibv_context *ctx = NULL;

	for (int i = 0; list != NULL && list[i] != NULL; i++)
		if (strcmp(g->get_device_name(list[i]), name) == 0)
			ctx = g->dv_open_device(list[i], &attr);
	g->free_device_list(list);
	if (ctx == NULL)
		return reply("err %d open", errno);
	if (dvshare_dev_adopt(ctx, NULL) == NULL) {
		reply_err("adopt");
		g->close_device(ctx);
		return;
	}
	reply("ok");
}

/* Publish an object the application created itself. */
static void cmd_publish(struct dvshare_dev *d, const char *what, const char *name)
{
	const struct dvs_glue *g = dvs_sim_glue();
	struct ibv_context *ctx = dvshare_dev_ctx(d);

	if (strcmp(what, "var") == 0) {
		struct mlx5dv_var *dv = g->alloc_var(ctx, 0);
		struct dvshare_var *v = dv != NULL ? dvshare_var_publish(d, name, dv) : NULL;
		if (v == NULL) {
			reply_err("var publish");
			if (dv != NULL)
				g->free_var(dv); /* on failure it is still ours */
			return;
		}
		reply("ok %u", dv->page_id);
		dvshare_var_release(v);
	} else {
		/* A flow counter the application allocated itself. */
		uint8_t in[DVSHARE_PRM_FLOW_COUNTER_ALLOC_SIZE], out[DVSHARE_PRM_HDR_SIZE];
		size_t len = dvshare_prm_alloc_flow_counter(in, 0);
		struct mlx5dv_devx_obj *dv = g->devx_obj_create(ctx, in, len, out, sizeof(out));
		uint32_t id = dvshare_prm_created_id(DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER, out);
		struct dvshare_obj *o = dv != NULL ? dvshare_obj_publish(d, name, dv, id) : NULL;
		if (o == NULL) {
			reply_err("obj publish");
			if (dv != NULL)
				g->devx_obj_destroy(dv);
			return;
		}
		reply("ok %u", dvshare_obj_id(o));
		dvshare_obj_release(o);
	}
}

/* Commands on held handles; returns 1 when @line was one. */
static int run_held(const char *line)
{
	unsigned int x = 0, y = 0, z = 0;

	if (sscanf(line, "ringheld %u %u %u", &x, &y, &z) == 3) {
		if (x >= MAX_HELD || held[x].var == NULL)
			reply("err %d no such held VAR", EINVAL);
		else {
			dvshare_doorbell32(dvshare_var_doorbell(held[x].var), y, z);
			reply("ok");
		}
	} else if (sscanf(line, "mapheld %u", &x) == 1) {
		/* The VAR's first use maps it: "ok", or why it could not. */
		if (x >= MAX_HELD || held[x].var == NULL)
			reply("err %d no such held VAR", EINVAL);
		else if (dvshare_var_doorbell(held[x].var) == NULL)
			reply_err("map");
		else
			reply("ok");
	} else if (sscanf(line, "queryheld %u", &x) == 1) {
		cmd_query_held(x);
	} else {
		return 0;
	}
	return 1;
}

/* One command line; returns 0 to go on, 1 to quit. */
static int run(char *line)
{
	char a[256] = "", b[256] = "", c[256] = "", t[512] = "";
	unsigned int x = 0, y = 0, z = 0, w = 0;
	unsigned long addr = 0;
	struct dvshare_dev *d;

	line[strcspn(line, "\n")] = '\0';
	/* Longer command names first: sscanf("ring %s") also matches "ringheld". */
	if (run_held(line) || mp_port_run(line) || mp_rawport_run(line))
		return 0;
	if (sscanf(line, "openlim %255s %u %u %u %u", a, &x, &y, &z, &w) == 5) {
		/* Open with every limit: max_objects, per secondary, for all
		 * secondaries, close timeout (ms); 0 for a default. */
		struct dvshare_dev_conf conf;
		memset(&conf, 0, sizeof(conf));
		conf.max_objects = x;
		conf.max_objects_per_secondary = y;
		conf.max_objects_secondaries = z;
		conf.close_timeout_ms = w;
		if (dvshare_dev_open(a, &conf) == NULL)
			reply_err("open");
		else
			reply("ok");
	} else if (sscanf(line, "openq %255s %u", a, &x) == 2) {
		/* Open with a per-secondary object limit (before "open", which
		 * scanf would match: its blank matches no blank). */
		struct dvshare_dev_conf conf;
		memset(&conf, 0, sizeof(conf));
		conf.max_objects_per_secondary = x;
		if (dvshare_dev_open(a, &conf) == NULL)
			reply_err("open");
		else
			reply("ok");
	} else if (sscanf(line, "open %255s %u %255s", a, &x, c) >= 1) {
		uid_t uids[8];
		struct dvshare_dev_conf conf;
		memset(&conf, 0, sizeof(conf));
		conf.max_objects = x;
		/* Optional third word: comma-separated allowed uids. */
		for (char *t = strtok(c, ","); t != NULL && conf.n_allowed_uids < 8; t = strtok(NULL, ","))
			uids[conf.n_allowed_uids++] = (uid_t)strtoul(t, NULL, 10);
		conf.allowed_uids = conf.n_allowed_uids ? uids : NULL;
		if (dvshare_dev_open(a, &conf) == NULL)
			reply_err("open");
		else
			reply("ok");
	} else if (sscanf(line, "owner %255s %255s", a, b) == 2) {
		if ((d = dev_of(a)) != NULL)
			cmd_owner(d, b, 0);
	} else if (sscanf(line, "owned %255s %u", a, &x) == 2) {
		if ((d = dev_of(a)) != NULL)
			cmd_owner(d, NULL, (long)x);
	} else if (sscanf(line, "orphans %255s", a) == 1) {
		if ((d = dev_of(a)) != NULL)
			cmd_owner(d, NULL, -1);
	} else if (sscanf(line, "adopt %255s", a) == 1) {
		cmd_adopt(a);
	} else if (sscanf(line, "publish %255s %255s %255s", a, b, c) == 3) {
		if ((d = dev_of(a)) != NULL)
			cmd_publish(d, b, c);
	} else if (strcmp(line, "status") == 0) {
		reply("ok %d", dvshare_attach_status());
	} else if (strcmp(line, "attachstats") == 0) {
		struct dvshare_stats st;
		dvshare_stats_get(&st);
		reply("ok %u %lu %lu", st.attach_mode, (unsigned long)st.imports,
		      (unsigned long)st.lookups);
	} else if (strcmp(line, "setmode") == 0) {
		/* After rte_eal_init: too late, and said so. */
		int rc = dvshare_attach_mode_set(DVSHARE_ATTACH_LAZY, NULL);
		reply(rc == 0 ? "ok" : "err %d setmode", -rc);
	} else if (sscanf(line, "create %255s %255s %255s %u %u", a, b, c, &x, &y) >= 3) {
		if ((d = dev_of(a)) != NULL)
			cmd_create(d, b, c, x, y);
	} else if (sscanf(line, "lookup %255s %255s %255s", a, b, c) == 3) {
		if ((d = dev_of(a)) != NULL)
			cmd_lookup(d, b, c);
	} else if (sscanf(line, "setmeta %255s %255s %511s", a, b, t) == 3) {
		if ((d = dev_of(a)) == NULL)
			return 0;
		if (dvshare_set_meta(d, b, t, strlen(t)) != 0)
			reply_err("setmeta");
		else
			reply("ok");
	} else if (sscanf(line, "getmeta %255s %255s", a, b) == 2) {
		int n;
		if ((d = dev_of(a)) == NULL)
			return 0;
		n = dvshare_get_meta(d, b, t, DVSHARE_META_MAX);
		if (n < 0)
			return reply_err("getmeta"), 0;
		t[n] = '\0';
		reply("ok %s", t);
	} else if (sscanf(line, "parallel %255s %255s %u", a, b, &x) == 3) {
		if ((d = dev_of(a)) != NULL)
			cmd_parallel(d, b, x, 0);
	} else if (sscanf(line, "pardestroy %255s %255s %u %u", a, b, &x, &y) == 4) {
		if ((d = dev_of(a)) != NULL)
			cmd_parallel(d, b, x, y != 0 ? y : 1);
	} else if (sscanf(line, "hammerstart %255s %255s %u", a, b, &x) == 3) {
		if ((d = dev_of(a)) != NULL)
			cmd_hammer_start(d, b, x);
	} else if (sscanf(line, "simfaildestroy %u", &x) == 1) {
		dvs_sim_fail_next_destroy((int)x);
		reply("ok");
	} else if (sscanf(line, "simfailmmap %u", &x) == 1) {
		dvs_sim_fail_next_mmap((int)x);
		reply("ok");
	} else if (strcmp(line, "hammerstop") == 0) {
		cmd_hammer_stop();
	} else if (sscanf(line, "churnstart %255s %255s", a, b) == 2) {
		if ((d = dev_of(a)) != NULL)
			cmd_churn_start(d, b);
	} else if (strcmp(line, "churnstop") == 0) {
		cmd_churn_stop();
	} else if (sscanf(line, "ring %255s %255s %u %u %u", a, b, &x, &y, &z) == 5) {
		if ((d = dev_of(a)) != NULL)
			cmd_ring(d, b, x, y, z);
	} else if (sscanf(line, "rawcreate %255s %255s %x", a, b, &x) == 3) {
		/* A create command that is only a header with @x as opcode. */
		uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_HDR_SIZE];
		struct dvshare_obj *o;
		if ((d = dev_of(a)) == NULL)
			return 0;
		dvshare_prm_obj_cmd(in, (uint16_t)x, 0, 0);
		memset(out, 0, sizeof(out));
		o = dvshare_obj_create(d, b, in, sizeof(in), out, sizeof(out));
		if (o == NULL && rte_errno == EREMOTEIO) /* the device's status and syndrome */
			return reply("err %d status 0x%02x syndrome 0x%08x", EREMOTEIO,
				     dvshare_prm_out_status(out), dvshare_prm_out_syndrome(out)), 0;
		if (o == NULL)
			return reply_err("rawcreate"), 0;
		reply("ok %u", dvshare_obj_id(o));
		dvshare_obj_release(o);
	} else if (sscanf(line, "virtqon %255s %255s %u %lx", a, b, &x, &addr) == 4) {
		/* A VIRTIO_NET_Q (index 40, 64 entries) whose rings are at
		 * @addr through key @x: "ok <id>". */
		struct app_virtq_rings r = { x, addr, addr + 64 * 16, addr + 2048 };
		uint32_t id;
		int rc;
		if ((d = dev_of(a)) == NULL)
			return 0;
		rc = app_virtq_create_rings(d, b, 40, 64, &r, &id, NULL, NULL);
		if (rc != 0)
			return reply("err %d obj create: %s", -rc, strerror(-rc)), 0;
		reply("ok %u", id);
	} else if (sscanf(line, "caps %255s", a) == 1) {
		if ((d = dev_of(a)) != NULL)
			cmd_caps(d);
	} else if (sscanf(line, "dboff %255s %255s", a, b) == 2) {
		if ((d = dev_of(a)) != NULL)
			cmd_dboff(d, b);
	} else if (sscanf(line, "counter %255s %255s", a, b) == 2) {
		if ((d = dev_of(a)) != NULL)
			cmd_counter(d, b);
	} else if (sscanf(line, "kicks %255s %255s", a, b) == 2) {
		if ((d = dev_of(a)) != NULL)
			cmd_kicks(d, b);
	} else if (sscanf(line, "engine %255s", a) == 1) {
		cmd_engine(a, 0);
	} else if (sscanf(line, "poll %255s", a) == 1) {
		cmd_engine(a, 1);
	} else if (sscanf(line, "query %255s %255s", a, b) == 2) {
		if ((d = dev_of(a)) != NULL)
			cmd_obj_query(d, b);
	} else if (sscanf(line, "modify %255s %255s %255s %u", a, b, c, &x) == 4) {
		if ((d = dev_of(a)) != NULL)
			cmd_obj_modify(d, b, c, x);
	} else if (sscanf(line, "count %255s", a) == 1) {
		unsigned int n = 0;
		if ((d = dev_of(a)) != NULL) {
			if (dvshare_foreach(d, count_cb, &n) != 0)
				reply_err("foreach");
			else
				reply("ok %u", n);
		}
	} else if (sscanf(line, "bulk %255s %u", a, &x) == 2) {
		if ((d = dev_of(a)) != NULL) {
			if (app_bulk_publish(d, "b", 0, x) != 0)
				reply_err("bulk");
			else
				reply("ok");
		}
	} else if (sscanf(line, "checkbulk %255s %u", a, &x) == 2) {
		if ((d = dev_of(a)) != NULL) {
			if (app_bulk_check(d, "b", 0, x) != 0)
				reply_err("checkbulk");
			else
				reply("ok");
		}
	} else if (strcmp(line, "events") == 0) {
		reply("ok %u %u %u %s", __atomic_load_n(&ev_count[DVSHARE_EVENT_PUBLISHED], __ATOMIC_ACQUIRE),
		      __atomic_load_n(&ev_count[DVSHARE_EVENT_PEER_ATTACHED], __ATOMIC_ACQUIRE),
		      __atomic_load_n(&ev_count[DVSHARE_EVENT_PEER_DETACHED], __ATOMIC_ACQUIRE),
		      ev_last[0] ? ev_last : "-");
	} else if (sscanf(line, "ev %u", &x) == 1) {
		reply("ok %u", x < 16 ? __atomic_load_n(&ev_count[x], __ATOMIC_ACQUIRE) : 0);
	} else if (sscanf(line, "blockrevoke %u", &x) == 1) {
		block_revoke = (int)x;
		reply("ok");
	} else if (sscanf(line, "destroyq %255s %255s %u", a, b, &x) == 3) {
		if ((d = dev_of(a)) == NULL)
			return 0;
		int rc = app_virtq_destroy(d, b, x);
		if (rc != 0)
			reply("err %d destroyq: %s", -rc, strerror(-rc));
		else
			reply("ok");
	} else if (sscanf(line, "destroymany %255s %255s %u", a, b, &x) == 3) {
		/* b: names separated by commas */
		const char *names[64];
		unsigned int n = 0;
		if ((d = dev_of(a)) == NULL)
			return 0;
		for (char *t = strtok(b, ","); t != NULL && n < 64; t = strtok(NULL, ","))
			names[n++] = t;
		int rc = dvshare_destroy_many(d, names, n, x);
		if (rc < 0)
			reply_err("destroymany");
		else
			reply("ok %d", rc);
	} else if (sscanf(line, "destroyglob %255s %255s %u", a, b, &x) == 3) {
		if ((d = dev_of(a)) == NULL)
			return 0;
		int rc = dvshare_destroy_glob(d, b, x);
		if (rc < 0)
			reply_err("destroyglob");
		else
			reply("ok %d", rc);
	} else if (sscanf(line, "destroy %255s %255s %u", a, b, &x) == 3) {
		if ((d = dev_of(a)) == NULL)
			return 0;
		if (dvshare_destroy(d, b, x) != 0)
			reply_err("destroy");
		else
			reply("ok");
	} else if (sscanf(line, "hold %255s %255s %255s", a, b, c) == 3) {
		if ((d = dev_of(a)) != NULL)
			cmd_hold(d, b, c);
	} else if (sscanf(line, "releaseheld %u", &x) == 1) {
		if (x < MAX_HELD) {
			dvshare_var_release(held[x].var);
			dvshare_obj_release(held[x].obj);
			held[x].var = NULL;
			held[x].obj = NULL;
		}
		reply("ok");
	} else if (strcmp(line, "peers") == 0) {
		reply("ok %d", dvshare_peers(NULL, 0));
	} else if (sscanf(line, "destroyondeath %255s", a) == 1) {
		snprintf(death_destroy, sizeof(death_destroy), "%s", a);
		death_rc = 1;
		reply("ok");
	} else if (strcmp(line, "deathrc") == 0) {
		reply("ok %d", death_rc);
	} else if (strcmp(line, "queued") == 0) {
		struct dvshare_peer peers[32];
		unsigned int sum = 0;
		int n = dvshare_peers(peers, 32);
		for (int i = 0; i < n && i < 32; i++)
			sum += peers[i].queued;
		reply("ok %u", sum);
	} else if (strcmp(line, "refused") == 0) {
		struct dvshare_stats st;
		if (dvshare_stats_get(&st) != 0)
			reply_err("stats");
		else
			reply("ok %llu", (unsigned long long)st.refused);
	} else if (strcmp(line, "fdcount") == 0) {
		reply("ok %d", count_entries("/proc/self/fd", 0));
	} else if (sscanf(line, "nofile %u", &x) == 1) {
		/* This process's fd limit (RLIMIT_NOFILE's soft limit). */
		struct rlimit rl;
		getrlimit(RLIMIT_NOFILE, &rl);
		rl.rlim_cur = x;
		if (setrlimit(RLIMIT_NOFILE, &rl) != 0)
			reply_err("setrlimit");
		else
			reply("ok");
	} else if (strcmp(line, "mallocused") == 0) {
		/* Bytes the C library's heap holds for live allocations, every
		 * arena (what RSS keeps after a free does not count). */
		reply("ok %zu", mallinfo2().uordblks);
	} else if (strcmp(line, "threadcount") == 0) {
		reply("ok %d", count_entries("/proc/self/task", 0) + 1); /* no fd of its own */
	} else if (strcmp(line, "heapused") == 0) {
		/* Bytes allocated in DPDK's heaps, every socket. */
		struct rte_malloc_socket_stats st;
		unsigned long long used = 0;
		for (int sk = 0; sk < RTE_MAX_NUMA_NODES; sk++)
			if (rte_malloc_get_socket_stats(sk, &st) == 0)
				used += st.heap_allocsz_bytes;
		reply("ok %llu", used);
	} else if (strcmp(line, "mapcount") == 0) {
		reply("ok %d", count_entries("/proc/self/maps", 1));
	} else if (strcmp(line, "filemapcount") == 0) {
		reply("ok %d", count_file_maps());
	} else if (sscanf(line, "closecheck %255s", a) == 1) {
		cmd_closecheck(a);
	} else if (sscanf(line, "regwrite %255s", a) == 1) {
		cmd_regwrite(a);
	} else if (sscanf(line, "simstats %255s", a) == 1) {
		cmd_simstats(a);
	} else if (sscanf(line, "simuars %255s", a) == 1) {
		cmd_simuars(a);
	} else if (sscanf(line, "close %255s", a) == 1) {
		if ((d = dev_of(a)) == NULL)
			return 0;
		if (dvshare_dev_close(d) != 0)
			reply_err("close");
		else
			reply("ok");
	} else if (strcmp(line, "ealcleanup") == 0) {
		/* DPDK ends; this process and dvshare go on (doc/api.md). */
		if (rte_eal_cleanup() != 0)
			reply_err("ealcleanup");
		else
			reply("ok");
	} else if (strcmp(line, "quit") == 0) {
		return 1; /* rte_eal_cleanup(), then return from main() */
	} else if (strcmp(line, "exit plain") == 0) {
		exit(0); /* a normal exit without rte_eal_cleanup() */
	} else if (strcmp(line, "exit _exit") == 0) {
		_exit(0); /* no exit-time code: a death, to dvshare */
	} else {
		reply("err %d unknown command: %s", EINVAL, line);
	}
	return 0;
}

static int set_attach_mode(const char *mode)
{
	const char *patterns[2] = { NULL, NULL };

	if (strcmp(mode, "lazy") == 0)
		return dvshare_attach_mode_set(DVSHARE_ATTACH_LAZY, NULL);
	if (strncmp(mode, "selective:", 10) == 0) {
		patterns[0] = mode + 10;
		return dvshare_attach_mode_set(DVSHARE_ATTACH_SELECTIVE, patterns);
	}
	return dvshare_attach_mode_set(DVSHARE_ATTACH_EAGER, NULL);
}

/* A log stream writing each line to @path after its level (DPDK's
 * rte_log_cur_msg_loglevel(), valid while the line is written). */
static ssize_t log_write(void *cookie, const char *buf, size_t len)
{
	FILE *f = cookie;

	fprintf(f, "L%d %.*s", rte_log_cur_msg_loglevel(), (int)len, buf);
	fflush(f);
	return (ssize_t)len;
}

static FILE *log_stream(const char *path)
{
	FILE *to = fopen(path, "w");
	cookie_io_functions_t io = { .write = log_write };
	FILE *f = to != NULL ? fopencookie(to, "w", io) : NULL;

	if (f != NULL && setvbuf(f, NULL, _IOLBF, 0) == 0)
		return f;
	if (to != NULL)
		fclose(to);
	return NULL;
}

int main(int argc, char **argv)
{
	char line[512];
	int rc;

	/* MP_PEER_ATTACH="lazy" or "selective:<glob>": the mode chosen through
	 * the API, before rte_eal_init(), as an application does. */
	const char *mode = getenv("MP_PEER_ATTACH");
	if (mode != NULL && set_attach_mode(mode) != 0) {
		printf("@@ err %d attach mode %s refused\n", rte_errno, mode);
		return 1;
	}
	/* MP_PEER_LOG=<file>: DPDK's log goes there (line by line, each
	 * after "L<level> "), for a test to count what the library said. */
	const char *log = getenv("MP_PEER_LOG");
	if (log != NULL) {
		FILE *f = log_stream(log);
		if (f == NULL || rte_openlog_stream(f) != 0) {
			printf("@@ err %d log %s\n", errno, log);
			return 1;
		}
	}
	rc = rte_eal_init(argc, argv);
	if (rc < 0) {
		printf("@@ err %d eal init: %s\n", rte_errno, rte_strerror(rte_errno));
		return 1;
	}
	dvshare_event_register(NULL, on_event, NULL);
	reply("ready %s %d", rte_eal_process_type() == RTE_PROC_PRIMARY ? "primary" : "secondary",
	      (int)getpid());
	while (fgets(line, sizeof(line), stdin) != NULL)
		if (run(line))
			break;
	mp_port_cleanup();
	mp_rawport_cleanup();
	for (int i = 0; i < MAX_DEVS; i++)
		dvs_sim_engine_destroy(engines[i]);
	for (int i = 0; i < MAX_HELD; i++) {
		dvshare_var_release(held[i].var);
		dvshare_obj_release(held[i].obj);
	}
	rte_eal_cleanup();
	reply("bye");
	return 0;
}
