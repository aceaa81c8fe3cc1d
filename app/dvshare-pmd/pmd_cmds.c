/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dvshare-pmd commands. Output is one line per fact, "key=value" style, so
 * people and scripts (buildtools/demo.sh, the pmd test) read it alike;
 * an error is one line starting with "error:".
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_service.h>

#include <infiniband/mlx5dv.h>

#include "app_objects.h"
#include "dvshare.h"
#include "dvshare_prm.h"
#include "pmd.h"

volatile int pmd_quit;
int pmd_failures;

static int report(int rc, const char *what, const char *name)
{
	if (rc < 0) {
		printf("error: %s %s: %s\n", what, name != NULL ? name : "", strerror(-rc));
		fflush(stdout);
	}
	return rc;
}

#define FAIL(what, name) report(-rte_errno, what, name)

static struct dvshare_dev *dev_named(const char *name)
{
	struct dvshare_dev *d = dvshare_dev_lookup(name);

	if (d == NULL)
		report(-ENODEV, "no shared device", name);
	return d;
}

/* Run @fn on every device this process shares or attached. */
static int each_device(int (*fn)(struct dvshare_dev *, void *), void *arg)
{
	struct dvshare_dev *devs[64];
	int n = dvshare_dev_list(devs, 64);

	for (int i = 0; i < n && i < 64; i++)
		if (fn(devs[i], arg) != 0)
			return 1;
	return 0;
}

struct find_arg {
	const char *name;
	enum dvshare_type type;
	struct dvshare_dev *found;
	uint16_t create_op; /* of the object found */
	uint16_t obj_type;
};

static int find_cb(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	struct find_arg *f = arg;

	(void)d;
	if (strcmp(info->name, f->name) != 0 || info->type != f->type)
		return 0;
	f->create_op = info->create_op;
	f->obj_type = info->obj_type;
	return 1;
}

static int find_dev_cb(struct dvshare_dev *d, void *arg)
{
	struct find_arg *f = arg;

	if (dvshare_foreach(d, find_cb, f) > 0) {
		f->found = d;
		return 1;
	}
	return 0;
}

/* The device publishing an object of @type named @name (and, in @f,
 * what kind of DEVX object it is). */
static struct dvshare_dev *find_object(const char *name, enum dvshare_type type,
				       struct find_arg *f)
{
	memset(f, 0, sizeof(*f));
	f->name = name;
	f->type = type;
	each_device(find_dev_cb, f);
	if (f->found == NULL)
		report(-ENOENT, "no such object", name);
	return f->found;
}

static struct dvshare_dev *owner_of(const char *name, enum dvshare_type type)
{
	struct find_arg f;

	return find_object(name, type, &f);
}

/* "error: <what> <name>: <reason>" with the status of a device failure. */
static int report_dev(int rc, const char *what, const char *name, uint8_t status,
		      uint32_t syndrome)
{
	if (rc != -EREMOTEIO)
		return report(rc, what, name);
	printf("error: %s %s: %s (status %s, syndrome 0x%08x)\n", what, name, strerror(-rc),
	       dvshare_prm_status_str(status), syndrome);
	fflush(stdout);
	return rc;
}

static const char *type_str(enum dvshare_type t)
{
	return t == DVSHARE_TYPE_VAR ? "var" : t == DVSHARE_TYPE_OBJ ? "obj" : "umem";
}

static int print_object(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	char meta[DVSHARE_META_MAX + 1] = "";
	int n = dvshare_get_meta(d, info->name, meta, DVSHARE_META_MAX);

	(void)arg;
	if (n > 0)
		meta[n < DVSHARE_META_MAX ? n : DVSHARE_META_MAX] = '\0';
	for (int i = 0; meta[i] != '\0'; i++)
		if (meta[i] < 0x20 || meta[i] > 0x7e)
			meta[i] = '.';
	printf("object %s %s %s id=%u size=%lu meta=%s\n", dvshare_dev_name(d), info->name,
	       type_str(info->type), info->id, (unsigned long)info->size, meta[0] ? meta : "-");
	return 0;
}

