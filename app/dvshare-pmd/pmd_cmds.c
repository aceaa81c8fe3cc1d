/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dvshare-pmd commands that act on devices and objects. Output is one
 * line per fact, "key=value" style, so people and scripts
 * (buildtools/demo.sh, the pmd test) read it alike; a failure is exactly
 * one line, "error: <command> <name>: <reason>" (pmd_error()), and the
 * caller counts it.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include <infiniband/mlx5dv.h>

#include "app_objects.h"
#include "dvshare_prm.h"
#include "pmd.h"

volatile int pmd_quit;
int pmd_failures;

int pmd_error(int rc, const char *what, const char *fmt, ...)
{
	va_list ap;

	printf("error: %s: ", what);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	return rc;
}

/* The library's errno, as a reason. EPERM in a secondary is the library
 * refusing what only a primary does (metadata, the setup options): said
 * as the setup options say it. */
static int lib_error(int rc, const char *what)
{
	if (rc == -EPERM && rte_eal_process_type() != RTE_PROC_PRIMARY)
		return pmd_error(rc, what, "for the primary (this is a secondary)");
	return pmd_error(rc, what, "%s", strerror(-rc));
}

/* Only a device failure (-EREMOTEIO) carries the device's status and
 * syndrome, and only when the device answered (a non-zero status: the
 * helpers zero their output first). Any other failure never reached the
 * device: its status would be whatever was in memory. */
static int dev_error(int rc, const char *what, uint8_t status, uint32_t syndrome)
{
	if (rc != -EREMOTEIO || status == 0)
		return lib_error(rc, what);
	return pmd_error(rc, what, "%s (status %s, syndrome 0x%08x)", strerror(-rc),
			 dvshare_prm_status_str(status), syndrome);
}

int pmd_var_alloc(const char *dev, const char *name)
{
	char what[160];
	struct dvshare_dev *d;
	struct dvshare_var *v;

	snprintf(what, sizeof(what), "var alloc %s", name);
	d = pmd_dev(what, dev);
	if (d == NULL)
		return -ENODEV;
	v = dvshare_var_alloc(d, name, 0);
	if (v == NULL)
		return lib_error(-rte_errno, what);
	printf("var %s on %s: page=%u\n", name, dev, dvshare_var_dv(v)->page_id);
	dvshare_var_release(v);
	return 0;
}

int pmd_virtq_create(const char *dev, const char *name, uint32_t qidx, uint32_t qsize,
		     const char *meta)
{
	char what[160];
	struct dvshare_dev *d;
	uint32_t id = 0, synd = 0;
	uint8_t status = 0;
	int rc;

	snprintf(what, sizeof(what), "obj create %s", name);
	d = pmd_dev(what, dev);
	if (d == NULL)
		return -ENODEV;
	if (qidx > UINT16_MAX || qsize > UINT16_MAX)
		return pmd_error(-EINVAL, what, "queue index and size must fit 16 bits");
	rc = app_virtq_create(d, name, (uint16_t)qidx, (uint16_t)qsize, &id, &status, &synd);
	if (rc != 0)
		return dev_error(rc, what, status, synd);
	char counters[sizeof(what) + 16] = "";
	struct dvshare_obj *c;
	snprintf(what, sizeof(what), "%s" APP_COUNTERS_SUFFIX, name);
	c = dvshare_obj_lookup(d, what);
	if (c != NULL) { /* made only when the device offers them */
		snprintf(counters, sizeof(counters), ", counters %s", what);
		dvshare_obj_release(c);
	}
	printf("obj %s on %s: VIRTIO_NET_Q obj_id=%u (pd %s, tis %s, umems %s.umem1..3%s)\n", name,
	       dev, id, APP_PD_NAME, APP_TIS_NAME, name, counters);
	if (meta != NULL && dvshare_set_meta(d, name, meta, strlen(meta)) != 0) {
		snprintf(what, sizeof(what), "meta set %s", name);
		return lib_error(-rte_errno, what);
	}
	return 0;
}

int pmd_counter_create(const char *dev, const char *name)
{
	char what[160];
	struct dvshare_dev *d;
	uint32_t id = 0;
	int rc;

	snprintf(what, sizeof(what), "counter create %s", name);
	d = pmd_dev(what, dev);
	if (d == NULL)
		return -ENODEV;
	rc = app_counter_create(d, name, &id);
	if (rc != 0)
		return lib_error(rc, what);
	printf("counter %s on %s: flow_counter_id=%u\n", name, dev, id);
	return 0;
}

