/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The command table for librte_cmdline: keywords complete with TAB,
 * history comes with the line editor, "help" lists everything. The same
 * table parses --cmd / --cmdfile / piped lines.
 */
#include <stdio.h>
#include <string.h>

#include <cmdline.h>
#include <cmdline_parse_num.h>
#include <cmdline_socket.h>

#include "pmd.h"

static void dispatch(void *parsed, struct cmdline *cl, void *data)
{
	enum pmd_cmd cmd = (enum pmd_cmd)(uintptr_t)data;

	if (pmd_run(cmd, parsed) != 0)
		pmd_failures++;
	if (pmd_quit && cl != NULL)
		cmdline_quit(cl);
}

#define KW(i, s) TOKEN_STRING_INITIALIZER(struct pmd_res, w[i], s)
#define WORD(i) TOKEN_STRING_INITIALIZER(struct pmd_res, w[i], NULL)
#define NUM(i) TOKEN_NUM_INITIALIZER(struct pmd_res, n[i], RTE_UINT32)
#define TEXT TOKEN_STRING_INITIALIZER(struct pmd_res, text, TOKEN_STRING_MULTI)

static cmdline_parse_token_string_t t_show = KW(0, "show");
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
static cmdline_parse_token_string_t t_index = KW(2, "avail#used");
static cmdline_parse_token_string_t t_help = KW(0, "help");
static cmdline_parse_token_string_t t_quit = KW(0, "quit");
static cmdline_parse_token_string_t t_w1 = WORD(1);
static cmdline_parse_token_string_t t_w2 = WORD(2);
static cmdline_parse_token_string_t t_w3 = WORD(3);
static cmdline_parse_token_num_t t_n0 = NUM(0);
static cmdline_parse_token_num_t t_n1 = NUM(1);
static cmdline_parse_token_num_t t_n2 = NUM(2);
static cmdline_parse_token_string_t t_text = TEXT;

#define TOK(t) ((cmdline_parse_token_hdr_t *)&(t))
#define INST(id, cmd, help, ...)                                             \
	static cmdline_parse_inst_t id = {                                   \
		.f = dispatch,                                               \
		.data = (void *)(uintptr_t)(cmd),                            \
		.help_str = help,                                            \
		.tokens = { __VA_ARGS__, NULL },                             \
	}

INST(c_show_devices, PMD_SHOW_DEVICES, "show devices: shared devices",
     TOK(t_show), TOK(t_devices));
INST(c_show_objects, PMD_SHOW_OBJECTS, "show objects: objects of every device",
     TOK(t_show), TOK(t_objects));
INST(c_show_objects_dev, PMD_SHOW_OBJECTS_DEV, "show objects <dev>: objects of one device",
     TOK(t_show), TOK(t_objects), TOK(t_w2));
INST(c_show_peers, PMD_SHOW_PEERS, "show peers: secondaries (primary) or the primary",
     TOK(t_show), TOK(t_peers));
INST(c_show_engine, PMD_SHOW_ENGINE, "show engine: doorbells the device saw per VAR page",
     TOK(t_show), TOK(t_engine));
INST(c_stats, PMD_STATS, "stats: dvshare counters of this process", TOK(t_stats));
INST(c_var_alloc, PMD_VAR_ALLOC, "var alloc <dev> <name>: allocate and publish a VAR page",
     TOK(t_var), TOK(t_alloc), TOK(t_w2), TOK(t_w3));
INST(c_obj_create, PMD_OBJ_CREATE,
     "obj create <dev> <name> <qidx> <qsize>: create and publish a VIRTIO_NET_Q (with its "
     "PD and UMEMs)",
     TOK(t_obj), TOK(t_create), TOK(t_w2), TOK(t_w3), TOK(t_n0), TOK(t_n1));
INST(c_umem_reg, PMD_UMEM_REG, "umem reg <dev> <name> <size>: register and publish memory",
     TOK(t_umem), TOK(t_reg), TOK(t_w2), TOK(t_w3), TOK(t_n0));
INST(c_destroy, PMD_DESTROY, "destroy <dev> <name>: coordinated destroy (2 s wait)",
     TOK(t_destroy), TOK(t_w1), TOK(t_w2));
