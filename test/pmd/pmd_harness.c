/* SPDX-License-Identifier: BSD-3-Clause */
#include "pmd_harness.h"

#include "dvs_cunit.h"

const char *pmd;

/* A pmd process whose every output line is a reply line. */
int pmd_start(struct peer *p, const char *prefix, int primary, int telemetry,
	      const char *const extra[])
{
	char fp[128];
	char *args[40] = { (char *)pmd, "--no-pci", fp, "--log-level=lib.eal:error",
			   MP_BASE_VIRTADDR };
	int n = 5;

	memset(p, 0, sizeof(*p));
	p->tag = "";
	p->with_stderr = 1; /* the library's log lines are checked too */
	snprintf(fp, sizeof(fp), "--file-prefix=%s", prefix);
	if (primary) {
		/* A service lcore for the engine. */
		args[n++] = "-l";
		args[n++] = "0,1";
		args[n++] = "-s";
		args[n++] = "0x2";
		args[n++] = "-m";
		args[n++] = "64";
	} else {
		args[n++] = "-l";
		args[n++] = "0";
		args[n++] = "--proc-type=secondary";
	}
	if (!telemetry)
		args[n++] = "--no-telemetry";
	args[n++] = "--";
	for (int i = 0; extra[i] != NULL && n < 39; i++)
		args[n++] = (char *)extra[i];
	args[n] = NULL;
	return peer_spawn(p, args, NULL);
}

/* Read lines until one starts with @prefix; that line, or NULL. */
const char *expect_line(struct peer *p, const char *prefix)
{
	while (peer_read(p, MP_TIMEOUT_MS) == 0)
		if (strncmp(p->last, prefix, strlen(prefix)) == 0)
			return p->last;
	fprintf(stderr, "no line starting with '%s' (last: %s)\n", prefix, p->last);
	return NULL;
}

int send_line(struct peer *p, const char *line)
{
	return peer_send(p, "%s", line);
}

/* A primary with a VAR, a VIRTIO_NET_Q (with metadata; its PD and three
 * UMEMs come with it), a flow counter and the engine. */
int start_primary(struct peer *p, const char *prefix, int telemetry)
{
	const char *const opts[] = { "--dev", "sim0", "--var", "db0", "--virtq",
				     "q0:3:128:queue=3", "--counter", "c0", "--engine", "--stdin",
				     NULL };

	if (pmd_start(p, prefix, 1, telemetry, opts) != 0)
		return -1;
	return expect_line(p, "ready primary") != NULL ? 0 : -1;
}

void stop(struct peer *p)
{
	send_line(p, "quit");
	CU_ASSERT_PTR_NOT_NULL(expect_line(p, "bye: 0 failed"));
	CU_ASSERT_EQUAL(peer_wait(p, MP_TIMEOUT_MS), 0);
}

