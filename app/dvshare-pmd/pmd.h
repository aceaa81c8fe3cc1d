/* SPDX-License-Identifier: BSD-3-Clause */
/* dvshare-pmd: a testpmd-like demo of dvshare, primary or secondary. */
#ifndef DVS_PMD_H
#define DVS_PMD_H

#include <stdint.h>

#include <cmdline_parse.h>
#include <cmdline_parse_string.h>

/* One result layout for every command: words, numbers, free text. */
struct pmd_res {
	cmdline_fixed_string_t w[4];
	uint32_t n[3];
	cmdline_multi_string_t text;
};

enum pmd_cmd {
	PMD_SHOW_DEVICES, PMD_SHOW_OBJECTS, PMD_SHOW_OBJECTS_DEV, PMD_SHOW_PEERS,
	PMD_SHOW_ENGINE, PMD_STATS, PMD_VAR_ALLOC, PMD_OBJ_CREATE, PMD_UMEM_REG,
	PMD_DESTROY, PMD_DESTROY_TIMEOUT, PMD_RING, PMD_RING_COUNT, PMD_RING_PACED,
	PMD_QUERY, PMD_MODIFY, PMD_MODIFY_INDEX, PMD_COUNTER_CREATE, PMD_CAPS,
	PMD_META_SET, PMD_META_GET, PMD_HELP, PMD_QUIT,
};

/* Run one command; 0 or a negative errno (already reported in one line). */
int pmd_run(enum pmd_cmd cmd, const struct pmd_res *r);

/* Commands also reachable from the command line options. */
int pmd_var_alloc(const char *dev, const char *name);
int pmd_virtq_create(const char *dev, const char *name, uint32_t qidx, uint32_t qsize,
		     const char *meta);
int pmd_umem_reg(const char *dev, const char *name, uint32_t size);
int pmd_counter_create(const char *dev, const char *name);

/* The cmdline side: the command table, a line, the interactive prompt. */
extern cmdline_parse_ctx_t pmd_ctx[];
int pmd_parse_line(const char *line);
void pmd_interact(void);

/* Set by "quit" and by any failing scripted command. */
extern volatile int pmd_quit;
extern int pmd_failures;

#endif
