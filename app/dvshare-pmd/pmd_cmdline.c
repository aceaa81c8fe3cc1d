/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command table for librte_cmdline: keywords, device names and object
 * names complete with TAB (names read from the live registry each time),
 * history comes with the line editor. The same table parses --cmd,
 * --cmdline-file and piped lines.
 *
 * A last, catch-all instruction takes every line no command takes, so an
 * unknown command or bad arguments reach dispatch() like any command: one
 * counted "error:" line, at the prompt as in a script (cmdline would
 * otherwise print its own uncounted "Command not found").
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmdline.h>
#include <cmdline_parse_num.h>
#include <cmdline_socket.h>

#include "pmd.h"

/* cmdline's line editor holds 512 characters; scripts get the same. */
#define PMD_LINE_MAX 512

/* ----------------------------------------------------------- name token */

/* A device or object name: any word parses (the command then says what
 * is wrong with it); TAB offers the live names of the kind the command
 * takes. */
struct token_name {
	struct cmdline_token_hdr hdr;
	enum pmd_names names;
};

static int name_parse(cmdline_parse_token_hdr_t *tk, const char *buf, void *res,
		      unsigned int ressize)
{
	unsigned int len = 0;

	(void)tk;
	while (!cmdline_isendoftoken(buf[len]))
		len++;
	if (len == 0 || len >= STR_TOKEN_SIZE)
		return -1;
	if (res != NULL) {
		if (ressize < len + 1)
			return -1;
		memcpy(res, buf, len);
		((char *)res)[len] = '\0';
	}
	return (int)len;
}

/* The names of the last complete_get_nb(): cmdline asks for the count,
 * then for each element, so one registry walk serves a TAB. */
static char (*snap)[DVSHARE_NAME_MAX];
static int snap_n, snap_cap;

static int name_complete_nb(cmdline_parse_token_hdr_t *tk)
{
	const struct token_name *t = (const struct token_name *)tk;
	int n = pmd_names(t->names, snap, snap_cap);

	if (n > snap_cap) {
		void *p = realloc(snap, sizeof(*snap) * (size_t)n);

		if (p == NULL)
			return snap_n = 0;
		snap = p;
		snap_cap = n;
		n = pmd_names(t->names, snap, snap_cap);
		n = n < snap_cap ? n : snap_cap;
	}
	return snap_n = n;
}

static int name_complete_elt(cmdline_parse_token_hdr_t *tk, int idx, char *dst,
			     unsigned int size)
{
	(void)tk;
	if (idx < 0 || idx >= snap_n || strlen(snap[idx]) + 1 > size)
		return -1;
	snprintf(dst, size, "%s", snap[idx]);
	return 0;
}

static int name_help(cmdline_parse_token_hdr_t *tk, char *dst, unsigned int size)
{
	static const char *const what[] = {
		[PMD_NAMES_DEV] = "device",
		[PMD_NAMES_DEV_ALL] = "device (or all)",
		[PMD_NAMES_ANY] = "object",
		[PMD_NAMES_VAR] = "VAR page",
		[PMD_NAMES_QUERY] = "VIRTIO_NET_Q or flow counter",
		[PMD_NAMES_VIRTQ] = "VIRTIO_NET_Q",
	};

	snprintf(dst, size, "%s name", what[((const struct token_name *)tk)->names]);
	return 0;
}

static struct cmdline_token_ops name_ops = {
	.parse = name_parse,
	.complete_get_nb = name_complete_nb,
	.complete_get_elt = name_complete_elt,
	.get_help = name_help,
};

/* -------------------------------------------------------- catch-all token */

static struct cmdline *commands_only; /* the table without the catch-all */

/* The whole line, if no command takes it: cmdline_parse_check() on the
 * table without this instruction says so, and why (into @res, a whole
 * struct pmd_res: the line in text, the reason in status). Never during
 * completion (no @res). */
