/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite pmd: dvshare-pmd as a user runs it, primary and secondary, driven
 * through --cmdline-file / --cmd / stdin and at its prompt on a
 * pseudo-terminal, checking what they print; and doc/pmd.md and the
 * manual page against what the program says about itself.
 *
 * argv: DVSHARE_PMD SOURCE_ROOT
 */
#include <signal.h>
#include <time.h>

#include "dvs_cunit.h"
#include "dvs_dpdk_compat.h"
#include "pmd_harness.h"

static const char *source_root;

#define LINE 4096

/* A file prefix of this test, with nothing left from an earlier run. */
static void fresh_prefix(char *prefix, size_t len, const char *tag)
{
	mp_prefix(prefix, len, tag);
	mp_cleanup(prefix);
}

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");

	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs(text, f);
	fclose(f);
}

static char *read_file(const char *rel)
{
	char path[1024];
	char *text = NULL;
	size_t len = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", source_root, rel);
	f = fopen(path, "r");
	if (f == NULL) {
		fprintf(stderr, "cannot read %s\n", path);
		return NULL;
	}
	if (getdelim(&text, &len, '\0', f) < 0) {
		free(text);
		text = NULL;
	}
	fclose(f);
	return text;
}

/* @text has exactly @n lines. */
static int n_lines(const char *text)
{
	int n = 0;

	for (const char *p = text; *p != '\0'; p++)
		n += *p == '\n';
	return n;
}

/* ------------------------------------------------- sessions, two processes */

static void test_cmdfile_primary_and_secondary(void)
{
	char prefix[96], file[128], buf[LINE];
	struct run_output o;
	struct peer prim;
	const char *l;
	unsigned long kicks = 0, last = 0;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmd");
	CU_ASSERT_EQUAL_FATAL(start_primary(&prim, prefix, 0), 0);
	snprintf(file, sizeof(file), "/tmp/%s.cmds", prefix);
	write_file(file, "# a comment, then the session\n"
			 "show device info\n"
			 "show objects\n"
			 "ring db0 5 20 200\n"
			 "query q0\n"
			 "modify q0 avail 20\n"
			 "query c0\n"
			 "caps sim0\n"
			 "meta get sim0 q0\n"
			 "stats\n");
	{
		const char *const opts[] = { "--cmdline-file", file, NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, 0, NULL, opts, &o), 0);
	}
	CU_ASSERT_EQUAL(o.status, 0);
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "ready secondary", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "sim0 secondary sim 10 1 6 3 unknown", buf,
					sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "sim0 db0 var 0 4096 primary -", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "sim0 q0 virtq", buf, sizeof(buf)));
	CU_ASSERT(strstr(buf, " queue=3") != NULL);
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "sim0 c0 counter", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "ring db0: 20 doorbell(s) written, value=5", buf,
					 sizeof(buf)));
	l = find_line(o.out, "query q0:", buf, sizeof(buf));
	CU_ASSERT(l != NULL && strstr(l, "queue_index=3 queue_size=128 state=init") != NULL);
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "modify q0: avail=20", buf, sizeof(buf)));
	l = find_line(o.out, "query c0:", buf, sizeof(buf));
	CU_ASSERT(l != NULL && strstr(l, "packets=0 octets=0") != NULL);
	l = find_line(o.out, "caps sim0: vhca_id", buf, sizeof(buf));
	CU_ASSERT(l != NULL && strstr(l, "virtio_net_q=yes") != NULL);
	l = find_line(o.out, "caps sim0: doorbell_bar_offset", buf, sizeof(buf));
	CU_ASSERT(l != NULL && strstr(l, "doorbell_bar_offset=0x800") != NULL);
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "meta q0: queue=3", buf, sizeof(buf)));
	l = find_line(o.out, "stats:", buf, sizeof(buf));
	CU_ASSERT(l != NULL && strstr(l, "attach_status=1 devices=1") != NULL);
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "bye: 0 failed", buf, sizeof(buf)));
	run_output_free(&o);
	unlink(file);

	/* The primary's device saw the secondary's doorbells and its modify.
	 * Stores between two engine passes may coalesce: at least one kick,
	 * and the last value. Its engine runs on service lcore 1. */
	send_line(&prim, "show engine");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "DEVICE  ENGINE  LCORE  VAR  PAGE  KICKS  LAST"));
	l = expect_row(&prim, "sim0 on 1 db0 0");
	CU_ASSERT(l != NULL && sscanf(l, "%*s %*s %*s %*s %*s %lu %lu", &kicks, &last) == 2);
	CU_ASSERT(kicks >= 1 && last == 5);
	send_line(&prim, "query q0");
	l = expect_line(&prim, "query q0:");
	CU_ASSERT(l != NULL && strstr(l, "hw_available_index=20") != NULL);
	stop(&prim);
	mp_cleanup(prefix);
}

/* A secondary forwards as testpmd does: its port's TX queue loops back
 * to its RX queue (the software device's default steering), "start
 * tx_first" seeds the loop, "show port stats" says what moved in
 * testpmd's layout, with the device's own view beside it; "stop" waits
 * for the device to take what was sent. */
