/* SPDX-License-Identifier: BSD-3-Clause */
/* Suite unit: the registry (names, probing, seqlock, validation, seals). */
#include <atomic>
#include <cerrno>
#include <thread>
#include <cstring>
#include <map>
#include <string>

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "dvs_cunit.h"
#include "registry.h"

using namespace dvs;

namespace {

const struct mlx5dv_export_sizes kSizes = { 24, 8, 32 };
constexpr uint32_t kDbOffset = 0x800; /* the sim's in-page doorbell offset */

RegEntry entry(const char *name, uint32_t type = DVSHARE_TYPE_VAR, uint32_t id = 7)
{
	RegEntry e{};
	snprintf(e.name, sizeof(e.name), "%s", name);
	e.type = type;
	e.id = id;
	e.blob_len = 16;
	memset(e.blob, 0xab, e.blob_len);
	return e;
}

void test_check_name()
{
	char long_name[DVSHARE_NAME_MAX + 1];

	CU_ASSERT_EQUAL(check_name("rxq0"), 0);
	CU_ASSERT_EQUAL(check_name("a.b-c_d:9"), 0);
	CU_ASSERT_EQUAL(check_name(nullptr), -EINVAL);
	CU_ASSERT_EQUAL(check_name(""), -EINVAL);
	CU_ASSERT_EQUAL(check_name("has space"), -EINVAL);
	CU_ASSERT_EQUAL(check_name("tab\t"), -EINVAL);
	CU_ASSERT_EQUAL(check_name("\x7f"), -EINVAL);
	memset(long_name, 'x', sizeof(long_name));
	long_name[DVSHARE_NAME_MAX - 1] = '\0';
	CU_ASSERT_EQUAL(check_name(long_name), 0); /* 63 bytes fit */
	long_name[DVSHARE_NAME_MAX - 1] = 'x';
	long_name[DVSHARE_NAME_MAX] = '\0';
	CU_ASSERT_EQUAL(check_name(long_name), -ENAMETOOLONG);
}

void test_insert_find()
{
	Registry r;
	RegEntry snap;
	uint32_t slot, s2;

	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 16, kDbOffset), 0);
	CU_ASSERT_EQUAL(r.nslots(), 32u);
	CU_ASSERT_EQUAL(r.insert(entry("a", DVSHARE_TYPE_OBJ, 99), &slot), 0);
	CU_ASSERT_EQUAL(r.find("a", &snap, &s2), 0);
	CU_ASSERT_EQUAL(s2, slot);
	CU_ASSERT_EQUAL(snap.id, 99u);
	CU_ASSERT_EQUAL(snap.type, (uint32_t)DVSHARE_TYPE_OBJ);
	CU_ASSERT_EQUAL(snap.gen, 1u);
	CU_ASSERT_EQUAL(r.find("b", &snap, &s2), -ENOENT);
	CU_ASSERT_EQUAL(r.insert(entry("a"), &s2), -EEXIST);
	CU_ASSERT_EQUAL(r.hdr()->live, 1u);
	CU_ASSERT_STRING_EQUAL(r.hdr()->ibdev, "sim0");
	CU_ASSERT_STRING_EQUAL(r.hdr()->provider, "sim");
	CU_ASSERT_EQUAL(r.hdr()->export_umem, 8u);
}

/* locate(), the lookup hot path, agrees with find() without copying:
 * exact names only, live entries only, across tombstones. */