static int rest_parse(cmdline_parse_token_hdr_t *tk, const char *buf, void *res,
		      unsigned int ressize)
{
	struct pmd_res *r = res;
	size_t len = strcspn(buf, "\r\n");
	char line[PMD_LINE_MAX + 2];
	int rc;

	(void)tk;
	if (r == NULL || commands_only == NULL || ressize < sizeof(*r) ||
	    len + 2 > sizeof(line))
		return -1;
	memcpy(line, buf, len);
	memcpy(line + len, "\n", 2);
	rc = cmdline_parse_check(commands_only, line);
	if (rc >= 0)
		return -1;
	line[strcspn(line, "#\n")] = '\0'; /* the command, as cmdline reads it */
	len = strlen(line);
	while (len > 0 && (line[len - 1] == ' ' || line[len - 1] == '\t'))
		line[--len] = '\0';
	snprintf(r->text, sizeof(r->text), "%s", line);
	r->status = rc;
	return (int)strcspn(buf, "\r\n");
}

/* Offers nothing to complete: one "choice" that never matches keeps the
 * catch-all out of TAB and "?" listings. */
static int rest_complete_nb(cmdline_parse_token_hdr_t *tk)
{
	(void)tk;
	return 1;
}

static int rest_complete_elt(cmdline_parse_token_hdr_t *tk, int idx, char *dst,
			     unsigned int size)
{
	(void)tk;
	(void)idx;
	(void)dst;
	(void)size;
	return -1;
}

static struct cmdline_token_ops rest_ops = {
	.parse = rest_parse,
	.complete_get_nb = rest_complete_nb,
	.complete_get_elt = rest_complete_elt,
};

/* One line: why cmdline took no command, with the usage to look at. */
static void refused(const struct pmd_res *r)
{
	char usage[1024];

	if (r->status == CMDLINE_PARSE_BAD_ARGS && pmd_usage_of(r->text, usage, sizeof(usage)) > 0)
		pmd_error(-EINVAL, r->text, "bad arguments (usage: %s)", usage);
	else if (r->status == CMDLINE_PARSE_BAD_ARGS)
		pmd_error(-EINVAL, r->text, "bad arguments (try \"help\")");
	else if (r->status == CMDLINE_PARSE_AMBIGUOUS)
		pmd_error(-EINVAL, r->text, "ambiguous command (try \"help\")");
	else
		pmd_error(-EINVAL, r->text, "unknown command (try \"help\")");
}

/* --------------------------------------------------------------- table */

static void dispatch(void *parsed, struct cmdline *cl, void *data)
{
	enum pmd_cmd cmd = (enum pmd_cmd)(uintptr_t)data;

	if (cmd == PMD_REFUSED)
		refused(parsed);
	if (pmd_run(cmd, parsed) != 0)
		pmd_failures++;
	if (pmd_quit && cl != NULL)
		cmdline_quit(cl);
}

#define KW(i, s) TOKEN_STRING_INITIALIZER(struct pmd_res, w[i], s)
#define WORD(i) TOKEN_STRING_INITIALIZER(struct pmd_res, w[i], NULL)
#define NAME(i, which) { { &name_ops, offsetof(struct pmd_res, w[i]) }, (which) }
#define NUM(i) TOKEN_NUM_INITIALIZER(struct pmd_res, n[i], RTE_UINT32)
#define TEXT TOKEN_STRING_INITIALIZER(struct pmd_res, text, TOKEN_STRING_MULTI)