static int show_objects(struct dvshare_dev *d, void *arg)
{
	(void)arg;
	dvshare_foreach(d, print_object, NULL);
	return 0;
}

static int count_cb(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	(void)d;
	(void)info;
	(*(unsigned int *)arg)++;
	return 0;
}

static int show_device(struct dvshare_dev *d, void *arg)
{
	unsigned int n = 0;

	(void)arg;
	dvshare_foreach(d, count_cb, &n);
	printf("device %s role=%s objects=%u\n", dvshare_dev_name(d),
	       rte_eal_process_type() == RTE_PROC_PRIMARY ? "primary" : "secondary", n);
	return 0;
}

static int engine_line(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	uint64_t kicks = 0;
	uint32_t last = 0;

	(void)arg;
	if (info->type != DVSHARE_TYPE_VAR)
		return 0;
	if (dvshare_var_kicks(d, info->name, &kicks, &last) == 0)
		printf("engine %s %s page=%u kicks=%lu last=%u\n", dvshare_dev_name(d), info->name,
		       info->id, (unsigned long)kicks, last);
	return 0;
}

/* Without a service lcore the application runs the engine: one pass of
 * each engine service before reading the counters. */
static int show_engine(struct dvshare_dev *d, void *arg)
{
	(void)arg;
	for (uint32_t id = 0; id < 64; id++) {
		char want[64];
		snprintf(want, sizeof(want), "dvshare_engine_%s", dvshare_dev_name(d));
		const char *name = rte_service_get_name(id);
		if (name != NULL && strcmp(name, want) == 0 && rte_service_lcore_count() == 0)
			rte_service_run_iter_on_app_lcore(id, 1);
	}
	dvshare_foreach(d, engine_line, NULL);
	return 0;
}

static int show_stats(void)
{
	struct dvshare_stats s;

	dvshare_stats_get(&s);
	printf("stats: attach_status=%d devices=%u attach_us=%lu imports=%lu lookups=%lu "
	       "published=%lu destroyed=%lu destroy_busy=%lu revoked=%lu peers=%u orphaned=%u\n",
	       s.attach_status, s.devices, (unsigned long)(s.attach_ns / 1000),
	       (unsigned long)s.imports, (unsigned long)s.lookups, (unsigned long)s.published,
	       (unsigned long)s.destroyed, (unsigned long)s.destroy_busy, (unsigned long)s.revoked,
	       s.peers, s.orphaned);
	return 0;
}

static int show_peers(void)
{
	struct dvshare_peer peers[64];
	struct dvshare_stats s;
	int n;

	if (rte_eal_process_type() != RTE_PROC_PRIMARY) {
		dvshare_stats_get(&s);
		printf("peers: primary %s\n", s.orphaned ? "died" : "alive");
		return 0;
	}
	n = dvshare_peers(peers, 64);
	printf("peers: %d secondary(ies) attached\n", n);
	for (int i = 0; i < n && i < 64; i++)
		printf("peer pid=%d uid=%u devices=%u\n", (int)peers[i].pid, (unsigned int)peers[i].uid,
		       peers[i].n_devices);
	return 0;
}

int pmd_var_alloc(const char *dev, const char *name)
{
	struct dvshare_dev *d = dev_named(dev);
	struct dvshare_var *v;

	if (d == NULL)
		return -ENODEV;
	v = dvshare_var_alloc(d, name, 0);
	if (v == NULL)
		return FAIL("var alloc", name);
	printf("var %s on %s: page=%u\n", name, dev, dvshare_var_dv(v)->page_id);
	dvshare_var_release(v);
	return 0;
}

