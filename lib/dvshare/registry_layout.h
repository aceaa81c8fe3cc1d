/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry: one sealed memfd per shared device, written only by the
 * primary and mapped read-only by every secondary. See doc/registry.md.
 *
 *   [0, 4096)                           RegHeader
 *   [4096, index_off)                   used-slot bitmap (nslots bits)
 *   [index_off, entries_off)            uint64_t index[nslots]
 *   [entries_off, + max_objects * 320)  RegEntry[max_objects]
 *   (each part page aligned; the file is 2 MiB aligned in hugepages)
 *
 * The index is the hash table: one 8-byte word per slot (name hash,
 * generation, state, type and the number of the entry that holds the
 * object), so a lookup probes 8 slots per cache line and reads no entry
 * when the process holds the object already. Entries are dense: a
 * registry costs what it may hold, not twice that. The bitmap marks every
 * slot ever taken (live, revoking or tombstone), so a reader walks only
 * those.
 *
 * Lookup: FNV-1a(name) picks the first slot; linear probing visits at most
 * max_probe + 1 slots. Slots never move; a removed one becomes a
 * tombstone, reusable by a later insert on the same probe path. An index
 * word is stored whole (release) after its entry is written; each entry
 * has a seqlock (odd while the primary writes it), so a reader copies an
 * entry and keeps the copy only if the sequence was even and unchanged
 * and the index still names it.
 */
#ifndef DVS_REGISTRY_LAYOUT_H
#define DVS_REGISTRY_LAYOUT_H

#include <cstddef>
#include <cstdint>

#include <rte_seqcount.h>

#include "dvshare.h"

namespace dvs {

constexpr char kRegMagic[8] = { 'D', 'V', 'S', 'H', 'R', 'E', 'G', '\0' };
constexpr uint32_t kRegLayoutVersion = 4;
constexpr uint32_t kRegHeaderSize = 4096;
constexpr uint32_t kBlobMax = 64;  /* largest export blob a slot holds */
#ifdef DVS_TEST_LIB_VERSION
/* Only for the test peer built "differently" (version-skew tests). */
constexpr uint32_t kLibVersion = DVS_TEST_LIB_VERSION;
#else
constexpr uint32_t kLibVersion = (DVSHARE_VERSION_MAJOR << 16) |
				 (DVSHARE_VERSION_MINOR << 8) | DVSHARE_VERSION_PATCH;
#endif

enum class EntryState : uint32_t {
	Empty = 0,     /* never used: ends a probe */
	Live = 1,      /* published */
	Tombstone = 2, /* removed: probing continues past it */
	Revoking = 3,  /* being destroyed: invisible to lookups, still owned */
};

struct RegHeader {
	char magic[8];
	uint32_t layout_version;
	uint32_t header_size;
	uint32_t entry_size;
	uint32_t nslots;        /* power of two */
	uint32_t max_objects;   /* live entries allowed */
	uint32_t max_probe;     /* longest probe distance any insert used */
	uint32_t export_var;    /* export blob sizes of the primary's rdma-core */
	uint32_t export_obj;
	uint32_t export_umem;
	uint32_t lib_version;
	int32_t primary_pid;
	uint32_t live;
	uint32_t closed;        /* 1 once the primary closed the device */
	uint32_t db_offset;     /* doorbell register in a VAR page (virtio caps) */
	uint64_t change_seq;    /* bumped by every change (cheap staleness test) */
	uint64_t publish_seq;   /* last RegEntry::seq handed out */
	uint64_t file_size;     /* as mapped: rounded up to a hugepage, if in them */
	uint32_t entries_used;  /* entries [0, entries_used) were ever written */
	uint32_t hugepage;      /* 1: the memfd is in hugepages (MFD_HUGETLB) */
	char provider[16];      /* "sim" or "mlx5" */
	char ibdev[64];
};
static_assert(sizeof(RegHeader) <= kRegHeaderSize);

struct RegEntry {
	/* DPDK's seqcount: the primary is the one writer (under its device
	 * lock), so rte_seqlock_t's spinlock would add nothing but a lock a
	 * reader never takes. Same 4 bytes as the uint32_t of layout 4. */
	rte_seqcount_t seq;
	uint32_t state;     /* EntryState */
	uint32_t type;      /* dvshare_type */
	uint32_t gen;       /* bumped each time the slot is taken */
	uint32_t slot;      /* the index slot that names this entry */
	uint32_t id;        /* VAR: page_id; OBJ: obj_id; UMEM: umem_id */
	uint16_t obj_type;  /* OBJ: general-object type */
	uint16_t blob_len;
	uint16_t meta_len;
	uint16_t create_op; /* OBJ: opcode of the create command (0: unknown) */
	uint64_t mmap_off;  /* VAR */
	uint64_t size;      /* VAR: length; UMEM: size */
	char name[DVSHARE_NAME_MAX];
	uint8_t blob[kBlobMax];
	uint8_t meta[DVSHARE_META_MAX];
	uint32_t revoke_id; /* which destroy attempt marked it Revoking */
	int32_t owner;      /* pid of the secondary that owns it; 0: the primary */
	uint64_t pub_seq;   /* publish order: close destroys newest first */
};
static_assert(sizeof(RegEntry) == 320);

/* One index word: [0,28) name hash, [28,30) EntryState, [30,32) type,
 * [32,56) entry number, [56,64) generation (low 8 bits: the entry has
 * all 32). Empty is 0. */
namespace idx {
constexpr uint32_t kHashMask = (1u << 28) - 1;
constexpr uint32_t kEntryMax = 1u << 24;
constexpr uint64_t make(uint32_t hash, EntryState st, uint32_t type, uint32_t entry, uint32_t gen)
{
	return (hash & kHashMask) | static_cast<uint64_t>(static_cast<uint32_t>(st) & 3) << 28 |
	       static_cast<uint64_t>(type & 3) << 30 |
	       static_cast<uint64_t>(entry & (kEntryMax - 1)) << 32 |
	       static_cast<uint64_t>(gen & 0xff) << 56;
}
constexpr uint32_t hash(uint64_t w) { return static_cast<uint32_t>(w) & kHashMask; }
constexpr EntryState state(uint64_t w) { return static_cast<EntryState>((w >> 28) & 3); }
constexpr uint32_t type(uint64_t w) { return static_cast<uint32_t>(w >> 30) & 3; }
constexpr uint32_t entry(uint64_t w) { return static_cast<uint32_t>(w >> 32) & (kEntryMax - 1); }
constexpr uint32_t gen8(uint64_t w) { return static_cast<uint32_t>(w >> 56); }
} // namespace idx

constexpr size_t reg_page_up(size_t v)
{
	return (v + 4095) / 4096 * 4096;
}

constexpr size_t reg_bitmap_off()
{
	return kRegHeaderSize;
}

constexpr size_t reg_index_off(uint32_t nslots)
{
	return kRegHeaderSize + reg_page_up((static_cast<size_t>(nslots) + 7) / 8);
}

constexpr size_t reg_entries_off(uint32_t nslots)
{
	return reg_index_off(nslots) + reg_page_up(static_cast<size_t>(nslots) * sizeof(uint64_t));
}

/* What the layout needs; the file may be larger (rounded to a hugepage). */
constexpr size_t reg_file_size(uint32_t nslots, uint32_t max_objects)
{
	return reg_entries_off(nslots) + static_cast<size_t>(max_objects) * sizeof(RegEntry);
}

} // namespace dvs

#endif