static void test_forward_in_secondary(void)
{
	char prefix[96], buf[LINE];
	struct run_output o;
	struct peer prim;
	const char *l;
	unsigned long tx = 0, rx = 0, kicks = 0, bursts = 0, used = 0, rx_used = 0;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdfwd");
	CU_ASSERT_EQUAL_FATAL(start_primary(&prim, prefix, 0), 0);
	{
		const char *const opts[] = { "--cmd", "port create sim0 0 128", "--cmd", "set burst 16",
					     "--cmd", "start tx_first 4", "--cmd", "show port stats 0",
					     "--cmd", "stop", "--cmd", "show port stats all", "--cmd",
					     "port destroy 0", "--cmd", "show port stats all", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, 0, NULL, opts, &o), 0);
	}
	CU_ASSERT_EQUAL(o.status, 0);
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "port 0 on sim0: rxq p0.rxq (queue 0), txq p0.txq "
					 "(queue 1), 128 entries, doorbell p0.db", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "io packet forwarding started on", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "  ######################## NIC statistics for "
					 "port 0", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "  Rx-pps:", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "  Tx-pps:", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "Telling cores to stop...", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "  ---------------------- Forward statistics for "
					 "port 0", buf, sizeof(buf)));
	/* The last statistics, after stop: the device took every frame sent. */
	const char *last = strstr(o.out, "Done.");
	CU_ASSERT_PTR_NOT_NULL_FATAL(last);
	l = find_line(last, "  RX-packets:", buf, sizeof(buf));
	CU_ASSERT(l != NULL && sscanf(l, " RX-packets: %lu", &rx) == 1);
	l = find_line(last, "  TX-packets:", buf, sizeof(buf));
	CU_ASSERT(l != NULL && sscanf(l, " TX-packets: %lu", &tx) == 1);
	CU_ASSERT(tx >= 64 && rx <= tx);
	l = find_line(last, "  Kicks:", buf, sizeof(buf));
	CU_ASSERT(l != NULL && sscanf(l, " Kicks: %lu in %lu TX bursts", &kicks, &bursts) == 2);
	CU_ASSERT(kicks >= 1 && kicks <= bursts);
	l = find_line(last, "  p0.txq  queue 1   rdy", buf, sizeof(buf));
	CU_ASSERT(l != NULL && sscanf(strstr(l, "hw_used_index="), "hw_used_index=%lu", &used) == 1);
	CU_ASSERT_EQUAL(used, tx % 65536);
	CU_ASSERT(l != NULL && strstr(l, "errors=0") != NULL);
	l = find_line(last, "  p0.rxq  queue 0   rdy", buf, sizeof(buf));
	CU_ASSERT(l != NULL && sscanf(strstr(l, "hw_used_index="), "hw_used_index=%lu", &rx_used) == 1);
	CU_ASSERT(rx_used >= rx % 65536);
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "port 0 destroyed", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "ports: none", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "bye: 0 failed", buf, sizeof(buf)));
	run_output_free(&o);
	/* Forwarding needs a port, and the primary alone steers. */
	{
		const char *const opts[] = { "--cmd", "start", "--cmd", "steer sim0 1 2", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, 0, NULL, opts, &o), 0);
	}
	CU_ASSERT_EQUAL(o.status, 1);
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "error: start: no port (port create <dev> <port>)",
					 buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "error: steer 1 2: for the primary (this is a "
					 "secondary)", buf, sizeof(buf)));
	run_output_free(&o);
	stop(&prim);
	mp_cleanup(prefix);
}

/* One clear error line, the session goes on, the exit status says so. */
static void test_errors_are_one_line(void)
{
	char prefix[96];
	struct peer prim, sec;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmderr");
	CU_ASSERT_EQUAL_FATAL(start_primary(&prim, prefix, 0), 0);
	{
		const char *const opts[] = { "--cmd", "frobnicate", "--cmd", "ring nosuch 1",
					     "--cmd", "meta set sim0 q0 x", "--cmd", "query q0", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_start(&sec, prefix, 0, 0, opts), 0);
	}
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "error: frobnicate: unknown command"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "error: ring nosuch: no such object"));
	CU_ASSERT_PTR_NOT_NULL(
		expect_line(&sec, "error: meta set q0: for the primary (this is a secondary)"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "query q0:")); /* still going */
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "bye: 3 failed"));
	CU_ASSERT_EQUAL(peer_wait(&sec, MP_TIMEOUT_MS), 1);
	/* The primary: a device error is one line too. */
	send_line(&prim, "modify q0 suspend");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "error: modify q0: Remote I/O error (status BAD_PARAM"));
	/* A field the library checks against the caps: named, with its limit,
	 * before anything reaches the device. */
	send_line(&prim, "obj create sim0 bad 0 100");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "dvshare: sim0: VIRTIO_NET_Q bad refused before "
					       "the device: queue_size 100: a virtio queue holds 1 to "
					       "32768 entries, a split one a power of two"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "error: obj create bad: Invalid argument"));
	send_line(&prim, "destroy sim0 db0 1000");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "destroy db0: done"));
	send_line(&prim, "quit");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "bye: 2 failed"));
	CU_ASSERT_EQUAL(peer_wait(&prim, MP_TIMEOUT_MS), 1);
	mp_cleanup(prefix);
}

/* ------------------------------------------------------- help, version */

/* The version of meson.build's project(), the one source of it, as
 * --version prints it: "dvshare-pmd X.Y.Z (libdvshare X.Y.Z)". */
static int header_version(char *buf, size_t len)
{
	char *m = read_file("meson.build");
	const char *p = m != NULL ? strstr(m, "version: '") : NULL;
	int n = 0;

	if (p != NULL) {
		p += strlen("version: '");
		n = (int)strcspn(p, "'");
		snprintf(buf, len, "dvshare-pmd %.*s (libdvshare %.*s)\n", n, p, n, p);
	}
	free(m);
	return n > 0 ? 0 : -1;
}

/* --help lists the application's options and where EAL's go. */
static void check_usage(const struct run_output *o)
{
	static const char *const want[] = {
		"usage: dvshare-pmd [EAL options] -- [options]",
		"come before \"--\"", "--dev NAME", "--var NAME", "--virtq NAME:QIDX:QSIZE[:META]",
		"--umem NAME:SIZE", "--counter NAME", "--engine", "--cmd LINE",
		"--cmdline-file FILE", "alias --cmdfile", "-i, --interactive", "--stdin",
		"--quiet", "-h, --help", "--version",
	};

	CU_ASSERT_EQUAL(o->status, 0);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		if (strstr(o->out, want[i]) == NULL) {
			fprintf(stderr, "--help lacks '%s'\n", want[i]);
			CU_FAIL("--help lacks an option");
		}
	}
}

static void test_help_and_version(void)
{
	char version[64];
	struct run_output o;

	CU_ASSERT_EQUAL_FATAL(header_version(version, sizeof(version)), 0);
	/* Before "--", and without any EAL option: EAL never starts. */
	{
		char *const args[] = { (char *)pmd, "--help", NULL };
		CU_ASSERT_EQUAL_FATAL(run_capture(args, NULL, &o), 0);
		check_usage(&o);
		CU_ASSERT_PTR_NULL(strstr(o.err, "EAL"));
		run_output_free(&o);
	}
	/* After "--", behind EAL options. */
	{
		char *const args[] = { (char *)pmd, "-l", "0", "--no-pci", "--", "--dev", "sim0",
				       "--help", NULL };
		CU_ASSERT_EQUAL_FATAL(run_capture(args, NULL, &o), 0);
		check_usage(&o);
		CU_ASSERT_PTR_NULL(strstr(o.err, "EAL"));
		run_output_free(&o);
	}
	/* After a mistake too: the help is what was asked for. */
	{
		char *const args[] = { (char *)pmd, "-l", "0", "--", "--bogus", "stray", "--help",
				       NULL };
		CU_ASSERT_EQUAL_FATAL(run_capture(args, NULL, &o), 0);
		check_usage(&o);
		CU_ASSERT_PTR_NULL(strstr(o.out, "error:"));
		run_output_free(&o);
	}
	/* EAL's own -h: its usage, then ours, and exit status 0. */
	{
		char *const args[] = { (char *)pmd, "-h", NULL };
		CU_ASSERT_EQUAL_FATAL(run_capture(args, NULL, &o), 0);
		check_usage(&o);
		CU_ASSERT_PTR_NOT_NULL(strstr(o.out, DVS_EAL_USAGE_MARK));
		run_output_free(&o);
	}
	/* --version: one line, the library's version, exit status 0. */
	{
		char *const args[] = { (char *)pmd, "--version", NULL };
		CU_ASSERT_EQUAL_FATAL(run_capture(args, NULL, &o), 0);
		CU_ASSERT_EQUAL(o.status, 0);
		CU_ASSERT_STRING_EQUAL(o.out, version);
		run_output_free(&o);
	}
	{
		char *const args[] = { (char *)pmd, "-l", "0", "--", "--version", NULL };
		CU_ASSERT_EQUAL_FATAL(run_capture(args, NULL, &o), 0);
		CU_ASSERT_EQUAL(o.status, 0);
		CU_ASSERT_STRING_EQUAL(o.out, version);
		run_output_free(&o);
	}
}

