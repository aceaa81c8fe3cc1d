/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the user reads about the program: "help" and its sections (as
 * testpmd's), the one-line usage after bad arguments, --help and
 * --version. One table per kind of text, so help, usage and error lines
 * never disagree; doc/pmd.md and doc/man/dvshare-pmd.1 follow them and
 * the pmd test checks they do.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "dvshare.h"
#include "pmd.h"

enum {
	S_SHOW = 1 << 0,
	S_OBJECTS = 1 << 1,
	S_DOORBELLS = 1 << 2,
	S_QUEUES = 1 << 3,
	S_SESSION = 1 << 4,
	S_PORTS = 1 << 5,
};

static const struct section {
	const char *name;
	unsigned int bit;
	const char *what;
} sections[] = {
	{ "show", S_SHOW, "devices, objects, peers, the engine, counters, capabilities" },
	{ "objects", S_OBJECTS, "make, publish and destroy objects; their metadata" },
	{ "doorbells", S_DOORBELLS, "ring VAR pages; what the device saw" },
	{ "queues", S_QUEUES, "VIRTIO_NET_Qs and flow counters: make, query, modify" },
	{ "ports", S_PORTS, "virtio-net ports on shared queues: make them, forward packets, "
	  "their statistics" },
	{ "session", S_SESSION, "help and quit" },
	{ "all", ~0u, "every command" },
};

/* Every command once, in the order "help all" lists them. */
static const struct cmd_doc {
	const char *syntax;
	const char *what;
	unsigned int sections;
} cmds[] = {
	{ "show device info [dev|all]", "the devices shared (primary) or attached (secondary), "
	  "all of them or one: role, provider, objects of each kind, engine", S_SHOW },
	{ "show devices", "alias of \"show device info\"", S_SHOW },
	{ "show objects [dev]", "published objects of every device, or of one: type (var, umem, "
	  "virtq, pd, counter, obj), id, size, metadata", S_SHOW },
	{ "show peers", "primary: the attached secondaries (pid, uid, devices); secondary: "
	  "the primary's state (alive, exited, died)", S_SHOW },
	{ "show engine", "per device, whether the software device's engine runs (on, off, nic; "
	  "unknown in a secondary) and on which lcore (app: this command runs it first); per VAR "
	  "page, the doorbells it saw and the last value; then a line for each device whose "
	  "engine is off", S_SHOW | S_DOORBELLS },
	{ "stats", "this process's dvshare counters", S_SHOW },
	{ "caps <dev>", "the device's capabilities (QUERY_HCA_CAP through this process's "
	  "context): object types, doorbell offset, queue and UMEM parameters", S_SHOW },
	{ "show stats", "alias of \"stats\" (testpmd's habit)", S_SHOW },
	{ "show caps <dev>", "alias of \"caps <dev>\"", S_SHOW },
	{ "var alloc <dev> <name>", "allocate and publish a VAR page (in a secondary the primary "
	  "makes it, and it is this process's until it exits)", S_OBJECTS },
	{ "obj create <dev> <name> <qidx> <qsize>", "create and publish a VIRTIO_NET_Q as DPDK's "
	  "vdpa driver prepares one: on the device's PD and TIS, with its UMEMs and, when the "
	  "device offers them, its counters (any process; the shared PD, TD and TIS are the "
	  "primary's)", S_OBJECTS | S_QUEUES },
	{ "counter create <dev> <name>", "create and publish a flow counter (any process)",
	  S_OBJECTS | S_QUEUES },
	{ "umem reg <dev> <name> <size>", "register and publish memory (any process: DPDK "
	  "memory in a secondary)", S_OBJECTS },
	{ "destroy <dev> <name> [timeout_ms]", "coordinated destroy (a secondary: only what it "
	  "created; default 2000 ms)",
	  S_OBJECTS },
	{ "meta set <dev> <name> <text>", "set an object's application metadata (primary)",
	  S_OBJECTS },
	{ "meta get <dev> <name>", "print an object's application metadata", S_OBJECTS },
	{ "ring <var> <value> [count [interval_us]]", "doorbells through dvshare_doorbell32() at "
	  "the VAR's doorbell register (dvshare_var_doorbell()); the value is a queue index",
	  S_DOORBELLS },
	{ "query <obj>", "query a VIRTIO_NET_Q (index, size, state, ring indexes, pd) or read a "
	  "flow counter, through this process's context", S_QUEUES },
	{ "modify <obj> <init|rdy|suspend|err>", "change a queue's state (RDY needs a "
	  "guest-memory mkey: on the sim any non-zero one, which this command does not set)",
	  S_QUEUES },
	{ "modify <obj> <avail|used> <n>", "set a queue's hardware available or used index",
	  S_QUEUES },
	{ "port create <dev> <port> [qsize]", "make a virtio-net port this process drives: an RX "
	  "and a TX VIRTIO_NET_Q (queues 2*port and 2*port+1, qsize entries, 256 by default) "
	  "with their rings and an mbuf pool in one DPDK memzone, a UMEM and a key over it, a "
	  "VAR to kick through (any process: a secondary's through the primary; objects "
	  "p<port>.*)", S_PORTS },
	{ "port destroy <port>", "destroy a port this process made (its queues first, then "
	  "the memory)", S_PORTS },
	{ "steer <dev> <txq> <rxq> [counter]", "the software device's steering (primary): TX "
	  "queue txq delivers to RX queue rxq, counted by a flow counter; by default queue "
	  "2k+1 delivers to 2k (a NIC steers with its flow rules)", S_PORTS },
	{ "set fwd <io|txonly|rxonly|macswap>", "the forwarding mode, as testpmd's: io sends "
	  "back what it receives, txonly sends frames of txpkts bytes, rxonly checks and drops "
	  "what it receives (RX-bad: frames not as txonly sent them), macswap swaps the "
	  "Ethernet addresses and sends back", S_PORTS },
	{ "set burst <n>", "packets per burst, 1 to 512 (32 by default)", S_PORTS },
	{ "set txpkts <n>", "txonly frame length in bytes (64 by default)", S_PORTS },
	{ "start", "forward on every port of this process, on the first worker lcore (else a "
	  "thread) while commands go on", S_PORTS },
	{ "start tx_first [n]", "send n bursts (1 by default) of txonly frames on every port, "
	  "then start", S_PORTS },
	{ "stop", "stop forwarding, wait (1 s at most) for the device to take what was sent, "
	  "and print each port's forward statistics", S_PORTS },
	{ "show port stats [port|all]", "testpmd's port statistics (RX/TX packets, bytes, "
	  "errors, Rx-pps and Tx-pps since the last show), the kicks, and the device's own view: "
	  "each queue's state and QUERY indexes, and its counters", S_SHOW | S_PORTS },
	{ "help [show|objects|doorbells|queues|ports|session|all]", "the sections, or one "
	  "section's commands", S_SESSION },
	{ "quit", "leave (the primary closes its devices with the destroy protocol)", S_SESSION },
};

#define N_CMDS (sizeof(cmds) / sizeof(cmds[0]))
#define COLUMNS 79

/* "  <left padded to @width>  <text>", the text wrapped at COLUMNS under
 * itself; a left part too wide for that gets the text on the next line. */
static void print_entry(const char *left, int width, const char *text)
{
	int indent = 2 + width + 2, col;

	if ((int)strlen(left) > width)
		printf("  %s\n%*s", left, indent, "");
	else
		printf("  %-*s  ", width, left);
	col = indent;
	while (*text != '\0') {
		int w = (int)strcspn(text, " ");

		if (col > indent && col + 1 + w > COLUMNS) {
			printf("\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			putchar(' ');
			col++;
		}
		printf("%.*s", w, text);
		col += w;
		text += w;
		text += strspn(text, " ");
	}
	putchar('\n');
}
#define N_SECTIONS (sizeof(sections) / sizeof(sections[0]))

static void print_cmds(unsigned int bits)
{
	int width = 0;

	for (size_t i = 0; i < N_CMDS; i++)
		if ((cmds[i].sections & bits) != 0 && (int)strlen(cmds[i].syntax) > width)
			width = (int)strlen(cmds[i].syntax);
	/* Longer syntaxes get their text on the next line. */
	width = width < 38 ? width : 38;
	for (size_t i = 0; i < N_CMDS; i++)
		if ((cmds[i].sections & bits) != 0)
			print_entry(cmds[i].syntax, width, cmds[i].what);
}

void pmd_help(const char *section)
{
	if (section == NULL) {
		printf("help is available for these sections:\n");
		for (size_t i = 0; i < N_SECTIONS; i++)
			printf("  help %-10s %s\n", sections[i].name, sections[i].what);
		printf("TAB completes commands, device names and object names; \"?\" lists\n"
		       "what can come next; the arrows walk the history.\n");
		return;
	}
	for (size_t i = 0; i < N_SECTIONS; i++) {
		if (strcmp(section, sections[i].name) == 0) {
			printf("%s: %s\n", sections[i].name, sections[i].what);
			print_cmds(sections[i].bit);
		}
	}
}

/* Commands are told apart by their first word: "show", "ring", ... */
int pmd_usage_of(const char *line, char *buf, size_t len)
{
	size_t w = strcspn(line, " \t\r\n#"), used = 0;
	int n = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < N_CMDS && w > 0; i++) {
		const char *s = cmds[i].syntax;

		if (strncmp(s, line, w) != 0 || (s[w] != ' ' && s[w] != '\0'))
			continue;
		used += (size_t)snprintf(buf + used, used < len ? len - used : 0, "%s%s",
					 n++ != 0 ? " | " : "", s);
	}
	return n;
}

static const struct opt_doc {
	const char *opt;
	const char *what;
} opts[] = {
	{ "--dev NAME", "share device NAME (primary; simN or an mlx5 ibdev; in a secondary, one "
	  "the primary shares); repeatable; the options below up to --engine act on the last "
	  "--dev" },
	{ "--var NAME", "allocate and publish a VAR doorbell page" },
	{ "--virtq NAME:QIDX:QSIZE[:META]", "create and publish a VIRTIO_NET_Q (in INIT), with "
	  "optional metadata text; with it, as DPDK's vdpa driver makes them: the UMEMs "
	  "NAME.umem1..3 sized from the device's caps, its counters NAME.counters when the "
	  "device offers them, and, once per device, the PD \"pd\", TD \"td\" and TIS \"tis\"" },
	{ "--umem NAME:SIZE", "register SIZE bytes as a UMEM and publish it" },
	{ "--counter NAME", "create and publish a flow counter" },
	{ "--engine", "start the software device engine of the last --dev as a DPDK service (on "
	  "the first service lcore, -s; else \"show engine\" runs it); once per device" },
	{ "--cmd LINE", "run a command; repeatable, in order with --cmdline-file" },
	{ "--cmdline-file FILE", "run the commands in FILE, one a line (# starts a comment); "
	  "alias --cmdfile" },
	{ "-i, --interactive", "then give the prompt" },
	{ "--stdin", "then read commands from standard input, one a line" },
	{ "--quiet", "log warnings and errors only (EAL's start-up notices included)" },
	{ "--echo", "print each command read from --cmd, --cmdline-file or standard input "
	  "after the prompt, before its output (comments too): a transcript" },
	{ "-h, --help", "print the options and exit" },
	{ "--version", "print the version and exit" },
	{ "--reference md|man", "print the command reference in Markdown or man(7) and exit "
	  "(doc/pmd.md and the manual page are made from it)" },
};

void pmd_usage(const char *prog)
{
	const char *base = strrchr(prog, '/');

	base = base != NULL ? base + 1 : prog;
	printf("usage: %s [EAL options] -- [options]\n\n"
	       "EAL options (-l, -s, --file-prefix, --proc-type, ...) come before \"--\";\n"
	       "\"%s -h\" lists them. The options below come after \"--\"; the setup\n"
	       "options (--dev to --engine) run in the order given.\n\n", base, base);
	for (size_t i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		print_entry(opts[i].opt, 30, opts[i].what);
	printf("\nWithout --cmd, --cmdline-file or --stdin: a prompt on a terminal, else\n"
	       "commands from standard input; \"help\" lists the commands. The exit status\n"
	       "is 1 when anything failed (\"bye: <n> failed command(s)\"), else 0.\n");
}

void pmd_print_version(void)
{
	/* Built against, and running: they differ when another libdvshare is
	 * found at run time. */
	printf("dvshare-pmd %s (libdvshare %s)\n", DVSHARE_VERSION, dvshare_version());
}

/* ------------------------------------------------------------- reference */

/* @s for man(7): '-' and '\' escaped. */
static void man_text(const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '-' || *s == '\\')
			putchar('\\');
		putchar(*s);
	}
}

