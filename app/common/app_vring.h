/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The driver side of a split virtqueue (virtio 1.1, 2.6), over
 * <linux/virtio_ring.h>: what a process does to post buffers to a
 * VIRTIO_NET_Q and take them back. Header-only and hot: no syscall, no
 * lock, no allocation. Not part of dvshare's ABI: the library shares
 * objects and doorbells, virtio belongs to the application.
 *
 * The rings live in memory the device reaches through the queue's mkey;
 * the addresses written into descriptors are that key's (here IOVA = VA:
 * a direct key whose start address is the virtual address, as
 * virtio-user does). Ordering uses DPDK's barriers, right on Arm too:
 * descriptors and avail entries before the avail index (rte_io_wmb), the
 * index before the notification flag is read (a full barrier: the device
 * clears the flag and reads the index in the other order), the used index
 * before its entries (rte_io_rmb). Notifications are suppressed while the
 * device says it is polling (VRING_USED_F_NO_NOTIFY); no EVENT_IDX.
 *
 * Indexes are free-running 16-bit counters, as the spec has them: the
 * ring slot is index & (size - 1), and differences are taken modulo 2^16.
 */
#ifndef DVS_APP_VRING_H
#define DVS_APP_VRING_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <linux/virtio_ring.h>
#include <rte_atomic.h>
#include <rte_byteorder.h>
#include <rte_io.h>

/* Alignments the spec asks of the three parts, and what we give. */
#define APP_VRING_ALIGN 64u

struct app_vring {
	uint16_t size;          /* a power of two */
	uint16_t mask;
	uint16_t avail_idx;     /* next avail slot (published at app_vring_publish) */
	uint16_t used_idx;      /* next used entry to take */
	uint16_t free_head;     /* first free descriptor */
	uint16_t num_free;
	struct vring_desc *desc;
	struct vring_avail *avail;
	struct vring_used *used;
	uint16_t *free_next;    /* the free list, one link per descriptor */
	void **cookie;          /* per chain head: the caller's buffer */
};

/* Bytes from the rings' start to the avail ring, to the used ring, and in all. */
static inline size_t app_vring_avail_off(uint16_t size)
{
	return (size_t)16 * size;
}

static inline size_t app_vring_used_off(uint16_t size)
{
	size_t end = app_vring_avail_off(size) + 6 + 2 * (size_t)size;

	return (end + APP_VRING_ALIGN - 1) & ~(size_t)(APP_VRING_ALIGN - 1);
}

static inline size_t app_vring_bytes(uint16_t size)
{
	size_t end = app_vring_used_off(size) + 6 + 8 * (size_t)size;

	return (end + APP_VRING_ALIGN - 1) & ~(size_t)(APP_VRING_ALIGN - 1);
}

/* Bytes of the per-descriptor bookkeeping app_vring_init() takes. */
static inline size_t app_vring_meta_bytes(uint16_t size)
{
	return (size_t)size * (sizeof(uint16_t) + sizeof(void *));
}

/*
 * Lay a ring of @size entries out in @mem (app_vring_bytes(@size) bytes,
 * 64-byte aligned, zeroed here) with its bookkeeping in @meta
 * (app_vring_meta_bytes(@size) bytes). 0, or -EINVAL for a size that is
 * not a power of two from 2 to 32768 or misaligned memory.
 */
static inline int app_vring_init(struct app_vring *r, void *mem, uint16_t size, void *meta)
{
	uint8_t *m = (uint8_t *)mem;

	if (size < 2 || (size & (size - 1)) != 0 || size > 32768 ||
	    ((uintptr_t)mem & (APP_VRING_ALIGN - 1)) != 0 || meta == NULL)
		return -EINVAL;
	memset(mem, 0, app_vring_bytes(size));
	memset(r, 0, sizeof(*r));
	r->size = size;
	r->mask = (uint16_t)(size - 1);
	r->desc = (struct vring_desc *)m;
	r->avail = (struct vring_avail *)(m + app_vring_avail_off(size));
	r->used = (struct vring_used *)(m + app_vring_used_off(size));
	r->cookie = (void **)meta;
	r->free_next = (uint16_t *)((uint8_t *)meta + (size_t)size * sizeof(void *));
	for (uint16_t i = 0; i < size; i++) {
		r->free_next[i] = (uint16_t)(i + 1);
		r->cookie[i] = NULL;
	}
	r->num_free = size;
	r->free_head = 0;
	return 0;
}