void test_locate()
{
	Registry r;
	RegEntry snap;
	uint32_t slot, s2, gen, type;
	char n[16];

	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 32, kDbOffset), 0);
	for (int i = 0; i < 32; i++) {
		snprintf(n, sizeof(n), "l%d", i);
		CU_ASSERT_EQUAL_FATAL(r.insert(entry(n, 1 + i % 3), &slot), 0);
	}
	for (int i = 0; i < 32; i++) {
		snprintf(n, sizeof(n), "l%d", i);
		CU_ASSERT_EQUAL(r.find(n, &snap, &s2), 0);
		CU_ASSERT_EQUAL(r.locate(n, strlen(n), &slot, &gen, &type), 0);
		CU_ASSERT_EQUAL(slot, s2);
		CU_ASSERT_EQUAL(gen, snap.gen);
		CU_ASSERT_EQUAL(type, (uint32_t)(1 + i % 3));
	}
	/* A prefix or an extension of a name is another name. */
	CU_ASSERT_EQUAL(r.locate("l", 1, &slot, &gen, &type), -ENOENT);
	CU_ASSERT_EQUAL(r.locate("l10x", 4, &slot, &gen, &type), -ENOENT);
	/* Gone or being destroyed: not found; a later live entry still is. */
	CU_ASSERT_EQUAL(r.find("l3", &snap, &s2), 0);
	r.remove(s2);
	CU_ASSERT_EQUAL(r.locate("l3", 2, &slot, &gen, &type), -ENOENT);
	CU_ASSERT_EQUAL(r.find("l4", &snap, &s2), 0);
	r.set_revoking(s2, 1);
	CU_ASSERT_EQUAL(r.locate("l4", 2, &slot, &gen, &type), -ENOENT);
	r.set_live(s2);
	CU_ASSERT_EQUAL(r.locate("l4", 2, &slot, &gen, &type), 0);
	for (int i = 5; i < 32; i++) {
		snprintf(n, sizeof(n), "l%d", i);
		CU_ASSERT_EQUAL(r.locate(n, strlen(n), &slot, &gen, &type), 0);
	}
}

/* The used-slot walk visits exactly the slots ever taken. */
void test_used_walk()
{
	Registry r;
	uint32_t slots[5], slot;
	char n[16];

	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 100, kDbOffset), 0);
	CU_ASSERT_EQUAL(r.next_used(0), r.nslots());
	for (int i = 0; i < 5; i++) {
		snprintf(n, sizeof(n), "w%d", i);
		CU_ASSERT_EQUAL_FATAL(r.insert(entry(n), &slots[i]), 0);
	}
	r.remove(slots[2]); /* a tombstone is still walked */
	int seen = 0;
	for (uint32_t s = r.next_used(0); s < r.nslots(); s = r.next_used(s + 1)) {
		bool known = false;
		for (uint32_t k : slots)
			known |= k == s;
		CU_ASSERT(known);
		seen++;
	}
	CU_ASSERT_EQUAL(seen, 5);
	CU_ASSERT_EQUAL(r.next_used(r.nslots() - 1) <= r.nslots(), 1);
	(void)slot;
}

/* The writer's walk of live entries (a close's): every live entry once,
 * with its slot and name; no removed or Revoking one; an entry number a
 * remove freed and an insert took again is walked as the new object. */
void test_live_walk()
{
	Registry r;
	uint32_t slots[7];
	char n[16];

	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 100, kDbOffset), 0);
	for (int i = 0; i < 6; i++) {
		snprintf(n, sizeof(n), "l%d", i);
		CU_ASSERT_EQUAL_FATAL(r.insert(entry(n), &slots[i]), 0);
	}
	r.remove(slots[1]);
	r.set_revoking(slots[3], 7);
	CU_ASSERT_EQUAL_FATAL(r.insert(entry("l6"), &slots[6]), 0); /* takes l1's entry */
	std::map<uint32_t, std::string> seen;
	int visits = 0;
	r.for_each_live([&](const RegEntry &e) {
		seen[e.slot] = e.name;
		visits++;
	});
	CU_ASSERT_EQUAL(visits, 5);
	CU_ASSERT_EQUAL(seen.size(), 5u);
	for (int i : { 0, 2, 4, 5, 6 }) {
		snprintf(n, sizeof(n), "l%d", i);
		CU_ASSERT(seen.count(slots[i]) == 1 && seen[slots[i]] == n);
	}
	CU_ASSERT_EQUAL(seen.count(slots[3]), 0u);
	r.set_live(slots[3]);
	visits = 0;
	r.for_each_live([&](const RegEntry &) { visits++; });
	CU_ASSERT_EQUAL(visits, 6);
}

