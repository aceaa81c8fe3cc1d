/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Suite pmd, telemetry: the /dvshare commands of a dvshare-pmd primary
 * read over the runtime-dir socket the way DPDK's telemetry client does.
 *
 * argv: DVSHARE_PMD
 */
#include <sys/socket.h>
#include <sys/un.h>

#include "dvs_cunit.h"
#include "pmd_harness.h"

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
	return dvs_cunit_add("telemetry", cases);
}

DVS_CUNIT_MAIN("test_telemetry", register_tests)