/* A command line that cannot work: one error line before EAL starts,
 * exit status 1. */
static void test_usage_errors(void)
{
	static const struct {
		const char *opt[3];
		const char *line;
	} cases[] = {
		{ { "--bogus", NULL }, "error: unknown option --bogus (see dvshare-pmd --help)\n" },
		{ { "--var", "db0", NULL },
		  "error: --var acts on the device named before it: give --dev first "
		  "(see dvshare-pmd --help)\n" },
		{ { "--engine", NULL },
		  "error: --engine acts on the device named before it: give --dev first "
		  "(see dvshare-pmd --help)\n" },
		{ { "--cmd", NULL }, "error: --cmd needs an argument (see dvshare-pmd --help)\n" },
		{ { "stray", NULL },
		  "error: unexpected argument stray (see dvshare-pmd --help)\n" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *args[8] = { (char *)pmd, "-l", "0", "--no-pci", "--" };
		struct run_output o;
		int n = 5;

		for (int j = 0; cases[i].opt[j] != NULL; j++)
			args[n++] = (char *)cases[i].opt[j];
		args[n] = NULL;
		CU_ASSERT_EQUAL_FATAL(run_capture(args, NULL, &o), 0);
		CU_ASSERT_EQUAL(o.status, 1);
		CU_ASSERT_STRING_EQUAL(o.out, cases[i].line);
		CU_ASSERT_PTR_NULL(strstr(o.err, "EAL"));
		run_output_free(&o);
	}
	{
		char *args[] = { (char *)pmd, "-l", "0", "--", "--virtq", "q0:1", NULL };
		struct run_output o;

		CU_ASSERT_EQUAL_FATAL(run_capture(args, NULL, &o), 0);
		CU_ASSERT_EQUAL(o.status, 1);
		CU_ASSERT_EQUAL(n_lines(o.out), 1);
		CU_ASSERT(strncmp(o.out, "error: --virtq wants NAME:QIDX:QSIZE[:META]", 43) == 0);
		run_output_free(&o);
	}
}

/* The block of "help <section>" output under heading @head. */
static int section_has(const char *out, const char *head, const char *syntax)
{
	const char *p = strstr(out, head);

	if (p != NULL)
		p++; /* past the newline before the heading */
	while (p != NULL) {
		p = strchr(p, '\n');
		if (p == NULL || strncmp(p + 1, "  ", 2) != 0)
			return 0;
		p++;
		if (strncmp(p + 2, syntax, strlen(syntax)) == 0)
			return 1;
	}
	return 0;
}

/* "help" lists the sections as testpmd's does; each lists its commands. */
static void test_help_sections(void)
{
	char prefix[96], buf[LINE];
	struct run_output o;
	const char *const opts[] = { "--cmd", "help", "--cmd", "help show", "--cmd",
				     "help objects", "--cmd", "help doorbells", "--cmd",
				     "help queues", "--cmd", "help session", "--cmd", "help all",
				     "--cmd", "help bogus", NULL };

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdhelp");
	CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY, NULL, opts, &o), 0);
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "help is available for these sections:", buf,
					 sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "help show devices,", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "help objects", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "help doorbells", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "help queues", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "help all every command", buf, sizeof(buf)));
	CU_ASSERT(section_has(o.out, "\nshow: ", "show device info [dev|all]"));
	CU_ASSERT(section_has(o.out, "\nshow: ", "show devices"));
	CU_ASSERT(section_has(o.out, "\nshow: ", "show engine"));
	CU_ASSERT(!section_has(o.out, "\nshow: ", "ring <var>"));
	CU_ASSERT(section_has(o.out, "\nobjects: ", "var alloc <dev> <name>"));
	CU_ASSERT(section_has(o.out, "\nobjects: ", "destroy <dev> <name> [timeout_ms]"));
	CU_ASSERT(!section_has(o.out, "\nobjects: ", "query <obj>"));
	CU_ASSERT(section_has(o.out, "\ndoorbells: ", "ring <var> <value> [count [interval_us]]"));
	CU_ASSERT(section_has(o.out, "\ndoorbells: ", "show engine"));
	CU_ASSERT(section_has(o.out, "\nqueues: ", "query <obj>"));
	CU_ASSERT(section_has(o.out, "\nqueues: ", "modify <obj> <avail|used> <n>"));
	CU_ASSERT(section_has(o.out, "\nsession: ", "quit"));
	CU_ASSERT(section_has(o.out, "\nall: ", "show device info [dev|all]"));
	CU_ASSERT(section_has(o.out, "\nall: ", "quit"));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "error: help bogus: bad arguments (usage: help "
					 "[show|objects|doorbells|queues|ports|session|all])", buf,
					 sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "bye: 1 failed command(s)", buf, sizeof(buf)));
	CU_ASSERT_EQUAL(o.status, 1);
	run_output_free(&o);
	mp_cleanup(prefix);
}

/* testpmd's spellings, the first ones kept: --cmdline-file / --cmdfile,
 * "show device info" / "show devices". */
static void test_aliases(void)
{
	char prefix[96], f1[128], f2[128], buf[LINE];
	struct run_output o;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdalias");
	snprintf(f1, sizeof(f1), "/tmp/%s.1", prefix);
	snprintf(f2, sizeof(f2), "/tmp/%s.2", prefix);
	write_file(f1, "show devices\n");
	write_file(f2, "show device info\nshow device info sim0\nshow device info all\n"
		   "show device info sim9\n");
	{
		const char *const opts[] = { "--dev", "sim0", "--var", "db0", "--cmdfile", f1,
					     "--cmdline-file", f2, NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY, NULL, opts, &o), 0);
	}
	CU_ASSERT_EQUAL(count_lines(o.out, "DEVICE  ROLE     PROVIDER  OBJECTS  VARS  DEVX  "
				    "UMEMS  ENGINE"), 4);
	CU_ASSERT_EQUAL(count_lines(o.out, "sim0    primary  sim       1        1     0     0      "
				    "off"), 4);
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "error: show device info sim9: no device sim9",
					 buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "bye: 1 failed command(s)", buf, sizeof(buf)));
	CU_ASSERT_EQUAL(o.status, 1);
	run_output_free(&o);
	unlink(f1);
	unlink(f2);
	mp_cleanup(prefix);
}

