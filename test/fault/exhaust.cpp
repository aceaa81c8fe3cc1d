/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * An attacker of the same uid, for the hostile group: it tries to exhaust
 * the primary (its fds, threads, memory, registry room) or to pass for a
 * DPDK process it is not, speaking dvshare's channel and DPDK's rte_mp
 * directly, without EAL. It prints what it did, and last "forged N": how
 * many of its messages the primary must refuse and count.
 *
 *   exhaust mpfds RUNTIME_DIR N       N rte_mp messages to the names
 *                                     dvshare's channel replaced
 *                                     (dvshare_detach, _revoke_ack), each
 *                                     with 8 real fds
 *   exhaust reconnect RUNTIME_DIR N   N times: its channel, a hello as
 *                                     itself (it maps the config), the
 *                                     channel closed; "welcomed W refused
 *                                     R", then it lives on until a line
 *                                     comes on its stdin
 */
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <unistd.h>

#include "hostile_wire.h"

using namespace hostile;

namespace {

int mpfds(int n)
{
	std::vector<int> fds;
	struct rte_mp_msg m;

	for (int i = 0; i < kMpMaxFds; i++)
		fds.push_back(open("/dev/null", O_RDONLY | O_CLOEXEC));
	for (int i = 0; i < n; i++) {
		if (i % 2 == 0) {
			DetachMsg d{};
			d.hdr = mp_hdr();
			snprintf(d.ibdev, sizeof(d.ibdev), "sim0");
			mp_pack(&m, kActDetach, d);
		} else {
			RevokeAck a{};
			a.hdr = mp_hdr();
			snprintf(a.ibdev, sizeof(a.ibdev), "sim0");
			a.gen = 1;
			a.revoke_id = 1;
			mp_pack(&m, kActRevokeAck, a);
		}
		mp_raw(rt + "/mp_socket", kMpMsg, m, fds);
	}
	printf("exhaust: %d rte_mp messages with %d fds each\n", n, kMpMaxFds);
	return 0;
}

int reconnect(int n)
{
	int welcomed = 0, refused = 0;

	map_config();
	for (int i = 0; i < n; i++) {
		int self = pidfd_of(getpid()), fd = -1;
		int rc = hello(getpid(), self, &fd);
		if (rc == 0)
			welcomed++;
		else
			refused++;
		if (fd >= 0)
			close(fd);
		close(self);
		/* The primary reads the end of this channel before the next
		 * hello, as a secondary that gave up and came back. */
		usleep(2000);
	}
	printf("exhaust: reconnect: welcomed %d refused %d\n", welcomed, refused);
	forged += refused;
	/* Alive: what the primary keeps for it is measured now. */
	printf("forged %d\n", forged);
	fflush(stdout);
	char line[16];
	if (fgets(line, sizeof(line), stdin) == nullptr)
		return 2;
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc < 4) {
		fprintf(stderr, "usage: %s mpfds|reconnect RUNTIME_DIR N\n", argv[0]);
		return 2;
	}
	rt = argv[2];
	std::string cmd = argv[1];
	int rc = 2;
	if (cmd == "mpfds")
		rc = mpfds(atoi(argv[3]));
	else if (cmd == "reconnect")
		rc = reconnect(atoi(argv[3]));
	printf("forged %d\n", forged);
	return rc;
}
