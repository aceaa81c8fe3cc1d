/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The show commands: each prints one aligned table with a header row
 * (pmd_table.c), or "<what>: none". Notes that are not rows (an engine
 * that is off) follow the table, one line each.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_lcore.h>
#include <rte_service.h>

#include "app_objects.h"
#include "dvshare_prm.h"
#include "pmd.h"

#define MAX_DEVS 64

static int is_primary(void)
{
	return rte_eal_process_type() == RTE_PROC_PRIMARY;
}

/* The devices to show: @dev only, or all of them. -ENODEV if @dev is not one. */
static int devices(const char *what, const char *dev, struct dvshare_dev **devs)
{
	int n;

	if (dev != NULL) {
		devs[0] = pmd_dev(what, dev);
		return devs[0] != NULL ? 1 : -ENODEV;
	}
	n = dvshare_dev_list(devs, MAX_DEVS);
	return n < 0 ? 0 : n < MAX_DEVS ? n : MAX_DEVS;
}

struct counts {
	unsigned int all, var, devx, umem;
};

static int count_cb(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	struct counts *c = arg;

	(void)d;
	c->all++;
	c->var += info->type == DVSHARE_TYPE_VAR;
	c->devx += info->type == DVSHARE_TYPE_OBJ;
	c->umem += info->type == DVSHARE_TYPE_UMEM;
	return 0;
}

int pmd_show_devices(const char *dev)
{
	static const char *const head[] = {
		"DEVICE", "ROLE", "PROVIDER", "OBJECTS", "VARS", "DEVX", "UMEMS", "ENGINE",
	};
	struct dvshare_dev *devs[MAX_DEVS];
	char what[96];
	struct pmd_table t;
	int n;

	snprintf(what, sizeof(what), "show device info%s%s", dev != NULL ? " " : "",
		 dev != NULL ? dev : "");
	n = devices(what, dev, devs);
	if (n < 0)
		return n;
	pmd_table_init(&t, head, 8);
	for (int i = 0; i < n; i++) {
		struct counts c = { 0, 0, 0, 0 };
		const char *name = dvshare_dev_name(devs[i]);

		dvshare_foreach(devs[i], count_cb, &c);
		pmd_table_row(&t);
		pmd_table_cell(&t, "%s", name);
		pmd_table_cell(&t, "%s", is_primary() ? "primary" : "secondary");
		pmd_table_cell(&t, "%s", pmd_is_sim(name) ? "sim" : "mlx5");
		pmd_table_cell(&t, "%u", c.all);
		pmd_table_cell(&t, "%u", c.var);
		pmd_table_cell(&t, "%u", c.devx);
		pmd_table_cell(&t, "%u", c.umem);
		pmd_table_cell(&t, "%s", pmd_engine_state_str(pmd_engine_state(devs[i], NULL)));
	}
	pmd_table_print(&t, "devices");
	return 0;
}

/* Printable metadata: control bytes become dots; "-" when none. */
static void meta_text(struct dvshare_dev *d, const char *name, char *buf)
{
	int n = dvshare_get_meta(d, name, buf, DVSHARE_META_MAX);

	buf[n > 0 ? (n < DVSHARE_META_MAX ? n : DVSHARE_META_MAX) : 0] = '\0';
	for (int i = 0; buf[i] != '\0'; i++)
		if (buf[i] < 0x20 || buf[i] > 0x7e)
			buf[i] = '.';
}

static int object_row(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	struct pmd_table *t = arg;
	struct pmd_obj o = {
		.dev = d, .type = info->type, .obj_type = info->obj_type,
		.create_op = info->create_op,
	};
	char meta[DVSHARE_META_MAX + 1];

	meta_text(d, info->name, meta);
	pmd_table_row(t);
	pmd_table_cell(t, "%s", dvshare_dev_name(d));
	pmd_table_cell(t, "%s", info->name);
	pmd_table_cell(t, "%s", pmd_kind_short(pmd_kind_of(&o)));
	pmd_table_cell(t, "%u", info->id);
	if (info->type == DVSHARE_TYPE_OBJ)
		pmd_table_cell(t, "-");
	else
		pmd_table_cell(t, "%lu", (unsigned long)info->size);
	/* Whose it is: the primary's, or the secondary that created it
	 * (gone: an orphan awaiting its destroy). */
	if (info->owner == 0)
		pmd_table_cell(t, "primary");
	else if (info->orphan)
		pmd_table_cell(t, "%d(gone)", (int)info->owner);
	else
		pmd_table_cell(t, "%d", (int)info->owner);
	pmd_table_cell(t, "%s", meta);
	return 0;
}

