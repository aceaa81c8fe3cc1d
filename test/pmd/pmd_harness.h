/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The pmd suites' scene: dvshare-pmd processes started with a file prefix,
 * their output read line by line (test_pmd.c, test_telemetry.c), run to
 * the end and read whole, or driven on a pseudo-terminal as a person at
 * the prompt drives them.
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

/* ------------------------------------------------------------ tables */

/* @line's blank-separated fields start with those of @fields, whole
 * fields each ("sim0 db0 var" matches "sim0  db0  var  0 ..."). */
int fields_match(const char *line, const char *fields);
/* Read lines until one whose fields start with @fields; that line, or NULL. */
const char *expect_row(struct peer *p, const char *fields);
/* @row's fields start where @header's do: an aligned table row. */
int row_aligned(const char *header, const char *row);

/* ------------------------------------------------- whole runs, captured */

/* How a pmd is started. */
enum {
	PMD_PRIMARY = 1 << 0,
	PMD_TELEMETRY = 1 << 1,
	PMD_NO_SERVICE_CORE = 1 << 2, /* primary: "show engine" runs the engine */
};

/* What a finished process printed: stdout and stderr apart, '\r' gone. */
struct run_output {
	char *out;
	char *err;
	int status; /* exit status, 128 + signal, or -1 */
};

/* Run @args (NULL-terminated) to the end with @input (may be NULL) on its
 * standard input. 0, or -1 when it could not start or did not end. */
int run_capture(char *const args[], const char *input, struct run_output *o);
/* The same for a pmd on @prefix (@flags: PMD_*), @extra after "--". */
int pmd_capture(const char *prefix, int flags, const char *input, const char *const extra[],
		struct run_output *o);
void run_output_free(struct run_output *o);
/* Lines of @text starting with @prefix. */
int count_lines(const char *text, const char *prefix);
/* The first line of @text starting with @prefix (into @buf), or NULL. */
const char *find_line(const char *text, const char *prefix, char *buf, size_t len);
/* The first line of @text whose fields start with @fields, or NULL. */
const char *find_row(const char *text, const char *fields, char *buf, size_t len);

/* ------------------------------------------------------ pseudo-terminal */

/* A pmd at its prompt on a pseudo-terminal: what it wrote is kept whole
 * in @log (with the echo of what was typed and cmdline's escapes). */
struct term {
	struct peer p;
	char *log;
	size_t len;
	size_t cap;
	size_t seen; /* term_expect() looked up to here */
};

int term_start(struct term *t, const char *prefix, int flags, const char *const extra[]);
/* Type @keys ("\t" is TAB, "\r" is Enter). */
int term_type(struct term *t, const char *keys);
/* Read until @text shows up after what was seen; 0, or -1 (EOF or the
 * harness timeout). */
int term_expect(struct term *t, const char *text);
/* Read to the end and reap it: its exit status. */
int term_finish(struct term *t);
void term_free(struct term *t);

#endif
