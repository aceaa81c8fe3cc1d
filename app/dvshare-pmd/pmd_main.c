/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dvshare-pmd: share devices (primary) or use them (secondary), like
 * testpmd. EAL options pick the role; the application's options come
 * after "--" (pmd_help.c lists them, doc/pmd.md explains them).
 *
 * The options are read before rte_eal_init(), so --help and --version
 * answer and a malformed command line is refused without starting DPDK;
 * what they ask for is done after it: devices and objects in option order
 * (--var and the like act on the last --dev), then the commands.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "dvshare.h"
#include "app_objects.h"
#include "pmd.h"

#define MAX_ITEMS 256

/* An option with its argument, in command line order. */
struct item {
	int opt;
	const char *arg;
};

struct pmd_opts {
	struct item setup[MAX_ITEMS];  /* --dev, --var, ..., --engine */
	int nsetup;
	struct item script[MAX_ITEMS]; /* --cmd, --cmdline-file */
	int nscript;
	int interactive;
	int from_stdin;
	int quiet;
	int help;
	int version;
	const char *reference; /* --reference md|man */
};

static const struct option long_opts[] = {
	{ "dev", required_argument, NULL, 'd' },
	{ "var", required_argument, NULL, 'v' },
	{ "virtq", required_argument, NULL, 'q' },
	{ "umem", required_argument, NULL, 'u' },
	{ "counter", required_argument, NULL, 'n' },
	{ "engine", no_argument, NULL, 'e' },
	{ "cmd", required_argument, NULL, 'c' },
	{ "cmdline-file", required_argument, NULL, 'f' },
	{ "cmdfile", required_argument, NULL, 'f' }, /* the first spelling */
	{ "interactive", no_argument, NULL, 'i' },
	{ "stdin", no_argument, NULL, 's' },
	{ "quiet", no_argument, NULL, 'Q' },
	{ "echo", no_argument, NULL, 'E' },
	{ "help", no_argument, NULL, 'h' },
	{ "version", no_argument, NULL, 'V' },
	{ "reference", required_argument, NULL, 'R' },
	{ NULL, 0, NULL, 0 },
};

/* Options that act on the last --dev. */
#define ON_DEVICE "vqune"

static const char *opt_name(int c)
{
	for (int i = 0; long_opts[i].name != NULL; i++)
		if (long_opts[i].val == c)
			return long_opts[i].name;
	return "?";
}

/* Decimal or 0x number of at most @max, the whole string. */
static int number(const char *s, unsigned long max, uint32_t *out)
{
	char *end;
	unsigned long v;

	if (s == NULL || *s == '\0' || *s == '-')
		return -EINVAL;
	errno = 0;
	v = strtoul(s, &end, 0);
	if (errno != 0 || *end != '\0' || v > max)
		return -EINVAL;
	*out = (uint32_t)v;
	return 0;
}

/* NAME:A[:B][:REST]: the name and @nnum numbers; *rest what follows. */
static int spec(const char *arg, char *name, uint32_t *num, int nnum, const char **rest)
{
	const char *p = arg;
	size_t l = strcspn(p, ":");

	if (l == 0 || l >= DVSHARE_NAME_MAX)
		return -EINVAL;
	memcpy(name, p, l);
	name[l] = '\0';
	p += l;
	for (int i = 0; i < nnum; i++) {
		char n[32];

		if (*p++ != ':')
			return -EINVAL;
		l = strcspn(p, ":");
		if (l == 0 || l >= sizeof(n))
			return -EINVAL;
		memcpy(n, p, l);
		n[l] = '\0';
		if (number(n, UINT32_MAX, &num[i]) != 0)
			return -EINVAL;
		p += l;
	}
	if (rest != NULL)
		*rest = *p == ':' ? p + 1 : NULL;
	else if (*p != '\0')
		return -EINVAL;
	return 0;
}

