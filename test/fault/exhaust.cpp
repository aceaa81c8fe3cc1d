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
 *   exhaust squat RUNTIME_DIR N       N connections to the channel that
 *                                     never say hello, held until a line
 *                                     comes on its stdin ("forged" is how
 *                                     many connected)
 *   exhaust longpath RUNTIME_DIR      a hello from a process that does not
 *                                     map the prefix's config, but maps a
 *                                     file whose path is long enough that
 *                                     a reader of /proc/<pid>/maps by
 *                                     512-byte lines finds the config's
 *                                     inode and path in its second half
 */
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include <climits>

#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
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

int squat(int n)
{
	std::vector<int> held;

	for (int i = 0; i < n; i++) {
		int fd = unix_to(SOCK_SEQPACKET, rt + "/dvshare_channel");
		if (fd >= 0)
			held.push_back(fd);
	}
	printf("exhaust: squat: %zu of %d connected\n", held.size(), n);
	forged = static_cast<int>(held.size());
	printf("forged %d\n", forged);
	fflush(stdout);
	char line[16];
	int rc = fgets(line, sizeof(line), stdin) == nullptr ? 2 : 0;
	for (int fd : held)
		close(fd);
	return rc;
}

/* The line of this process's maps that maps @addr. */
std::string my_maps_line(const void *addr)
{
	char *line = nullptr;
	size_t cap = 0;
	std::string out;
	FILE *f = fopen("/proc/self/maps", "re");

	while (f != nullptr && getline(&line, &cap, f) > 0) {
		unsigned long lo = 0, hi = 0;
		if (sscanf(line, "%lx-%lx", &lo, &hi) == 2 && reinterpret_cast<uintptr_t>(addr) >= lo &&
		    reinterpret_cast<uintptr_t>(addr) < hi) {
			out = line;
			break;
		}
	}
	free(line);
	if (f != nullptr)
		fclose(f);
	return out;
}

int longpath()
{
	char *real = realpath((rt + "/config").c_str(), nullptr);
	struct stat cst;

	if (real == nullptr || stat(real, &cst) != 0)
		return 2;
	std::string want = real;
	free(real);
	/* The second half of the maps line, as a 512-byte reader cuts it:
	 * four words, the config's inode, its path. A path may hold all of
	 * that: "<pad>/a b c d <inode> " is a directory, and the config's
	 * path continues below it. */
	std::string lead = "a b c d " + std::to_string(cst.st_ino) + " ";
	/* <base>/<200 p>/<pad>/<lead><config's path>: the pad is what is
	 * adjusted (a component holds 255 bytes at most). */
	std::string base = "/tmp/dvs-longpath-" + std::to_string(getpid());
	std::string top = base + "/" + std::string(200, 'q');
	std::string pad(8, 'p');
	auto file_of = [&](const std::string &p) { return top + "/" + p + "/" + lead + want; };
	std::string cmd = "mkdir -p '" + file_of(pad).substr(0, file_of(pad).rfind('/')) + "'";
	if (mkdir(base.c_str(), 0700) != 0 || system(cmd.c_str()) != 0) {
		fprintf(stderr, "exhaust: cannot make %s\n", base.c_str());
		return 2;
	}
	int fd = open(file_of(pad).c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0 || ftruncate(fd, 4096) != 0)
		return 2;
	void *map = mmap(nullptr, 4096, PROT_READ, MAP_SHARED, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 2;
	/* Grow the pad (a rename: the mapping shows the new path) until the
	 * words start at byte 511 of the line, where fgets(512) cuts it. */
	for (int i = 0; i < 4; i++) {
		std::string l = my_maps_line(map);
		size_t at = l.find(lead);
		if (at == std::string::npos) {
			fprintf(stderr, "exhaust: the mapping's line is not as laid out: %s\n", l.c_str());
			return 2;
		}
		if (at == 511)
			break;
		std::string bigger(pad.size() + 511 - at, 'p');
		if (at > 511 || bigger.size() > NAME_MAX ||
		    rename((top + "/" + pad).c_str(), (top + "/" + bigger).c_str()) != 0) {
			fprintf(stderr, "exhaust: cannot pad the path to 511 bytes (at %zu)\n", at);
			return 2;
		}
		pad = bigger;
	}
	std::string l = my_maps_line(map);
	if (l.find(lead) != 511) {
		fprintf(stderr, "exhaust: cannot lay the path out: %s\n", l.c_str());
		return 2;
	}
	printf("exhaust: mapped a file of a %zu-byte path; its maps line's second half is \"%s\"\n",
	       file_of(pad).size(), l.substr(511, l.size() - 512).c_str());
	int self = pidfd_of(getpid()), chan = -1;
	int rc = hello(getpid(), self, &chan);
	printf("exhaust: its hello was %s\n", rc == 0 ? "welcomed" : "refused");
	forged += rc != 0;
	if (chan >= 0)
		close(chan);
	munmap(map, 4096);
	(void)system(("rm -rf '" + base + "'").c_str());
	return 0;
}

} // namespace

int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);
	if (argc < 3) {
		fprintf(stderr, "usage: %s mpfds|reconnect|squat|longpath RUNTIME_DIR [N]\n", argv[0]);
		return 2;
	}
	rt = argv[2];
	std::string cmd = argv[1];
	int rc = 2;
	if (cmd == "mpfds" && argc == 4)
		rc = mpfds(atoi(argv[3]));
	else if (cmd == "reconnect" && argc == 4)
		rc = reconnect(atoi(argv[3]));
	else if (cmd == "squat" && argc == 4)
		rc = squat(atoi(argv[3]));
	else if (cmd == "longpath" && argc == 3)
		rc = longpath();
	printf("forged %d\n", forged);
	return rc;
}