int pmd_show_objects(const char *dev)
{
	static const char *const head[] = { "DEVICE", "NAME", "TYPE", "ID", "SIZE", "OWNER",
					    "META" };
	struct dvshare_dev *devs[MAX_DEVS];
	char what[96];
	struct pmd_table t;
	int n;

	snprintf(what, sizeof(what), "show objects %s", dev != NULL ? dev : "");
	n = devices(what, dev, devs);
	if (n < 0)
		return n;
	pmd_table_init(&t, head, 7);
	for (int i = 0; i < n; i++)
		dvshare_foreach(devs[i], object_row, &t);
	pmd_table_print(&t, "objects");
	return 0;
}

/* The lcore the engine's service runs on, or -1: then this process runs
 * it (one pass per "show engine"). */
static int engine_lcore(uint32_t service_id)
{
	uint32_t lcores[RTE_MAX_LCORE];
	int n = rte_service_lcore_list(lcores, RTE_MAX_LCORE);

	for (int i = 0; i < n; i++)
		if (rte_service_map_lcore_get(service_id, lcores[i]) == 1)
			return (int)lcores[i];
	return -1;
}

struct engine_ctx {
	struct pmd_table *t;
	const char *state;
	char lcore[16];
	int vars;
};

static int engine_row(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	struct engine_ctx *e = arg;
	uint64_t kicks = 0;
	uint32_t last = 0;

	if (info->type != DVSHARE_TYPE_VAR)
		return 0;
	e->vars++;
	pmd_table_row(e->t);
	pmd_table_cell(e->t, "%s", dvshare_dev_name(d));
	pmd_table_cell(e->t, "%s", e->state);
	pmd_table_cell(e->t, "%s", e->lcore);
	pmd_table_cell(e->t, "%s", info->name);
	pmd_table_cell(e->t, "%u", info->id);
	if (dvshare_var_kicks(d, info->name, &kicks, &last) == 0) {
		pmd_table_cell(e->t, "%lu", (unsigned long)kicks);
		pmd_table_cell(e->t, "%u", last);
	}
	return 0;
}

/* One device: a row per VAR page while its engine counts (a row of dashes
 * when it has none); else one row, and the reason in *note. */
static void engine_rows(struct pmd_table *t, struct dvshare_dev *d, char *note, size_t len)
{
	const char *name = dvshare_dev_name(d);
	uint32_t id = 0;
	enum pmd_engine_state s = pmd_engine_state(d, &id);
	struct engine_ctx e = { t, pmd_engine_state_str(s), "-", 0 };

	note[0] = '\0';
	if (s == PMD_ENGINE_ON) {
		int lcore = engine_lcore(id);

		/* No service lcore: this process runs a pass before reading. */
		if (lcore < 0)
			rte_service_run_iter_on_app_lcore(id, 1);
		if (lcore < 0)
			snprintf(e.lcore, sizeof(e.lcore), "app");
		else
			snprintf(e.lcore, sizeof(e.lcore), "%d", lcore);
	} else if (s == PMD_ENGINE_OFF) {
		snprintf(note, len, "engine off on %s: start it with --engine after --dev %s",
			 name, name);
	} else if (s == PMD_ENGINE_NIC) {
		snprintf(note, len, "no engine on %s: a NIC sees its doorbells itself", name);
	} else {
		snprintf(note, len, "engine of %s: the primary's (a secondary cannot see "
			 "whether it runs; kicks stay 0 while it is off)", name);
	}
	if (s == PMD_ENGINE_ON || s == PMD_ENGINE_UNKNOWN)
		dvshare_foreach(d, engine_row, &e);
	if (e.vars == 0) {
		pmd_table_row(t);
		pmd_table_cell(t, "%s", name);
		pmd_table_cell(t, "%s", e.state);
		pmd_table_cell(t, "%s", e.lcore);
	}
}

