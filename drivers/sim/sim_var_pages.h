/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The VAR page pool of a ufile, with the kernel's lifetime rule: a freed
 * VAR's page goes back to the pool only when its last mapping, in any
 * process, is gone (mlx5_ib_mmap_free runs from the last reference of the
 * mmap entry, and every VMA holds one). The sim cannot hook munmap, so it
 * remembers who mapped each page through its mmap (pid, address), and asks
 * /proc/<pid>/maps whether they still exist when a page is wanted back; a
 * page mapped by a process that forked is looked for in every process.
 * All calls need the ufile lock.
 */
#ifndef DVS_SIM_VAR_PAGES_H
#define DVS_SIM_VAR_PAGES_H

#include <cstdint>

#include "sim_ufile.h"

namespace dvs::sim {

/* The lowest free page, now Owned by VAR @handle (its doorbell idle, its
 * counters zero); pages whose mappings are gone are reclaimed first when
 * that can lower the answer. -ENOSPC when every page is in use, -ENOMEM
 * when this process cannot map the VAR area. */
int take_page(const Ufile &u, uint32_t handle);

/* The VAR owning @page_id was freed: no new mapping, page not reusable
 * until its mappings are gone. */
void release_page(const Ufile &u, uint32_t page_id);

/* The VAR page whose mmap entry has offset @off, or -1 when none has. */
int page_of_offset(const Ufile &u, uint64_t off);

/* The lowest free mmap entry, now @use's for @owner; -ENOSPC when none is
 * free. Entries are shared by VARs and UARs, as the kernel's are. */
int take_entry(const Ufile &u, EntryUse use, uint32_t owner);
/* Entry @e is free again. */
void free_entry(const Ufile &u, uint32_t e);

/* This process's pid, without a system call after the first. */
int32_t self_pid();

/* A number naming this process and no other, ever (a fork child gets a
 * new one): the process a UMEM's address belongs to. */
uint64_t process_token();

/* Remember that this process mapped @page_id at @addr. */
void record_mapping(const Ufile &u, uint32_t page_id, const void *addr);

/* Return freed pages nobody maps any more to the pool. Returns the number
 * of freed pages still mapped somewhere. */
uint32_t reclaim_pages(const Ufile &u);

/* Make fork() mark the pages this process maps (once per process; called
 * when a ufile is mapped). */
void track_forks();

} // namespace dvs::sim

#endif