int pmd_virtq_create(const char *dev, const char *name, uint32_t qidx, uint32_t qsize,
		     const char *meta)
{
	struct dvshare_dev *d = dev_named(dev);
	uint32_t id = 0, synd = 0;
	uint8_t status = 0;
	int rc;

	if (d == NULL)
		return -ENODEV;
	if (qidx > UINT16_MAX || qsize > UINT16_MAX)
		return report(-EINVAL, "queue index and size must fit 16 bits:", name);
	rc = app_virtq_create(d, name, (uint16_t)qidx, (uint16_t)qsize, &id, &status, &synd);
	if (rc != 0)
		return report_dev(rc, "obj create", name, status, synd);
	printf("obj %s on %s: VIRTIO_NET_Q obj_id=%u (pd %s, umems %s.umem1..3)\n", name, dev, id,
	       APP_PD_NAME, name);
	if (meta != NULL && dvshare_set_meta(d, name, meta, strlen(meta)) != 0)
		return FAIL("meta set", name);
	return 0;
}

int pmd_counter_create(const char *dev, const char *name)
{
	struct dvshare_dev *d = dev_named(dev);
	uint32_t id = 0;
	int rc;

	if (d == NULL)
		return -ENODEV;
	rc = app_counter_create(d, name, &id);
	if (rc != 0)
		return report(rc, "counter create", name);
	printf("counter %s on %s: flow_counter_id=%u\n", name, dev, id);
	return 0;
}

static int show_caps(const char *dev)
{
	struct dvshare_dev *d = dev_named(dev);
	struct dvshare_prm_hca_caps gen;
	struct dvshare_prm_virtio_caps vio;
	int rc;

	if (d == NULL)
		return -ENODEV;
	rc = app_caps(d, &gen, &vio);
	if (rc != 0 && rc != -EOPNOTSUPP)
		return report(rc, "caps", dev);
	printf("caps %s: vhca_id=%u general_obj_types=0x%016lx virtio_net_q=%s\n", dev, gen.vhca_id,
	       (unsigned long)gen.general_obj_types, rc == 0 ? "yes" : "no");
	if (rc == 0)
		printf("caps %s: doorbell_bar_offset=0x%lx log_doorbell_stride=%u max_virtio_queues=%u "
		       "umem_a/b=%u/%u,%u/%u,%u/%u\n", dev, (unsigned long)vio.doorbell_bar_offset,
		       vio.log_doorbell_stride, vio.max_num_virtio_queues, vio.umem[0].a,
		       vio.umem[0].b, vio.umem[1].a, vio.umem[1].b, vio.umem[2].a, vio.umem[2].b);
	return 0;
}

int pmd_umem_reg(const char *dev, const char *name, uint32_t size)
{
	struct dvshare_dev *d = dev_named(dev);
	struct dvshare_umem *u;
	void *mem;

	if (d == NULL)
		return -ENODEV;
	if (size == 0 || size > (64u << 20))
		return report(-EINVAL, "umem size must be 1 byte to 64 MiB:", name);
	/* The memory lives as long as the process: the UMEM may outlive
	 * this handle in other processes' imports. */
	if (posix_memalign(&mem, 4096, size) != 0)
		return report(-ENOMEM, "umem reg", name);
	u = dvshare_umem_reg(d, name, mem, size, 0);
	if (u == NULL) {
		free(mem);
		return FAIL("umem reg", name);
	}
	printf("umem %s on %s: umem_id=%u size=%u\n", name, dev, dvshare_umem_id(u), size);
	dvshare_umem_release(u);
	return 0;
}

static int ring(const char *name, uint32_t value, uint32_t count, uint32_t interval_us)
{
	struct dvshare_dev *d = owner_of(name, DVSHARE_TYPE_VAR);
	struct dvshare_var *v = d != NULL ? dvshare_var_lookup(d, name) : NULL;
	void *db;

	if (v == NULL)
		return d == NULL ? -ENOENT : FAIL("ring", name);
	db = dvshare_var_doorbell(v); /* looked up once; the loop is the hot path */
	for (uint32_t i = 0; i < count; i++) {
		dvshare_doorbell32(db, 0, value);
		if (interval_us != 0)
			usleep(interval_us);
	}
	dvshare_var_release(v);
	printf("ring %s: %u doorbell(s) written, value=%u\n", name, count, value);
	return 0;
}

static const char *const state_names[] = { "init", "rdy", "suspend", "err" };

