/* SPDX-License-Identifier: BSD-3-Clause */
#include "sim_var_pages.h"

#include "sim_datapath.h"

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <map>
#include <mutex>
#include <vector>

#include <dirent.h>
#include <fcntl.h>
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/random.h>
#include <sys/sysmacros.h>
#include <unistd.h>

namespace dvs::sim {

namespace {

PageUse use_of(const PageState &ps)
{
	return static_cast<PageUse>(
		std::atomic_ref<const uint32_t>(ps.use).load(std::memory_order_acquire));
}

void set_use(PageState &ps, PageUse use)
{
	std::atomic_ref<uint32_t>(ps.use).store(static_cast<uint32_t>(use),
						std::memory_order_release);
}

/* The pool's bitmap (UfileHdr::released; DpState::var_pages holds the
 * Owned pages and is the engine's). Written under the ufile lock; the
 * engine reads the Owned bits without it. */
void mark_released(const Ufile &u, uint32_t page_id, bool on)
{
	std::atomic_ref<uint64_t> w(u.hdr()->released[page_id / 64]);
	const uint64_t bit = 1ull << (page_id % 64);

	w.store(on ? w.load(std::memory_order_relaxed) | bit
		   : w.load(std::memory_order_relaxed) & ~bit,
		std::memory_order_release);
}

uint64_t released_word(const Ufile &u, uint32_t w)
{
	return std::atomic_ref<uint64_t>(u.hdr()->released[w]).load(std::memory_order_acquire);
}

uint64_t busy_word(const Ufile &u, uint32_t w)
{
	return released_word(u, w) |
	       std::atomic_ref<uint64_t>(u.dp().var_pages[w]).load(std::memory_order_acquire);
}

/* Is a page below @limit Released? */
bool released_below(const Ufile &u, uint32_t limit)
{
	for (uint32_t w = 0; w * 64 < limit; w++) {
		const uint32_t n = std::min(64u, limit - w * 64);
		const uint64_t mask = n == 64 ? ~0ull : (1ull << n) - 1;
		if ((released_word(u, w) & mask) != 0)
			return true;
	}
	return false;
}

/* @f(page_id) for each Released page, lowest first, below @limit. */
template <class F> void for_each_released(const Ufile &u, uint32_t limit, F &&f)
{
	for (uint32_t w = 0; w * 64 < limit; w++)
		for (uint64_t bits = released_word(u, w); bits != 0; bits &= bits - 1) {
			uint32_t p = w * 64 + static_cast<uint32_t>(__builtin_ctzll(bits));
			if (p >= limit)
				return;
			f(p);
		}
}

/* One line of /proc/<pid>/maps that maps our memfd. */
struct Vma {
	uint64_t start, end, offset;
};

/* Linux 6.11's query of one mapping through a /proc/<pid>/maps fd
 * (include/uapi/linux/fs.h), declared here for older headers. */
struct ProcmapQuery {
	uint64_t size;
	uint64_t query_flags; /* 0: the VMA covering query_addr, or ENOENT */
	uint64_t query_addr;
	uint64_t vma_start, vma_end, vma_flags, vma_page_size, vma_offset;
	uint64_t inode;
	uint32_t dev_major, dev_minor;
	uint32_t vma_name_size, build_id_size;
	uint64_t vma_name_addr, build_id_addr;
};
constexpr unsigned long kProcmapQuery = _IOWR('f', 17, ProcmapQuery);

/* The mappings of the ufile in other processes, read once per reclaim.
 * A process we may not inspect counts as mapping everything: a page is
 * never handed out while it might still be mapped. */
class ProcMaps {
public:
	explicit ProcMaps(const UfileHdr *h) : ino_(h->ino), dev_(h->dev) {}
	~ProcMaps()
	{
		for (auto &[pid, fd] : fds_)
			if (fd >= 0)
				close(fd);
	}
	ProcMaps(const ProcMaps &) = delete;
	ProcMaps &operator=(const ProcMaps &) = delete;

	/* Does @pid map file offset @off at @addr (its own VAR mapping)?
	 * One ioctl where the kernel answers it (a DPDK process's maps are a
	 * thousand lines: parsing them made each VAR allocation cost about a
	 * millisecond), else the parsed maps. */
	bool maps_at(int32_t pid, uint64_t addr, uint64_t off)
	{
		int answer = query(pid, addr, off);
		if (answer >= 0)
			return answer != 0;
		const Entry &e = read(pid);
		if (e.unknown)
			return true;
		for (const Vma &v : e.vmas)
			if (addr >= v.start && addr < v.end && v.offset + (addr - v.start) == off)
				return true;
		return false;
	}

