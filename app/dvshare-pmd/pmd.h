/* SPDX-License-Identifier: BSD-3-Clause */
/* dvshare-pmd: a testpmd-like demo of dvshare, primary or secondary. */
#ifndef DVS_PMD_H
#define DVS_PMD_H

#include <stdint.h>

#include <cmdline_parse.h>
#include <cmdline_parse_string.h>

#include "dvshare.h"

/* One result layout for every command: words, numbers, free text. The
 * catch-all instruction puts the refused line in @text and cmdline's
 * parse status in @status. */
struct pmd_res {
	cmdline_fixed_string_t w[4];
	uint32_t n[3];
	int status;
	cmdline_multi_string_t text;
};

enum pmd_cmd {
	PMD_SHOW_DEVICES, PMD_SHOW_DEVICE, PMD_SHOW_OBJECTS, PMD_SHOW_OBJECTS_DEV,
	PMD_SHOW_PEERS, PMD_SHOW_ENGINE, PMD_STATS, PMD_VAR_ALLOC, PMD_OBJ_CREATE,
	PMD_UMEM_REG, PMD_DESTROY, PMD_DESTROY_TIMEOUT, PMD_RING, PMD_RING_COUNT,
	PMD_RING_PACED, PMD_QUERY, PMD_MODIFY, PMD_MODIFY_INDEX, PMD_COUNTER_CREATE,
	PMD_CAPS, PMD_SHOW_CAPS, PMD_META_SET, PMD_META_GET, PMD_HELP, PMD_HELP_SECTION, PMD_QUIT,
	PMD_PORT_CREATE, PMD_PORT_CREATE_SIZE, PMD_PORT_DESTROY, PMD_STEER, PMD_STEER_COUNTER,
	PMD_SET_FWD, PMD_SET_BURST, PMD_SET_TXPKTS, PMD_START, PMD_START_TX_FIRST,
	PMD_START_TX_FIRST_N, PMD_STOP, PMD_SHOW_PORT_STATS, PMD_SHOW_PORT_STATS_ALL,
	PMD_REFUSED, /* the catch-all: a line no command takes */
};

/* Run one command; 0 or a negative errno (already reported in one line). */
int pmd_run(enum pmd_cmd cmd, const struct pmd_res *r);

/* pmd_cmds.c: commands also reachable from the command line options. */
int pmd_var_alloc(const char *dev, const char *name);
int pmd_virtq_create(const char *dev, const char *name, uint32_t qidx, uint32_t qsize,
		     const char *meta);
