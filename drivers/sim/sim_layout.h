/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Layout of a ufile memfd. Every process mapping the memfd sees the same
 * bytes, so this is the "kernel" state of the software device:
 *
 *   [0, kTableOff)               UfileHdr (lock, counters, identity)
 *   [kTableOff, kPagesOff)       Kobj[kSlots]     kernel-object table
 *   [kPagesOff, kVarAreaOff)     PageState[kVarPages]  VAR page bookkeeping
 *   [kVarAreaOff, kUfileSize)    the VAR pages themselves
 *
 * The memfd is sparse: untouched slots and pages cost nothing.
 */
#ifndef DVS_SIM_LAYOUT_H
#define DVS_SIM_LAYOUT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "dvs_sim.h"

namespace dvs::sim {

constexpr uint64_t kMagic = 0x4656'4c49'4653'5644ull; /* "DVSFILVF" */
constexpr uint32_t kLayoutVersion = 1;
constexpr size_t kPage = DVS_SIM_PAGE_SIZE;
constexpr uint32_t kSlots = DVS_SIM_MAX_OBJECTS + 1; /* slot 0 never used */
constexpr uint32_t kVarPages = DVS_SIM_VAR_PAGES;
constexpr uint32_t kIdxBits = 15; /* kSlots == 1 << kIdxBits */
static_assert(kSlots == (1u << kIdxBits));

enum class KobjType : uint32_t { Free = 0, Var = 1, DevxObj = 2, Umem = 3 };

/* One kernel object. "type" is written last (release) when an object is
 * born and first when it dies, so a half-built slot is never live. */
struct Kobj {
	uint32_t type;          /* KobjType */
	uint32_t gen;           /* bumped at each allocation of the slot */
	uint32_t id;            /* VAR: page_id; DEVX: obj_id; UMEM: umem_id */
	uint16_t obj_type;      /* DEVX general object type */
	uint8_t log_obj_range;
	uint8_t reserved0;
	uint64_t addr;          /* UMEM: registering process's address */
	uint64_t size;          /* UMEM: length */
	uint32_t access;        /* UMEM: access flags */
	int32_t owner_pid;      /* process that created it (diagnostics) */
	uint8_t ctx[64];        /* DEVX object context, PRM layout (big-endian) */
	uint32_t users;         /* UMEM: live DEVX objects referring to it */
	uint32_t ref_umem;      /* DEVX: umem_id it refers to (0: none) */
	uint8_t reserved1[16];
};
static_assert(sizeof(Kobj) == 128);

/* Handle-table bookkeeping (inside the header). */
struct HtabHdr {
	uint32_t capacity;      /* slots, including unused slot 0 */
	uint32_t cursor;        /* next slot to try: cyclic, like idr_alloc_cyclic */
	uint32_t live;
	uint32_t live_by_type[4];
};

/* Bookkeeping for one VAR page; the engine reads it without the lock. */
struct PageState {
	uint32_t used;          /* 1 while a VAR object owns the page */
	uint32_t last;          /* last doorbell value seen by an engine */
	uint64_t kicks;         /* doorbells seen since the page was allocated */
};
static_assert(sizeof(PageState) == 16);

struct UfileHdr {
	uint64_t magic;
	uint32_t version;
	uint32_t dev_index;     /* N of simN */
	uint64_t nonce;         /* random identity, carried in export blobs */
	uint32_t devx;          /* opened with MLX5DV_CONTEXT_FLAGS_DEVX */
	uint32_t reserved;
	uint64_t table_off, pages_off, var_area_off, total_size;
	uint64_t lock_recoveries;
	pthread_mutex_t lock;   /* robust, process-shared */
	HtabHdr htab;
};

constexpr size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
constexpr size_t kTableOff = align_up(sizeof(UfileHdr), kPage);
constexpr size_t kPagesOff = align_up(kTableOff + sizeof(Kobj) * kSlots, kPage);
constexpr size_t kVarAreaOff = align_up(kPagesOff + sizeof(PageState) * kVarPages, kPage);
constexpr size_t kUfileSize = kVarAreaOff + kPage * kVarPages;

} // namespace dvs::sim

#endif
