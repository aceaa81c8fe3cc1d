/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Publishing many objects at once, for the benchmark, the demo and the
 * multi-process tests: object i is named <prefix><i>; a quarter are VARs, a
 * quarter UMEMs (over one static page), a quarter flow counters, a quarter PDs;
 * each carries its index as 8 bytes of metadata.
 */
#ifndef DVS_APP_BULK_H
#define DVS_APP_BULK_H

#include "dvshare.h"

/* Publish objects [first, first + n). 0, or a negative errno. */
int app_bulk_publish(struct dvshare_dev *dev, const char *prefix, unsigned int first,
		     unsigned int n);

/* Look objects [first, first + n) up and check type and metadata.
 * 0, or a negative errno (-EBADMSG: wrong metadata). */
int app_bulk_check(struct dvshare_dev *dev, const char *prefix, unsigned int first,
		   unsigned int n);

#endif
