/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite pmd: dvshare-pmd as a user runs it, primary and secondary, driven
 * through --cmdfile / --cmd / stdin, checking what they print; and the
 * /dvshare telemetry read over the runtime-dir socket the way DPDK's
 * telemetry client does.
 *
 * argv: DVSHARE_PMD
 */
#include <sys/socket.h>
#include <sys/un.h>

#include "dvs_cunit.h"
#include "mp_harness.h"

static const char *pmd;

/* A pmd process whose every output line is a reply line. */
static int pmd_start(struct peer *p, const char *prefix, int primary, int telemetry,
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
static const char *expect_line(struct peer *p, const char *prefix)
{
	while (peer_read(p, MP_TIMEOUT_MS) == 0)
		if (strncmp(p->last, prefix, strlen(prefix)) == 0)
			return p->last;
	fprintf(stderr, "no line starting with '%s' (last: %s)\n", prefix, p->last);
	return NULL;
}

static int send_line(struct peer *p, const char *line)
{
	return peer_send(p, "%s", line);
}

/* A primary with a VAR, a VIRTIO_NET_Q (with metadata; its PD and three
 * UMEMs come with it), a flow counter and the engine. */
static int start_primary(struct peer *p, const char *prefix, int telemetry)
{
	const char *const opts[] = { "--dev", "sim0", "--var", "db0", "--virtq",
				     "q0:3:128:queue=3", "--counter", "c0", "--engine", "--stdin",
				     NULL };

	if (pmd_start(p, prefix, 1, telemetry, opts) != 0)
		return -1;
	return expect_line(p, "ready primary") != NULL ? 0 : -1;
}

static void stop(struct peer *p)
{
	send_line(p, "quit");
	CU_ASSERT_PTR_NOT_NULL(expect_line(p, "bye: 0 failed"));
	CU_ASSERT_EQUAL(peer_wait(p, MP_TIMEOUT_MS), 0);
}

static void test_cmdfile_primary_and_secondary(void)
{
	char prefix[96], file[128];
	struct peer prim, sec;
	const char *l;
	FILE *f;

	CU_ASSERT_FATAL(mp_have_hugepages());
	mp_prefix(prefix, sizeof(prefix), "pmd");
	mp_cleanup(prefix);
	CU_ASSERT_EQUAL_FATAL(start_primary(&prim, prefix, 0), 0);
	snprintf(file, sizeof(file), "/tmp/%s.cmds", prefix);
	f = fopen(file, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("# a comment, then the session\n"
	      "show devices\n"
	      "show objects\n"
	      "ring db0 5 20 200\n"
	      "query q0\n"
	      "modify q0 avail 20\n"
	      "query c0\n"
	      "caps sim0\n"
	      "meta get sim0 q0\n"
	      "stats\n", f);
	fclose(f);
	{
		const char *const opts[] = { "--cmdfile", file, NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_start(&sec, prefix, 0, 0, opts), 0);
	}
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "ready secondary"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "device sim0 role=secondary objects=7"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "object sim0 db0 var id=0 size=4096"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "ring db0: 20 doorbell(s) written, value=5"));
	l = expect_line(&sec, "query q0:");
	CU_ASSERT(l != NULL && strstr(l, "queue_index=3 queue_size=128 state=init") != NULL);
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "modify q0: avail=20"));
	l = expect_line(&sec, "query c0:");
	CU_ASSERT(l != NULL && strstr(l, "packets=0 octets=0") != NULL);
	l = expect_line(&sec, "caps sim0: vhca_id");
	CU_ASSERT(l != NULL && strstr(l, "virtio_net_q=yes") != NULL);
	l = expect_line(&sec, "caps sim0: doorbell_bar_offset");
	CU_ASSERT(l != NULL && strstr(l, "doorbell_bar_offset=0x1800") != NULL);
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "meta q0: queue=3"));
	l = expect_line(&sec, "stats:");
	CU_ASSERT(l != NULL && strstr(l, "attach_status=1 devices=1") != NULL);
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "bye: 0 failed"));
	CU_ASSERT_EQUAL(peer_wait(&sec, MP_TIMEOUT_MS), 0);
	unlink(file);

	/* The primary's device saw the secondary's doorbells and its modify.
	 * Stores between two engine passes may coalesce: at least one kick,
	 * and the last value. */
	send_line(&prim, "show engine");
	l = expect_line(&prim, "engine sim0 db0 page=0 kicks=");
	CU_ASSERT(l != NULL && strstr(l, "last=5") != NULL && strstr(l, "kicks=0 ") == NULL);
	send_line(&prim, "query q0");
	l = expect_line(&prim, "query q0:");
	CU_ASSERT(l != NULL && strstr(l, "hw_available_index=20") != NULL);
	stop(&prim);
	mp_cleanup(prefix);
}