/* What is wrong with option @c's argument, or NULL. */
static const char *bad_value(int c, const char *arg)
{
	char name[DVSHARE_NAME_MAX];
	uint32_t num[2];
	const char *rest;

	if (c == 'q' && (spec(arg, name, num, 2, &rest) != 0 || num[0] > UINT16_MAX ||
			 num[1] > UINT16_MAX))
		return "wants NAME:QIDX:QSIZE[:META], QIDX and QSIZE at most 65535";
	if (c == 'u' && spec(arg, name, num, 1, NULL) != 0)
		return "wants NAME:SIZE";
	return NULL;
}

/* The first thing wrong with the command line, kept until the whole of
 * it was read: a --help or --version after it still wins. */
static char usage_err[256];

static int __attribute__((format(printf, 1, 2))) usage_error(const char *fmt, ...)
{
	va_list ap;

	if (usage_err[0] == '\0') {
		va_start(ap, fmt);
		vsnprintf(usage_err, sizeof(usage_err), fmt, ap);
		va_end(ap);
	}
	return -EINVAL;
}

static void add_item(struct item *items, int *n, int c, const char *arg)
{
	if (*n == MAX_ITEMS)
		usage_error("more than %d setup options or commands", MAX_ITEMS);
	else
		items[(*n)++] = (struct item){ c, arg };
}

/* One application option (from getopt_long()), noted in @o. */
static void read_app_option(int c, const char *arg, const char *argv_opt, struct pmd_opts *o,
			    int *have_dev)
{
	const char *bad;

	switch (c) {
	case '?': usage_error("unknown option %s", argv_opt); break;
	case ':': usage_error("%s needs an argument", argv_opt); break;
	case 'h': o->help = 1; break;
	case 'V': o->version = 1; break;
	case 'R': o->reference = arg; break;
	case 'i': o->interactive = 1; break;
	case 's': o->from_stdin = 1; break;
	case 'Q': o->quiet = 1; break;
	case 'E': pmd_echo = 1; break;
	case 'c':
	case 'f': add_item(o->script, &o->nscript, c, arg); break;
	default:
		bad = bad_value(c, arg);
		if (bad != NULL)
			usage_error("--%s %s", opt_name(c), bad);
		else if (strchr(ON_DEVICE, c) != NULL && !*have_dev)
			usage_error("--%s acts on the device named before it: give --dev first",
				    opt_name(c));
		*have_dev |= c == 'd';
		add_item(o->setup, &o->nsetup, c, arg);
	}
}

/* The application's options (argv after "--"): read them all, note what
 * to do and the first thing wrong (usage_err). */
static void read_app_options(int argc, char **argv, struct pmd_opts *o)
{
	int c, have_dev = 0;

	opterr = 0; /* our own one-line errors */
	optind = 1;
	/* "+": stop at a stray argument (to say so, then go on past it)
	 * rather than move it to the end. */
	for (;;) {
		c = getopt_long(argc, argv, "+:hi", long_opts, NULL);
		if (c != -1) {
			read_app_option(c, optarg, argv[optind - 1], o, &have_dev);
			continue;
		}
		if (optind >= argc)
			break;
		usage_error("unexpected argument %s", argv[optind]);
		optind++;
	}
	optind = 1; /* EAL parses with getopt too */
}

/* Before DPDK starts: --help and --version wherever they are (EAL's own
 * usage comes with "-h"), and a command line that cannot work: one error
 * line, exit status 1. Returns only to go on. */
static void early_options(int argc, char **argv, struct pmd_opts *o)
{
	char *app[MAX_ITEMS * 2 + 2];
	int dd = 1, n = 1;

	while (dd < argc && strcmp(argv[dd], "--") != 0) {
		o->help |= strcmp(argv[dd], "--help") == 0;
		o->version |= strcmp(argv[dd], "--version") == 0;
		dd++;
	}
	app[0] = argv[0];
	for (int i = dd + 1; i < argc && n < (int)(sizeof(app) / sizeof(app[0])) - 1; i++)
		app[n++] = argv[i];
	app[n] = NULL;
	read_app_options(n, app, o);
	if (o->help) {
		pmd_usage(argv[0]);
		exit(EXIT_SUCCESS);
	}
	if (o->version) {
		pmd_print_version();
		exit(EXIT_SUCCESS);
	}
	if (o->reference != NULL && usage_err[0] == '\0')
		exit(pmd_reference(o->reference) == 0 ? EXIT_SUCCESS : EXIT_FAILURE);
	if (usage_err[0] != '\0') {
		printf("error: %s (see dvshare-pmd --help)\n", usage_err);
		exit(EXIT_FAILURE);
	}
}