int pmd_umem_reg(const char *dev, const char *name, uint32_t size)
{
	char what[160];
	struct dvshare_dev *d;
	uint32_t id;
	int rc;

	snprintf(what, sizeof(what), "umem reg %s", name);
	d = pmd_dev(what, dev);
	if (d == NULL)
		return -ENODEV;
	if (size == 0 || size > (64u << 20))
		return pmd_error(-EINVAL, what, "size must be 1 byte to 64 MiB");
	/* The memory stays until the UMEM's destroy or the device's close:
	 * other processes' imports may use it till then. */
	rc = app_umem_reg(d, name, size, &id);
	if (rc != 0)
		return lib_error(rc, what);
	printf("umem %s on %s: umem_id=%u size=%u\n", name, dev, id, size);
	return 0;
}

/* Object @name of one of the kinds in @want (a bit per enum pmd_kind);
 * else one error line saying what it is instead. */
static int object_of(const char *what, const char *name, unsigned int want, const char *wanted,
		     struct pmd_obj *o)
{
	enum pmd_kind k;

	if (pmd_find(name, o) != 0)
		return pmd_error(-ENOENT, what, "no such object");
	k = pmd_kind_of(o);
	if ((want & (1u << k)) == 0)
		return pmd_error(-EINVAL, what, "%s is %s, not %s", name, pmd_kind_long(k), wanted);
	return 0;
}

#define KIND(k) (1u << (k))

static int ring(const char *name, uint32_t value, uint32_t count, uint32_t interval_us)
{
	char what[160];
	struct pmd_obj o;
	struct dvshare_var *v;
	void *db;

	snprintf(what, sizeof(what), "ring %s", name);
	if (object_of(what, name, KIND(PMD_KIND_VAR), "a VAR page", &o) != 0)
		return -EINVAL;
	v = pmd_var(o.dev, name);
	if (v == NULL)
		return lib_error(-rte_errno, what);
	db = dvshare_var_doorbell(v); /* looked up once; the loop is the hot path */
	for (uint32_t i = 0; i < count; i++) {
		dvshare_doorbell32(db, 0, value);
		if (interval_us != 0)
			usleep(interval_us);
	}
	pmd_put_var(v);
	printf("ring %s: %u doorbell(s) written, value=%u\n", name, count, value);
	return 0;
}

/* The DEVX object @name of a kind in @want, looked up (its kind in *@info);
 * else one error line. */
static struct dvshare_obj *devx_object(const char *what, const char *name, unsigned int want,
				       const char *wanted, struct pmd_obj *info)
{
	struct dvshare_obj *h;

	if (object_of(what, name, want, wanted, info) != 0)
		return NULL;
	h = pmd_obj(info->dev, name);
	if (h == NULL)
		lib_error(-rte_errno, what);
	return h;
}

static int query_virtq(struct dvshare_obj *o, const char *name, const char *what)
{
	struct dvshare_prm_virtq q;
	int rc = app_virtq_query(o, &q);

	if (rc != 0)
		return lib_error(rc, what);
	printf("query %s: obj_id=%u queue_index=%u queue_size=%u state=%s hw_available_index=%u "
	       "hw_used_index=%u pd=%u\n", name, dvshare_obj_id(o), q.queue_index, q.queue_size,
	       dvshare_prm_virtq_state_str(q.state), q.hw_available_index, q.hw_used_index, q.pd);
	return 0;
}

static int query_counter(struct dvshare_obj *o, const char *name, const char *what)
{
	uint64_t packets = 0, octets = 0;
	int rc = app_counter_read(o, &packets, &octets);

	if (rc != 0)
		return lib_error(rc, what);
	printf("query %s: flow_counter_id=%u packets=%lu octets=%lu\n", name, dvshare_obj_id(o),
	       (unsigned long)packets, (unsigned long)octets);
	return 0;
}

