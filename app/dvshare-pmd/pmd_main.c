/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dvshare-pmd: share devices (primary) or use them (secondary), like
 * testpmd. EAL options pick the role; application options after "--":
 *
 *   --dev NAME                 share NAME (primary); repeatable
 *   --var NAME                 allocate and publish a VAR on the last --dev
 *   --virtq NAME:QIDX:QSIZE[:META]  create a virtio queue (+ metadata)
 *   --umem NAME:SIZE           register SIZE bytes as a UMEM
 *   --counter NAME             create a flow counter
 *   --engine                   run the sim device engine as a DPDK service
 *   --cmd "LINE"               run a command; repeatable, in order
 *   --cmdfile FILE             run the commands in FILE
 *   -i, --interactive          then give a prompt (librte_cmdline)
 *   --stdin                    then read commands from stdin, one a line
 *   --quiet                    fewer messages
 *
 * Without --cmd/--cmdfile: a prompt on a terminal, else stdin lines.
 * Exit status 1 when any command failed.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <rte_eal.h>
#include <rte_errno.h>
#include <rte_log.h>

#include "dvshare.h"
#include "pmd.h"

#define MAX_SCRIPT 64

struct script_item {
	int is_file;
	const char *text;
};

struct pmd_opts {
	struct script_item script[MAX_SCRIPT];
	int nscript;
	int interactive;
	int from_stdin;
	int quiet;
};

static void usage(const char *prog)
{
	printf("usage: %s [EAL options] -- [--dev NAME] [--var NAME] "
	       "[--virtq NAME:QIDX:QSIZE[:META]] [--umem NAME:SIZE] [--counter NAME] [--engine]\n"
	       "       [--cmd LINE]... [--cmdfile FILE] [-i|--stdin] [--quiet]\n", prog);
}

static int startup_virtq(const char *dev, char *spec)
{
	char *name = strtok(spec, ":"), *qidx = strtok(NULL, ":"), *qsize = strtok(NULL, ":");
	char *meta = strtok(NULL, "");

	if (name == NULL || qidx == NULL || qsize == NULL) {
		printf("error: --virtq wants NAME:QIDX:QSIZE[:META]\n");
		return -EINVAL;
	}
	return pmd_virtq_create(dev, name, (uint32_t)strtoul(qidx, NULL, 0),
				(uint32_t)strtoul(qsize, NULL, 0), meta);
}

static int startup_umem(const char *dev, char *spec)
{
	char *name = strtok(spec, ":"), *size = strtok(NULL, ":");

	if (name == NULL || size == NULL) {
		printf("error: --umem wants NAME:SIZE\n");
		return -EINVAL;
	}
	return pmd_umem_reg(dev, name, (uint32_t)strtoul(size, NULL, 0));
}