/* ------------------------------------------------------ errors, counted */

/* Each failing command's one line, in order, with two good commands among
 * them: the queue q9 is made for the device to refuse a modify of it
 * (INIT -> SUSPEND, a change no driver asks for); a queue index past the
 * caps' is refused by the library, before the device. */
static const char *const failing[] = {
	"frobnicate", "ring db0 abc", "query db0", "stats", "obj create sim0 db0 0 64",
	"obj create sim0 bad 256 64", "obj create sim0 q9 1 64", "modify q9 suspend",
	"query nosuch", "help bogus", "show objects sim9",
};

static const char *const failing_lines[] = {
	"error: frobnicate: unknown command (try \"help\")\n",
	"error: ring db0 abc: bad arguments (usage: ring <var> <value> [count [interval_us]])\n",
	"error: query db0: db0 is a VAR page, not a DEVX object\n",
	"stats: ",
	"error: obj create db0: File exists\n",
	"error: obj create bad: Invalid argument\n",
	"obj q9 on sim0: VIRTIO_NET_Q obj_id=",
	"error: modify q9: Remote I/O error (status BAD_PARAM, syndrome 0x",
	"error: query nosuch: no such object\n",
	"error: help bogus: bad arguments (usage: help "
	"[show|objects|doorbells|queues|ports|session|all])\n",
	"error: show objects sim9: no device sim9\n",
};

#define N_FAILING (sizeof(failing) / sizeof(failing[0]))
#define N_FAILED (N_FAILING - 2)

/* Exactly: the setup lines, one line per command in order, "bye". */
static void check_failures(const struct run_output *o)
{
	const char *p = o->out;
	char bye[64];

	CU_ASSERT_EQUAL(o->status, 1);
	CU_ASSERT_EQUAL(count_lines(o->out, "error:"), (int)N_FAILED);
	/* var db0 ..., ready ..., a line each, bye */
	CU_ASSERT_EQUAL(n_lines(o->out), 2 + (int)N_FAILING + 1);
	for (size_t i = 0; i < N_FAILING && p != NULL; i++) {
		p = strstr(p, failing_lines[i]);
		if (p == NULL)
			fprintf(stderr, "missing, or out of order: %s\n", failing_lines[i]);
		CU_ASSERT_PTR_NOT_NULL(p);
	}
	snprintf(bye, sizeof(bye), "\nbye: %d failed command(s)\n", (int)N_FAILED);
	CU_ASSERT_PTR_NOT_NULL(strstr(o->out, bye));
	/* Nothing but the device's own answer carries a status. */
	CU_ASSERT_EQUAL(count_lines(o->out, "error: modify q9: Remote I/O error (status "), 1);
	CU_ASSERT_EQUAL(count_lines(o->out, "error: obj create bad: Remote I/O error"), 0);
	CU_ASSERT_PTR_NULL(strstr(o->out, "UNKNOWN"));
	/* The library's log stays, on stderr: the pmd prints its one line. The
	 * queue refused before the device is named with its field and limit. */
	CU_ASSERT_PTR_NOT_NULL(strstr(o->err, "VIRTIO_NET_Q bad refused before the device: "
					      "queue_index 256: the device has 256 queues"));
	CU_ASSERT_PTR_NULL(strstr(o->out, "dvshare: "));
}

static void test_errors_counted_scripted(void)
{
	const char *opts[2 * N_FAILING + 8] = { "--dev", "sim0", "--var", "db0" };
	char prefix[96], file[128], text[1024] = "", buf[LINE];
	struct run_output o;
	int n = 4;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdcount");
	for (size_t i = 0; i < N_FAILING; i++) {
		opts[n++] = "--cmd";
		opts[n++] = failing[i];
		strcat(text, failing[i]);
		strcat(text, "\n");
	}
	opts[n] = NULL;
	/* --cmd */
	CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY, NULL, opts, &o), 0);
	check_failures(&o);
	run_output_free(&o);
	/* --cmdline-file */
	snprintf(file, sizeof(file), "/tmp/%s.cmds", prefix);
	write_file(file, text);
	{
		const char *const f[] = { "--dev", "sim0", "--var", "db0", "--cmdline-file", file,
					  NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY, NULL, f, &o), 0);
		check_failures(&o);
		run_output_free(&o);
	}
	unlink(file);
	/* --stdin */
	{
		const char *const s[] = { "--dev", "sim0", "--var", "db0", "--stdin", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY, text, s, &o), 0);
		check_failures(&o);
		run_output_free(&o);
	}
	/* A script file that is not there, or not a file: one failure each,
	 * the rest runs. */
	{
		const char *const m[] = { "--cmdline-file", "/nonexistent/dvshare.cmds", "--cmd",
					  "stats", "--cmdfile", "/", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY, NULL, m, &o), 0);
		CU_ASSERT_EQUAL(o.status, 1);
		CU_ASSERT_EQUAL(count_lines(o.out, "error:"), 2);
		CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "error: --cmdline-file "
						 "/nonexistent/dvshare.cmds: No such file or "
						 "directory", buf, sizeof(buf)));
		CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "stats: ", buf, sizeof(buf)));
		CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "error: --cmdline-file /: Is a directory",
						 buf, sizeof(buf)));
		CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "bye: 2 failed command(s)", buf,
						 sizeof(buf)));
		run_output_free(&o);
	}
	mp_cleanup(prefix);
}

/* At the prompt: the same one counted line, never cmdline's own words. */
static void test_errors_counted_interactive(void)
{
	const char *const opts[] = { "--dev", "sim0", "--var", "db0", NULL };
	char prefix[96];
	struct term t;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdtty");
	CU_ASSERT_EQUAL_FATAL(term_start(&t, prefix, PMD_PRIMARY, opts), 0);
	CU_ASSERT_EQUAL_FATAL(term_expect(&t, "dvshare> "), 0);
	for (size_t i = 0; i < N_FAILING; i++) {
		char keys[256], want[256];

		snprintf(keys, sizeof(keys), "%s\r", failing[i]);
		/* The terminal ends lines with "\r\n". */
		snprintf(want, sizeof(want), "%.*s", (int)strcspn(failing_lines[i], "\n"),
			 failing_lines[i]);
		term_type(&t, keys);
		CU_ASSERT_EQUAL(term_expect(&t, want), 0);
		CU_ASSERT_EQUAL(term_expect(&t, "dvshare> "), 0);
	}
	term_type(&t, "quit\r");
	CU_ASSERT_EQUAL(term_finish(&t), 1);
	CU_ASSERT_EQUAL(count_lines(t.log, "error:"), (int)N_FAILED);
	{
		char bye[64];
		snprintf(bye, sizeof(bye), "\nbye: %d failed command(s)\n", (int)N_FAILED);
		CU_ASSERT_PTR_NOT_NULL(strstr(t.log, bye));
	}
	CU_ASSERT_PTR_NULL(strstr(t.log, "Command not found"));
	CU_ASSERT_PTR_NULL(strstr(t.log, "Bad arguments"));
	CU_ASSERT_PTR_NULL(strstr(t.log, "UNKNOWN"));
	term_free(&t);
	mp_cleanup(prefix);
}

