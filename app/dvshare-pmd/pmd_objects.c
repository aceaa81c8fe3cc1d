/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What a name is: which device has it and what kind of object it is, read
 * from the live registry every time (dvshare_foreach), so a command can
 * say "db0 is a VAR page, not a DEVX object" and TAB completes only the
 * names that exist now. And the engine of each device, as --engine
 * started it.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_service.h>

#include "dvshare_prm.h"
#include "pmd.h"

#define MAX_DEVS 64

static int device_list(struct dvshare_dev **devs)
{
	int n = dvshare_dev_list(devs, MAX_DEVS);

	return n < 0 ? 0 : n < MAX_DEVS ? n : MAX_DEVS;
}

struct find_arg {
	const char *name;
	struct pmd_obj *o;
};

static int find_cb(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	struct find_arg *f = arg;

	if (strcmp(info->name, f->name) != 0)
		return 0;
	*f->o = (struct pmd_obj){
		.dev = d, .type = info->type, .id = info->id, .obj_type = info->obj_type,
		.create_op = info->create_op, .size = info->size,
	};
	return 1;
}

int pmd_find(const char *name, struct pmd_obj *o)
{
	struct dvshare_dev *devs[MAX_DEVS];
	struct find_arg f = { name, o };
	int n = device_list(devs);

	memset(o, 0, sizeof(*o));
	for (int i = 0; i < n; i++)
		if (dvshare_foreach(devs[i], find_cb, &f) > 0)
			return 0;
	return -ENOENT;
}

enum pmd_kind pmd_kind_of(const struct pmd_obj *o)
{
	if (o->type == DVSHARE_TYPE_VAR)
		return PMD_KIND_VAR;
	if (o->type == DVSHARE_TYPE_UMEM)
		return PMD_KIND_UMEM;
	if (o->create_op == DVSHARE_PRM_CMD_CREATE_GENERAL_OBJECT &&
	    o->obj_type == DVSHARE_PRM_OBJ_VIRTIO_NET_Q)
		return PMD_KIND_VIRTQ;
	if (o->create_op == DVSHARE_PRM_CMD_ALLOC_PD)
		return PMD_KIND_PD;
	if (o->create_op == DVSHARE_PRM_CMD_ALLOC_FLOW_COUNTER)
		return PMD_KIND_COUNTER;
	return PMD_KIND_DEVX;
}

const char *pmd_kind_short(enum pmd_kind k)
{
	static const char *const s[] = {
		[PMD_KIND_VAR] = "var", [PMD_KIND_UMEM] = "umem", [PMD_KIND_VIRTQ] = "virtq",
		[PMD_KIND_PD] = "pd", [PMD_KIND_COUNTER] = "counter", [PMD_KIND_DEVX] = "obj",
	};

	return s[k];
}

const char *pmd_kind_long(enum pmd_kind k)
{
	static const char *const s[] = {
		[PMD_KIND_VAR] = "a VAR page",
		[PMD_KIND_UMEM] = "a UMEM",
		[PMD_KIND_VIRTQ] = "a DEVX object (VIRTIO_NET_Q)",
		[PMD_KIND_PD] = "a DEVX object (PD)",
		[PMD_KIND_COUNTER] = "a DEVX object (flow counter)",
		[PMD_KIND_DEVX] = "a DEVX object",
	};

	return s[k];
}

struct dvshare_dev *pmd_dev(const char *what, const char *name)
{
	struct dvshare_dev *d = dvshare_dev_lookup(name);

	if (d == NULL)
		pmd_error(-ENODEV, what, "no device %s", name);
	return d;
}

int pmd_is_sim(const char *dev)
{
	if (dev == NULL || strncmp(dev, "sim", 3) != 0 || dev[3] == '\0')
		return 0;
	for (const char *p = dev + 3; *p != '\0'; p++)
		if (!isdigit((unsigned char)*p))
			return 0;
	return 1;
}

/* --------------------------------------------------------------- engines */