/* The DEVX object @name, if it is one; else one error line. */
static struct dvshare_obj *devx_object(const char *what, const char *name, struct find_arg *f)
{
	struct dvshare_dev *d = find_object(name, DVSHARE_TYPE_OBJ, f);
	struct dvshare_obj *o = d != NULL ? dvshare_obj_lookup(d, name) : NULL;

	if (d != NULL && o == NULL)
		FAIL(what, name);
	return o;
}

static int query_virtq(struct dvshare_obj *o, const char *name)
{
	struct dvshare_prm_virtq q;
	int rc = app_virtq_query(o, &q);

	if (rc != 0)
		return report(rc, "query", name);
	printf("query %s: obj_id=%u queue_index=%u queue_size=%u state=%s hw_available_index=%u "
	       "hw_used_index=%u pd=%u\n", name, dvshare_obj_id(o), q.queue_index, q.queue_size,
	       dvshare_prm_virtq_state_str(q.state), q.hw_available_index, q.hw_used_index, q.pd);
	return 0;
}

static int query_counter(struct dvshare_obj *o, const char *name)
{
	uint64_t packets = 0, octets = 0;
	int rc = app_counter_read(o, &packets, &octets);

	if (rc != 0)
		return report(rc, "query", name);
	printf("query %s: flow_counter_id=%u packets=%lu octets=%lu\n", name, dvshare_obj_id(o),
	       (unsigned long)packets, (unsigned long)octets);
	return 0;
}

static int query(const char *name)
{
	struct find_arg f;
	struct dvshare_obj *o = devx_object("query", name, &f);
	int rc;

	if (o == NULL)
		return -ENOENT;
	if (f.create_op == DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT &&
	    f.obj_type == DVSHARE_PRM_OBJ_VIRTIO_NET_Q)
		rc = query_virtq(o, name);
	else if (f.create_op == DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER)
		rc = query_counter(o, name);
	else
		rc = report(-EOPNOTSUPP, "query", f.create_op == DVSHARE_PRM_CMD_ALLOC_PD
			    ? "(a PD has no query command)" : "(not a queue or a counter)");
	dvshare_obj_release(o);
	return rc;
}

/* Change a VIRTIO_NET_Q: its state, or its hardware ring indexes. */
static int modify(const char *name, const char *field, const uint32_t *value)
{
	struct dvshare_prm_virtq want;
	struct find_arg f;
	struct dvshare_obj *o;
	uint64_t select = 0;
	uint32_t synd = 0;
	uint8_t status = 0;
	int rc;

	memset(&want, 0, sizeof(want));
	for (int i = 0; i < 4; i++)
		if (strcmp(field, state_names[i]) == 0) {
			select = DVSHARE_PRM_VIRTQ_MODIFY_STATE;
			want.state = (uint8_t)i;
		}
	if ((strcmp(field, "avail") == 0 || strcmp(field, "used") == 0) && value != NULL) {
		if (*value > UINT16_MAX)
			return report(-EINVAL, "ring indexes are 16 bits:", field);
		select = field[0] == 'a' ? DVSHARE_PRM_VIRTQ_MODIFY_HW_AVAILABLE_INDEX
					 : DVSHARE_PRM_VIRTQ_MODIFY_HW_USED_INDEX;
		want.hw_available_index = want.hw_used_index = (uint16_t)*value;
	}
	if (select == 0)
		return report(-EINVAL, "modify wants init, rdy, suspend, err, avail <n> or used <n>, not",
			      field);
	o = devx_object("modify", name, &f);
	if (o == NULL)
		return -ENOENT;
	if (f.obj_type != DVSHARE_PRM_OBJ_VIRTIO_NET_Q) {
		dvshare_obj_release(o);
		return report(-EOPNOTSUPP, "modify", "(not a VIRTIO_NET_Q)");
	}
	rc = app_virtq_modify(o, select, &want, &status, &synd);
	if (rc == 0 && select == DVSHARE_PRM_VIRTQ_MODIFY_STATE)
		printf("modify %s: state=%s\n", name, field);
	else if (rc == 0)
		printf("modify %s: %s=%u\n", name, field, *value);
	else
		report_dev(rc, "modify", name, status, synd);
	dvshare_obj_release(o);
	return rc;
}