/* Buffers posted and not yet taken back. */
static inline uint16_t app_vring_in_flight(const struct app_vring *r)
{
	return (uint16_t)(r->size - r->num_free);
}

/*
 * Post one buffer of @len bytes at device address @addr (@write: the
 * device writes it, an RX buffer) in the next avail slot, remembered as
 * @cookie. Not visible to the device until app_vring_publish().
 * 0, or -ENOSPC when every descriptor is in flight.
 */
static inline int app_vring_add(struct app_vring *r, uint64_t addr, uint32_t len, int write,
				void *cookie)
{
	uint16_t d;

	if (r->num_free == 0)
		return -ENOSPC;
	d = r->free_head;
	r->free_head = r->free_next[d];
	r->num_free--;
	r->desc[d].addr = rte_cpu_to_le_64(addr);
	r->desc[d].len = rte_cpu_to_le_32(len);
	r->desc[d].flags = rte_cpu_to_le_16(write ? VRING_DESC_F_WRITE : 0);
	r->desc[d].next = 0;
	r->cookie[d] = cookie;
	r->avail->ring[r->avail_idx & r->mask] = rte_cpu_to_le_16(d);
	r->avail_idx++;
	return 0;
}

/* Make what app_vring_add() posted visible: entries before the index. */
static inline void app_vring_publish(struct app_vring *r)
{
	rte_io_wmb();
	__atomic_store_n(&r->avail->idx, rte_cpu_to_le_16(r->avail_idx), __ATOMIC_RELAXED);
}

/*
 * After app_vring_publish(): does the device want a kick? Not while it
 * polls the ring (VRING_USED_F_NO_NOTIFY). The full barrier orders the
 * index store before the flag load, against the device's flag store and
 * index load.
 */
static inline int app_vring_want_kick(const struct app_vring *r)
{
#ifdef RTE_ARCH_X86
	/* A locked instruction: a full barrier for write-back memory, which
	 * the rings are (DMA is coherent on x86), cheaper than mfence (what
	 * DPDK's virtio driver uses with weak barriers). */
	rte_smp_mb();
#else
	rte_io_mb(); /* the device is outer shareable: dmb osh on Arm */
#endif
	return (rte_le_to_cpu_16(__atomic_load_n(&r->used->flags, __ATOMIC_RELAXED)) &
		VRING_USED_F_NO_NOTIFY) == 0;
}

/* Used entries the device has returned and not yet taken. */
static inline uint16_t app_vring_used_ready(const struct app_vring *r)
{
	uint16_t idx = rte_le_to_cpu_16(__atomic_load_n(&r->used->idx, __ATOMIC_RELAXED));

	return (uint16_t)(idx - r->used_idx);
}

/*
 * Take up to @max returned buffers: their cookies in @cookies and the
 * bytes the device wrote in @lens (may be NULL). Returns how many; a used
 * entry naming no buffer in flight (a device bug) stops the walk and is
 * left in place, returned as -EIO when nothing was taken.
 */
static inline int app_vring_reap(struct app_vring *r, void **cookies, uint32_t *lens, unsigned int max)
{
	uint16_t ready = app_vring_used_ready(r);
	unsigned int n = 0;

	if (ready > r->size)
		return -EIO;
	rte_io_rmb(); /* the index before the entries it covers */
	while (n < max && n < ready) {
		const struct vring_used_elem *e = &r->used->ring[r->used_idx & r->mask];
		uint32_t id = rte_le_to_cpu_32(e->id);
		if (id >= r->size || r->cookie[id] == NULL)
			return n != 0 ? (int)n : -EIO;
		cookies[n] = r->cookie[id];
		if (lens != NULL)
			lens[n] = rte_le_to_cpu_32(e->len);
		r->cookie[id] = NULL;
		r->free_next[id] = r->free_head;
		r->free_head = (uint16_t)id;
		r->num_free++;
		r->used_idx++;
		n++;
	}
	return (int)n;
}

#endif
