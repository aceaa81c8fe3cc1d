/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pmd suites' scene: dvshare-pmd processes started with a file prefix,
 * their output read line by line (test_pmd.c, test_telemetry.c).
 */
#ifndef DVS_PMD_HARNESS_H
#define DVS_PMD_HARNESS_H

#include "mp_harness.h"

/* The dvshare-pmd under test (argv[1]). */
extern const char *pmd;

/* A pmd process whose every output line is a reply line; @extra are its
 * application options (after "--"), NULL-terminated. */
int pmd_start(struct peer *p, const char *prefix, int primary, int telemetry,
	      const char *const extra[]);
/* Read lines until one starts with @prefix; that line, or NULL. */
const char *expect_line(struct peer *p, const char *prefix);
int send_line(struct peer *p, const char *line);
/* A primary with a VAR, a VIRTIO_NET_Q (with metadata; its PD and three
 * UMEMs come with it), a flow counter and the engine. */
int start_primary(struct peer *p, const char *prefix, int telemetry);
/* "quit", then the goodbye line and exit status 0. */
void stop(struct peer *p);

#endif
