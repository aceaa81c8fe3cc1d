/* SPDX-License-Identifier: BSD-3-Clause */
#include "registry.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <rte_pause.h>

namespace dvs {

namespace {

/* The registry is written through the primary's existing mapping only:
 * F_SEAL_FUTURE_WRITE refuses every later writable mmap() and write(),
 * whoever asks, and the other seals fix its size. */
/* FNV-1a, 32 bits: the name hash every process must agree on. */
constexpr uint32_t kFnvBasis = 2166136261u;
constexpr uint32_t kFnvPrime = 16777619u;
constexpr unsigned int kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_FUTURE_WRITE | F_SEAL_SEAL;

uint32_t pow2_at_least(uint32_t v)
{
	uint32_t p = 1;

	while (p < v)
		p <<= 1;
	return p;
}

bool terminated(const char *s, size_t n)
{
	return memchr(s, '\0', n) != nullptr;
}

uint32_t load_seq(const RegEntry &e)
{
	return __atomic_load_n(&e.seq, __ATOMIC_ACQUIRE);
}

} // namespace

int check_name(const char *name, size_t *len, uint32_t *hash)
{
	uint32_t h = kFnvBasis;
	size_t n = 0;

	if (name == nullptr || name[0] == '\0')
		return -EINVAL;
	for (; n < DVSHARE_NAME_MAX && name[n] != '\0'; n++) {
		auto c = static_cast<unsigned char>(name[n]);
		if (c <= 0x20 || c >= 0x7f)
			return -EINVAL;
		h = (h ^ c) * kFnvPrime;
	}
	if (n >= DVSHARE_NAME_MAX)
		return -ENAMETOOLONG;
	*len = n;
	*hash = h;
	return 0;
}

int check_name(const char *name)
{
	size_t len;
	uint32_t hash;

	return check_name(name, &len, &hash);
}

uint32_t name_hash(const char *name)
{
	uint32_t h = kFnvBasis;

	for (; *name != '\0'; name++)
		h = (h ^ static_cast<unsigned char>(*name)) * kFnvPrime;
	return h;
}

int validate_header(const RegHeader &h, size_t file_size, std::string *why)
{
	char buf[200];

	if (memcmp(h.magic, kRegMagic, sizeof(kRegMagic)) != 0) {
		*why = "not a dvshare registry (bad magic)";
		return -EINVAL;
	}
	if (h.layout_version != kRegLayoutVersion || h.lib_version != kLibVersion) {
		snprintf(buf, sizeof(buf),
			 "primary runs dvshare %u.%u.%u (registry layout %u), this process "
			 "dvshare %u.%u.%u (layout %u)",
			 h.lib_version >> 16, (h.lib_version >> 8) & 0xff, h.lib_version & 0xff,
			 h.layout_version, kLibVersion >> 16, (kLibVersion >> 8) & 0xff,
			 kLibVersion & 0xff, kRegLayoutVersion);
		*why = buf;
		return -EPROTO;
	}
	if (h.header_size != kRegHeaderSize || h.entry_size != sizeof(RegEntry) ||
	    h.nslots == 0 || (h.nslots & (h.nslots - 1)) != 0 ||
	    h.nslots > (1u << 24) || file_size != reg_file_size(h.nslots) ||
	    h.max_objects == 0 || h.max_objects > h.nslots || h.max_probe >= h.nslots) {
		*why = "registry geometry is inconsistent";
		return -EINVAL;
	}
	if (h.export_var > kBlobMax || h.export_obj > kBlobMax || h.export_umem > kBlobMax ||
	    !terminated(h.provider, sizeof(h.provider)) || !terminated(h.ibdev, sizeof(h.ibdev)) ||
	    h.ibdev[0] == '\0' || h.db_offset % 4 != 0 ||
	    h.db_offset >= static_cast<uint32_t>(sysconf(_SC_PAGESIZE))) {
		*why = "registry header fields out of range";
		return -EINVAL;
	}
	return 0;
}

bool validate_entry(const RegEntry &e)
{
	switch (static_cast<EntryState>(e.state)) {
	case EntryState::Empty:
	case EntryState::Tombstone:
		return true;
	case EntryState::Live:
	case EntryState::Revoking:
		break;
	default:
		return false;
	}
	if (e.type < DVSHARE_TYPE_VAR || e.type > DVSHARE_TYPE_UMEM)
		return false;
	if (e.blob_len == 0 || e.blob_len > kBlobMax || e.meta_len > DVSHARE_META_MAX ||
	    e.owner < 0)
		return false;
	return terminated(e.name, sizeof(e.name)) && check_name(e.name) == 0;
}

int Registry::create(const char *ibdev, const char *provider,
		     const struct mlx5dv_export_sizes &sizes, uint32_t max_objects,
		     uint32_t db_offset)
{
	const uint32_t nslots = pow2_at_least(max_objects * 2);
	const size_t size = reg_file_size(nslots);
	char name[96];

	snprintf(name, sizeof(name), "dvshare-registry-%s", ibdev);
	fd_.reset(memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
	if (!fd_.valid() || ftruncate(fd_.get(), static_cast<off_t>(size)) != 0)
		return -errno;
	map_ = Mapping::map(size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
	if (!map_.valid())
		return -errno;
	RegHeader *h = whdr();
	h->layout_version = kRegLayoutVersion;
	h->header_size = kRegHeaderSize;
	h->entry_size = sizeof(RegEntry);
	h->nslots = nslots;
	h->max_objects = max_objects;
	h->export_var = sizes.var_attrs_size;
	h->export_obj = sizes.devx_obj_attrs_size;
	h->export_umem = sizes.devx_umem_attrs_size;
	h->lib_version = kLibVersion;
	h->db_offset = db_offset;
	h->primary_pid = getpid();
	snprintf(h->provider, sizeof(h->provider), "%s", provider);
	snprintf(h->ibdev, sizeof(h->ibdev), "%s", ibdev);
	memcpy(h->magic, kRegMagic, sizeof(kRegMagic));
	if (fcntl(fd_.get(), F_ADD_SEALS, kSeals) != 0)
		return -errno;
	/* A read-only open of the same memfd: what secondaries receive. */
	snprintf(name, sizeof(name), "/proc/self/fd/%d", fd_.get());
	ro_fd_.reset(open(name, O_RDONLY | O_CLOEXEC));
	return ro_fd_.valid() ? 0 : -errno;
}

int Registry::attach(Fd fd, std::string *why)
{
	struct stat st;

	if (fstat(fd.get(), &st) != 0 || !S_ISREG(st.st_mode) ||
	    static_cast<size_t>(st.st_size) < kRegHeaderSize) {
		*why = "registry fd is not a registry memfd";
		return -EINVAL;
	}
	/* Checked by what it is: a memfd sealed as the primary seals it, and
	 * handed over read-only. */
	int seals = fcntl(fd.get(), F_GET_SEALS);
	int mode = fcntl(fd.get(), F_GETFL);
	if (seals < 0 || (static_cast<unsigned int>(seals) & kSeals) != kSeals || mode < 0 ||
	    (mode & O_ACCMODE) != O_RDONLY) {
		*why = "registry fd is not a sealed, read-only memfd";
		return -EINVAL;
	}
	Mapping m = Mapping::map(static_cast<size_t>(st.st_size), PROT_READ, MAP_SHARED, fd.get(), 0);
	if (!m.valid()) {
		*why = std::string("cannot map registry: ") + strerror(errno);
		return -errno;
	}
	int rc = validate_header(*static_cast<const RegHeader *>(m.addr()),
				 static_cast<size_t>(st.st_size), why);
	if (rc != 0)
		return rc;
	fd_ = std::move(fd);
	map_ = std::move(m);
	return 0;
}

void Registry::prefault() const
{
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14 */
#endif
	const uintptr_t base = reinterpret_cast<uintptr_t>(entries());
	const uintptr_t page = static_cast<uintptr_t>(sysconf(_SC_PAGESIZE));
	uintptr_t run_lo = 0, run_hi = 0; /* pages [run_lo, run_hi) to populate */

	/* Only the pages holding used slots: the rest may never have been
	 * written, and populating them would allocate them. */
	for (uint32_t s = next_used(0); s <= nslots(); s = s < nslots() ? next_used(s + 1) : s + 1) {
		uintptr_t lo = 0, hi = 0;
		if (s < nslots()) {
			lo = (base + static_cast<uintptr_t>(s) * sizeof(RegEntry)) & ~(page - 1);
			hi = (base + static_cast<uintptr_t>(s + 1) * sizeof(RegEntry) + page - 1) &
			     ~(page - 1);
		}
		if (s < nslots() && run_hi != 0 && lo <= run_hi) {
			run_hi = std::max(run_hi, hi);
			continue;
		}
		if (run_hi != 0)
			(void)madvise(reinterpret_cast<void *>(run_lo), run_hi - run_lo,
				      MADV_POPULATE_READ);
		run_lo = lo;
		run_hi = hi;
	}
}

bool Registry::closed() const
{
	return __atomic_load_n(&hdr()->closed, __ATOMIC_ACQUIRE) != 0;
}

const RegEntry *Registry::entries() const
{
	return reinterpret_cast<const RegEntry *>(static_cast<const uint8_t *>(map_.addr()) +
						  reg_entries_off(nslots()));
}

RegEntry *Registry::wentries()
{
	return reinterpret_cast<RegEntry *>(static_cast<uint8_t *>(map_.addr()) +
					    reg_entries_off(nslots()));
}

const uint64_t *Registry::bitmap() const
{
	return reinterpret_cast<const uint64_t *>(static_cast<const uint8_t *>(map_.addr()) +
						  reg_bitmap_off());
}

uint32_t Registry::next_used(uint32_t from) const
{
	const uint32_t n = nslots();
	const uint64_t *bm = bitmap();

	while (from < n) {
		uint64_t w = __atomic_load_n(&bm[from / 64], __ATOMIC_ACQUIRE) >> (from % 64);
		if (w != 0)
			return std::min(n, from + static_cast<uint32_t>(__builtin_ctzll(w)));
		from = (from / 64 + 1) * 64;
	}
	return n;
}

int Registry::read(uint32_t slot, RegEntry *snap) const
{
	const RegEntry &e = entries()[slot];

	/* The writer holds a slot odd for a few stores; a slot odd for this
	 * long belongs to a primary that died mid-write. */
	for (int tries = 0; tries < 100000; tries++) {
		uint32_t s1 = load_seq(e);
		if (s1 & 1) {
			rte_pause();
			continue;
		}
		memcpy(static_cast<void *>(snap), &e, sizeof(*snap));
		__atomic_thread_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&e.seq, __ATOMIC_RELAXED) == s1)
			return validate_entry(*snap) ? 0 : -EBADMSG;
	}
	return -EAGAIN;
}

int Registry::find(const char *name, RegEntry *snap, uint32_t *slot) const
{
	const size_t len = strnlen(name, DVSHARE_NAME_MAX);

	/* locate() probes; the copy is then taken under the slot's seqlock.
	 * A writer between the two changes the generation or the state: look
	 * again (a live writer finishes in a few stores). */
	for (int tries = 0; tries < 1000; tries++) {
		uint32_t s, gen, type;
		int rc = locate(name, len, &s, &gen, &type);
		if (rc != 0)
			return rc;
		rc = read(s, snap);
		if (rc != 0)
			return rc;
		if (snap->gen == gen && snap->state == static_cast<uint32_t>(EntryState::Live) &&
		    strcmp(snap->name, name) == 0) {
			*slot = s;
			return 0;
		}
	}
	return -EAGAIN;
}

int Registry::locate(const char *name, size_t len, uint32_t hash, uint32_t *slot,
		     uint32_t *gen, uint32_t *type) const
{
	const RegHeader *h = hdr();
	const uint32_t mask = h->nslots - 1;
	const uint32_t probes = __atomic_load_n(&h->max_probe, __ATOMIC_ACQUIRE) + 1;
	const RegEntry *ents = entries();

	for (uint32_t i = 0; i < probes && i <= mask; i++) {
		const uint32_t s = (hash + i) & mask;
		const RegEntry &e = ents[s];
		int tries = 0;
		for (;; rte_pause()) {
			uint32_t s1 = load_seq(e);
			if (s1 & 1) {
				if (++tries == 100000)
					return -EAGAIN; /* a writer that died mid-write */
				continue;
			}
			const uint32_t state = __atomic_load_n(&e.state, __ATOMIC_RELAXED);
			const bool match = state == static_cast<uint32_t>(EntryState::Live) &&
					   __atomic_load_n(&e.hash, __ATOMIC_RELAXED) == hash &&
					   memcmp(e.name, name, len + 1) == 0;
			const uint32_t g = __atomic_load_n(&e.gen, __ATOMIC_RELAXED);
			const uint32_t t = __atomic_load_n(&e.type, __ATOMIC_RELAXED);
			__atomic_thread_fence(__ATOMIC_ACQUIRE);
			if (__atomic_load_n(&e.seq, __ATOMIC_RELAXED) != s1)
				continue; /* torn: read again */
			if (state == static_cast<uint32_t>(EntryState::Empty))
				return -ENOENT;
			if (!match)
				break;
			if (t < DVSHARE_TYPE_VAR || t > DVSHARE_TYPE_UMEM)
				return -EBADMSG;
			*slot = s;
			*gen = g;
			*type = t;
			return 0;
		}
	}
	return -ENOENT;
}

void Registry::write_entry(RegEntry &dst, const RegEntry &src)
{
	uint32_t seq = dst.seq;

	__atomic_store_n(&dst.seq, seq + 1, __ATOMIC_RELAXED);
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(reinterpret_cast<uint8_t *>(&dst) + sizeof(dst.seq),
	       reinterpret_cast<const uint8_t *>(&src) + sizeof(src.seq),
	       sizeof(dst) - sizeof(dst.seq));
	__atomic_store_n(&dst.seq, seq + 2, __ATOMIC_RELEASE);
	RegHeader *h = whdr();
	__atomic_store_n(&h->change_seq, h->change_seq + 1, __ATOMIC_RELEASE);
}

int Registry::insert(const RegEntry &init, uint32_t *slot)
{
	RegHeader *h = whdr();
	RegEntry *ents = wentries();
	const uint32_t mask = h->nslots - 1;
	const uint32_t hash = name_hash(init.name);
	int64_t reuse = -1;
	uint32_t i;

	/* Walk the whole probe path: the name must not be live anywhere on
	 * it, and the first tombstone or empty slot is where it goes. */
	for (i = 0; i <= mask; i++) {
		uint32_t s = (hash + i) & mask;
		const RegEntry &e = ents[s];
		if (e.state == static_cast<uint32_t>(EntryState::Live) ||
		    e.state == static_cast<uint32_t>(EntryState::Revoking)) {
			if (i <= h->max_probe && e.hash == hash && strcmp(e.name, init.name) == 0)
				return -EEXIST;
		} else {
			if (reuse < 0)
				reuse = s;
			if (e.state == static_cast<uint32_t>(EntryState::Empty))
				break;
		}
		/* No live entry of this name lies beyond max_probe. */
		if (reuse >= 0 && i >= h->max_probe)
			break;
	}
	if (h->live >= h->max_objects || reuse < 0)
		return -ENOSPC;
	uint32_t s = static_cast<uint32_t>(reuse);
	uint32_t dist = (s - hash) & mask;
	RegEntry e = init;
	e.state = static_cast<uint32_t>(EntryState::Live);
	e.hash = hash;
	e.gen = ents[s].gen + 1;
	e.pub_seq = ++h->publish_seq;
	/* Widen the probe window and mark the slot used before the entry
	 * appears in either. */
	if (dist > h->max_probe)
		__atomic_store_n(&h->max_probe, dist, __ATOMIC_RELEASE);
	auto *bm = const_cast<uint64_t *>(bitmap());
	__atomic_fetch_or(&bm[s / 64], 1ull << (s % 64), __ATOMIC_RELEASE);
	write_entry(ents[s], e);
	h->live++;
	*slot = s;
	return 0;
}

int Registry::set_meta(uint32_t slot, const void *meta, size_t len)
{
	RegEntry &dst = wentries()[slot];
	RegEntry e = dst;

	if (len > DVSHARE_META_MAX)
		return -EMSGSIZE;
	memset(e.meta, 0, sizeof(e.meta));
	if (len != 0)
		memcpy(e.meta, meta, len);
	e.meta_len = static_cast<uint16_t>(len);
	write_entry(dst, e);
	return 0;
}

void Registry::set_revoking(uint32_t slot, uint32_t revoke_id)
{
	RegEntry &dst = wentries()[slot];
	RegEntry e = dst;

	e.state = static_cast<uint32_t>(EntryState::Revoking);
	e.revoke_id = revoke_id;
	write_entry(dst, e);
}

void Registry::set_owner(uint32_t slot, pid_t owner)
{
	RegEntry &dst = wentries()[slot];
	RegEntry e = dst;

	e.owner = owner;
	write_entry(dst, e);
}

void Registry::set_live(uint32_t slot)
{
	RegEntry &dst = wentries()[slot];
	RegEntry e = dst;

	e.state = static_cast<uint32_t>(EntryState::Live);
	e.revoke_id = 0;
	write_entry(dst, e);
}

void Registry::remove(uint32_t slot)
{
	RegEntry &dst = wentries()[slot];
	RegEntry e{};

	e.state = static_cast<uint32_t>(EntryState::Tombstone);
	e.gen = dst.gen;
	write_entry(dst, e);
	whdr()->live--;
}

void Registry::mark_closed()
{
	__atomic_store_n(&whdr()->closed, 1u, __ATOMIC_RELEASE);
}

} // namespace dvs
