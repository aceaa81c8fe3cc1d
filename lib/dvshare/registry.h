/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-device registry (layout in registry_layout.h): created and
 * written by the primary, attached read-only by secondaries. Every read
 * goes through the entry seqlock and is validated, since a secondary
 * cannot trust what it maps.
 */
#ifndef DVS_REGISTRY_H
#define DVS_REGISTRY_H

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include <sys/types.h>

#include <rte_pause.h>

#include "dvs_fd.h"
#include "dvs_glue.h"
#include "registry_layout.h"

namespace dvs {

/* 0 for a good object name, else -EINVAL (empty, NULL, non-printable
 * or blank characters) or -ENAMETOOLONG (>= DVSHARE_NAME_MAX bytes). */
int check_name(const char *name);
/* The same, and in the same pass over the name its length and
 * name_hash() (what a lookup needs). */
int check_name(const char *name, size_t *len, uint32_t *hash);

/* FNV-1a: cheap and good enough to spread short names. */
uint32_t name_hash(const char *name);
/* Why check_name() refuses @name, in words for a log line ("" if it does
 * not): the first bad byte shown escaped, never the name's raw bytes. */
std::string name_problem(const char *name);

/*
 * Check a registry header image of @file_size bytes before trusting any
 * field of it. Returns 0 or -EPROTO/-EINVAL with the reason in @why.
 */
int validate_header(const RegHeader &h, size_t file_size, std::string *why);

/* Check one entry copy; returns true when its fields are in range. */
bool validate_entry(const RegEntry &e);

class Registry {
public:
	/* Primary: a new sealed registry for @max_objects objects; VAR
	 * doorbells are @db_offset bytes into their page. */
	int create(const char *ibdev, const char *provider,
		   const struct mlx5dv_export_sizes &sizes, uint32_t max_objects,
		   uint32_t db_offset);
	/* Secondary: map @fd read-only after validating it (takes the fd). */
	int attach(Fd fd, std::string *why);

	const RegHeader *hdr() const { return static_cast<const RegHeader *>(map_.addr()); }
	uint32_t nslots() const { return hdr()->nslots; }
	/* Read-only fd on the registry for a secondary (primary only). */
	int ro_fd() const { return ro_fd_.get(); }
	bool closed() const;
	/* Fault the bitmap, the index and the entries written so far in
	 * with one call (MADV_POPULATE_READ) before walking every entry: one
	 * fault per page costs several times more. Best effort: a kernel
	 * without it faults page by page as before. */
	void prefault() const;
	/* In hugepages (MFD_HUGETLB), or 4 KiB pages. */
	bool in_hugepages() const { return hdr()->hugepage != 0; }

	/* Seqlocked copy of the entry in slot @slot (of the index word only
	 * when empty or a tombstone: state and low generation bits). 0, or
	 * -EAGAIN when the writer never finished (a dead primary) or -EBADMSG
	 * when the copy is corrupt. */
	int read(uint32_t slot, RegEntry *snap) const;
	/* Seqlocked copy of entry number @n (0 <= n < entries_used()) and
	 * the slot that names it: 0; -ENOENT when no slot does (free); else
	 * as read(). Walking entries in number order visits objects in
	 * about the order they were published, in memory order. */
	int read_entry(uint32_t n, RegEntry *snap, uint32_t *slot) const;
	uint32_t entries_used() const
	{
		return std::min(__atomic_load_n(&hdr()->entries_used, __ATOMIC_ACQUIRE),
				hdr()->max_objects);
	}
	/* Is @slot being revoked? 0 with its generation and revoke id (read
	 * alone: what a secondary's answer to a batch needs), -ENOENT if not,
	 * -EAGAIN/-EBADMSG as read(). */
	int revoking(uint32_t slot, uint32_t *gen, uint32_t *revoke_id) const;
	/* Find a live entry by name: 0 with the copy and slot, or -ENOENT. */
	int find(const char *name, RegEntry *snap, uint32_t *slot) const;
	/* Find a live entry by name (@len = strlen, @hash = name_hash()),
	 * comparing the name in place under the seqlock, no copy. 0 with its
	 * slot, generation and type; -ENOENT; -EAGAIN/-EBADMSG as read(). */
	int locate(const char *name, size_t len, uint32_t hash, uint32_t *slot, uint32_t *gen,
		   uint32_t *type) const;
	int locate(const char *name, size_t len, uint32_t *slot, uint32_t *gen,
		   uint32_t *type) const
	{
		return locate(name, len, name_hash(name), slot, gen, type);
	}
	/* Does the entry that index word @w of @slot names hold @name (live)?
	 * 1 with its full generation in @gen, 0 if not, -EAGAIN/-EBADMSG. */
	int entry_is(uint32_t slot, uint64_t w, const char *name, size_t len, uint32_t *gen) const;