static cmdline_parse_token_string_t t_show = KW(0, "show");
static cmdline_parse_token_string_t t_device = KW(1, "device");
static cmdline_parse_token_string_t t_info = KW(2, "info");
static cmdline_parse_token_string_t t_devices = KW(1, "devices");
static cmdline_parse_token_string_t t_objects = KW(1, "objects");
static cmdline_parse_token_string_t t_peers = KW(1, "peers");
static cmdline_parse_token_string_t t_engine = KW(1, "engine");
static cmdline_parse_token_string_t t_stats = KW(0, "stats");
static cmdline_parse_token_string_t t_var = KW(0, "var");
static cmdline_parse_token_string_t t_alloc = KW(1, "alloc");
static cmdline_parse_token_string_t t_obj = KW(0, "obj");
static cmdline_parse_token_string_t t_create = KW(1, "create");
static cmdline_parse_token_string_t t_umem = KW(0, "umem");
static cmdline_parse_token_string_t t_reg = KW(1, "reg");
static cmdline_parse_token_string_t t_destroy = KW(0, "destroy");
static cmdline_parse_token_string_t t_ring = KW(0, "ring");
static cmdline_parse_token_string_t t_query = KW(0, "query");
static cmdline_parse_token_string_t t_modify = KW(0, "modify");
static cmdline_parse_token_string_t t_meta = KW(0, "meta");
static cmdline_parse_token_string_t t_set = KW(1, "set");
static cmdline_parse_token_string_t t_get = KW(1, "get");
static cmdline_parse_token_string_t t_counter = KW(0, "counter");
static cmdline_parse_token_string_t t_caps = KW(0, "caps");
static cmdline_parse_token_string_t t_state = KW(2, "init#rdy#suspend#err");
static cmdline_parse_token_string_t t_index = KW(2, "avail#used");
static cmdline_parse_token_string_t t_help = KW(0, "help");
static cmdline_parse_token_string_t t_section =
	KW(1, "show#objects#doorbells#queues#ports#session#all");
static cmdline_parse_token_string_t t_quit = KW(0, "quit");
static cmdline_parse_token_string_t t_new3 = WORD(3); /* a name not made yet */
static cmdline_parse_token_string_t t_port = KW(0, "port");
static cmdline_parse_token_string_t t_port1 = KW(1, "port");
static cmdline_parse_token_string_t t_destroy1 = KW(1, "destroy");
static cmdline_parse_token_string_t t_steer = KW(0, "steer");
static cmdline_parse_token_string_t t_set0 = KW(0, "set");
static cmdline_parse_token_string_t t_fwd = KW(1, "fwd");
static cmdline_parse_token_string_t t_fwd_mode = KW(2, "io#txonly#rxonly#macswap");
static cmdline_parse_token_string_t t_burst = KW(1, "burst");
static cmdline_parse_token_string_t t_txpkts = KW(1, "txpkts");
static cmdline_parse_token_string_t t_start = KW(0, "start");
static cmdline_parse_token_string_t t_tx_first = KW(1, "tx_first");
static cmdline_parse_token_string_t t_stop = KW(0, "stop");
static cmdline_parse_token_string_t t_stats2 = KW(2, "stats");
static cmdline_parse_token_string_t t_stats1 = KW(1, "stats"); /* testpmd's "show ..." */
static cmdline_parse_token_string_t t_caps1 = KW(1, "caps");
static cmdline_parse_token_string_t t_which3 = WORD(3); /* a port number or "all" */
static struct token_name t_dev1 = NAME(1, PMD_NAMES_DEV);
static struct token_name t_dev2 = NAME(2, PMD_NAMES_DEV);
static struct token_name t_dev3 = NAME(3, PMD_NAMES_DEV_ALL);
static struct token_name t_any2 = NAME(2, PMD_NAMES_ANY);
static struct token_name t_any3 = NAME(3, PMD_NAMES_ANY);
static struct token_name t_var1 = NAME(1, PMD_NAMES_VAR);
static struct token_name t_query1 = NAME(1, PMD_NAMES_QUERY);
static struct token_name t_virtq1 = NAME(1, PMD_NAMES_VIRTQ);
static cmdline_parse_token_num_t t_n0 = NUM(0);
static cmdline_parse_token_num_t t_n1 = NUM(1);
static cmdline_parse_token_num_t t_n2 = NUM(2);
static cmdline_parse_token_string_t t_text = TEXT;
/* The catch-all fills the whole result: the line and the parse status. */
static struct cmdline_token_hdr t_rest = { &rest_ops, 0 };