	/* Does any process map file offset @off, outside the sim's views? */
	bool anyone_maps(uint64_t off)
	{
		DIR *d = opendir("/proc");
		struct dirent *de;
		bool found = false;

		while (d != nullptr && !found && (de = readdir(d)) != nullptr) {
			int32_t pid = atoi(de->d_name);
			if (pid <= 0)
				continue;
			const Entry &e = read(pid);
			for (const Vma &v : e.vmas)
				found |= off >= v.offset && off - v.offset < v.end - v.start;
		}
		if (d != nullptr)
			closedir(d);
		return found;
	}

private:
	struct Entry {
		bool unknown = false;
		std::vector<Vma> vmas;
	};

	/* 1 or 0 as maps_at(), -1 when the kernel cannot say (too old, or
	 * the maps cannot be opened for a reason other than the process
	 * being gone). */
	int query(int32_t pid, uint64_t addr, uint64_t off)
	{
		auto it = fds_.find(pid);
		if (it == fds_.end()) {
			char path[64];
			snprintf(path, sizeof(path), "/proc/%d/maps", pid);
			int fd = open(path, O_RDONLY | O_CLOEXEC);
			if (fd < 0 && (errno == ENOENT || errno == ESRCH))
				return 0; /* gone: maps nothing */
			it = fds_.emplace(pid, fd).first;
		}
		if (it->second < 0 || no_query_)
			return -1;
		ProcmapQuery q{};
		q.size = sizeof(q);
		q.query_addr = addr;
		if (ioctl(it->second, kProcmapQuery, &q) != 0) {
			if (errno == ENOENT || errno == ESRCH)
				return 0; /* nothing at @addr, or the process is gone */
			no_query_ = errno == ENOTTY || errno == EINVAL || errno == EOPNOTSUPP;
			return -1;
		}
		/* Offset 0 is the sim's view of the VAR area, never a VAR page. */
		return q.inode == ino_ && makedev(q.dev_major, q.dev_minor) == dev_ &&
		       q.vma_offset != 0 && q.vma_offset + (addr - q.vma_start) == off;
	}

	const Entry &read(int32_t pid)
	{
		auto it = cache_.find(pid);
		if (it != cache_.end())
			return it->second;
		Entry &e = cache_[pid];
		char path[64], line[512];
		snprintf(path, sizeof(path), "/proc/%d/maps", pid);
		FILE *f = fopen(path, "re");
		if (f == nullptr) {
			e.unknown = errno != ENOENT && errno != ESRCH;
			return e;
		}
		std::vector<uint64_t> views;
		while (fgets(line, sizeof(line), f) != nullptr) {
			unsigned long lo, hi, off, ino;
			unsigned int maj, mnr;
			char perms[8];
			if (sscanf(line, "%lx-%lx %7s %lx %x:%x %lu", &lo, &hi, perms, &off, &maj,
				   &mnr, &ino) != 7)
				continue;
			if (ino != ino_ || makedev(maj, mnr) != dev_)
				continue;
			/* Offset 0 starts a sim's view of the VAR area (never a
			 * VAR page); the control view lies above every VAR. */
			if (off == 0)
				views.push_back(lo);
			else
				e.vmas.push_back({ lo, hi, off });
		}
		fclose(f);
		/* The pages a view made accessible (Ufile::var_words()) are
		 * mappings of their own, at their place in the view. */
		std::erase_if(e.vmas, [&](const Vma &v) {
			return std::find(views.begin(), views.end(), v.start - v.offset) != views.end();
		});
		return e;
	}

