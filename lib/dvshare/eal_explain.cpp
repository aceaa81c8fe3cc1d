/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Why rte_eal_init() failed, told after the fact (dvshare_eal_init_explain).
 *
 * EAL decides these failures before any dvshare code runs, and says them
 * in its own terms ("Cannot init config", "Cannot get hugepage
 * information") with an rte_errno that is often 0 or beside the point.
 * What the user needs is in the system state and the command line: the
 * lock a primary keeps on its config file, the hugetlbfs mounts and the
 * kernel's hugepage pools. Read-only: nothing here changes that state, and
 * nothing needs EAL to be up.
 */
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <dirent.h>
#include <pwd.h>
#include <unistd.h>

#include <rte_errno.h>

#include "dvshare.h"
#include "pidfd.h"

namespace {

/* What the EAL options before "--" say; the rest is the application's. */
struct EalArgs {
	std::string prefix = "rte";
	std::string proc_type = "primary";
	std::string huge_dir;
	bool no_huge = false;
	bool in_memory = false;
};

/* main()'s arguments as the kernel keeps them: EAL rewrites an entry of
 * the argv array it parses, not the strings. */
std::vector<std::string> process_cmdline()
{
	std::ifstream f("/proc/self/cmdline", std::ios::binary);
	std::vector<std::string> out;
	std::string arg;

	while (std::getline(f, arg, '\0'))
		out.push_back(arg);
	return out;
}

EalArgs parse_eal_args(const std::vector<std::string> &args)
{
	EalArgs a;

	for (size_t i = 1; i < args.size() && args[i] != "--"; i++) {
		const std::string &arg = args[i];
		auto value = [&](const std::string &name, std::string *out) {
			if (arg.compare(0, name.size(), name) != 0)
				return;
			if (arg.size() > name.size() && arg[name.size()] == '=')
				*out = arg.substr(name.size() + 1);
			else if (arg.size() == name.size() && i + 1 < args.size())
				*out = args[++i];
		};
		value("--file-prefix", &a.prefix);
		value("--proc-type", &a.proc_type);
		value("--huge-dir", &a.huge_dir);
		a.no_huge |= arg == "--no-huge";
		a.in_memory |= arg == "--in-memory";
	}
	return a;
}

/* EAL's runtime directory for a prefix (eal_create_runtime_dir): root's
 * under /var/run, anyone else's under $XDG_RUNTIME_DIR, else /tmp. */
std::string runtime_dir(const std::string &prefix)
{
	const char *base = getuid() == 0 ? "/var/run" : getenv("XDG_RUNTIME_DIR");

	return std::string(base != nullptr ? base : "/tmp") + "/dpdk/" + prefix;
}

std::vector<std::string> hugetlbfs_mounts()
{
	std::ifstream f("/proc/mounts");
	std::vector<std::string> out;
	std::string dev, dir, type, line;

	while (std::getline(f, line)) {
		std::istringstream l(line);
		if (l >> dev >> dir >> type && type == "hugetlbfs")
			out.push_back(dir);
	}
	return out;
}

long sysfs_long(const std::string &path)
{
	std::ifstream f(path);
	long v = -1;

	f >> v;
	return f ? v : -1;
}

/* Hugepages of every size: reserved and free, from sysfs. */
void hugepage_pools(long *reserved, long *free_pages)
{
	const char *base = "/sys/kernel/mm/hugepages";
	DIR *d = opendir(base);

	*reserved = *free_pages = 0;
	if (d == nullptr)
		return;
	while (struct dirent *e = readdir(d)) {
		if (strncmp(e->d_name, "hugepages-", 10) != 0)
			continue;
		std::string dir = std::string(base) + "/" + e->d_name;
		*reserved += std::max(0L, sysfs_long(dir + "/nr_hugepages"));
		*free_pages += std::max(0L, sysfs_long(dir + "/free_hugepages"));
	}
	closedir(d);
}

std::string user_name()
{
	struct passwd *pw = getpwuid(geteuid());

	return pw != nullptr ? pw->pw_name : "uid " + std::to_string(geteuid());
}

/* The hugepage cause, or "" when the hugepages look usable. */
std::string hugepage_cause(const EalArgs &a, bool primary)
{
	if (a.no_huge)
		return "";
	std::vector<std::string> mounts = hugetlbfs_mounts();
	if (!a.huge_dir.empty()) {
		std::vector<std::string> at;
		for (const std::string &m : mounts)
			if (m == a.huge_dir)
				at.push_back(m);
		if (at.empty() && !a.in_memory)
			return "no hugepages: --huge-dir " + a.huge_dir +
			       " is not a hugetlbfs mount; mount one there, or run "
			       "buildtools/hugepages.sh as root and drop --huge-dir";
		mounts = at;
	}
	long reserved, free_pages;
	hugepage_pools(&reserved, &free_pages);
	if (reserved == 0)
		return "no hugepages: none reserved; run buildtools/hugepages.sh as root";
	if (mounts.empty() && !a.in_memory)
		return "no hugepages: " + std::to_string(reserved) +
		       " reserved but no hugetlbfs mounted; run buildtools/hugepages.sh as root";
	if (primary && free_pages == 0)
		return "no hugepages: all " + std::to_string(reserved) +
		       " reserved are in use (other DPDK processes, or files left in the "
		       "hugetlbfs mount); stop them or remove the files, or reserve more "
		       "with buildtools/hugepages.sh as root";
	if (geteuid() != 0 && !a.in_memory) {
		for (const std::string &m : mounts)
			if (access(m.c_str(), R_OK | W_OK | X_OK) == 0)
				return "";
		return "user " + user_name() + " cannot write the hugepage mount " +
		       (mounts.empty() ? std::string("") : mounts[0]) +
		       ": run as root, or give this user the hugepage mount (doc/using.md)";
	}
	return "";
}

std::string explain(int argc, char *const argv[], int eal_errno)
{
	std::vector<std::string> args;
	if (argv == nullptr)
		args = process_cmdline();
	for (int i = 0; argv != nullptr && i < argc && argv[i] != nullptr; i++)
		args.emplace_back(argv[i]);
	EalArgs a = parse_eal_args(args);
	pid_t primary = dvs::config_lock_holder(runtime_dir(a.prefix) + "/config");
	bool secondary = a.proc_type == "secondary" || (a.proc_type == "auto" && primary != 0);

	if (secondary && primary == 0)
		return "no primary running with file prefix " + a.prefix +
		       " (start the primary first)";
	if (!secondary && primary != 0 && primary != getpid())
		return "a primary with file prefix " + a.prefix + " is already running (pid " +
		       std::to_string(primary) + "): stop it, or give this one another " +
		       "--file-prefix";
	std::string cause = hugepage_cause(a, !secondary);
	if (!cause.empty())
		return cause;
	if (eal_errno != 0)
		return std::string(rte_strerror(eal_errno)) + " (EAL's log above says where)";
	return "EAL gave no reason: its log above says where it stopped";
}

} // namespace

int dvshare_eal_init_explain(int argc, char *const argv[], int eal_errno, char *buf,
			     size_t size)
{
	if (argc < 0 || (argc > 0 && argv == nullptr) || (buf == nullptr && size != 0)) {
		rte_errno = EINVAL;
		return -EINVAL;
	}
	std::string line;
	try {
		line = explain(argc, argv, eal_errno);
	} catch (...) { /* std::bad_alloc: say what EAL said */
		line = rte_strerror(eal_errno);
	}
	if (size > 0)
		snprintf(buf, size, "%s", line.c_str());
	return static_cast<int>(line.size());
}