/* -------------------------------------------------------------- tables */

/* Read the header @head, then @rows rows, each aligned under it. */
static void expect_table(struct peer *p, const char *head, int rows)
{
	char header[MP_REPLY_MAX];
	const char *l = expect_row(p, head);

	CU_ASSERT_PTR_NOT_NULL_FATAL(l);
	snprintf(header, sizeof(header), "%s", l);
	for (int i = 0; i < rows; i++) {
		CU_ASSERT_EQUAL_FATAL(peer_read(p, MP_TIMEOUT_MS), 0);
		CU_ASSERT(row_aligned(header, p->last));
	}
}

static void test_show_tables(void)
{
	char prefix[96], row[64];
	struct run_output o;
	struct peer prim, sec;
	const char *ready;
	int sec_pid;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdtab");
	/* Nothing to show: "none", not a bare header. */
	{
		const char *const opts[] = { "--cmd", "show device info", "--cmd", "show objects",
					     "--cmd", "show engine", "--cmd", "show peers", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY, NULL, opts, &o), 0);
		CU_ASSERT_EQUAL(o.status, 0);
		CU_ASSERT_EQUAL(count_lines(o.out, "devices: none"), 2);
		CU_ASSERT_EQUAL(count_lines(o.out, "objects: none"), 1);
		CU_ASSERT_EQUAL(count_lines(o.out, "peers: none"), 1);
		CU_ASSERT_EQUAL(count_lines(o.out, "DEVICE"), 0);
		run_output_free(&o);
	}
	CU_ASSERT_EQUAL_FATAL(start_primary(&prim, prefix, 0), 0);
	send_line(&prim, "show peers");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "peers: none"));
	send_line(&prim, "show device info");
	expect_table(&prim, "DEVICE ROLE PROVIDER OBJECTS VARS DEVX UMEMS ENGINE", 1);
	CU_ASSERT(fields_match(prim.last, "sim0 primary sim 10 1 6 3 on"));
	send_line(&prim, "show objects sim0");
	expect_table(&prim, "DEVICE NAME TYPE ID SIZE OWNER META", 7);
	send_line(&prim, "show engine");
	expect_table(&prim, "DEVICE ENGINE LCORE VAR PAGE KICKS LAST", 1);
	CU_ASSERT(fields_match(prim.last, "sim0 on 1 db0 0"));

	/* A secondary: the primary lists it; it sees the primary alive. */
	{
		const char *const opts[] = { "--stdin", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_start(&sec, prefix, 0, 0, opts), 0);
	}
	ready = expect_line(&sec, "ready secondary pid=");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ready);
	sec_pid = atoi(ready + strlen("ready secondary pid="));
	send_line(&prim, "show peers");
	expect_table(&prim, "PID UID DEVICES QUEUED", 1);
	snprintf(row, sizeof(row), "%d %u 1 0", sec_pid, (unsigned int)geteuid());
	CU_ASSERT(fields_match(prim.last, row));
	send_line(&sec, "show peers");
	expect_table(&sec, "PEER STATE", 1);
	CU_ASSERT(fields_match(sec.last, "primary alive"));
	/* Whether the engine runs is the primary's to say. */
	send_line(&sec, "show engine");
	expect_table(&sec, "DEVICE ENGINE LCORE VAR PAGE KICKS LAST", 1);
	CU_ASSERT(fields_match(sec.last, "sim0 unknown - db0 0"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "engine of sim0: the primary's"));
	send_line(&sec, "show device info");
	expect_table(&sec, "DEVICE ROLE PROVIDER OBJECTS VARS DEVX UMEMS ENGINE", 1);
	CU_ASSERT(fields_match(sec.last, "sim0 secondary sim 10 1 6 3 unknown"));
	/* A secondary creates (its UMEM in DPDK memory), owns what it made,
	 * and may destroy only that. */
	send_line(&sec, "counter create sim0 sc0");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "counter sc0 on sim0: flow_counter_id="));
	send_line(&sec, "umem reg sim0 su0 8192");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "umem su0 on sim0: umem_id="));
	send_line(&sec, "obj create sim0 sq 1 64");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "obj sq on sim0: VIRTIO_NET_Q obj_id="));
	send_line(&sec, "query sq");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "query sq: obj_id="));
	send_line(&prim, "show objects sim0");
	snprintf(row, sizeof(row), "sim0 sc0 counter");
	CU_ASSERT_PTR_NOT_NULL(expect_row(&prim, row));
	snprintf(row, sizeof(row), "%d", sec_pid);
	CU_ASSERT(strstr(prim.last, row) != NULL);
	send_line(&sec, "destroy sim0 db0");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "error: destroy db0: not this secondary's"));
	send_line(&sec, "destroy sim0 sc0");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "destroy sc0: done"));
	send_line(&sec, "quit");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "bye: 1 failed")); /* the refused destroy */
	CU_ASSERT_EQUAL(peer_wait(&sec, MP_TIMEOUT_MS), 1);
	stop(&prim);
	mp_cleanup(prefix);
}

/* ------------------------------------------------------------ wrong kind */