	/* Index word of @slot (see registry_layout.h), read once. */
	uint64_t word(uint32_t slot) const
	{
		return __atomic_load_n(&index()[slot], __ATOMIC_ACQUIRE);
	}
	/* The lookup hot path: call @fn(slot, word) for each live slot on
	 * @hash's probe path whose word has the hash, until it returns
	 * non-zero: 0 when it returned 1, its value when negative, -ENOENT
	 * when the path ends. Reads 8 bytes per slot, nothing else. */
	template <typename F> int probe(uint32_t hash, F &&fn) const
	{
		const RegHeader *h = hdr();
		const uint32_t mask = h->nslots - 1;
		const uint32_t probes = __atomic_load_n(&h->max_probe, __ATOMIC_ACQUIRE) + 1;

		for (uint32_t i = 0; i < probes && i <= mask; i++) {
			const uint32_t s = (hash + i) & mask;
			const uint64_t w = word(s);
			if (w == 0)
				return -ENOENT;
			if (idx::state(w) != EntryState::Live || idx::hash(w) != (hash & idx::kHashMask))
				continue;
			int rc = fn(s, w);
			if (rc != 0)
				return rc > 0 ? 0 : rc;
		}
		return -ENOENT;
	}
	/* First slot >= @from ever taken, or nslots(): walk with
	 * for (s = next_used(0); s < nslots(); s = next_used(s + 1)). */
	uint32_t next_used(uint32_t from) const;

	/* Writer side (primary, one caller at a time). */
	/* @fn(entry) for each live entry, in entry order (memory order),
	 * read in place: the one writer needs no seqlock, and no index word
	 * (a random read per entry, which at 100,000 objects no cache
	 * holds). */
	template <typename F> void for_each_live(F &&fn) const
	{
		const RegEntry *e = entries();
		const uint32_t used = entries_used();

		for (uint32_t n = 0; n < used; n++)
			if (e[n].state == static_cast<uint32_t>(EntryState::Live))
				fn(e[n]);
	}
	int insert(const RegEntry &init, uint32_t *slot);
	int set_meta(uint32_t slot, const void *meta, size_t len);
	/* Live <-> Revoking (same generation). */
	void set_revoking(uint32_t slot, uint32_t revoke_id);
	void set_live(uint32_t slot);
	/* The owner of a live entry: a secondary's pid, or 0 (the primary). */
	void set_owner(uint32_t slot, pid_t owner);
	void remove(uint32_t slot);
	void mark_closed();

private:
	RegHeader *whdr() { return static_cast<RegHeader *>(map_.addr()); }
	const RegEntry *entries() const;
	RegEntry *wentries();
	const uint64_t *bitmap() const;
	const uint64_t *index() const;
	/* The live or revoking entry of @slot (writer side). */
	RegEntry &wentry(uint32_t slot);
	void set_word(uint32_t slot, uint64_t w);
	void set_state(RegEntry &dst, EntryState st, uint32_t revoke_id);
	/* One read of the entry that @slot's word @w names: @copy(entry)
	 * takes what it needs under the entry's seqlock. True when the read
	 * was whole and the slot still has word @w; else read again (after a
	 * pause when the writer was mid-write). */
	template <typename F> bool read_once(uint32_t slot, uint64_t w, F &&copy) const
	{
		const RegEntry &e = entries()[idx::entry(w)];
		const uint32_t s1 = rte_seqcount_read_begin(&e.seq);
		if (s1 & 1) {
			rte_pause();
			return false;
		}
		copy(e);
		return !rte_seqcount_read_retry(&e.seq, s1) && word(slot) == w;
	}
	void write_entry(RegEntry &dst, const RegEntry &src);
	int map_new(const char *name, size_t size);

	Fd fd_;
	Fd ro_fd_;
	Mapping map_;
	/* Primary only: entry numbers free (a stack, lowest on top), and each
	 * slot's full generation (the index keeps 8 bits). */
	std::vector<uint32_t> free_entries_;
	std::vector<uint32_t> gens_;
};

} // namespace dvs

#endif