/* Engines this process started, by device name: only --engine starts one,
 * and dvshare_engine_start() gives the service id to watch. */
static struct {
	char dev[DVSHARE_NAME_MAX];
	uint32_t service_id;
} engines[MAX_DEVS];
static int n_engines;

int pmd_engine_start(const char *dev)
{
	struct dvshare_dev *d = pmd_dev("--engine", dev);
	uint32_t id = 0;
	int rc;

	if (d == NULL)
		return -ENODEV;
	rc = dvshare_engine_start(d, &id);
	if (rc == -ENOTSUP)
		return pmd_error(rc, "--engine", "%s is not a software device: a NIC sees its "
				 "doorbells itself", dev);
	if (rc != 0)
		return pmd_error(rc, "--engine", "%s: %s", dev, strerror(-rc));
	if (n_engines < MAX_DEVS) {
		snprintf(engines[n_engines].dev, sizeof(engines[n_engines].dev), "%s", dev);
		engines[n_engines++].service_id = id;
	}
	return 0;
}

enum pmd_engine_state pmd_engine_state(struct dvshare_dev *d, uint32_t *service_id)
{
	const char *name = dvshare_dev_name(d);

	/* Only the primary runs engines; a secondary cannot see its services. */
	if (rte_eal_process_type() != RTE_PROC_PRIMARY)
		return pmd_is_sim(name) ? PMD_ENGINE_UNKNOWN : PMD_ENGINE_NIC;
	if (!pmd_is_sim(name))
		return PMD_ENGINE_NIC;
	for (int i = 0; i < n_engines; i++) {
		if (strcmp(engines[i].dev, name) == 0) {
			if (service_id != NULL)
				*service_id = engines[i].service_id;
			return PMD_ENGINE_ON;
		}
	}
	return PMD_ENGINE_OFF;
}

const char *pmd_engine_state_str(enum pmd_engine_state s)
{
	static const char *const str[] = {
		[PMD_ENGINE_ON] = "on", [PMD_ENGINE_OFF] = "off", [PMD_ENGINE_NIC] = "nic",
		[PMD_ENGINE_UNKNOWN] = "unknown",
	};

	return str[s];
}

/* ------------------------------------------------------------ completion */

struct names_arg {
	enum pmd_names which;
	char (*out)[DVSHARE_NAME_MAX];
	int max;
	int n;
};

static void add_name(struct names_arg *a, const char *name)
{
	if (a->n < a->max)
		snprintf(a->out[a->n], DVSHARE_NAME_MAX, "%s", name);
	a->n++;
}

static int wanted(enum pmd_names which, const struct pmd_obj *o)
{
	enum pmd_kind k = pmd_kind_of(o);

	switch (which) {
	case PMD_NAMES_VAR: return k == PMD_KIND_VAR;
	case PMD_NAMES_QUERY: return k == PMD_KIND_VIRTQ || k == PMD_KIND_COUNTER;
	case PMD_NAMES_VIRTQ: return k == PMD_KIND_VIRTQ;
	default: return 1;
	}
}

static int names_cb(struct dvshare_dev *d, const struct dvshare_info *info, void *arg)
{
	struct names_arg *a = arg;
	struct pmd_obj o = {
		.dev = d, .type = info->type, .obj_type = info->obj_type,
		.create_op = info->create_op,
	};

	if (wanted(a->which, &o))
		add_name(a, info->name);
	return 0;
}

int pmd_names(enum pmd_names which, char (*out)[DVSHARE_NAME_MAX], int max)
{
	struct dvshare_dev *devs[MAX_DEVS];
	struct names_arg a = { which, out, max, 0 };
	int n = device_list(devs);

	for (int i = 0; i < n; i++) {
		if (which == PMD_NAMES_DEV || which == PMD_NAMES_DEV_ALL)
			add_name(&a, dvshare_dev_name(devs[i]));
		else
			dvshare_foreach(devs[i], names_cb, &a);
	}
	if (which == PMD_NAMES_DEV_ALL)
		add_name(&a, "all");
	return a.n;
}