static int query(const char *name)
{
	char what[160];
	struct pmd_obj info;
	struct dvshare_obj *o;
	const char *wanted = "a VIRTIO_NET_Q or a flow counter";
	int rc;

	snprintf(what, sizeof(what), "query %s", name);
	/* A VAR page or a UMEM is no DEVX object at all; a PD is one, with
	 * nothing to query. */
	if (pmd_find(name, &info) == 0 && info.type != DVSHARE_TYPE_OBJ)
		wanted = "a DEVX object";
	o = devx_object(what, name, KIND(PMD_KIND_VIRTQ) | KIND(PMD_KIND_COUNTER), wanted, &info);
	if (o == NULL)
		return -ENOENT;
	if (pmd_kind_of(&info) == PMD_KIND_VIRTQ)
		rc = query_virtq(o, name, what);
	else
		rc = query_counter(o, name, what);
	pmd_put_obj(o);
	return rc;
}

static const char *const state_names[] = { "init", "rdy", "suspend", "err" };

/* Change a VIRTIO_NET_Q: its state (@value NULL), or a hardware ring index. */
static int modify(const char *name, const char *field, const uint32_t *value)
{
	char what[160];
	struct pmd_obj info;
	struct dvshare_prm_virtq want;
	struct dvshare_obj *o;
	uint64_t select = 0;
	uint32_t synd = 0;
	uint8_t status = 0;
	int rc;

	snprintf(what, sizeof(what), "modify %s", name);
	memset(&want, 0, sizeof(want));
	for (int i = 0; i < 4 && value == NULL; i++)
		if (strcmp(field, state_names[i]) == 0) {
			select = DVSHARE_PRM_VIRTQ_MODIFY_STATE;
			want.state = (uint8_t)i;
		}
	if (value != NULL) {
		if (*value > UINT16_MAX)
			return pmd_error(-EINVAL, what, "ring indexes are 16 bits, not %u", *value);
		select = field[0] == 'a' ? DVSHARE_PRM_VIRTQ_MODIFY_HW_AVAILABLE_INDEX
					 : DVSHARE_PRM_VIRTQ_MODIFY_HW_USED_INDEX;
		want.hw_available_index = want.hw_used_index = (uint16_t)*value;
	}
	o = devx_object(what, name, KIND(PMD_KIND_VIRTQ), "a VIRTIO_NET_Q", &info);
	if (o == NULL)
		return -ENOENT;
	rc = app_virtq_modify(o, select, &want, &status, &synd);
	if (rc == 0 && value == NULL)
		printf("modify %s: state=%s\n", name, field);
	else if (rc == 0)
		printf("modify %s: %s=%u\n", name, field, *value);
	else
		dev_error(rc, what, status, synd);
	pmd_put_obj(o);
	return rc;
}

static int meta(const char *dev, const char *name, const char *text)
{
	char what[160];
	char buf[DVSHARE_META_MAX + 1];
	struct dvshare_dev *d;
	int n;

	snprintf(what, sizeof(what), "meta %s %s", text != NULL ? "set" : "get", name);
	d = pmd_dev(what, dev);
	if (d == NULL)
		return -ENODEV;
	if (text != NULL) {
		n = dvshare_set_meta(d, name, text, strlen(text));
		if (n != 0)
			return lib_error(n, what);
		printf("meta %s: %zu byte(s) set\n", name, strlen(text));
		return 0;
	}
	n = dvshare_get_meta(d, name, buf, DVSHARE_META_MAX);
	if (n < 0)
		return lib_error(n, what);
	buf[n < DVSHARE_META_MAX ? n : DVSHARE_META_MAX] = '\0';
	printf("meta %s: %s\n", name, buf);
	return 0;
}

static int destroy(const char *dev, const char *name, uint32_t timeout_ms)
{
	char what[160];
	struct dvshare_dev *d;
	int rc;

	snprintf(what, sizeof(what), "destroy %s", name);
	d = pmd_dev(what, dev);
	if (d == NULL)
		return -ENODEV;
	rc = dvshare_destroy(d, name, timeout_ms);
	if (rc == -ENOENT)
		return pmd_error(rc, what, "no such object");
	if (rc == -EPERM && rte_eal_process_type() != RTE_PROC_PRIMARY)
		return pmd_error(rc, what, "not this secondary's (a secondary destroys only what "
					   "it created; see show objects)");
	if (rc != 0)
		return lib_error(rc, what);
	printf("destroy %s: done\n", name);
	return 0;
}