int pmd_umem_reg(const char *dev, const char *name, uint32_t size);
int pmd_counter_create(const char *dev, const char *name);
/* Print "error: <what>: <reason>" (one line); returns @rc. */
int pmd_error(int rc, const char *what, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* pmd_fwd.c: ports and forwarding, as testpmd's. */
int pmd_port_create(const char *dev, uint32_t port, uint32_t size);
int pmd_port_destroy(uint32_t port);
int pmd_steer(const char *dev, uint32_t tx, uint32_t rx, const char *counter);
int pmd_set_fwd(const char *mode);
int pmd_set_burst(uint32_t n);
int pmd_set_txpkts(uint32_t n);
int pmd_start(int tx_first, uint32_t bursts);
int pmd_stop(void);
int pmd_show_port_stats(const char *which);
/* Stop forwarding and destroy this process's ports (before the close). */
void pmd_fwd_shutdown(void);

/* pmd_show.c: the show commands, one aligned table each. */
int pmd_show_devices(const char *dev);
int pmd_show_objects(const char *dev);
int pmd_show_engine(void);
int pmd_show_peers(void);
int pmd_show_stats(void);
int pmd_show_caps(const char *dev);

/* pmd_objects.c: what a name is, on which device. */
struct pmd_obj {
	struct dvshare_dev *dev;
	enum dvshare_type type;
	uint32_t id;
	uint16_t obj_type;
	uint16_t create_op;
	uint64_t size;
};

enum pmd_kind {
	PMD_KIND_VAR, PMD_KIND_UMEM, PMD_KIND_VIRTQ, PMD_KIND_PD, PMD_KIND_COUNTER,
	PMD_KIND_DEVX, /* a DEVX object of another kind */
};

/* Object @name on the first device (in opening order) that has it:
 * 0, or -ENOENT. */
int pmd_find(const char *name, struct pmd_obj *o);
enum pmd_kind pmd_kind_of(const struct pmd_obj *o);
/* "var", "umem", "virtq", "pd", "counter", "obj": the TYPE column. */
const char *pmd_kind_short(enum pmd_kind k);
/* "a VAR page", "a DEVX object (VIRTIO_NET_Q)", ...: for error lines. */
const char *pmd_kind_long(enum pmd_kind k);
/* The device named @name, or NULL after "error: <what>: no device <name>". */
struct dvshare_dev *pmd_dev(const char *what, const char *name);
/* "simN": the library's rule for the software device (doc/sim.md). */
int pmd_is_sim(const char *dev);

/* Handles to use now (pmd_held.c): a secondary keeps the ones it took, so
 * held objects keep working after its primary is gone; give each back
 * with pmd_put_*() (a no-op for a kept one). NULL with rte_errno. */
struct dvshare_var *pmd_var(struct dvshare_dev *dev, const char *name);
struct dvshare_obj *pmd_obj(struct dvshare_dev *dev, const char *name);
void pmd_put_var(struct dvshare_var *v);
void pmd_put_obj(struct dvshare_obj *o);
/* Let go of the kept handles of @dev (NULL: of every device). */
void pmd_held_drop(struct dvshare_dev *dev);
/* "alive", "exited", "died": enum dvshare_primary_state. */
const char *pmd_primary_state_str(uint32_t state);

/* The engine of each device, as --engine started it. */
enum pmd_engine_state {
	PMD_ENGINE_ON, PMD_ENGINE_OFF, PMD_ENGINE_NIC, PMD_ENGINE_UNKNOWN,
};
int pmd_engine_start(const char *dev);
/* The state and, when on, the service id. */
enum pmd_engine_state pmd_engine_state(struct dvshare_dev *d, uint32_t *service_id);
const char *pmd_engine_state_str(enum pmd_engine_state s);

/* Names for TAB completion. */
enum pmd_names {
	PMD_NAMES_DEV,     /* devices */
	PMD_NAMES_DEV_ALL, /* devices, and "all" (testpmd's "show device info all") */
	PMD_NAMES_ANY,     /* every object */
	PMD_NAMES_VAR,     /* VAR pages */
	PMD_NAMES_QUERY,   /* what "query" takes: VIRTIO_NET_Qs and flow counters */
	PMD_NAMES_VIRTQ,   /* VIRTIO_NET_Qs */
};
/* Fill @out (room for @max names of DVSHARE_NAME_MAX) with the live
 * names of kind @which; returns how many there are (may exceed @max). */
int pmd_names(enum pmd_names which, char (*out)[DVSHARE_NAME_MAX], int max);

/* pmd_table.c: an aligned table with a header row, or "<what>: none". */
#define PMD_TABLE_MAX_COLS 16
struct pmd_table {
	unsigned int ncols;
	const char *const *head;
	char **cells; /* nrows * ncols, each malloc'd */
	unsigned int nrows;
	unsigned int cap;
	unsigned int col; /* next cell of the current row */
};
void pmd_table_init(struct pmd_table *t, const char *const *head, unsigned int ncols);
void pmd_table_row(struct pmd_table *t);
void pmd_table_cell(struct pmd_table *t, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* Print and free; @what names the rows for the empty case. */
void pmd_table_print(struct pmd_table *t, const char *what);

/* pmd_help.c */
void pmd_help(const char *section);
/* "a | b | c" into @buf: the syntax of every command whose first word is
 * @line's; how many there are. */
int pmd_usage_of(const char *line, char *buf, size_t len);
void pmd_usage(const char *prog);
void pmd_print_version(void);

/* pmd_cmdline.c: a line, the interactive prompt. */
int pmd_parse_line(const char *line);
void pmd_interact(void);

/* Set by "quit" and by a signal; failures counted for "bye". */
extern volatile int pmd_quit;

/* The command reference from the help table, its one source: "md" (the
 * table of doc/pmd.md) or "man" (the manual page's COMMANDS entries).
 * 0, or -EINVAL for another format (said). */
int pmd_reference(const char *format);
/* 1 when @syntax is a command of the help table. */
int pmd_help_knows(const char *syntax);
/* 0 when every cmdline instance's help string is a syntax of the help
 * table, else -EINVAL after a line naming each that is not. */
int pmd_cmdline_check(void);

/* SIGINT/SIGTERM (pmd_signal.c): set up before rte_eal_init() (blocked,
 * taken only while waiting); wait until @fd is readable: 1, 0 when a
 * signal asked to quit, -1 on error; take pending ones now; the signal
 * that asked to quit, or 0. */
void pmd_signals_setup(void);
int pmd_wait_input(int fd);
void pmd_signals_poll(void);
int pmd_quit_signal(void);
extern int pmd_failures;
/* --echo: each command read (not typed) is printed after the prompt. */
extern int pmd_echo;

#endif