INST(c_destroy_t, PMD_DESTROY_TIMEOUT, "destroy <dev> <name> <timeout_ms>",
     TOK(t_destroy), TOK(t_w1), TOK(t_w2), TOK(t_n0));
INST(c_ring, PMD_RING, "ring <var> <value>: one doorbell", TOK(t_ring), TOK(t_w1), TOK(t_n0));
INST(c_ring_n, PMD_RING_COUNT, "ring <var> <value> <count>: doorbells back to back",
     TOK(t_ring), TOK(t_w1), TOK(t_n0), TOK(t_n1));
INST(c_ring_paced, PMD_RING_PACED, "ring <var> <value> <count> <interval_us>: paced doorbells",
     TOK(t_ring), TOK(t_w1), TOK(t_n0), TOK(t_n1), TOK(t_n2));
INST(c_counter_create, PMD_COUNTER_CREATE,
     "counter create <dev> <name>: create and publish a flow counter",
     TOK(t_counter), TOK(t_create), TOK(t_w2), TOK(t_w3));
INST(c_caps, PMD_CAPS, "caps <dev>: the device's capabilities (QUERY_HCA_CAP)",
     TOK(t_caps), TOK(t_w1));
INST(c_query, PMD_QUERY, "query <obj>: query a VIRTIO_NET_Q or read a flow counter",
     TOK(t_query), TOK(t_w1));
INST(c_modify, PMD_MODIFY, "modify <obj> <init|rdy|suspend|err>: change a queue's state",
     TOK(t_modify), TOK(t_w1), TOK(t_w2));
INST(c_modify_index, PMD_MODIFY_INDEX,
     "modify <obj> <avail|used> <n>: set a queue's hardware ring index",
     TOK(t_modify), TOK(t_w1), TOK(t_index), TOK(t_n0));
INST(c_meta_set, PMD_META_SET, "meta set <dev> <name> <text>: set metadata (primary)",
     TOK(t_meta), TOK(t_set), TOK(t_w2), TOK(t_w3), TOK(t_text));
INST(c_meta_get, PMD_META_GET, "meta get <dev> <name>: print metadata",
     TOK(t_meta), TOK(t_get), TOK(t_w2), TOK(t_w3));
INST(c_help, PMD_HELP, "help: this list", TOK(t_help));
INST(c_quit, PMD_QUIT, "quit: leave", TOK(t_quit));

cmdline_parse_ctx_t pmd_ctx[] = {
	&c_show_devices, &c_show_objects, &c_show_objects_dev, &c_show_peers, &c_show_engine,
	&c_stats, &c_var_alloc, &c_obj_create, &c_umem_reg, &c_destroy, &c_destroy_t,
	&c_ring, &c_ring_n, &c_ring_paced, &c_counter_create, &c_caps, &c_query, &c_modify,
	&c_modify_index, &c_meta_set, &c_meta_get,
	&c_help, &c_quit, NULL,
};

int pmd_parse_line(const char *line)
{
	static struct cmdline *cl;
	char buf[1024];
	int rc;

	if (line[strspn(line, " \t\r\n")] == '\0' || line[strspn(line, " \t")] == '#')
		return 0; /* blank or comment */
	if (cl == NULL)
		cl = cmdline_new(pmd_ctx, "", 0, 1);
	if (cl == NULL)
		return -1;
	snprintf(buf, sizeof(buf), "%s%s", line, strchr(line, '\n') ? "" : "\n");
	rc = cmdline_parse(cl, buf);
	if (rc >= 0)
		return 0; /* the parsed length: the command ran */
	buf[strcspn(buf, "\n")] = '\0';
	printf("error: %s: %s (try \"help\")\n", buf,
	       rc == CMDLINE_PARSE_AMBIGUOUS ? "ambiguous command" :
	       rc == CMDLINE_PARSE_BAD_ARGS ? "bad arguments" : "unknown command");
	fflush(stdout);
	pmd_failures++;
	return -1;
}

void pmd_interact(void)
{
	struct cmdline *cl = cmdline_stdin_new(pmd_ctx, "dvshare> ");

	if (cl == NULL)
		return;
	cmdline_interact(cl);
	cmdline_stdin_exit(cl);
}
