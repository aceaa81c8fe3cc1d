/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The handles a secondary pmd keeps. A secondary looks objects up through
 * its primary's registry, which takes no new lookups once the primary is
 * gone (exited or died); the objects it had imported keep working through
 * the handles it holds (doc/api.md). So the pmd keeps each handle it took,
 * and uses it again while the object is not revoked; a primary looks up
 * each time and lets go at once (it destroys; it must not hold).
 */
#include <stdio.h>
#include <string.h>

#include <rte_eal.h>
#include <rte_errno.h>

#include "pmd.h"

#define PMD_HELD_MAX 256

struct held {
	struct dvshare_dev *dev;
	enum dvshare_type type;
	char name[DVSHARE_NAME_MAX];
	void *h; /* struct dvshare_var * or struct dvshare_obj * */
};

static struct held held[PMD_HELD_MAX];
static unsigned int next_victim;

static int keeps(void)
{
	return rte_eal_process_type() != RTE_PROC_PRIMARY;
}

static int revoked(const struct held *k)
{
	return k->type == DVSHARE_TYPE_VAR ? dvshare_var_dv(k->h) == NULL
					   : dvshare_obj_dv(k->h) == NULL;
}

static void drop(struct held *k)
{
	if (k->type == DVSHARE_TYPE_VAR)
		dvshare_var_release(k->h);
	else
		dvshare_obj_release(k->h);
	memset(k, 0, sizeof(*k));
}

static void *lookup(struct dvshare_dev *dev, const char *name, enum dvshare_type type)
{
	return type == DVSHARE_TYPE_VAR ? (void *)dvshare_var_lookup(dev, name)
					: (void *)dvshare_obj_lookup(dev, name);
}

/* The kept handle, a fresh one kept, or NULL with rte_errno. */
static void *take(struct dvshare_dev *dev, const char *name, enum dvshare_type type)
{
	struct held *free_slot = NULL;
	void *h;

	for (unsigned int i = 0; i < PMD_HELD_MAX && keeps(); i++) {
		struct held *k = &held[i];
		if (k->h == NULL) {
			free_slot = free_slot != NULL ? free_slot : k;
		} else if (k->dev == dev && k->type == type && strcmp(k->name, name) == 0) {
			if (!revoked(k))
				return k->h;
			drop(k); /* destroyed meanwhile: look again */
			free_slot = free_slot != NULL ? free_slot : k;
		}
	}
	h = lookup(dev, name, type);
	if (h == NULL || !keeps())
		return h;
	if (free_slot == NULL) { /* full: the oldest goes */
		free_slot = &held[next_victim];
		next_victim = (next_victim + 1) % PMD_HELD_MAX;
		drop(free_slot);
	}
	free_slot->dev = dev;
	free_slot->type = type;
	snprintf(free_slot->name, sizeof(free_slot->name), "%s", name);
	free_slot->h = h;
	return h;
}

struct dvshare_var *pmd_var(struct dvshare_dev *dev, const char *name)
{
	return take(dev, name, DVSHARE_TYPE_VAR);
}

struct dvshare_obj *pmd_obj(struct dvshare_dev *dev, const char *name)
{
	return take(dev, name, DVSHARE_TYPE_OBJ);
}

void pmd_put_var(struct dvshare_var *v)
{
	if (!keeps())
		dvshare_var_release(v);
}

void pmd_put_obj(struct dvshare_obj *o)
{
	if (!keeps())
		dvshare_obj_release(o);
}

void pmd_held_drop(struct dvshare_dev *dev)
{
	for (unsigned int i = 0; i < PMD_HELD_MAX; i++)
		if (held[i].h != NULL && (dev == NULL || held[i].dev == dev))
			drop(&held[i]);
}

const char *pmd_primary_state_str(uint32_t state)
{
	return state == DVSHARE_PRIMARY_DIED	 ? "died"
	       : state == DVSHARE_PRIMARY_EXITED ? "exited"
						 : "alive";
}