/* cmdline's own "?" listing shows help_str: the syntax, as "help" does. */
#define TOK(t) ((cmdline_parse_token_hdr_t *)&(t))
#define INST(id, cmd, help, ...)                                             \
	static cmdline_parse_inst_t id = {                                   \
		.f = dispatch,                                               \
		.data = (void *)(uintptr_t)(cmd),                            \
		.help_str = help,                                            \
		.tokens = { __VA_ARGS__, NULL },                             \
	}

INST(c_show_device_all, PMD_SHOW_DEVICES, "show device info [dev|all]",
     TOK(t_show), TOK(t_device), TOK(t_info));
INST(c_show_device, PMD_SHOW_DEVICE, "show device info [dev|all]",
     TOK(t_show), TOK(t_device), TOK(t_info), TOK(t_dev3));
INST(c_show_devices, PMD_SHOW_DEVICES, "show devices",
     TOK(t_show), TOK(t_devices));
INST(c_show_objects, PMD_SHOW_OBJECTS, "show objects [dev]", TOK(t_show), TOK(t_objects));
INST(c_show_objects_dev, PMD_SHOW_OBJECTS_DEV, "show objects [dev]",
     TOK(t_show), TOK(t_objects), TOK(t_dev2));
INST(c_show_peers, PMD_SHOW_PEERS, "show peers", TOK(t_show), TOK(t_peers));
INST(c_show_engine, PMD_SHOW_ENGINE, "show engine", TOK(t_show), TOK(t_engine));
INST(c_stats, PMD_STATS, "stats", TOK(t_stats));
INST(c_caps, PMD_CAPS, "caps <dev>", TOK(t_caps), TOK(t_dev1));
INST(c_show_stats, PMD_STATS, "show stats", TOK(t_show), TOK(t_stats1));
INST(c_show_caps, PMD_SHOW_CAPS, "show caps <dev>", TOK(t_show), TOK(t_caps1), TOK(t_dev2));
INST(c_var_alloc, PMD_VAR_ALLOC, "var alloc <dev> <name>",
     TOK(t_var), TOK(t_alloc), TOK(t_dev2), TOK(t_new3));
INST(c_obj_create, PMD_OBJ_CREATE, "obj create <dev> <name> <qidx> <qsize>",
     TOK(t_obj), TOK(t_create), TOK(t_dev2), TOK(t_new3), TOK(t_n0), TOK(t_n1));
INST(c_counter_create, PMD_COUNTER_CREATE, "counter create <dev> <name>",
     TOK(t_counter), TOK(t_create), TOK(t_dev2), TOK(t_new3));
INST(c_umem_reg, PMD_UMEM_REG, "umem reg <dev> <name> <size>",
     TOK(t_umem), TOK(t_reg), TOK(t_dev2), TOK(t_new3), TOK(t_n0));
INST(c_destroy, PMD_DESTROY, "destroy <dev> <name> [timeout_ms]",
     TOK(t_destroy), TOK(t_dev1), TOK(t_any2));
INST(c_destroy_t, PMD_DESTROY_TIMEOUT, "destroy <dev> <name> [timeout_ms]",
     TOK(t_destroy), TOK(t_dev1), TOK(t_any2), TOK(t_n0));
INST(c_meta_set, PMD_META_SET, "meta set <dev> <name> <text>",
     TOK(t_meta), TOK(t_set), TOK(t_dev2), TOK(t_any3), TOK(t_text));
INST(c_meta_get, PMD_META_GET, "meta get <dev> <name>",
     TOK(t_meta), TOK(t_get), TOK(t_dev2), TOK(t_any3));