static int startup_virtq(const char *dev, const char *arg)
{
	char name[DVSHARE_NAME_MAX];
	uint32_t num[2];
	const char *meta;

	spec(arg, name, num, 2, &meta); /* checked by read_app_options() */
	return pmd_virtq_create(dev, name, num[0], num[1], meta);
}

static int startup_umem(const char *dev, const char *arg)
{
	char name[DVSHARE_NAME_MAX];
	uint32_t size;

	spec(arg, name, &size, 1, NULL);
	return pmd_umem_reg(dev, name, size);
}

static int startup_dev(const char *dev, int primary)
{
	if (!primary && dvshare_dev_lookup(dev) == NULL)
		return pmd_error(-ENODEV, "--dev", "the primary does not share %s", dev);
	if (primary && dvshare_dev_open(dev, NULL) == NULL)
		return pmd_error(-rte_errno, "--dev", "cannot share %s: %s", dev,
				 rte_strerror(rte_errno));
	return 0;
}

/* Devices and objects, in option order; the first failure stops it. */
static int startup(const struct pmd_opts *o)
{
	int primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	const char *dev = NULL;
	int rc = 0;

	for (int i = 0; i < o->nsetup && rc == 0; i++) {
		int c = o->setup[i].opt;
		const char *arg = o->setup[i].arg;

		if (!primary && c != 'd') {
			char what[96];

			snprintf(what, sizeof(what), "--%s", opt_name(c));
			rc = pmd_error(-EPERM, what, "for the primary (this is a secondary)");
			break;
		}
		switch (c) {
		case 'd': dev = arg; rc = startup_dev(dev, primary); break;
		case 'v': rc = pmd_var_alloc(dev, arg); break;
		case 'q': rc = startup_virtq(dev, arg); break;
		case 'u': rc = startup_umem(dev, arg); break;
		case 'n': rc = pmd_counter_create(dev, arg); break;
		case 'e': rc = pmd_engine_start(dev); break;
		}
	}
	if (rc != 0)
		pmd_failures++;
	return rc;
}

/* Every line of @f: 0, or the errno that stopped the reading. */
static int run_file(FILE *f)
{
	char *line = NULL;
	size_t cap = 0;

	errno = 0;
	while ((pmd_signals_poll(), !pmd_quit) && getline(&line, &cap, f) != -1)
		pmd_parse_line(line);
	free(line);
	return ferror(f) ? (errno != 0 ? errno : EIO) : 0;
}

/* Standard input, line by line, read without stdio: a quit signal is
 * taken only while waiting (pmd_wait_input), and stdio could hold lines
 * in its buffer that no wait would see. The last line may lack its '\n'. */