void test_capacity()
{
	Registry r;
	uint32_t slot;
	char n[16];

	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 8, kDbOffset), 0);
	for (int i = 0; i < 8; i++) {
		snprintf(n, sizeof(n), "o%d", i);
		CU_ASSERT_EQUAL(r.insert(entry(n), &slot), 0);
	}
	CU_ASSERT_EQUAL(r.insert(entry("full"), &slot), -ENOSPC);
	CU_ASSERT_EQUAL(r.hdr()->live, 8u);
	for (int i = 0; i < 8; i++) {
		RegEntry snap;
		snprintf(n, sizeof(n), "o%d", i);
		CU_ASSERT_EQUAL(r.find(n, &snap, &slot), 0);
	}
}

/* Removal leaves a tombstone: names further down the probe path are still
 * found, and the slot is reused with a new generation. */
void test_tombstones()
{
	Registry r;
	RegEntry snap;
	uint32_t slots[40], slot;
	char n[16];

	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 32, kDbOffset), 0);
	for (int i = 0; i < 32; i++) {
		snprintf(n, sizeof(n), "t%d", i);
		CU_ASSERT_EQUAL_FATAL(r.insert(entry(n), &slots[i]), 0);
	}
	for (int i = 0; i < 32; i += 2)
		r.remove(slots[i]);
	CU_ASSERT_EQUAL(r.hdr()->live, 16u);
	for (int i = 0; i < 32; i++) {
		snprintf(n, sizeof(n), "t%d", i);
		CU_ASSERT_EQUAL(r.find(n, &snap, &slot), i % 2 ? 0 : -ENOENT);
	}
	CU_ASSERT_EQUAL(r.read(slots[0], &snap), 0);
	CU_ASSERT_EQUAL(snap.state, (uint32_t)EntryState::Tombstone);
	/* Same name back: same probe path, reuses a tombstone, new generation. */
	CU_ASSERT_EQUAL(r.insert(entry("t0"), &slot), 0);
	CU_ASSERT_EQUAL(r.read(slot, &snap), 0);
	CU_ASSERT(snap.gen >= 1u);
	/* A live name past a tombstone cannot be inserted twice. */
	for (int i = 1; i < 32; i += 2) {
		snprintf(n, sizeof(n), "t%d", i);
		CU_ASSERT_EQUAL(r.insert(entry(n), &slot), -EEXIST);
	}
}

void test_churn_keeps_lookups_bounded()
{
	Registry r;
	uint32_t slot;
	char n[32];

	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 64, kDbOffset), 0);
	for (int i = 0; i < 20000; i++) {
		snprintf(n, sizeof(n), "churn%d", i);
		CU_ASSERT_EQUAL_FATAL(r.insert(entry(n), &slot), 0);
		r.remove(slot);
	}
	CU_ASSERT_EQUAL(r.hdr()->live, 0u);
	CU_ASSERT(r.hdr()->max_probe < r.nslots());
	CU_ASSERT_EQUAL(r.insert(entry("after"), &slot), 0);
}

void test_meta()
{
	Registry r;
	RegEntry snap;
	uint32_t slot;
	uint8_t big[DVSHARE_META_MAX + 1] = {};

	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 4, kDbOffset), 0);
	CU_ASSERT_EQUAL(r.insert(entry("m"), &slot), 0);
	CU_ASSERT_EQUAL(r.set_meta(slot, "hello", 5), 0);
	CU_ASSERT_EQUAL(r.read(slot, &snap), 0);
	CU_ASSERT_EQUAL(snap.meta_len, 5);
	CU_ASSERT_EQUAL(memcmp(snap.meta, "hello", 5), 0);
	CU_ASSERT_EQUAL(r.set_meta(slot, big, sizeof(big)), -EMSGSIZE);
	CU_ASSERT_EQUAL(r.read(slot, &snap), 0);
	CU_ASSERT_EQUAL(snap.meta_len, 5); /* unchanged */
	CU_ASSERT_EQUAL(snap.seq.sn % 2, 0u);
}

/* A reader racing the writer never sees a torn entry: the writer fills all
 * metadata bytes with one value per round, the reader checks they agree. */