/* One clear error line, the session goes on, the exit status says so. */
static void test_errors_are_one_line(void)
{
	char prefix[96];
	struct peer prim, sec;

	CU_ASSERT_FATAL(mp_have_hugepages());
	mp_prefix(prefix, sizeof(prefix), "pmderr");
	mp_cleanup(prefix);
	CU_ASSERT_EQUAL_FATAL(start_primary(&prim, prefix, 0), 0);
	{
		const char *const opts[] = { "--cmd", "frobnicate", "--cmd", "ring nosuch 1",
					     "--cmd", "var alloc sim0 x", "--cmd", "query q0", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_start(&sec, prefix, 0, 0, opts), 0);
	}
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "error: frobnicate: unknown command"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "error: no such object nosuch"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "error: var alloc x: Operation not permitted"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "query q0:")); /* still going */
	CU_ASSERT_PTR_NOT_NULL(expect_line(&sec, "bye: 3 failed"));
	CU_ASSERT_EQUAL(peer_wait(&sec, MP_TIMEOUT_MS), 1);
	/* The primary: a device error is one line too. */
	send_line(&prim, "obj create sim0 bad 0 100");
	/* The library logs the device's status because the device answered. */
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "dvshare: sim0: DEVX create for bad failed: status BAD_PARAM, syndrome 0x"));
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "error: obj create bad: Remote I/O error (status BAD_PARAM"));
	send_line(&prim, "destroy sim0 db0 1000");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "destroy db0: done"));
	send_line(&prim, "quit");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "bye: 1 failed"));
	CU_ASSERT_EQUAL(peer_wait(&prim, MP_TIMEOUT_MS), 1);
	mp_cleanup(prefix);
}

/* DPDK's telemetry protocol (compact JSON): connect (SOCK_SEQPACKET), read the banner,
 * send a command, read one JSON reply. */
static int tel_query(int s, const char *cmd, char *out, size_t len)
{
	ssize_t n;

	if (send(s, cmd, strlen(cmd), 0) < 0)
		return -1;
	n = recv(s, out, len - 1, 0);
	if (n <= 0)
		return -1;
	out[n] = '\0';
	return 0;
}

static int tel_connect(const char *prefix)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	char buf[1024];
	int s = socket(AF_UNIX, SOCK_SEQPACKET, 0);

	snprintf(sun.sun_path, sizeof(sun.sun_path), "/var/run/dpdk/%.60s/dpdk_telemetry.v2", prefix);
	for (int i = 0; i < 100; i++) {
		if (connect(s, (struct sockaddr *)&sun, sizeof(sun)) == 0) {
			if (recv(s, buf, sizeof(buf), 0) > 0) /* the banner */
				return s;
			break;
		}
		usleep(20000);
	}
	close(s);
	return -1;
}

static void test_telemetry_socket(void)
{
	char prefix[96], out[16384], pid[32];
	struct peer prim, sec;
	int s;

	CU_ASSERT_FATAL(mp_have_hugepages());
	mp_prefix(prefix, sizeof(prefix), "pmdtel");
	mp_cleanup(prefix);
	CU_ASSERT_EQUAL_FATAL(start_primary(&prim, prefix, 1), 0);
	{
		const char *const opts[] = { "--stdin", NULL };
		CU_ASSERT_EQUAL_FATAL(pmd_start(&sec, prefix, 0, 0, opts), 0);
	}
	const char *ready = expect_line(&sec, "ready secondary pid=");
	CU_ASSERT_PTR_NOT_NULL_FATAL(ready);
	int sec_pid = atoi(ready + strlen("ready secondary pid="));
	snprintf(pid, sizeof(pid), "\"%d\"", sec_pid);
	s = tel_connect(prefix);
	CU_ASSERT_FATAL(s >= 0);
	CU_ASSERT_EQUAL(tel_query(s, "/dvshare/devices", out, sizeof(out)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"/dvshare/devices\":{\"sim0\":{\"role\":\"primary\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"engine\":1"));
	CU_ASSERT_EQUAL(tel_query(s, "/dvshare/objects,sim0", out, sizeof(out)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"count\":7")); /* db0, c0, q0, its PD and UMEMs */
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"db0\":\"var id=0 size=4096 meta=0\""));
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"q0\":\"obj id="));
	CU_ASSERT_EQUAL(tel_query(s, "/dvshare/objects,nosuch", out, sizeof(out)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "null"));
	CU_ASSERT_EQUAL(tel_query(s, "/dvshare/peers", out, sizeof(out)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, pid)); /* the attached secondary */
	CU_ASSERT_EQUAL(tel_query(s, "/dvshare/stats", out, sizeof(out)), 0);
	CU_ASSERT_PTR_NOT_NULL(strstr(out, "\"published\":7"));
	if (strstr(out, "\"published\":7") == NULL)
		fprintf(stderr, "telemetry said: %s\n", out);
	close(s);
	/* The same from the prompt. */
	send_line(&prim, "show peers");
	CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, "peers: 1 secondary(ies) attached"));
	{
		char want[64];
		snprintf(want, sizeof(want), "peer pid=%d uid=%u devices=1", sec_pid,
			 (unsigned int)geteuid());
		CU_ASSERT_PTR_NOT_NULL(expect_line(&prim, want));
	}
	stop(&sec);
	stop(&prim);
	mp_cleanup(prefix);
}

static const struct dvs_test_case cases[] = {
	DVS_TEST(test_cmdfile_primary_and_secondary),
	DVS_TEST(test_errors_are_one_line),
	DVS_TEST(test_telemetry_socket),
	DVS_TEST_END,
};

static int register_tests(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: %s DVSHARE_PMD\n", argv[0]);
		return -1;
	}
	pmd = argv[1];
	signal(SIGPIPE, SIG_IGN);
	return dvs_cunit_add("pmd", cases);
}

DVS_CUNIT_MAIN("test_pmd", register_tests)