static void run_stdin(void)
{
	char *buf = NULL;
	size_t len = 0, cap = 0;

	while (pmd_wait_input(0) > 0) {
		if (cap - len < 4096) {
			char *nb = realloc(buf, cap + 8192);
			if (nb == NULL)
				break;
			buf = nb;
			cap += 8192;
		}
		ssize_t n = read(0, buf + len, cap - len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		len += (size_t)n;
		char *start = buf, *nl;
		while (!pmd_quit && (nl = memchr(start, '\n', len - (size_t)(start - buf))) != NULL) {
			*nl = '\0';
			pmd_parse_line(start);
			start = nl + 1;
			pmd_signals_poll();
		}
		len -= (size_t)(start - buf);
		memmove(buf, start, len);
	}
	if (len > 0 && !pmd_quit) {
		buf[len] = '\0';
		pmd_parse_line(buf);
	}
	free(buf);
}

/* --cmd and --cmdline-file in order; a file that cannot be read is one
 * failure, and the rest still runs. */
static void run_script(const struct pmd_opts *o)
{
	for (int i = 0; i < o->nscript && (pmd_signals_poll(), !pmd_quit); i++) {
		const char *arg = o->script[i].arg;
		char what[512];
		FILE *f;
		int err;

		if (o->script[i].opt == 'c') {
			pmd_parse_line(arg);
			continue;
		}
		f = fopen(arg, "r");
		err = f != NULL ? run_file(f) : errno;
		if (f != NULL)
			fclose(f);
		if (err != 0) { /* not there, not readable, a directory */
			snprintf(what, sizeof(what), "--cmdline-file %s", arg);
			pmd_error(-err, what, "%s", strerror(err));
			pmd_failures++;
		}
	}
}

/* Primary: coordinated close of every device; secondary: detach. */
static void close_all(void)
{
	struct dvshare_dev *devs[64];
	int n = dvshare_dev_list(devs, 64);

	pmd_fwd_shutdown(); /* its ports' objects, then their memory */
	pmd_held_drop(NULL);
	for (int i = 0; i < n && i < 64; i++) {
		if (dvshare_dev_close(devs[i]) != 0) {
			pmd_error(-rte_errno, "closing", "%s: %s", dvshare_dev_name(devs[i]),
				  rte_strerror(rte_errno));
			pmd_failures++;
		}
	}
}

/*
 * A secondary whose primary has gone: rte_eal_cleanup() frees EAL's own
 * memory (the service arrays), and when that frees a hugepage DPDK asks the
 * primary to unmap it: "failed to send to (.../mp_socket)" and "Cannot
 * send message to primary", also from a DPDK-only secondary (doc/pmd.md).
 * dvshare has said what happened to the primary; the quit stays quiet.
 */
static void quiet_if_orphaned(void)
{
	struct dvshare_stats st;

	if (rte_eal_process_type() == RTE_PROC_SECONDARY && dvshare_stats_get(&st) == 0 &&
	    st.primary_state != DVSHARE_PRIMARY_ALIVE)
		rte_log_set_level_pattern("lib.eal", RTE_LOG_CRIT);
}

/* EAL's "-h": its usage, then ours. */
static void usage_hook(const char *prog)
{
	pmd_usage(prog);
}

int main(int argc, char **argv)
{
	static struct pmd_opts o;
	int ret;

	early_options(argc, argv, &o);
	pmd_signals_setup(); /* before EAL's threads: they inherit the mask */
	/* --quiet holds back EAL's own notices too: set before its init
	 * (an EAL --log-level given still applies). */
	if (o.quiet)
		rte_log_set_global_level(RTE_LOG_WARNING);
	rte_set_application_usage_hook(usage_hook);
	ret = rte_eal_init(argc, argv);
	if (ret < 0) {
		char why[256];

		dvshare_eal_init_explain(0, NULL, rte_errno, why, sizeof(why));
		printf("error: EAL init failed: %s\n", why);
		return 1;
	}
	if (startup(&o) == 0) {
		printf("ready %s pid=%d devices=%d attach_status=%d\n",
		       rte_eal_process_type() == RTE_PROC_PRIMARY ? "primary" : "secondary",
		       (int)getpid(), dvshare_dev_list(NULL, 0), dvshare_attach_status());
		fflush(stdout);
		run_script(&o);
		if (!pmd_quit && (o.interactive || (o.nscript == 0 && !o.from_stdin && isatty(0))))
			pmd_interact();
		else if (!pmd_quit && (o.from_stdin || o.nscript == 0))
			run_stdin();
	}
	if (pmd_quit_signal() != 0)
		printf("\nsignal %d (%s) received: closing\n", pmd_quit_signal(),
		       strsignal(pmd_quit_signal()));
	close_all();
	quiet_if_orphaned();
	rte_eal_cleanup();
	printf("bye: %d failed command(s)\n", pmd_failures);
	return pmd_failures != 0 ? 1 : 0;
}