static int meta(const char *dev, const char *name, const char *text)
{
	struct dvshare_dev *d = dev_named(dev);
	char buf[DVSHARE_META_MAX + 1];
	int n;

	if (d == NULL)
		return -ENODEV;
	if (text != NULL) {
		n = dvshare_set_meta(d, name, text, strlen(text));
		if (n == 0)
			printf("meta %s: %zu byte(s) set\n", name, strlen(text));
		return report(n, "meta set", name);
	}
	n = dvshare_get_meta(d, name, buf, DVSHARE_META_MAX);
	if (n < 0)
		return report(n, "meta get", name);
	buf[n < DVSHARE_META_MAX ? n : DVSHARE_META_MAX] = '\0';
	printf("meta %s: %s\n", name, buf);
	return 0;
}

static int destroy(const char *dev, const char *name, uint32_t timeout_ms)
{
	struct dvshare_dev *d = dev_named(dev);

	if (d == NULL)
		return -ENODEV;
	if (dvshare_destroy(d, name, timeout_ms) != 0)
		return FAIL("destroy", name);
	printf("destroy %s: done\n", name);
	return 0;
}

static int help(void)
{
	printf("commands:\n");
	for (int i = 0; pmd_ctx[i] != NULL; i++)
		printf("  %s\n", pmd_ctx[i]->help_str);
	return 0;
}

int pmd_run(enum pmd_cmd cmd, const struct pmd_res *r)
{
	int rc = 0;

	switch (cmd) {
	case PMD_SHOW_DEVICES: each_device(show_device, NULL); break;
	case PMD_SHOW_OBJECTS: each_device(show_objects, NULL); break;
	case PMD_SHOW_OBJECTS_DEV: {
		struct dvshare_dev *d = dev_named(r->w[2]);
		rc = d != NULL ? show_objects(d, NULL) : -ENODEV;
		break;
	}
	case PMD_SHOW_PEERS: rc = show_peers(); break;
	case PMD_SHOW_ENGINE: each_device(show_engine, NULL); break;
	case PMD_STATS: rc = show_stats(); break;
	case PMD_VAR_ALLOC: rc = pmd_var_alloc(r->w[2], r->w[3]); break;
	case PMD_OBJ_CREATE: rc = pmd_virtq_create(r->w[2], r->w[3], r->n[0], r->n[1], NULL); break;
	case PMD_UMEM_REG: rc = pmd_umem_reg(r->w[2], r->w[3], r->n[0]); break;
	case PMD_DESTROY: rc = destroy(r->w[1], r->w[2], 2000); break;
	case PMD_DESTROY_TIMEOUT: rc = destroy(r->w[1], r->w[2], r->n[0]); break;
	case PMD_RING: rc = ring(r->w[1], r->n[0], 1, 0); break;
	case PMD_RING_COUNT: rc = ring(r->w[1], r->n[0], r->n[1], 0); break;
	case PMD_RING_PACED: rc = ring(r->w[1], r->n[0], r->n[1], r->n[2]); break;
	case PMD_QUERY: rc = query(r->w[1]); break;
	case PMD_MODIFY: rc = modify(r->w[1], r->w[2], NULL); break;
	case PMD_MODIFY_INDEX: rc = modify(r->w[1], r->w[2], &r->n[0]); break;
	case PMD_COUNTER_CREATE: rc = pmd_counter_create(r->w[2], r->w[3]); break;
	case PMD_CAPS: rc = show_caps(r->w[1]); break;
	case PMD_META_SET: rc = meta(r->w[2], r->w[3], r->text); break;
	case PMD_META_GET: rc = meta(r->w[2], r->w[3], NULL); break;
	case PMD_HELP: rc = help(); break;
	case PMD_QUIT: pmd_quit = 1; break;
	}
	fflush(stdout);
	return rc < 0 ? rc : 0;
}