static void test_wrong_kind(void)
{
	static const char *const cmds[] = {
		"query db0", "ring q0 1", "ring c0 1", "modify c0 rdy", "modify db0 avail 3",
		"query q0.umem1", "query pd", "destroy sim0 nosuch 100",
		/* A duplicate queue leaves what has its UMEMs' names alone. */
		"umem reg sim0 x.umem1 4096", "obj create sim0 x 0 64", "query q0",
	};
	static const char *const lines[] = {
		"error: query db0: db0 is a VAR page, not a DEVX object\n",
		"error: ring q0: q0 is a DEVX object (VIRTIO_NET_Q), not a VAR page\n",
		"error: ring c0: c0 is a DEVX object (flow counter), not a VAR page\n",
		"error: modify c0: c0 is a DEVX object (flow counter), not a VIRTIO_NET_Q\n",
		"error: modify db0: db0 is a VAR page, not a VIRTIO_NET_Q\n",
		"error: query q0.umem1: q0.umem1 is a UMEM, not a DEVX object\n",
		"error: query pd: pd is a DEVX object (PD), not a VIRTIO_NET_Q or a flow counter\n",
		"error: destroy nosuch: no such object\n",
		"umem x.umem1 on sim0: umem_id=",
		"error: obj create x: File exists\n",
		"query q0: obj_id=",
	};
	const char *opts[64] = { "--dev", "sim0", "--var", "db0", "--virtq", "q0:0:64",
				 "--counter", "c0" };
	char prefix[96], buf[LINE];
	struct run_output o;
	const char *p;
	int n = 8;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdkind");
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++) {
		opts[n++] = "--cmd";
		opts[n++] = cmds[i];
	}
	opts[n++] = "--cmd";
	opts[n++] = "show objects";
	opts[n] = NULL;
	CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY, NULL, opts, &o), 0);
	p = o.out;
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]) && p != NULL; i++) {
		p = strstr(p, lines[i]);
		if (p == NULL)
			fprintf(stderr, "missing, or out of order: %s\n", lines[i]);
		CU_ASSERT_PTR_NOT_NULL(p);
	}
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "sim0 x.umem1 umem", buf, sizeof(buf)));
	CU_ASSERT_PTR_NULL(find_row(o.out, "sim0 x.umem2", buf, sizeof(buf)));
	CU_ASSERT_EQUAL(count_lines(o.out, "error:"), 9);
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "bye: 9 failed command(s)", buf, sizeof(buf)));
	CU_ASSERT_PTR_NULL(strstr(o.err, "refused to destroy"));
	run_output_free(&o);
	mp_cleanup(prefix);
}

/* ---------------------------------------------------------- completion */

static void test_tab_completion(void)
{
	const char *const opts[] = { "--dev", "sim0", "--var", "db0", "--virtq", "q0:0:64",
				     "--counter", "c0", NULL };
	char prefix[96];
	struct term t;
	size_t mark;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdcomp");
	CU_ASSERT_EQUAL_FATAL(term_start(&t, prefix, PMD_PRIMARY, opts), 0);
	CU_ASSERT_EQUAL_FATAL(term_expect(&t, "dvshare> "), 0);
	/* An object name: only q0 is a queue or counter starting with q
	 * (not its UMEMs q0.umem1..3). */
	term_type(&t, "query q\t");
	CU_ASSERT_EQUAL(term_expect(&t, "query q0 "), 0);
	term_type(&t, "\r");
	CU_ASSERT_EQUAL(term_expect(&t, "query q0: obj_id="), 0);
	/* A device name. */
	term_type(&t, "caps s\t");
	CU_ASSERT_EQUAL(term_expect(&t, "caps sim0 "), 0);
	term_type(&t, "\r");
	CU_ASSERT_EQUAL(term_expect(&t, "caps sim0: vhca_id="), 0);
	/* Keywords after a name. */
	term_type(&t, "modify q\tav\t5\r");
	CU_ASSERT_EQUAL(term_expect(&t, "modify q0: avail=5"), 0);
	/* A name made a moment ago: the live registry, read at each TAB. */
	term_type(&t, "var alloc sim0 zz9\r");
	CU_ASSERT_EQUAL(term_expect(&t, "var zz9 on sim0: page="), 0);
	term_type(&t, "ring z\t");
	CU_ASSERT_EQUAL(term_expect(&t, "ring zz9 "), 0);
	term_type(&t, "7\r");
	CU_ASSERT_EQUAL(term_expect(&t, "ring zz9: 1 doorbell(s) written, value=7"), 0);
	/* TAB on an empty word lists the VAR pages, and only them. */
	CU_ASSERT_EQUAL(term_expect(&t, "dvshare> "), 0);
	mark = t.seen;
	term_type(&t, "ring \t");
	CU_ASSERT_EQUAL(term_expect(&t, "zz9 [VAR page name]"), 0);
	term_type(&t, "db0 1\r");
	CU_ASSERT_EQUAL(term_expect(&t, "ring db0: 1 doorbell(s) written"), 0);
	CU_ASSERT_PTR_NOT_NULL(memmem(t.log + mark, t.seen - mark, "db0 [VAR page name]", 19));
	CU_ASSERT_PTR_NULL(memmem(t.log + mark, t.seen - mark, "q0 [", 4));
	CU_ASSERT_PTR_NULL(memmem(t.log + mark, t.seen - mark, "c0 [", 4));
	term_type(&t, "quit\r");
	CU_ASSERT_EQUAL(term_finish(&t), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(t.log, "bye: 0 failed command(s)"));
	term_free(&t);
	mp_cleanup(prefix);
}

/* -------------------------------------------------------------- engine */

/* --engine starts the engine of the device named before it, and "show
 * engine" says which run. Without a service lcore "show engine" runs the
 * engine itself first, so the kicks are there when it reads them. */
static void test_engine_per_device(void)
{
	char prefix[96], buf[LINE];
	struct run_output o;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdeng");
	{
		const char *const opts[] = { "--dev", "sim0", "--var", "a0", "--dev", "sim1",
					     "--var", "b0", "--engine", "--cmd", "ring a0 1", "--cmd",
					     "ring b0 2", "--cmd", "show engine", "--cmd",
					     "show device info", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY | PMD_NO_SERVICE_CORE, NULL,
						  opts, &o), 0);
	}
	CU_ASSERT_EQUAL(o.status, 0);
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "sim0 off - - - - -", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "sim1 on app b0 0 1 2", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "engine off on sim0: start it with --engine "
					 "after --dev sim0", buf, sizeof(buf)));
	CU_ASSERT_EQUAL(count_lines(o.out, "engine off on"), 1);
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "sim0 primary sim 1 1 0 0 off", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "sim1 primary sim 1 1 0 0 on", buf, sizeof(buf)));
	run_output_free(&o);
	/* One --engine after each --dev: both run. */
	{
		const char *const opts[] = { "--dev", "sim0", "--engine", "--dev", "sim1",
					     "--engine", "--cmd", "show engine", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY, NULL, opts, &o), 0);
	}
	CU_ASSERT_EQUAL(o.status, 0);
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "sim0 on 1 - - - -", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_row(o.out, "sim1 on 1 - - - -", buf, sizeof(buf)));
	CU_ASSERT_EQUAL(count_lines(o.out, "engine off on"), 0);
	run_output_free(&o);
	/* Twice on one device: one error line, counted, nothing runs. */
	{
		const char *const opts[] = { "--dev", "sim0", "--engine", "--engine", "--cmd",
					     "stats", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY, NULL, opts, &o), 0);
	}
	CU_ASSERT_EQUAL(o.status, 1);
	CU_ASSERT_EQUAL(n_lines(o.out), 2);
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "error: --engine: sim0: Operation already in "
					 "progress", buf, sizeof(buf)));
	CU_ASSERT_PTR_NOT_NULL(find_line(o.out, "bye: 1 failed command(s)", buf, sizeof(buf)));
	run_output_free(&o);
	mp_cleanup(prefix);
}

