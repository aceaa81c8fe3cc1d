/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Layout of a ufile memfd. Every process mapping the memfd sees the same
 * bytes, so this is the "kernel" and "firmware" state of the software
 * device. The file is sparse: untouched slots and pages cost nothing.
 *
 *   [0, kCtlOff)     VAR pages, each at the mmap offset the kernel gave
 *                    its mmap entry (entry_mmap_off()); nothing else lives
 *                    here (a UAR's entry has no page in the sim)
 *   kCtlOff          UfileHdr: lock, counters, identity
 *   + kTableOff      Kobj[kSlots]: the uverbs object table, by handle
 *   + kPagesOff      PageState[kVarPages]: VAR page bookkeeping
 *   + kMapsOff       MapRec[kMapsPerPage][kVarPages]: who maps each page
 *   + kEntriesOff    EntryRec[kMmapEntries]: the mmap entries (VARs, UARs)
 *   + kDpOff         DpState: the data path (sim_datapath.cpp): pages and
 *                    queues the engine serves, steering
 *
 * The sim's own view of the file is one mapping from offset 0 of the
 * whole file; an application's VAR mapping never starts at offset 0,
 * which is how the page reclaimer tells the two apart (sim_var_pages.cpp).
 */
#ifndef DVS_SIM_LAYOUT_H
#define DVS_SIM_LAYOUT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "dvs_sim.h"

namespace dvs::sim {

constexpr uint64_t kMagic = 0x4656'4c49'4653'5644ull; /* "DVSFILVF" */
constexpr uint32_t kLayoutVersion = 8;
constexpr size_t kPage = DVS_SIM_PAGE_SIZE;
constexpr uint32_t kSlots = DVS_SIM_MAX_OBJECTS;   /* handles 0 .. kSlots - 1 */
constexpr uint32_t kVarPages = DVS_SIM_VAR_PAGES;
constexpr uint32_t kIdxBits = 17;                  /* kSlots == 1 << kIdxBits */
constexpr uint32_t kMapsPerPage = 128;             /* tracked mappings per VAR page */
static_assert(kSlots == (1u << kIdxBits));
/* mmap entries of a ufile: one per VAR page, and as many for the UARs
 * of its contexts (one per open or import). The kernel's range is far
 * larger; this one never starves VARs of entries. */
constexpr uint32_t kMmapEntries = 2 * kVarPages;
static_assert(kVarPages <= 4096, "entry_mmap_off() stays below kCtlOff");

/*
 * mmap offset of mmap entry @entry, as mlx5_ib gives it on a 4 KiB-page
 * host: VARs and UARs take the lowest free entry of one range starting at
 * page offset 9 << 16 (rdma_user_mmap_entry_insert_range), and the entry
 * index is folded into the offset command (mlx5_entry_to_mmap_offset).
 */
constexpr uint64_t entry_mmap_off(uint32_t entry)
{
	return (static_cast<uint64_t>(entry >> 8) << 16 | 9u << 8 | (entry & 0xffu)) << 12;
}

constexpr size_t align_up(size_t v, size_t a) { return (v + a - 1) / a * a; }
constexpr size_t kCtlOff = 0x2'0000'0000; /* above every entry's page (8 GiB) */
static_assert(entry_mmap_off(kMmapEntries - 1) + kPage <= kCtlOff);

enum class KobjType : uint32_t { Free = 0, Var = 1, DevxObj = 2, Umem = 3, Uar = 4 };
constexpr uint32_t kKobjTypes = 5;

/*
 * One uverbs object and, for DEVX objects and UMEMs, the firmware object
 * behind it. "type" is written last (release) when an object is born and
 * first when it dies, so a half-built slot is never live.
 */
struct Kobj {
	uint32_t type;          /* KobjType */
	uint32_t fw_gen;        /* bumped at each allocation: firmware ids differ */
	uint32_t id;            /* VAR: page_id; DEVX: firmware id (an mkey's
				   mkey_index); UMEM: umem_id; UAR: its mmap entry */
	uint16_t create_op;     /* DEVX: the create command's opcode */
	uint16_t obj_type;      /* DEVX general object: obj_type */
	uint16_t uid;           /* DEVX uid the kernel stamped into the command */
	uint8_t log_obj_range;
	uint8_t fenced;         /* UMEM: its memory went away under it (the
				   device reaches it no more: dvs_sim_umem_fence) */
	uint32_t users;         /* firmware references (a PD, TD, TIS, counters,
				   UMEM or mkey in use) */
	int32_t owner_pid;      /* process that created it (diagnostics) */
	uint64_t owner_token;   /* UMEM: the registering process (process_token()):
				   its address means something only there */
	uint64_t addr;          /* UMEM: registering process's address */
	uint64_t size;          /* UMEM: length */
	uint32_t access;        /* UMEM: access flags */
	uint32_t ref_pd;        /* flow counter, mkey, VIRTIO_NET_Q: pd it uses (0: none) */
	uint32_t ref_umem[3];   /* VIRTIO_NET_Q: UMEMs it uses; direct mkey: [0] */
	uint32_t ref_td;        /* TIS: its transport domain */
	uint32_t ref_tis;       /* VIRTIO_NET_Q: its TIS */
	uint32_t ref_counters;  /* VIRTIO_NET_Q: its VIRTIO_Q_COUNTERS (0: none) */
	uint32_t ref_mkey;      /* VIRTIO_NET_Q: the mkey it holds (virtio_q_mkey, 0: none) */
	uint32_t reserved;
	uint64_t packets;       /* flow counter */
	uint64_t octets;
	alignas(8) uint8_t ctx[192];       /* VIRTIO_NET_Q: virtio_net_q; TIS: tisc (PRM layouts);
				   mkey: MkeyCtx; VIRTIO_Q_COUNTERS: QCounters */
};

/* Handle-table bookkeeping (inside the header). */
struct HtabHdr {
	uint32_t capacity;      /* slots */
	uint32_t first_free;    /* no free slot below this one */
	uint32_t live;
	uint32_t live_by_type[kKobjTypes];
	uint32_t reserved;
};

enum class PageUse : uint32_t {
	Free = 0,     /* in the pool */
	Owned = 1,    /* a VAR object holds it; its mmap entry is live */
	Released = 2, /* VAR freed, mappings may remain: not in the pool yet */
};

/* Bookkeeping for one VAR page; the engine reads it without the lock. */
struct PageState {
	uint32_t use;           /* PageUse */
	uint32_t handle;        /* Owned: the VAR's handle */
	uint32_t last;          /* last doorbell value seen by an engine */
	uint32_t nmaps;         /* MapRec entries in use */
	uint64_t kicks;         /* doorbells seen since the page was allocated */
	uint32_t maps_lost;     /* more mappings than records: scan every process */
	uint32_t entry;         /* Owned, Released: its mmap entry (EntryRec index) */
};

enum class EntryUse : uint32_t { Free = 0, Var = 1, Uar = 2 };

/* One mmap entry: free, a VAR page's (until the page is back in the pool,
 * as the kernel's entry lives until its last mapping goes) or a UAR's
 * (until the UAR object is destroyed). */
struct EntryRec {
	uint32_t use;           /* EntryUse */
	uint32_t owner;         /* Var: page_id; Uar: the UAR's handle */
};

/* One mapping of a VAR page made through the sim's mmap. */
struct MapRec {
	int32_t pid;
	uint32_t reserved;
	uint64_t addr;
};

/* The data path (sim_datapath.cpp). A queue index names at most one
 * live queue that has been RDY: the doorbell value is an index. */
constexpr uint32_t kMaxVirtq = DVS_SIM_MAX_VIRTQ;
constexpr uint32_t kDefaultMtu = DVS_SIM_DEFAULT_MTU;
constexpr uint32_t kNoRoute = UINT32_MAX;
static_assert(kMaxVirtq % 64 == 0 && kVarPages % 64 == 0);

struct VqSlot {
	uint32_t handle;        /* the queue bound to the index (HandleTable::kNone: none) */
	uint32_t route;         /* TX queue: the RX queue index it delivers to
				   (kNoRoute: its own index - 1) */
	uint32_t flow_counter;  /* TX queue: flow counter id counting its packets (0: none) */
	uint32_t reserved;
	uint64_t kicks;         /* doorbells that named the index */
	uint64_t rx_dropped;    /* packets steered to this index and dropped
				   (no RX queue ready, no buffer, one too small) */
	uint64_t tx_oversize;   /* TX queue: packets longer than the port's
				   largest frame, taken and dropped */
};

struct DpState {
	uint64_t gen;                      /* bumped by every change a cached
					      translation or binding depends on */
	uint64_t var_pages[kVarPages / 64]; /* Owned VAR pages: the doorbells polled */
	uint64_t armed[kMaxVirtq / 64];    /* indexes a doorbell named, not yet idle */
	uint64_t stray_kicks;              /* doorbell values naming no index */
	uint32_t mtu;                      /* the port's MTU (the netdev's on a NIC) */
	uint32_t reserved;
	VqSlot vq[kMaxVirtq];
};

struct UfileHdr {
	uint64_t magic;
	uint32_t version;
	uint32_t dev_index;     /* N of simN */
	uint32_t devx;          /* 1: every sim context has DEVX (dv_open_device) */
	uint32_t devx_uid;      /* the uid the kernel stamps into DEVX commands */
	uint64_t ino;           /* the memfd's inode and device, as /proc shows them */
	uint64_t dev;
	uint64_t ctl_off, table_off, pages_off, maps_off, entries_off, total_size;
	uint64_t lock_recoveries;
	pthread_mutex_t lock;   /* robust, process-shared */
	/* The engine gate (sim_ufile.cpp, UfileLock): an engine holds
	 * engine_lock (robust, process-shared) through one queue's turn, and
	 * takes no turn while engine_fence is set. A holder of @lock sets the
	 * fence, then takes and drops engine_lock: from then until it
	 * releases @lock no engine touches a queue, and it waited at most one
	 * turn for that (fence_wait_max_ns: the longest such wait, as the
	 * caller saw it, its own scheduling included; fenced_turn_max_ns: the
	 * longest turn a fence found in progress, as the engine timed it). */
	pthread_mutex_t engine_lock;
	uint32_t engine_fence;
	uint32_t reserved0;
	uint64_t fence_waits;        /* control calls that found an engine in a turn */
	uint64_t fence_wait_max_ns;
	uint64_t fenced_turn_max_ns;
	HtabHdr htab;
	/* Released VAR pages, a bit each. With DpState::var_pages (the Owned
	 * ones) this is the pool's bitmap: a free page is a zero bit in
	 * both, found as mlx5_ib finds one, and a reclaim visits the Released
	 * pages only (sim_var_pages.cpp). Set before a page leaves Owned,
	 * cleared after it is Free: a store that dies under the lock leaves
	 * a page busy, never free while it may be mapped. */
	uint64_t released[kVarPages / 64];
};
static_assert(sizeof(UfileHdr) <= kPage);

constexpr size_t kTableOff = align_up(sizeof(UfileHdr), kPage);
constexpr size_t kPagesOff = align_up(kTableOff + sizeof(Kobj) * kSlots, kPage);
constexpr size_t kMapsOff = align_up(kPagesOff + sizeof(PageState) * kVarPages, kPage);
constexpr size_t kEntriesOff = align_up(kMapsOff + sizeof(MapRec) * kMapsPerPage * kVarPages, kPage);
constexpr size_t kDpOff = align_up(kEntriesOff + sizeof(EntryRec) * kMmapEntries, kPage);
constexpr size_t kCtlSize = align_up(kDpOff + sizeof(DpState), kPage);
constexpr size_t kUfileSize = kCtlOff + kCtlSize;

} // namespace dvs::sim

#endif
