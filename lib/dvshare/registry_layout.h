/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The registry: one sealed memfd per shared device, written only by the
 * primary and mapped read-only by every secondary. See doc/registry.md.
 *
 *   [0, 4096)                       RegHeader
 *   [4096, entries_off)             used-slot bitmap (nslots bits, page aligned)
 *   [entries_off, + nslots * 320)   RegEntry[nslots], open addressing
 *
 * The bitmap marks every slot ever taken (live, revoking or tombstone), so
 * a reader walks only those: a sparse registry costs what it holds.
 *
 * Lookup: FNV-1a(name) picks the first slot; linear probing visits at most
 * max_probe + 1 slots. Entries never move; a removed entry becomes a
 * tombstone, reusable by a later insert on the same probe path. Each entry
 * has a seqlock (odd while the primary writes it), so a reader copies an
 * entry and keeps the copy only if the sequence was even and unchanged.
 */
#ifndef DVS_REGISTRY_LAYOUT_H
#define DVS_REGISTRY_LAYOUT_H

#include <cstddef>
#include <cstdint>

#include "dvshare.h"

namespace dvs {

constexpr char kRegMagic[8] = { 'D', 'V', 'S', 'H', 'R', 'E', 'G', '\0' };
constexpr uint32_t kRegLayoutVersion = 3;
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
	char provider[16];      /* "sim" or "mlx5" */
	char ibdev[64];
};
static_assert(sizeof(RegHeader) <= kRegHeaderSize);

struct RegEntry {
	uint32_t seq;       /* seqlock */
	uint32_t state;     /* EntryState */
	uint32_t type;      /* dvshare_type */
	uint32_t gen;       /* bumped each time the slot is taken */
	uint32_t hash;
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

constexpr size_t reg_bitmap_off()
{
	return kRegHeaderSize;
}

constexpr size_t reg_entries_off(uint32_t nslots)
{
	return kRegHeaderSize + ((static_cast<size_t>(nslots) / 8 + 4095) / 4096) * 4096;
}

constexpr size_t reg_file_size(uint32_t nslots)
{
	return reg_entries_off(nslots) + static_cast<size_t>(nslots) * sizeof(RegEntry);
}

} // namespace dvs

#endif