/* @s in a Markdown table cell: '|' escaped. */
static void md_cell(const char *s)
{
	for (; *s != '\0'; s++) {
		if (*s == '|')
			putchar('\\');
		putchar(*s);
	}
}

static void reference_md(void)
{
	printf("| command | section | what |\n| --- | --- | --- |\n");
	for (size_t i = 0; i < N_CMDS; i++) {
		const char *sep = "";

		printf("| `");
		md_cell(cmds[i].syntax);
		printf("` | ");
		for (size_t s = 0; s + 1 < N_SECTIONS; s++) /* not "all" */
			if (cmds[i].sections & sections[s].bit) {
				printf("%s%s", sep, sections[s].name);
				sep = ", ";
			}
		printf(" | ");
		md_cell(cmds[i].what);
		printf(" |\n");
	}
}

/* Each command under the first section it is in. */
static void reference_man(void)
{
	for (size_t s = 0; s + 1 < N_SECTIONS; s++) {
		printf(".SS %s\n", sections[s].name);
		for (size_t i = 0; i < N_CMDS; i++) {
			if ((cmds[i].sections & (sections[s].bit - 1) & ~0u) != 0 ||
			    (cmds[i].sections & sections[s].bit) == 0)
				continue;
			printf(".TP\n.B ");
			man_text(cmds[i].syntax);
			printf("\n%c", toupper((unsigned char)cmds[i].what[0]));
			man_text(cmds[i].what + 1);
			printf(".\n");
		}
	}
}

int pmd_help_knows(const char *syntax)
{
	for (size_t i = 0; i < N_CMDS; i++)
		if (strcmp(cmds[i].syntax, syntax) == 0)
			return 1;
	return 0;
}

int pmd_reference(const char *format)
{
	if (pmd_cmdline_check() != 0)
		return -EINVAL;
	if (strcmp(format, "md") == 0)
		reference_md();
	else if (strcmp(format, "man") == 0)
		reference_man();
	else {
		printf("error: --reference %s: md or man\n", format);
		return -EINVAL;
	}
	return 0;
}