	uint64_t ino_, dev_;
	std::map<int32_t, Entry> cache_;
	std::map<int32_t, int> fds_; /* /proc/<pid>/maps, for query() */
	bool no_query_ = false;      /* the kernel has no PROCMAP_QUERY */
};

/* Drop the records of @page_id whose mapping is gone; true when the page
 * may go back to the pool. */
bool page_unmapped(const Ufile &u, uint32_t page_id, ProcMaps &pm)
{
	PageState &ps = u.page(page_id);
	const uint64_t off = entry_mmap_off(ps.entry);
	uint32_t kept = 0;

	for (uint32_t i = 0; i < ps.nmaps; i++) {
		const MapRec r = u.map_rec(page_id, i);
		if (pm.maps_at(r.pid, r.addr, off))
			u.map_rec(page_id, kept++) = r;
	}
	ps.nmaps = kept;
	if (ps.maps_lost != 0 && kept == 0 && !pm.anyone_maps(off))
		ps.maps_lost = 0;
	return kept == 0 && ps.maps_lost == 0;
}

void add_record(const Ufile &u, uint32_t page_id, int32_t pid, uint64_t addr)
{
	PageState &ps = u.page(page_id);

	if (ps.nmaps < kMapsPerPage)
		u.map_rec(page_id, ps.nmaps++) = { pid, 0, addr };
	else
		ps.maps_lost = 1; /* reclaim then asks every process */
}

/* Before fork(): the child will map what this process maps, and nothing
 * tells the sim its pid in time, so those pages are checked against every
 * process until none maps them (mappings copied into the child hold the
 * page, as the duplicated VMA's reference does in the kernel). */
void flag_forked_pages()
{
	const int32_t self = getpid();

	Ufile::lock_all();
	Ufile::for_each([&](Ufile &u) {
		UfileLock lock(u.hdr());
		for (uint32_t p = 0; p < kVarPages; p++) {
			PageState &ps = u.page(p);
			for (uint32_t i = 0; i < ps.nmaps; i++)
				if (u.map_rec(p, i).pid == self)
					ps.maps_lost = 1;
		}
	});
}

} // namespace

int page_of_offset(const Ufile &u, uint64_t off)
{
	uint64_t pgoff = off >> 12;
	uint64_t index = (pgoff & 0xff) | (pgoff >> 16) << 8;

	if (index >= kMmapEntries || entry_mmap_off(static_cast<uint32_t>(index)) != off)
		return -1;
	const EntryRec &e = u.entry(static_cast<uint32_t>(index));
	return e.use == static_cast<uint32_t>(EntryUse::Var) ? static_cast<int>(e.owner) : -1;
}

int take_entry(const Ufile &u, EntryUse use, uint32_t owner)
{
	for (uint32_t e = 0; e < kMmapEntries; e++) {
		EntryRec &r = u.entry(e);
		if (r.use == static_cast<uint32_t>(EntryUse::Free)) {
			r.owner = owner;
			r.use = static_cast<uint32_t>(use);
			return static_cast<int>(e);
		}
	}
	return -ENOSPC;
}

void free_entry(const Ufile &u, uint32_t e)
{
	u.entry(e).use = static_cast<uint32_t>(EntryUse::Free);
}

/* Is a freed page's entry, not yet known to be unmapped, below entry @e?
 * Then a reclaim may lower the entry a new VAR gets. */
static bool released_entry_below(const Ufile &u, int e)
{
	bool below = false;

	for_each_released(u, kVarPages, [&](uint32_t p) {
		below |= use_of(u.page(p)) == PageUse::Released &&
			 static_cast<int>(u.page(p).entry) < e;
	});
	return below;
}

uint32_t reclaim_pages(const Ufile &u)
{
	ProcMaps pm(u.hdr());
	uint32_t held = 0;

	for_each_released(u, kVarPages, [&](uint32_t p) {
		PageState &ps = u.page(p);
		switch (use_of(ps)) {
		case PageUse::Released:
			break;
		case PageUse::Free: /* a reclaim died before clearing the bit */
			mark_released(u, p, false);
			return;
		default: /* a release died before marking it: it stays busy */
			return;
		}
		if (page_unmapped(u, p, pm)) {
			free_entry(u, ps.entry);
			set_use(ps, PageUse::Free);
			mark_released(u, p, false);
		} else
			held++;
	});
	return held;
}

/* The lowest page in neither bitmap, or -1. The page's own state decides:
 * one in use whose bit is missing stays out (an allocation that died
 * under the lock), and a Released one gets its bit back, so that a
 * reclaim finds it (a bitmap written wrong). */
static int first_free_page(const Ufile &u)
{
	for (uint32_t w = 0; w < kVarPages / 64; w++)
		for (uint64_t free = ~busy_word(u, w); free != 0; free &= free - 1) {
			uint32_t p = w * 64 + static_cast<uint32_t>(__builtin_ctzll(free));
			PageUse use = use_of(u.page(p));
			if (use == PageUse::Free)
				return static_cast<int>(p);
			if (use == PageUse::Released)
				mark_released(u, p, true);
		}
	return -1;
}

/* The lowest free page; a freed page below it that nobody maps any more
 * is reclaimed first (once: *reclaimed). -1 when none is free. */
static int lowest_free_page(const Ufile &u, bool *reclaimed)
{
	int p = first_free_page(u);

	if (!*reclaimed && released_below(u, p < 0 ? kVarPages : static_cast<uint32_t>(p))) {
		reclaim_pages(u); /* may free this page or lower ones */
		*reclaimed = true;
		p = first_free_page(u);
	}
	return p;
}

/* The lowest free mmap entry, or -1. */
static int lowest_free_entry(const Ufile &u)
{
	for (uint32_t e = 0; e < kMmapEntries; e++)
		if (u.entry(e).use == static_cast<uint32_t>(EntryUse::Free))
			return static_cast<int>(e);
	return -1;
}

int take_page(const Ufile &u, uint32_t handle)
{
	bool reclaimed = false;
	int rc = u.map_var_area();

	if (rc != 0)
		return rc;
	int p = lowest_free_page(u, &reclaimed);
	int e = lowest_free_entry(u);
	/* The kernel frees a VAR's page and entry at its last unmap, which
	 * the sim learns only by a reclaim: one may lower both. */
	if (p >= 0 && e >= 0 && !reclaimed && released_entry_below(u, e)) {
		reclaim_pages(u);
		p = lowest_free_page(u, &reclaimed);
		e = lowest_free_entry(u);
	}
	if (p < 0 || e < 0)
		return -ENOSPC;
	PageState &ps = u.page(static_cast<uint32_t>(p));
	take_entry(u, EntryUse::Var, static_cast<uint32_t>(p));
	std::atomic_ref<uint32_t>(ps.entry).store(static_cast<uint32_t>(e), std::memory_order_relaxed);
	uint32_t *words = u.var_words(static_cast<uint32_t>(p));
	memset(words, 0, kPage);
	std::atomic_ref<uint32_t>(words[DVS_SIM_DB_OFFSET / 4])
		.store(DVS_SIM_DB_IDLE, std::memory_order_relaxed);
	std::atomic_ref<uint64_t>(ps.kicks).store(0, std::memory_order_relaxed);
	std::atomic_ref<uint32_t>(ps.last).store(0, std::memory_order_relaxed);
	ps.handle = handle;
	ps.nmaps = 0;
	ps.maps_lost = 0;
	set_use(ps, PageUse::Owned);
	dp_poll_page(u, static_cast<uint32_t>(p), true);
	return p;
}

void release_page(const Ufile &u, uint32_t page_id)
{
	mark_released(u, page_id, true); /* first: the page never looks free */
	dp_poll_page(u, page_id, false);
	set_use(u.page(page_id), PageUse::Released);
}

void record_mapping(const Ufile &u, uint32_t page_id, const void *addr)
{
	add_record(u, page_id, self_pid(), reinterpret_cast<uintptr_t>(addr));
}

/* getpid() is a system call (glibc caches nothing): one per VAR mapping
 * showed in attach profiles. The cache is reset in every fork child. */
std::atomic<int32_t> cached_pid{0};
std::atomic<uint64_t> cached_token{0};

int32_t self_pid()
{
	int32_t pid = cached_pid.load(std::memory_order_relaxed);

	if (pid == 0) {
		pid = getpid();
		cached_pid.store(pid, std::memory_order_relaxed);
	}
	return pid;
}

uint64_t process_token()
{
	uint64_t t = cached_token.load(std::memory_order_acquire);

	if (t == 0) {
		/* Random, never 0: a pid can come back, this cannot. */
		uint64_t fresh = 0;
		while (fresh == 0)
			if (getrandom(&fresh, sizeof(fresh), 0) != sizeof(fresh))
				fresh = static_cast<uint64_t>(getpid()) << 32 ^
					static_cast<uint64_t>(time(nullptr));
		if (!cached_token.compare_exchange_strong(t, fresh, std::memory_order_acq_rel))
			return t;
		t = fresh;
	}
	return t;
}

void track_forks()
{
	static std::once_flag once;

	std::call_once(once, [] {
		pthread_atfork(flag_forked_pages, Ufile::unlock_all, [] {
			cached_pid.store(0, std::memory_order_relaxed);
			cached_token.store(0, std::memory_order_relaxed);
			Ufile::unlock_all();
		});
	});
}

} // namespace dvs::sim
