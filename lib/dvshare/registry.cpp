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
/* The hugepage size a registry may be in (MFD_HUGE_2MB). */
constexpr size_t kHugepage = 2u << 20;

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

size_t round_up(size_t v, size_t a)
{
	return (v + a - 1) / a * a;
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

std::string name_problem(const char *name)
{
	char buf[160];

	if (name == nullptr)
		return "no name (NULL)";
	if (name[0] == '\0')
		return "an empty name";
	size_t n = 0;
	for (; n < DVSHARE_NAME_MAX && name[n] != '\0'; n++) {
		auto c = static_cast<unsigned char>(name[n]);
		if (c > 0x20 && c < 0x7f)
			continue;
		snprintf(buf, sizeof(buf), "byte %zu of \"%.*s...\" is %s (0x%02x): a name is "
			 "printable ASCII without spaces", n, static_cast<int>(std::min<size_t>(n, 48)),
			 name, c == ' ' ? "a space" : "not printable ASCII", c);
		return buf;
	}
	if (n >= DVSHARE_NAME_MAX) {
		snprintf(buf, sizeof(buf), "\"%.32s...\" is longer than %d bytes "
			 "(DVSHARE_NAME_MAX - 1)", name, DVSHARE_NAME_MAX - 1);
		return buf;
	}
	return "";
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
	    h.nslots > (1u << 24) || h.max_objects == 0 || h.max_objects > h.nslots ||
	    h.max_objects > idx::kEntryMax || h.max_probe >= h.nslots ||
	    h.entries_used > h.max_objects || h.hugepage > 1 || h.file_size != file_size ||
	    file_size != round_up(reg_file_size(h.nslots, h.max_objects),
				  h.hugepage != 0 ? kHugepage : 4096)) {
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

/* The memfd and the primary's mapping: in 2 MiB hugepages when the
 * registry fills at least one and the system has them (a lookup's TLB
 * miss then costs one level less, and the pages are reserved at mmap()
 * so the primary can fault them all in now, in one call), else in 4 KiB
 * pages faulted as they are written. */
int Registry::map_new(const char *name, size_t size)
{
#ifndef MFD_HUGE_2MB
#define MFD_HUGE_2MB (21u << 26)
#endif
	if (size >= kHugepage) {
		Fd fd(memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB | MFD_HUGE_2MB));
		const size_t len = round_up(size, kHugepage);
		if (fd.valid() && ftruncate(fd.get(), static_cast<off_t>(len)) == 0) {
			Mapping m = Mapping::map(len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE,
						 fd.get(), 0);
			if (m.valid()) {
				fd_ = std::move(fd);
				map_ = std::move(m);
				whdr()->hugepage = 1;
				whdr()->file_size = len;
				return 0;
			}
		}
	}
	size = round_up(size, 4096);
	fd_.reset(memfd_create(name, MFD_CLOEXEC | MFD_ALLOW_SEALING));
	if (!fd_.valid() || ftruncate(fd_.get(), static_cast<off_t>(size)) != 0)
		return -errno;
	map_ = Mapping::map(size, PROT_READ | PROT_WRITE, MAP_SHARED, fd_.get(), 0);
	if (!map_.valid())
		return -errno;
	whdr()->file_size = size;
	return 0;
}

int Registry::create(const char *ibdev, const char *provider,
		     const struct mlx5dv_export_sizes &sizes, uint32_t max_objects,
		     uint32_t db_offset)
{
	const uint32_t nslots = pow2_at_least(max_objects * 2);
	char name[96];

	if (max_objects == 0 || max_objects > idx::kEntryMax)
		return -EINVAL;
	snprintf(name, sizeof(name), "dvshare-registry-%s", ibdev);
	int rc = map_new(name, reg_file_size(nslots, max_objects));
	if (rc != 0)
		return rc;
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
	free_entries_.resize(max_objects);
	for (uint32_t i = 0; i < max_objects; i++)
		free_entries_[i] = max_objects - 1 - i; /* entry 0 on top */
	gens_.assign(nslots, 0);
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
	const uint32_t used = entries_used();
	const size_t end = reg_entries_off(nslots()) + static_cast<size_t>(used) * sizeof(RegEntry);
	const size_t page = in_hugepages() ? kHugepage : 4096;

	/* Entries past entries_used were never written: populating them
	 * would only allocate them. */
	(void)madvise(static_cast<uint8_t *>(map_.addr()) + reg_bitmap_off(),
		      std::min(round_up(end, page), map_.length()) - reg_bitmap_off(),
		      MADV_POPULATE_READ);
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

const uint64_t *Registry::index() const
{
	return reinterpret_cast<const uint64_t *>(static_cast<const uint8_t *>(map_.addr()) +
						  reg_index_off(nslots()));
}

RegEntry &Registry::wentry(uint32_t slot)
{
	return wentries()[idx::entry(index()[slot])];
}

void Registry::set_word(uint32_t slot, uint64_t w)
{
	__atomic_store_n(const_cast<uint64_t *>(&index()[slot]), w, __ATOMIC_RELEASE);
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
	/* The writer holds an entry odd for a few stores; one odd for this
	 * long belongs to a primary that died mid-write. */
	for (int tries = 0; tries < 100000; tries++) {
		const uint64_t w = word(slot);
		const EntryState st = idx::state(w);
		if (st == EntryState::Empty || st == EntryState::Tombstone) {
			memset(static_cast<void *>(snap), 0, sizeof(*snap));
			snap->state = static_cast<uint32_t>(st);
			snap->gen = idx::gen8(w);
			snap->slot = slot;
			return 0;
		}
		if (idx::entry(w) >= hdr()->max_objects)
			return -EBADMSG;
		if (!read_once(slot, w, [&](const RegEntry &e) {
			    memcpy(static_cast<void *>(snap), &e, sizeof(*snap));
		    }))
			continue; /* torn, or the slot changed: read again */
		/* The entry must be the one the index names. Its state is the
		 * word's: the two are stored one after the other (set_live()). */
		if (snap->slot != slot || snap->type != idx::type(w) ||
		    (snap->gen & 0xff) != idx::gen8(w) || !validate_entry(*snap) ||
		    snap->state == static_cast<uint32_t>(EntryState::Empty) ||
		    snap->state == static_cast<uint32_t>(EntryState::Tombstone))
			return -EBADMSG;
		snap->state = static_cast<uint32_t>(st);
		return 0;
	}
	return -EAGAIN;
}

int Registry::read_entry(uint32_t n, RegEntry *snap, uint32_t *slot) const
{
	const RegEntry &e = entries()[n];

	for (int tries = 0; tries < 100000; tries++) {
		uint32_t s1 = rte_seqcount_read_begin(&e.seq);
		if (s1 & 1) {
			rte_pause();
			continue;
		}
		const uint32_t s = __atomic_load_n(&e.slot, __ATOMIC_RELAXED);
		if (rte_seqcount_read_retry(&e.seq, s1))
			continue;
		if (s >= nslots())
			return -EBADMSG;
		const uint64_t w = word(s);
		if ((idx::state(w) != EntryState::Live && idx::state(w) != EntryState::Revoking) ||
		    idx::entry(w) != n)
			return -ENOENT; /* free, or freed and its slot reused */
		int rc = read(s, snap);
		if (rc != 0)
			return rc;
		if (snap->state == static_cast<uint32_t>(EntryState::Empty) ||
		    snap->state == static_cast<uint32_t>(EntryState::Tombstone))
			return -ENOENT; /* removed meanwhile */
		*slot = s;
		return 0;
	}
	return -EAGAIN;
}

int Registry::revoking(uint32_t slot, uint32_t *gen, uint32_t *revoke_id) const
{
	for (int tries = 0; tries < 100000; tries++) {
		const uint64_t w = word(slot);
		if (idx::state(w) != EntryState::Revoking)
			return -ENOENT;
		if (idx::entry(w) >= hdr()->max_objects)
			return -EBADMSG;
		uint32_t g, rid, s;
		if (!read_once(slot, w, [&](const RegEntry &e) {
			    g = __atomic_load_n(&e.gen, __ATOMIC_RELAXED);
			    rid = __atomic_load_n(&e.revoke_id, __ATOMIC_RELAXED);
			    s = __atomic_load_n(&e.slot, __ATOMIC_RELAXED);
		    }))
			continue;
		if (s != slot || (g & 0xff) != idx::gen8(w))
			return -EBADMSG;
		*gen = g;
		*revoke_id = rid;
		return 0;
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
		int rc = locate(name, len, name_hash(name), &s, &gen, &type);
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

int Registry::entry_is(uint32_t slot, uint64_t w, const char *name, size_t len,
		       uint32_t *gen) const
{
	if (idx::entry(w) >= hdr()->max_objects)
		return -EBADMSG;
	for (int tries = 0; tries < 100000; tries++) {
		bool match;
		uint32_t g;
		if (!read_once(slot, w, [&](const RegEntry &e) {
			    match = memcmp(e.name, name, len + 1) == 0;
			    g = __atomic_load_n(&e.gen, __ATOMIC_RELAXED);
		    })) {
			if (word(slot) != w)
				return 0; /* changed since the probe read it: not this one */
			continue; /* torn: read again */
		}
		*gen = g;
		return match ? 1 : 0;
	}
	return -EAGAIN; /* a writer that died mid-write */
}

int Registry::locate(const char *name, size_t len, uint32_t hash, uint32_t *slot,
		     uint32_t *gen, uint32_t *type) const
{
	return probe(hash, [&](uint32_t s, uint64_t w) {
		uint32_t g;
		int rc = entry_is(s, w, name, len, &g);
		if (rc <= 0)
			return rc;
		if (idx::type(w) < DVSHARE_TYPE_VAR)
			return -EBADMSG;
		*slot = s;
		*gen = g;
		*type = idx::type(w);
		return 1;
	});
}

void Registry::write_entry(RegEntry &dst, const RegEntry &src)
{
	rte_seqcount_write_begin(&dst.seq);
	memcpy(reinterpret_cast<uint8_t *>(&dst) + sizeof(dst.seq),
	       reinterpret_cast<const uint8_t *>(&src) + sizeof(src.seq),
	       sizeof(dst) - sizeof(dst.seq));
	rte_seqcount_write_end(&dst.seq);
	RegHeader *h = whdr();
	__atomic_store_n(&h->change_seq, h->change_seq + 1, __ATOMIC_RELEASE);
}

int Registry::insert(const RegEntry &init, uint32_t *slot)
{
	RegHeader *h = whdr();
	const uint32_t mask = h->nslots - 1;
	const uint32_t hash = name_hash(init.name);
	int64_t reuse = -1;
	uint32_t i;

	/* Walk the whole probe path: the name must not be live anywhere on
	 * it, and the first tombstone or empty slot is where it goes. */
	for (i = 0; i <= mask; i++) {
		uint32_t s = (hash + i) & mask;
		const uint64_t w = index()[s];
		const EntryState st = idx::state(w);
		if (st == EntryState::Live || st == EntryState::Revoking) {
			if (i <= h->max_probe && idx::hash(w) == (hash & idx::kHashMask) &&
			    strcmp(wentries()[idx::entry(w)].name, init.name) == 0)
				return -EEXIST;
		} else {
			if (reuse < 0)
				reuse = s;
			if (st == EntryState::Empty)
				break;
		}
		/* No live entry of this name lies beyond max_probe. */
		if (reuse >= 0 && i >= h->max_probe)
			break;
	}
	if (h->live >= h->max_objects || reuse < 0 || free_entries_.empty())
		return -ENOSPC;
	uint32_t s = static_cast<uint32_t>(reuse);
	uint32_t dist = (s - hash) & mask;
	uint32_t n = free_entries_.back();
	free_entries_.pop_back();
	RegEntry e = init;
	e.state = static_cast<uint32_t>(EntryState::Live);
	e.slot = s;
	e.gen = ++gens_[s];
	e.pub_seq = ++h->publish_seq;
	/* Widen the probe window, mark the slot used and write the entry
	 * before the index word makes it visible. */
	if (dist > h->max_probe)
		__atomic_store_n(&h->max_probe, dist, __ATOMIC_RELEASE);
	if (n >= h->entries_used)
		__atomic_store_n(&h->entries_used, n + 1, __ATOMIC_RELEASE);
	auto *bm = const_cast<uint64_t *>(bitmap());
	__atomic_fetch_or(&bm[s / 64], 1ull << (s % 64), __ATOMIC_RELEASE);
	write_entry(wentries()[n], e);
	set_word(s, idx::make(hash, EntryState::Live, e.type, n, e.gen));
	h->live++;
	*slot = s;
	return 0;
}

int Registry::set_meta(uint32_t slot, const void *meta, size_t len)
{
	RegEntry &dst = wentry(slot);
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

/* Lookups read the index only; the entry is written first, so a reader
 * that sees the word sees the entry behind it (its revoke id). */
/* The state and revoke id only, under the seqlock (a close marks every
 * entry: two 320-byte copies each cost more than the rest of the mark). */
void Registry::set_state(RegEntry &dst, EntryState st, uint32_t revoke_id)
{
	rte_seqcount_write_begin(&dst.seq);
	__atomic_store_n(&dst.state, static_cast<uint32_t>(st), __ATOMIC_RELAXED);
	__atomic_store_n(&dst.revoke_id, revoke_id, __ATOMIC_RELAXED);
	rte_seqcount_write_end(&dst.seq);
	RegHeader *h = whdr();
	__atomic_store_n(&h->change_seq, h->change_seq + 1, __ATOMIC_RELEASE);
}

void Registry::set_revoking(uint32_t slot, uint32_t revoke_id)
{
	set_state(wentry(slot), EntryState::Revoking, revoke_id);
	const uint64_t w = index()[slot];
	set_word(slot, idx::make(idx::hash(w), EntryState::Revoking, idx::type(w), idx::entry(w),
				 idx::gen8(w)));
}

void Registry::set_owner(uint32_t slot, pid_t owner)
{
	RegEntry &dst = wentry(slot);
	RegEntry e = dst;

	e.owner = owner;
	write_entry(dst, e);
}

void Registry::set_live(uint32_t slot)
{
	set_state(wentry(slot), EntryState::Live, 0);
	const uint64_t w = index()[slot];
	set_word(slot, idx::make(idx::hash(w), EntryState::Live, idx::type(w), idx::entry(w),
				 idx::gen8(w)));
}

void Registry::remove(uint32_t slot)
{
	const uint64_t w = index()[slot];
	RegEntry e{};

	set_word(slot, idx::make(0, EntryState::Tombstone, 0, 0, idx::gen8(w)));
	write_entry(wentries()[idx::entry(w)], e);
	free_entries_.push_back(idx::entry(w));
	whdr()->live--;
}

void Registry::mark_closed()
{
	__atomic_store_n(&whdr()->closed, 1u, __ATOMIC_RELEASE);
}

} // namespace dvs