void test_seqlock_no_torn_reads()
{
	Registry r;
	uint32_t slot;
	std::atomic<bool> stop{false};
	std::atomic<uint64_t> torn{0}, reads{0};

	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 4, kDbOffset), 0);
	CU_ASSERT_EQUAL_FATAL(r.insert(entry("race"), &slot), 0);
	std::thread reader([&] {
		RegEntry snap;
		while (!stop.load()) {
			if (r.read(slot, &snap) != 0)
				continue;
			for (int i = 1; i < DVSHARE_META_MAX; i++)
				if (snap.meta[i] != snap.meta[0]) {
					torn++;
					break;
				}
			reads++;
		}
	});
	uint8_t buf[DVSHARE_META_MAX];
	for (int round = 0; round < 200000; round++) {
		memset(buf, round & 0xff, sizeof(buf));
		r.set_meta(slot, buf, sizeof(buf));
	}
	/* Keep writing until the reader has had a fair number of looks. */
	for (int round = 0; reads.load() < 1000 && round < 50000000; round++) {
		memset(buf, round & 0xff, sizeof(buf));
		r.set_meta(slot, buf, sizeof(buf));
	}
	stop = true;
	reader.join();
	CU_ASSERT(reads.load() >= 1000);
	CU_ASSERT_EQUAL(torn.load(), 0u);
}

/* What a secondary gets: read-only, sealed, validated. */
/* Free 2 MiB hugepages, from /proc/meminfo. */
long free_hugepages()
{
	FILE *f = fopen("/proc/meminfo", "r");
	char line[128];
	long n = 0;

	while (f != nullptr && fgets(line, sizeof(line), f) != nullptr)
		if (sscanf(line, "HugePages_Free: %ld", &n) == 1)
			break;
	if (f != nullptr)
		fclose(f);
	return n;
}

/* A registry of @max objects: sealed and handed over read-only, in 4 KiB
 * pages or (large enough, hugepages free) in hugepages, the same both ways. */
void check_readonly_fd_and_seals(uint32_t max)
{
	Registry r, ro;
	std::string why;
	RegEntry snap;
	uint32_t slot;

	CU_ASSERT_EQUAL_FATAL(r.create("sim1", "sim", kSizes, max, kDbOffset), 0);
	const size_t page = r.in_hugepages() ? 2u << 20 : 4096;
	CU_ASSERT_EQUAL(r.hdr()->file_size % page, 0u);
	CU_ASSERT_EQUAL(r.insert(entry("x"), &slot), 0);
	int fd = dup(r.ro_fd());
	CU_ASSERT_EQUAL((fcntl(fd, F_GETFL) & O_ACCMODE), O_RDONLY);
	/* No writable mapping, no write, no resize through it. */
	CU_ASSERT_EQUAL(mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), MAP_FAILED);
	CU_ASSERT_EQUAL(write(fd, "x", 1), -1);
	CU_ASSERT_NOT_EQUAL(ftruncate(fd, 0), 0);
	/* Reopening it read-write does not help either: the memfd is sealed. */
	char path[64];
	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	int rw = open(path, O_RDWR);
	if (rw >= 0) {
		CU_ASSERT_EQUAL(mmap(nullptr, page, PROT_READ | PROT_WRITE, MAP_SHARED, rw, 0), MAP_FAILED);
		CU_ASSERT_EQUAL(pwrite(rw, "x", 1, 0), -1);
		CU_ASSERT_NOT_EQUAL(ftruncate(rw, page), 0);
		close(rw);
	}
	CU_ASSERT_EQUAL_FATAL(ro.attach(Fd(fd), &why), 0);
	CU_ASSERT_EQUAL(ro.in_hugepages(), r.in_hugepages());
	ro.prefault();
	CU_ASSERT_EQUAL(ro.find("x", &snap, &slot), 0);
	/* A later write by the primary is seen through the read-only view. */
	CU_ASSERT_EQUAL(r.set_meta(slot, "m", 1), 0);
	CU_ASSERT_EQUAL(ro.find("x", &snap, &slot), 0);
	CU_ASSERT_EQUAL(snap.meta_len, 1);
	r.mark_closed();
	CU_ASSERT_TRUE(ro.closed());
}

void test_readonly_fd_and_seals()
{
	Registry small;

	/* Less than a hugepage: never in one. */
	CU_ASSERT_EQUAL_FATAL(small.create("sim1", "sim", kSizes, 16, kDbOffset), 0);
	CU_ASSERT_FALSE(small.in_hugepages());
	check_readonly_fd_and_seals(16);
}