INST(c_ring, PMD_RING, "ring <var> <value> [count [interval_us]]",
     TOK(t_ring), TOK(t_var1), TOK(t_n0));
INST(c_ring_n, PMD_RING_COUNT, "ring <var> <value> [count [interval_us]]",
     TOK(t_ring), TOK(t_var1), TOK(t_n0), TOK(t_n1));
INST(c_ring_paced, PMD_RING_PACED, "ring <var> <value> [count [interval_us]]",
     TOK(t_ring), TOK(t_var1), TOK(t_n0), TOK(t_n1), TOK(t_n2));
INST(c_query, PMD_QUERY, "query <obj>", TOK(t_query), TOK(t_query1));
INST(c_modify, PMD_MODIFY, "modify <obj> <init|rdy|suspend|err>",
     TOK(t_modify), TOK(t_virtq1), TOK(t_state));
INST(c_modify_index, PMD_MODIFY_INDEX, "modify <obj> <avail|used> <n>",
     TOK(t_modify), TOK(t_virtq1), TOK(t_index), TOK(t_n0));
INST(c_help, PMD_HELP, "help [show|objects|doorbells|queues|ports|session|all]", TOK(t_help));
INST(c_help_section, PMD_HELP_SECTION, "help [show|objects|doorbells|queues|ports|session|all]",
     TOK(t_help), TOK(t_section));
INST(c_quit, PMD_QUIT, "quit", TOK(t_quit));
INST(c_port_create, PMD_PORT_CREATE, "port create <dev> <port> [qsize]",
     TOK(t_port), TOK(t_create), TOK(t_dev2), TOK(t_n0));
INST(c_port_create_n, PMD_PORT_CREATE_SIZE, "port create <dev> <port> [qsize]",
     TOK(t_port), TOK(t_create), TOK(t_dev2), TOK(t_n0), TOK(t_n1));
INST(c_port_destroy, PMD_PORT_DESTROY, "port destroy <port>",
     TOK(t_port), TOK(t_destroy1), TOK(t_n0));
INST(c_steer, PMD_STEER, "steer <dev> <txq> <rxq> [counter]",
     TOK(t_steer), TOK(t_dev1), TOK(t_n0), TOK(t_n1));
INST(c_steer_counter, PMD_STEER_COUNTER, "steer <dev> <txq> <rxq> [counter]",
     TOK(t_steer), TOK(t_dev1), TOK(t_n0), TOK(t_n1), TOK(t_any2));
INST(c_set_fwd, PMD_SET_FWD, "set fwd <io|txonly|rxonly|macswap>",
     TOK(t_set0), TOK(t_fwd), TOK(t_fwd_mode));
INST(c_set_burst, PMD_SET_BURST, "set burst <n>", TOK(t_set0), TOK(t_burst), TOK(t_n0));
INST(c_set_txpkts, PMD_SET_TXPKTS, "set txpkts <n>", TOK(t_set0), TOK(t_txpkts), TOK(t_n0));
INST(c_start, PMD_START, "start", TOK(t_start));
INST(c_start_tx_first, PMD_START_TX_FIRST, "start tx_first [n]", TOK(t_start), TOK(t_tx_first));
INST(c_start_tx_first_n, PMD_START_TX_FIRST_N, "start tx_first [n]",
     TOK(t_start), TOK(t_tx_first), TOK(t_n0));
INST(c_stop, PMD_STOP, "stop", TOK(t_stop));
INST(c_show_port_stats_all, PMD_SHOW_PORT_STATS_ALL, "show port stats [port|all]",
     TOK(t_show), TOK(t_port1), TOK(t_stats2));
INST(c_show_port_stats, PMD_SHOW_PORT_STATS, "show port stats [port|all]",
     TOK(t_show), TOK(t_port1), TOK(t_stats2), TOK(t_which3));
INST(c_refused, PMD_REFUSED, "", TOK(t_rest));

