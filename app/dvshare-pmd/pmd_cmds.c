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

#include "dvs_prm.h"
#include "dvshare.h"
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
};

static int find_cb(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	struct find_arg *f = arg;

	(void)d;
	return strcmp(info->name, f->name) == 0 && info->type == f->type;
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

/* The device publishing an object of @type named @name. */
static struct dvshare_dev *owner_of(const char *name, enum dvshare_type type)
{
	struct find_arg f = { name, type, NULL };

	each_device(find_dev_cb, &f);
	if (f.found == NULL)
		report(-ENOENT, "no such object", name);
	return f.found;
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
	uint8_t in[DVS_PRM_CMD_MAX], out[DVS_PRM_HDR_SIZE];
	struct dvshare_dev *d = dev_named(dev);
	struct dvshare_obj *o;
	size_t len;

	if (d == NULL)
		return -ENODEV;
	if (qidx > UINT16_MAX || qsize > UINT16_MAX)
		return report(-EINVAL, "queue index and size must fit 16 bits:", name);
	len = dvs_prm_virtq_create(in, (uint16_t)qidx, (uint16_t)qsize, 0);
	o = dvshare_obj_create(d, name, in, len, out, sizeof(out));
	if (o == NULL) {
		printf("error: obj create %s: %s (status %s, syndrome 0x%08x)\n", name,
		       strerror(rte_errno), dvs_prm_status_str(dvs_prm_out_status(out)),
		       dvs_prm_out_syndrome(out));
		return -rte_errno;
	}
	printf("obj %s on %s: obj_id=%u\n", name, dev, dvshare_obj_id(o));
	dvshare_obj_release(o);
	if (meta != NULL && dvshare_set_meta(d, name, meta, strlen(meta)) != 0)
		return FAIL("meta set", name);
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
	db = dvshare_var_addr(v); /* looked up once; the loop is the hot path */
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

static int query(const char *name)
{
	uint8_t in[DVS_PRM_HDR_SIZE], out[DVS_PRM_HDR_SIZE + DVS_PRM_VIRTQ_CTX_SIZE];
	struct dvshare_dev *d = owner_of(name, DVSHARE_TYPE_OBJ);
	struct dvshare_obj *o = d != NULL ? dvshare_obj_lookup(d, name) : NULL;
	const uint8_t *ctx = out + DVS_PRM_HDR_SIZE;
	int rc;

	if (o == NULL)
		return d == NULL ? -ENOENT : FAIL("query", name);
	dvs_prm_obj_cmd(in, DVS_PRM_CMD_QUERY_GENERAL_OBJECT, DVS_PRM_OBJ_VIRTQ, dvshare_obj_id(o));
	rc = dvshare_obj_query(o, in, sizeof(in), out, sizeof(out));
	if (rc == 0) {
		uint8_t st = dvs_prm_get8(ctx, DVS_PRM_VIRTQ_STATE);
		printf("query %s: obj_id=%u queue_index=%u queue_size=%u state=%s\n", name,
		       dvshare_obj_id(o), dvs_prm_get16(ctx, DVS_PRM_VIRTQ_QUEUE_INDEX),
		       dvs_prm_get16(ctx, DVS_PRM_VIRTQ_QUEUE_SIZE), st < 4 ? state_names[st] : "?");
	} else {
		report(rc, "query", name);
	}
	dvshare_obj_release(o);
	return rc;
}

static int modify(const char *name, const char *state)
{
	uint8_t in[DVS_PRM_CMD_MAX], out[DVS_PRM_HDR_SIZE];
	struct dvshare_dev *d;
	struct dvshare_obj *o;
	int st = -1, rc;

	for (int i = 0; i < 4; i++)
		if (strcmp(state, state_names[i]) == 0)
			st = i;
	if (st < 0)
		return report(-EINVAL, "state must be init, rdy, suspend or err, not", state);
	d = owner_of(name, DVSHARE_TYPE_OBJ);
	o = d != NULL ? dvshare_obj_lookup(d, name) : NULL;
	if (o == NULL)
		return d == NULL ? -ENOENT : FAIL("modify", name);
	rc = dvshare_obj_modify(o, in, dvs_prm_virtq_modify_state(in, dvshare_obj_id(o), (uint8_t)st),
				out, sizeof(out));
	if (rc == 0)
		printf("modify %s: state=%s\n", name, state);
	else
		printf("error: modify %s: %s (status %s, syndrome 0x%08x)\n", name, strerror(-rc),
		       dvs_prm_status_str(dvs_prm_out_status(out)), dvs_prm_out_syndrome(out));
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
	case PMD_MODIFY: rc = modify(r->w[1], r->w[2]); break;
	case PMD_META_SET: rc = meta(r->w[2], r->w[3], r->text); break;
	case PMD_META_GET: rc = meta(r->w[2], r->w[3], NULL); break;
	case PMD_HELP: rc = help(); break;
	case PMD_QUIT: pmd_quit = 1; break;
	}
	fflush(stdout);
	return rc < 0 ? rc : 0;
}