/* 16,384 objects: 5.3 MiB, three hugepages when the system has them
 * (buildtools/hugepages.sh reserves 512 for every test run). */
void test_hugepage_registry()
{
	const long before = free_hugepages();
	Registry r;

	CU_ASSERT_EQUAL_FATAL(r.create("sim1", "sim", kSizes, 16384, kDbOffset), 0);
	printf("(%ld hugepages free: registry in %s) ", before,
	       r.in_hugepages() ? "hugepages" : "4 KiB pages");
	/* Other tests run beside this one and take hugepages too: with
	 * plenty free it must be in them; with a few, either is right. */
	if (before >= 64)
		CU_ASSERT_TRUE(r.in_hugepages());
	if (before < 3)
		CU_ASSERT_FALSE(r.in_hugepages());
	if (r.in_hugepages())
		CU_ASSERT_EQUAL(r.hdr()->file_size % (2u << 20), 0u);
	check_readonly_fd_and_seals(16384);
}

void test_attach_refuses_garbage()
{
	Registry ro;
	std::string why;
	int fd = memfd_create("garbage", 0);

	CU_ASSERT_EQUAL(ftruncate(fd, 1 << 16), 0);
	/* Not sealed, and writable: not what a primary hands out. */
	CU_ASSERT_EQUAL(ro.attach(Fd(fd), &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why.c_str(), "registry fd is not a sealed, read-only memfd");
	/* Sealed and read-only, but not a registry. */
	int sealed = memfd_create("garbage", MFD_ALLOW_SEALING);
	char path[64];
	CU_ASSERT_EQUAL(ftruncate(sealed, 1 << 16), 0);
	CU_ASSERT_EQUAL(fcntl(sealed, F_ADD_SEALS,
			      F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", sealed);
	CU_ASSERT_EQUAL(ro.attach(Fd(open(path, O_RDONLY)), &why), -EINVAL);
	CU_ASSERT_STRING_EQUAL(why.c_str(), "not a dvshare registry (bad magic)");
	/* A real registry, but reopened writable. */
	Registry r;
	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 16, kDbOffset), 0);
	snprintf(path, sizeof(path), "/proc/self/fd/%d", r.ro_fd());
	int rw = open(path, O_RDWR);
	if (rw >= 0) {
		CU_ASSERT_EQUAL(ro.attach(Fd(rw), &why), -EINVAL);
		CU_ASSERT_STRING_EQUAL(why.c_str(), "registry fd is not a sealed, read-only memfd");
	}
	close(sealed);
	int p[2];
	CU_ASSERT_EQUAL(pipe(p), 0);
	close(p[1]);
	CU_ASSERT_EQUAL(ro.attach(Fd(p[0]), &why), -EINVAL);
}

void test_validate_header()
{
	Registry r;
	std::string why;

	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 16, kDbOffset), 0);
	const size_t size = r.hdr()->file_size;
	RegHeader h = *r.hdr();
	CU_ASSERT_EQUAL(h.db_offset, kDbOffset);
	CU_ASSERT_EQUAL(validate_header(h, size, &why), 0);
	CU_ASSERT_EQUAL(validate_header(h, size - 1, &why), -EINVAL);
	/* A doorbell offset outside the page, or not 32-bit aligned. */
	RegHeader db = h;
	db.db_offset = static_cast<uint32_t>(sysconf(_SC_PAGESIZE));
	CU_ASSERT_EQUAL(validate_header(db, size, &why), -EINVAL);
	db.db_offset = 0x802;
	CU_ASSERT_EQUAL(validate_header(db, size, &why), -EINVAL);
	RegHeader bad = h;
	bad.layout_version = 99;
	CU_ASSERT_EQUAL(validate_header(bad, size, &why), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.c_str(), "layout 99"));
	bad = h;
	bad.lib_version = 0x020000;
	CU_ASSERT_EQUAL(validate_header(bad, size, &why), -EPROTO);
	CU_ASSERT_PTR_NOT_NULL(strstr(why.c_str(), "dvshare 2.0.0"));
	bad = h;
	bad.nslots = 33;
	CU_ASSERT_EQUAL(validate_header(bad, size, &why), -EINVAL);
	bad = h;
	bad.entries_used = bad.max_objects + 1;
	CU_ASSERT_EQUAL(validate_header(bad, size, &why), -EINVAL);
	bad = h;
	bad.file_size = size + 4096;
	CU_ASSERT_EQUAL(validate_header(bad, size + 4096, &why), -EINVAL);
	bad = h;
	bad.max_probe = bad.nslots;
	CU_ASSERT_EQUAL(validate_header(bad, size, &why), -EINVAL);
	bad = h;
	bad.export_var = kBlobMax + 1;
	CU_ASSERT_EQUAL(validate_header(bad, size, &why), -EINVAL);
	bad = h;
	memset(bad.ibdev, 'x', sizeof(bad.ibdev));
	CU_ASSERT_EQUAL(validate_header(bad, size, &why), -EINVAL);
}

