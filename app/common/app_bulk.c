/* SPDX-License-Identifier: BSD-3-Clause */
#include "app_bulk.h"

#include <errno.h>
#include <stdio.h>

#include <rte_errno.h>

#include "app_objects.h"

static char umem_page[4096] __attribute__((aligned(4096)));

enum app_bulk_kind app_bulk_kind(unsigned int i, unsigned int max_vars)
{
	if (i % 4 != 0 || i / 4 < max_vars)
		return (enum app_bulk_kind)(i % 4);
	return (enum app_bulk_kind)(APP_BULK_UMEM + (i / 4 - max_vars) % 3);
}

static int publish_one(struct dvshare_dev *dev, const char *name, enum app_bulk_kind kind)
{
	uint8_t in[DVSHARE_PRM_HDR_SIZE], out[DVSHARE_PRM_HDR_SIZE];

	switch (kind) {
	case APP_BULK_VAR: {
		struct dvshare_var *v = dvshare_var_alloc(dev, name, 0);
		dvshare_var_release(v);
		return v != NULL ? 0 : -rte_errno;
	}
	case APP_BULK_UMEM: {
		struct dvshare_umem *u = dvshare_umem_reg(dev, name, umem_page, sizeof(umem_page), 0);
		dvshare_umem_release(u);
		return u != NULL ? 0 : -rte_errno;
	}
	case APP_BULK_COUNTER:
		return app_counter_create(dev, name, NULL);
	default: {
		struct dvshare_obj *o = dvshare_obj_create(dev, name, in, dvshare_prm_alloc_pd(in), out,
							   sizeof(out));
		dvshare_obj_release(o);
		return o != NULL ? 0 : -rte_errno;
	}
	}
}

static int check_one(struct dvshare_dev *dev, const char *name, enum app_bulk_kind kind)
{
	int ok;

	switch (kind) {
	case APP_BULK_VAR: {
		struct dvshare_var *v = dvshare_var_lookup(dev, name);
		ok = v != NULL && dvshare_var_doorbell(v) != NULL;
		dvshare_var_release(v);
		break;
	}
	case APP_BULK_UMEM: {
		struct dvshare_umem *u = dvshare_umem_lookup(dev, name);
		ok = u != NULL;
		dvshare_umem_release(u);
		break;
	}
	default: {
		struct dvshare_obj *o = dvshare_obj_lookup(dev, name);
		ok = o != NULL;
		dvshare_obj_release(o);
		break;
	}
	}
	return ok ? 0 : -rte_errno;
}

int app_bulk_publish_vars(struct dvshare_dev *dev, const char *prefix, unsigned int first,
			  unsigned int n, unsigned int max_vars)
{
	char name[DVSHARE_NAME_MAX];

	for (unsigned int i = first; i < first + n; i++) {
		uint64_t meta = i;
		int rc;

		snprintf(name, sizeof(name), "%s%u", prefix, i);
		rc = publish_one(dev, name, app_bulk_kind(i, max_vars));
		if (rc == 0)
			rc = dvshare_set_meta(dev, name, &meta, sizeof(meta));
		if (rc != 0)
			return rc;
	}
	return 0;
}

int app_bulk_check_vars(struct dvshare_dev *dev, const char *prefix, unsigned int first,
			unsigned int n, unsigned int max_vars)
{
	char name[DVSHARE_NAME_MAX];

	for (unsigned int i = first; i < first + n; i++) {
		uint64_t meta = ~0ull;
		int rc;

		snprintf(name, sizeof(name), "%s%u", prefix, i);
		rc = check_one(dev, name, app_bulk_kind(i, max_vars));
		if (rc != 0)
			return rc;
		if (dvshare_get_meta(dev, name, &meta, sizeof(meta)) != (int)sizeof(meta) ||
		    meta != i)
			return -EBADMSG;
	}
	return 0;
}

int app_bulk_publish(struct dvshare_dev *dev, const char *prefix, unsigned int first,
		     unsigned int n)
{
	return app_bulk_publish_vars(dev, prefix, first, n, APP_BULK_ALL_VARS);
}

int app_bulk_check(struct dvshare_dev *dev, const char *prefix, unsigned int first,
		   unsigned int n)
{
	return app_bulk_check_vars(dev, prefix, first, n, APP_BULK_ALL_VARS);
}