/* ---------------------------------------------------------------- docs */

/* @text with roff's font escapes dropped and "\-" made "-". */
static void unroff(char *text)
{
	char *w = text;

	for (const char *r = text; *r != '\0';) {
		if (r[0] == '\\' && r[1] == 'f' && r[2] != '\0') {
			r += 3;
		} else if (r[0] == '\\' && (r[1] == '-' || r[1] == '&')) {
			if (r[1] == '-')
				*w++ = '-';
			r += 2;
		} else {
			*w++ = *r++;
		}
	}
	*w = '\0';
}

/* @s in Markdown table code: "|" escaped. */
static void md_code(const char *s, char *buf, size_t len)
{
	size_t n = 0;

	buf[n++] = '`';
	for (; *s != '\0' && n + 4 < len; s++) {
		if (*s == '|')
			buf[n++] = '\\';
		buf[n++] = *s;
	}
	buf[n++] = '`';
	buf[n] = '\0';
}

/* Every option --help names and every command "help all" names appear in
 * doc/pmd.md (tables) and in the manual page. */
/* ------------------------------------------------ secondary, no dvshare */

/*
 * A secondary says what is wrong with its primary: none running (EAL's
 * own words would be "Cannot allocate memory"), or one that does not use
 * dvshare (else it would just report devices=0).
 */
static void test_secondary_without_primary(void)
{
	const char *const opts[] = { "--cmd", "show devices", NULL };
	char prefix[96], want[160];
	struct run_output o;
	struct peer plain;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdnop");
	CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, 0, NULL, opts, &o), 0);
	CU_ASSERT_EQUAL(o.status, 1);
	snprintf(want, sizeof(want), "error: EAL init failed: no primary running with file prefix %s",
		 prefix);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.out, want));
	run_output_free(&o);
	mp_cleanup(prefix);

	/* --quiet: not one log line, EAL's start-up notices included (no
	 * --log-level here: what a user types; without --no-telemetry,
	 * DPDK 22.11's telemetry adds its one warning). */
	{
		char fp[128];
		char *const q[] = { (char *)pmd, "-l", "0", "-m", "64", "--no-pci", "--no-telemetry", fp,
				    MP_BASE_VIRTADDR, "--", "--quiet", "--dev", "sim0", "--cmd",
				    "quit", NULL };
		snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
		CU_ASSERT_EQUAL_FATAL(run_capture(q, NULL, &o), 0);
		CU_ASSERT_EQUAL(o.status, 0);
		CU_ASSERT_STRING_EQUAL(o.err, "");
		run_output_free(&o);
		mp_cleanup(prefix);
	}

	fresh_prefix(prefix, sizeof(prefix), "pmdplain");
	CU_ASSERT_EQUAL_FATAL(peer_start_prog(&plain, mp_plain_prog, prefix, 1), 0);
	CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, 0, NULL, opts, &o), 0);
	CU_ASSERT_EQUAL(o.status, 0);
	snprintf(want, sizeof(want), "dvshare: the primary (pid %d) does not use dvshare", plain.pid);
	CU_ASSERT_PTR_NOT_NULL(strstr(o.err, want));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.out, "devices=0"));
	run_output_free(&o);
	close(plain.to); /* it reads its input to the end, then exits */
	plain.to = open("/dev/null", O_WRONLY);
	CU_ASSERT_EQUAL(peer_wait(&plain, MP_TIMEOUT_MS), 0);
	mp_cleanup(prefix);
}

/* ------------------------------------------------------- primary gone */

/* Ask @sec's "show peers" until its primary is in @state (it learns of
 * the primary's end from its own watch, a moment later); 1 once it is. */
static int primary_becomes(struct peer *sec, const char *state)
{
	char row[64];

	snprintf(row, sizeof(row), "primary %s", state);
	for (int i = 0; i < MP_TIMEOUT_MS / 50; i++) {
		send_line(sec, "show peers");
		const char *l = expect_row(sec, "primary");
		if (l == NULL)
			return 0;
		if (fields_match(l, row))
			return 1;
		usleep(50000);
	}
	return 0;
}

static void start_secondary(struct peer *sec, const char *prefix)
{
	const char *const opts[] = { "--stdin", NULL };

	CU_ASSERT_EQUAL_FATAL(pmd_start(sec, prefix, 0, 0, opts), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(expect_line(sec, "ready secondary pid="));
}

/*
 * What a secondary says of its primary: alive, then exited (a quit: its
 * close destroyed everything) or died (killed: the objects live on). The
 * objects it used before its primary died keep working: the pmd holds
 * their handles, and no lookup is needed.
 */
static void test_primary_gone(void)
{
	char prefix[96];
	struct peer prim, sec;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdgone");
	CU_ASSERT_EQUAL_FATAL(start_primary(&prim, prefix, 0), 0);
	start_secondary(&sec, prefix);
	send_line(&sec, "ring db0 7 1 0");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "ring db0: 1 doorbell(s) written"));
	send_line(&sec, "query q0");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "query q0: obj_id="));
	kill(prim.pid, SIGKILL);
	CU_ASSERT_EQUAL(peer_wait(&prim, MP_TIMEOUT_MS), 128 + SIGKILL);
	CU_ASSERT(primary_becomes(&sec, "died"));
	send_line(&sec, "stats");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "stats: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(sec.last, " orphaned=1 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(sec.last, " primary=died"));
	send_line(&sec, "ring db0 8 1 0");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "ring db0: 1 doorbell(s) written"));
	send_line(&sec, "query q0");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "query q0: obj_id="));
	/* Not used before: no lookup without a primary. */
	send_line(&sec, "query c0");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "error: query c0:"));
	send_line(&sec, "quit");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "bye: 1 failed"));
	CU_ASSERT_EQUAL(peer_wait(&sec, MP_TIMEOUT_MS), 1);
	mp_cleanup(prefix);

	/* A primary that quits: its secondary says it exited. */
	fresh_prefix(prefix, sizeof(prefix), "pmdexit");
	CU_ASSERT_EQUAL_FATAL(start_primary(&prim, prefix, 0), 0);
	start_secondary(&sec, prefix);
	send_line(&sec, "show peers");
	CU_ASSERT_PTR_NOT_NULL(expect_row(&sec, "primary alive"));
	stop(&prim);
	CU_ASSERT(primary_becomes(&sec, "exited"));
	send_line(&sec, "stats");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "stats: "));
	CU_ASSERT_PTR_NOT_NULL(strstr(sec.last, " orphaned=0 "));
	CU_ASSERT_PTR_NOT_NULL(strstr(sec.last, " primary=exited"));
	stop(&sec);
	mp_cleanup(prefix);
}

/* ------------------------------------------------------------- signals */

