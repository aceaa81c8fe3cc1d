/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Publishing many objects at once, for the benchmark, the demo and the
 * multi-process tests: object i is named <prefix><i>; a quarter are VARs, a
 * quarter UMEMs (over one static page), a quarter flow counters, a quarter PDs;
 * each carries its index as 8 bytes of metadata.
 *
 * A device has a few thousand VAR pages (the software device 4096), so a
 * registry of 100,000 objects cannot be a quarter VARs: the _vars variants
 * take a VAR budget, past which object i (i % 4 == 0) is a UMEM, a flow
 * counter or a PD in turn (app_bulk_kind()).
 */
#ifndef DVS_APP_BULK_H
#define DVS_APP_BULK_H

#include "dvshare.h"

/* What object i is. */
enum app_bulk_kind {
	APP_BULK_VAR = 0,
	APP_BULK_UMEM = 1,
	APP_BULK_COUNTER = 2,
	APP_BULK_PD = 3,
};

/* No VAR budget: a quarter of the objects are VARs, however many. */
#define APP_BULK_ALL_VARS 0xffffffffu

/* The kind of object @i when at most @max_vars VARs are published:
 * i % 4 for the first 4 * max_vars objects, then a VAR's place goes to a
 * UMEM, a flow counter and a PD in turn. */
enum app_bulk_kind app_bulk_kind(unsigned int i, unsigned int max_vars);

/* Publish objects [first, first + n). 0, or a negative errno. */
int app_bulk_publish(struct dvshare_dev *dev, const char *prefix, unsigned int first,
		     unsigned int n);

/* As app_bulk_publish(), with VARs only for indexes below 4 * @max_vars
 * (app_bulk_kind()). 0, or a negative errno. */
int app_bulk_publish_vars(struct dvshare_dev *dev, const char *prefix, unsigned int first,
			  unsigned int n, unsigned int max_vars);

/* Look objects [first, first + n) up and check type and metadata.
 * 0, or a negative errno (-EBADMSG: wrong metadata). */
int app_bulk_check(struct dvshare_dev *dev, const char *prefix, unsigned int first,
		   unsigned int n);

/* As app_bulk_check(), for objects published with app_bulk_publish_vars(). */
int app_bulk_check_vars(struct dvshare_dev *dev, const char *prefix, unsigned int first,
			unsigned int n, unsigned int max_vars);

#endif