int pmd_show_engine(void)
{
	static const char *const head[] = {
		"DEVICE", "ENGINE", "LCORE", "VAR", "PAGE", "KICKS", "LAST",
	};
	static char notes[MAX_DEVS][160];
	struct dvshare_dev *devs[MAX_DEVS];
	int n = devices("show engine", NULL, devs);
	struct pmd_table t;

	pmd_table_init(&t, head, 7);
	for (int i = 0; i < n; i++)
		engine_rows(&t, devs[i], notes[i], sizeof(notes[i]));
	pmd_table_print(&t, "devices");
	for (int i = 0; i < n; i++)
		if (notes[i][0] != '\0')
			printf("%s\n", notes[i]);
	return 0;
}

int pmd_show_peers(void)
{
	static const char *const head[] = { "PID", "UID", "DEVICES", "QUEUED" };
	static const char *const head2[] = { "PEER", "STATE" };
	struct dvshare_peer peers[64];
	struct dvshare_stats s;
	struct pmd_table t;
	int n;

	if (!is_primary()) {
		dvshare_stats_get(&s);
		pmd_table_init(&t, head2, 2);
		pmd_table_row(&t);
		pmd_table_cell(&t, "primary");
		pmd_table_cell(&t, "%s", pmd_primary_state_str(s.primary_state));
		pmd_table_print(&t, "peers");
		return 0;
	}
	n = dvshare_peers(peers, 64);
	pmd_table_init(&t, head, 4);
	for (int i = 0; i < n && i < 64; i++) {
		pmd_table_row(&t);
		pmd_table_cell(&t, "%d", (int)peers[i].pid);
		pmd_table_cell(&t, "%u", (unsigned int)peers[i].uid);
		pmd_table_cell(&t, "%u", peers[i].n_devices);
		pmd_table_cell(&t, "%u", peers[i].queued);
	}
	pmd_table_print(&t, "peers");
	return 0;
}

int pmd_show_stats(void)
{
	struct dvshare_stats s;

	dvshare_stats_get(&s);
	/* The names of struct dvshare_stats and /dvshare/stats. */
	printf("stats: attach_status=%d devices=%u attach_ns=%lu imports=%lu lookups=%lu "
	       "published=%lu destroyed=%lu destroy_busy=%lu revoked=%lu peers=%u orphaned=%u "
	       "refused=%lu primary=%s\n",
	       s.attach_status, s.devices, (unsigned long)s.attach_ns, (unsigned long)s.imports,
	       (unsigned long)s.lookups, (unsigned long)s.published, (unsigned long)s.destroyed,
	       (unsigned long)s.destroy_busy, (unsigned long)s.revoked, s.peers, s.orphaned,
	       (unsigned long)s.refused, pmd_primary_state_str(s.primary_state));
	return 0;
}

int pmd_show_caps(const char *dev)
{
	char what[96];
	struct dvshare_dev *d;
	struct dvshare_prm_hca_caps gen;
	struct dvshare_prm_virtio_caps vio;
	int rc;

	snprintf(what, sizeof(what), "caps %s", dev);
	d = pmd_dev(what, dev);
	if (d == NULL)
		return -ENODEV;
	rc = app_caps(d, &gen, &vio);
	if (rc != 0 && rc != -EOPNOTSUPP)
		return pmd_error(rc, what, "%s", strerror(-rc));
	printf("caps %s: vhca_id=%u general_obj_types=0x%016lx virtio_net_q=%s\n", dev, gen.vhca_id,
	       (unsigned long)gen.general_obj_types, rc == 0 ? "yes" : "no");
	if (rc == 0)
		printf("caps %s: doorbell_bar_offset=0x%lx log_doorbell_stride=%u "
		       "max_virtio_queues=%u umem_a/b=%u/%u,%u/%u,%u/%u\n",
		       dev, (unsigned long)vio.doorbell_bar_offset,
		       vio.log_doorbell_stride, vio.max_num_virtio_queues, vio.umem[0].a,
		       vio.umem[0].b, vio.umem[1].a, vio.umem[1].b, vio.umem[2].a, vio.umem[2].b);
	return 0;
}