static long ms_since(const struct timespec *t0)
{
	struct timespec t1;

	clock_gettime(CLOCK_MONOTONIC, &t1);
	return (t1.tv_sec - t0->tv_sec) * 1000 + (t1.tv_nsec - t0->tv_nsec) / 1000000;
}

/*
 * SIGTERM or SIGINT while the pmd blocks reading its input ends it within
 * a second, with the usual close and exit status 0, as testpmd: a primary
 * on --stdin (an open pipe nobody writes to) closes its device with a
 * secondary attached, which hears the goodbye; a secondary at its prompt
 * on a terminal says goodbye itself.
 */
static void test_signals_quit(void)
{
	const char *const popts[] = { "--dev", "sim0", "--var", "db0", "--stdin", NULL };
	const char *const sopts[] = { NULL };
	char prefix[96];
	struct peer prim;
	struct term sec;
	struct timespec t0;

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmdsig");
	CU_ASSERT_EQUAL_FATAL(pmd_start(&prim, prefix, 1, 0, popts), 0);
	CU_ASSERT_PTR_NOT_NULL_FATAL(expect_line(&prim, "ready primary"));
	CU_ASSERT_EQUAL_FATAL(term_start(&sec, prefix, 0, sopts), 0);
	CU_ASSERT_EQUAL_FATAL(term_expect(&sec, "dvshare> "), 0);

	/* The secondary at its prompt. */
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(sec.p.pid, SIGINT);
	CU_ASSERT_EQUAL(term_expect(&sec, "bye: 0 failed"), 0);
	CU_ASSERT(ms_since(&t0) < 1000);
	CU_ASSERT_EQUAL(term_finish(&sec), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(sec.log, "signal 2 (Interrupt) received: closing"));
	term_free(&sec);

	/* The primary on --stdin, with a secondary attached. */
	CU_ASSERT_EQUAL_FATAL(term_start(&sec, prefix, 0, sopts), 0);
	CU_ASSERT_EQUAL_FATAL(term_expect(&sec, "dvshare> "), 0);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	kill(prim.pid, SIGTERM);
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "signal 15 (Terminated) received: closing"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "bye: 0 failed"));
	CU_ASSERT(ms_since(&t0) < 1000);
	CU_ASSERT_EQUAL(peer_wait(&prim, MP_TIMEOUT_MS), 0);
	/* The secondary heard the primary close: its objects are gone. */
	term_type(&sec, "show objects\r");
	CU_ASSERT_EQUAL(term_expect(&sec, "objects: none"), 0);
	term_type(&sec, "quit\r");
	CU_ASSERT_EQUAL(term_finish(&sec), 0);
	term_free(&sec);
	mp_cleanup(prefix);
}

static void test_docs_match(void)
{
	char *md = read_file("doc/pmd.md"), *man = read_file("doc/man/dvshare-pmd.1");
	char prefix[96], code[256];
	struct run_output o;
	int checked = 0;

	CU_ASSERT_PTR_NOT_NULL_FATAL(md);
	CU_ASSERT_PTR_NOT_NULL_FATAL(man);
	unroff(man);
	{
		char *const args[] = { (char *)pmd, "--help", NULL };
		CU_ASSERT_EQUAL_FATAL(run_capture(args, NULL, &o), 0);
	}
	for (const char *p = o.out; (p = strstr(p, "\n  -")) != NULL; p++) {
		char opt[128];
		size_t l = strcspn(p + 3, "\n");
		const char *end = strstr(p + 3, "  ");

		if (end != NULL && (size_t)(end - (p + 3)) < l)
			l = (size_t)(end - (p + 3));
		snprintf(opt, sizeof(opt), "%.*s", (int)l, p + 3);
		md_code(opt, code, sizeof(code));
		if (strstr(md, code) == NULL || strstr(man, opt) == NULL) {
			fprintf(stderr, "option %s: doc/pmd.md %s, man page %s\n", opt,
				strstr(md, code) ? "ok" : "lacks it",
				strstr(man, opt) ? "ok" : "lacks it");
			CU_FAIL("an option is not documented");
		}
		checked++;
	}
	CU_ASSERT(checked >= 13);
	run_output_free(&o);

	CU_ASSERT_FATAL(mp_have_hugepages());
	fresh_prefix(prefix, sizeof(prefix), "pmddoc");
	{
		const char *const opts[] = { "--cmd", "help all", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_capture(prefix, PMD_PRIMARY, NULL, opts, &o), 0);
	}
	checked = 0;
	for (const char *p = o.out; (p = strstr(p, "\n  ")) != NULL; p++) {
		char syntax[128];
		size_t l;
		const char *end;

		if (p[3] == ' ')
			continue; /* a wrapped description */
		l = strcspn(p + 3, "\n");
		end = strstr(p + 3, "  ");
		if (end != NULL && (size_t)(end - (p + 3)) < l)
			l = (size_t)(end - (p + 3));
		snprintf(syntax, sizeof(syntax), "%.*s", (int)l, p + 3);
		md_code(syntax, code, sizeof(code));
		if (strstr(md, code) == NULL || strstr(man, syntax) == NULL) {
			fprintf(stderr, "command %s: doc/pmd.md %s, man page %s\n", syntax,
				strstr(md, code) ? "ok" : "lacks it",
				strstr(man, syntax) ? "ok" : "lacks it");
			CU_FAIL("a command is not documented");
		}
		checked++;
	}
	CU_ASSERT(checked >= 20);
	run_output_free(&o);
	/* Telemetry has its own page. */
	CU_ASSERT_PTR_NOT_NULL(strstr(md, "doc/telemetry.md"));
	CU_ASSERT_PTR_NULL(strstr(md, "/dvshare/devices"));
	free(md);
	free(man);
	mp_cleanup(prefix);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_cmdfile_primary_and_secondary),
	DVS_TEST(test_forward_in_secondary),
	DVS_TEST(test_errors_are_one_line),
	DVS_TEST(test_help_and_version),
	DVS_TEST(test_usage_errors),
	DVS_TEST(test_help_sections),
	DVS_TEST(test_aliases),
	DVS_TEST(test_errors_counted_scripted),
	DVS_TEST(test_errors_counted_interactive),
	DVS_TEST(test_show_tables),
	DVS_TEST(test_wrong_kind),
	DVS_TEST(test_tab_completion),
	DVS_TEST(test_engine_per_device),
	DVS_TEST(test_secondary_without_primary),
	DVS_TEST(test_primary_gone),
	DVS_TEST(test_signals_quit),
	DVS_TEST(test_docs_match),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: %s DVSHARE_PMD SOURCE_ROOT PLAIN_PRIMARY\n", argv[0]);
		return -1;
	}
	pmd = argv[1];
	source_root = argv[2];
	mp_plain_prog = argv[3];
	signal(SIGPIPE, SIG_IGN);
	return dvs_cunit_add("pmd", cases);
}

DVS_CUNIT_MAIN("test_pmd", register_tests)