#define COMMANDS                                                             \
	&c_show_device_all, &c_show_device, &c_show_devices, &c_show_objects, \
	&c_show_objects_dev, &c_show_peers, &c_show_engine, &c_stats, &c_caps, \
	&c_show_stats, &c_show_caps,                                          \
	&c_var_alloc, &c_obj_create, &c_counter_create, &c_umem_reg,          \
	&c_destroy, &c_destroy_t, &c_meta_set, &c_meta_get, &c_ring,          \
	&c_ring_n, &c_ring_paced, &c_query, &c_modify, &c_modify_index,       \
	&c_help, &c_help_section, &c_quit, &c_port_create, &c_port_create_n,  \
	&c_port_destroy, &c_steer, &c_steer_counter, &c_set_fwd, &c_set_burst, \
	&c_set_txpkts, &c_start, &c_start_tx_first, &c_start_tx_first_n,      \
	&c_stop, &c_show_port_stats_all, &c_show_port_stats

static cmdline_parse_ctx_t commands[] = { COMMANDS, NULL };
static cmdline_parse_ctx_t commands_and_rest[] = { COMMANDS, &c_refused, NULL };

/* Each instance's help_str (what cmdline's "?" shows) is a syntax of the
 * help table (pmd_help.c): one source, checked by --reference. */
int pmd_cmdline_check(void)
{
	int bad = 0;

	for (size_t i = 0; commands[i] != NULL; i++) {
		const char *h = ((cmdline_parse_inst_t *)commands[i])->help_str;
		if (!pmd_help_knows(h)) {
			printf("error: command syntax \"%s\" is not in the help table\n", h);
			bad = 1;
		}
	}
	return bad ? -EINVAL : 0;
}

static int init(void)
{
	if (commands_only == NULL)
		commands_only = cmdline_new(commands, "", 0, 1);
	return commands_only != NULL ? 0 : -ENOMEM;
}

int pmd_echo;

int pmd_parse_line(const char *line)
{
	static struct cmdline *cl;
	char buf[PMD_LINE_MAX + 2];
	size_t len = strcspn(line, "\r\n");
	int rc;

	if (line[strspn(line, " \t\r\n")] == '\0')
		return 0;
	if (pmd_echo) { /* as the prompt shows it: a transcript */
		printf("dvshare> %.*s\n", (int)len, line);
		fflush(stdout);
	}
	if (line[strspn(line, " \t")] == '#')
		return 0; /* a comment */
	if (cl == NULL && init() == 0)
		cl = cmdline_new(commands_and_rest, "", 0, 1);
	if (cl == NULL) {
		pmd_failures++;
		return pmd_error(-ENOMEM, "cmdline", "%s", strerror(ENOMEM));
	}
	if (len + 2 > sizeof(buf)) { /* as at the prompt, which takes no more */
		pmd_failures++;
		return pmd_error(-E2BIG, "line", "longer than %d characters", PMD_LINE_MAX);
	}
	snprintf(buf, sizeof(buf), "%.*s\n", (int)len, line);
	rc = cmdline_parse(cl, buf);
	if (rc >= 0)
		return 0; /* the parsed length: a command, or the catch-all, ran */
	/* Two commands took the line: a bug in the table above. */
	buf[len] = '\0';
	pmd_failures++;
	return pmd_error(-EINVAL, buf, "ambiguous command (try \"help\")");
}

void pmd_interact(void)
{
	struct cmdline *cl;

	if (init() != 0)
		return;
	cl = cmdline_stdin_new(commands_and_rest, "dvshare> ");
	if (cl == NULL)
		return;
	/* cmdline_interact(), with the wait that takes quit signals. */
	for (char c; pmd_wait_input(0) > 0;) {
		ssize_t n = read(0, &c, 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0 || cmdline_in(cl, &c, 1) < 0)
			break;
	}
	cmdline_stdin_exit(cl);
}