/* Entries carry their publish order: close destroys newest first. */
void test_publish_order()
{
	Registry r;
	RegEntry a, b, c;
	uint32_t sa, sb, sc;

	CU_ASSERT_EQUAL_FATAL(r.create("sim0", "sim", kSizes, 16, kDbOffset), 0);
	CU_ASSERT_EQUAL(r.insert(entry("a"), &sa), 0);
	CU_ASSERT_EQUAL(r.insert(entry("b"), &sb), 0);
	r.remove(sa);
	CU_ASSERT_EQUAL(r.insert(entry("c"), &sc), 0);
	CU_ASSERT_EQUAL(r.read(sb, &b), 0);
	CU_ASSERT_EQUAL(r.read(sc, &c), 0);
	CU_ASSERT(b.pub_seq > 0 && c.pub_seq > b.pub_seq);
	CU_ASSERT_EQUAL(r.insert(entry("a"), &sa), 0);
	CU_ASSERT_EQUAL(r.read(sa, &a), 0);
	CU_ASSERT(a.pub_seq > c.pub_seq);
}

void test_validate_entry()
{
	RegEntry e = entry("ok");

	e.state = static_cast<uint32_t>(EntryState::Live);
	CU_ASSERT_TRUE(validate_entry(e));
	RegEntry bad = e;
	bad.state = 7;
	CU_ASSERT_FALSE(validate_entry(bad));
	bad = e;
	bad.type = 9;
	CU_ASSERT_FALSE(validate_entry(bad));
	bad = e;
	bad.blob_len = kBlobMax + 1;
	CU_ASSERT_FALSE(validate_entry(bad));
	bad = e;
	bad.meta_len = DVSHARE_META_MAX + 1;
	CU_ASSERT_FALSE(validate_entry(bad));
	bad = e;
	memset(bad.name, 'n', sizeof(bad.name));
	CU_ASSERT_FALSE(validate_entry(bad));
	bad = e;
	bad.owner = -1; /* an owner is a pid, or 0 for the primary */
	CU_ASSERT_FALSE(validate_entry(bad));
	bad.owner = 4242;
	CU_ASSERT_TRUE(validate_entry(bad));
	bad = e;
	bad.state = static_cast<uint32_t>(EntryState::Tombstone);
	bad.type = 0;
	CU_ASSERT_TRUE(validate_entry(bad));
}

const dvs_test_case cases[] = {
	DVS_TEST(test_check_name),
	DVS_TEST(test_insert_find),
	DVS_TEST(test_locate),
	DVS_TEST(test_used_walk),
	DVS_TEST(test_live_walk),
	DVS_TEST(test_capacity),
	DVS_TEST(test_tombstones),
	DVS_TEST(test_churn_keeps_lookups_bounded),
	DVS_TEST(test_meta),
	DVS_TEST(test_seqlock_no_torn_reads),
	DVS_TEST(test_readonly_fd_and_seals),
	DVS_TEST(test_hugepage_registry),
	DVS_TEST(test_attach_refuses_garbage),
	DVS_TEST(test_validate_header),
	DVS_TEST(test_publish_order),
	DVS_TEST(test_validate_entry),
	DVS_TEST_END,
};

int register_tests(int, char **)
{
	return dvs_cunit_add("registry", cases);
}

} // namespace

DVS_CUNIT_MAIN("test_registry", register_tests)