/* Objects and devices are set up in option order; stop at the first error. */
static int parse_and_start(int argc, char **argv, struct pmd_opts *o)
{
	static const struct option lo[] = {
		{ "dev", required_argument, NULL, 'd' },
		{ "var", required_argument, NULL, 'v' },
		{ "virtq", required_argument, NULL, 'q' },
		{ "umem", required_argument, NULL, 'u' },
		{ "counter", required_argument, NULL, 'n' },
		{ "engine", no_argument, NULL, 'e' },
		{ "cmd", required_argument, NULL, 'c' },
		{ "cmdfile", required_argument, NULL, 'f' },
		{ "interactive", no_argument, NULL, 'i' },
		{ "stdin", no_argument, NULL, 's' },
		{ "quiet", no_argument, NULL, 'Q' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int primary = rte_eal_process_type() == RTE_PROC_PRIMARY;
	const char *dev = NULL;
	int c, rc = 0;

	optind = 1;
	while (rc == 0 && (c = getopt_long(argc, argv, "i", lo, NULL)) != -1) {
		if (!primary && strchr("vquen", c) != NULL) {
			printf("error: --%s is for the primary\n",
			       c == 'e' ? "engine" : "var/--virtq/--umem/--counter");
			return -EPERM;
		}
		if (strchr("vquen", c) != NULL && dev == NULL) {
			printf("error: give --dev before objects and --engine\n");
			return -EINVAL;
		}
		switch (c) {
		case 'd':
			dev = optarg;
			if (primary && dvshare_dev_open(dev, NULL) == NULL) {
				printf("error: cannot share %s: %s\n", dev, rte_strerror(rte_errno));
				rc = -rte_errno;
			}
			break;
		case 'v': rc = pmd_var_alloc(dev, optarg); break;
		case 'q': rc = startup_virtq(dev, optarg); break;
		case 'u': rc = startup_umem(dev, optarg); break;
		case 'n': rc = pmd_counter_create(dev, optarg); break;
		case 'e': {
			uint32_t id;
			rc = dvshare_engine_start(dvshare_dev_lookup(dev), &id);
			if (rc != 0)
				printf("error: engine on %s: %s\n", dev, strerror(-rc));
			break;
		}
		case 'c':
		case 'f':
			if (o->nscript == MAX_SCRIPT)
				return -E2BIG;
			o->script[o->nscript++] = (struct script_item){ c == 'f', optarg };
			break;
		case 'i': o->interactive = 1; break;
		case 's': o->from_stdin = 1; break;
		case 'Q': o->quiet = 1; break;
		default: usage(argv[0]); return -EINVAL;
		}
	}
	return rc;
}

static void run_file(FILE *f)
{
	char line[1024];

	while (!pmd_quit && fgets(line, sizeof(line), f) != NULL)
		pmd_parse_line(line);
}

static int run_script(const struct pmd_opts *o)
{
	for (int i = 0; i < o->nscript && !pmd_quit; i++) {
		if (!o->script[i].is_file) {
			pmd_parse_line(o->script[i].text);
			continue;
		}
		FILE *f = fopen(o->script[i].text, "r");
		if (f == NULL) {
			printf("error: cannot read %s: %s\n", o->script[i].text, strerror(errno));
			return -errno;
		}
		run_file(f);
		fclose(f);
	}
	return 0;
}

static void on_signal(int sig)
{
	(void)sig;
	pmd_quit = 1;
}

/* Primary: coordinated close of every device; secondary: detach. */
static void close_all(void)
{
	struct dvshare_dev *devs[64];
	int n = dvshare_dev_list(devs, 64);

	for (int i = 0; i < n && i < 64; i++)
		if (dvshare_dev_close(devs[i]) != 0)
			printf("error: closing %s: %s\n", dvshare_dev_name(devs[i]),
			       rte_strerror(rte_errno));
}

int main(int argc, char **argv)
{
	struct pmd_opts o;
	int ret = rte_eal_init(argc, argv);

	if (ret < 0) {
		fprintf(stderr, "dvshare-pmd: EAL init failed: %s\n", rte_strerror(rte_errno));
		return 1;
	}
	memset(&o, 0, sizeof(o));
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (parse_and_start(argc - ret, argv + ret, &o) != 0) {
		close_all();
		rte_eal_cleanup();
		return 1;
	}
	if (o.quiet)
		rte_log_set_global_level(RTE_LOG_WARNING);
	printf("ready %s pid=%d devices=%d attach_status=%d\n",
	       rte_eal_process_type() == RTE_PROC_PRIMARY ? "primary" : "secondary", (int)getpid(),
	       dvshare_dev_list(NULL, 0), dvshare_attach_status());
	fflush(stdout);
	run_script(&o);
	if (!pmd_quit) {
		if (o.interactive || (o.nscript == 0 && !o.from_stdin && isatty(0)))
			pmd_interact();
		else if (o.from_stdin || o.nscript == 0)
			run_file(stdin);
	}
	close_all();
	rte_eal_cleanup();
	printf("bye: %d failed command(s)\n", pmd_failures);
	return pmd_failures != 0 ? 1 : 0;
}