int pmd_run(enum pmd_cmd cmd, const struct pmd_res *r)
{
	int rc = 0;

	switch (cmd) {
	case PMD_SHOW_DEVICES: rc = pmd_show_devices(NULL); break;
	case PMD_SHOW_DEVICE: /* "all" as testpmd's: device names are simN or mlx5 ibdevs */
		rc = pmd_show_devices(strcmp(r->w[3], "all") != 0 ? r->w[3] : NULL);
		break;
	case PMD_SHOW_OBJECTS: rc = pmd_show_objects(NULL); break;
	case PMD_SHOW_OBJECTS_DEV: rc = pmd_show_objects(r->w[2]); break;
	case PMD_SHOW_PEERS: rc = pmd_show_peers(); break;
	case PMD_SHOW_ENGINE: rc = pmd_show_engine(); break;
	case PMD_STATS: rc = pmd_show_stats(); break;
	case PMD_CAPS: rc = pmd_show_caps(r->w[1]); break;
	case PMD_SHOW_CAPS: rc = pmd_show_caps(r->w[2]); break;
	case PMD_VAR_ALLOC: rc = pmd_var_alloc(r->w[2], r->w[3]); break;
	case PMD_OBJ_CREATE: rc = pmd_virtq_create(r->w[2], r->w[3], r->n[0], r->n[1], NULL); break;
	case PMD_UMEM_REG: rc = pmd_umem_reg(r->w[2], r->w[3], r->n[0]); break;
	case PMD_COUNTER_CREATE: rc = pmd_counter_create(r->w[2], r->w[3]); break;
	case PMD_DESTROY: rc = destroy(r->w[1], r->w[2], 2000); break;
	case PMD_DESTROY_TIMEOUT: rc = destroy(r->w[1], r->w[2], r->n[0]); break;
	case PMD_RING: rc = ring(r->w[1], r->n[0], 1, 0); break;
	case PMD_RING_COUNT: rc = ring(r->w[1], r->n[0], r->n[1], 0); break;
	case PMD_RING_PACED: rc = ring(r->w[1], r->n[0], r->n[1], r->n[2]); break;
	case PMD_QUERY: rc = query(r->w[1]); break;
	case PMD_MODIFY: rc = modify(r->w[1], r->w[2], NULL); break;
	case PMD_MODIFY_INDEX: rc = modify(r->w[1], r->w[2], &r->n[0]); break;
	case PMD_META_SET: rc = meta(r->w[2], r->w[3], r->text); break;
	case PMD_META_GET: rc = meta(r->w[2], r->w[3], NULL); break;
	case PMD_HELP: pmd_help(NULL); break;
	case PMD_HELP_SECTION: pmd_help(r->w[1]); break;
	case PMD_QUIT: pmd_quit = 1; break;
	case PMD_PORT_CREATE: rc = pmd_port_create(r->w[2], r->n[0], 256); break;
	case PMD_PORT_CREATE_SIZE: rc = pmd_port_create(r->w[2], r->n[0], r->n[1]); break;
	case PMD_PORT_DESTROY: rc = pmd_port_destroy(r->n[0]); break;
	case PMD_STEER: rc = pmd_steer(r->w[1], r->n[0], r->n[1], NULL); break;
	case PMD_STEER_COUNTER: rc = pmd_steer(r->w[1], r->n[0], r->n[1], r->w[2]); break;
	case PMD_SET_FWD: rc = pmd_set_fwd(r->w[2]); break;
	case PMD_SET_BURST: rc = pmd_set_burst(r->n[0]); break;
	case PMD_SET_TXPKTS: rc = pmd_set_txpkts(r->n[0]); break;
	case PMD_START: rc = pmd_start(0, 0); break;
	case PMD_START_TX_FIRST: rc = pmd_start(1, 1); break;
	case PMD_START_TX_FIRST_N: rc = pmd_start(1, r->n[0]); break;
	case PMD_STOP: rc = pmd_stop(); break;
	case PMD_SHOW_PORT_STATS: rc = pmd_show_port_stats(r->w[3]); break;
	case PMD_SHOW_PORT_STATS_ALL: rc = pmd_show_port_stats("all"); break;
	case PMD_REFUSED: rc = -EINVAL; break; /* pmd_cmdline.c reports it */
	}
	fflush(stdout);
	return rc < 0 ? rc : 0;
}
