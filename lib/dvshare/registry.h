/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The per-device registry (layout in registry_layout.h): created and
 * written by the primary, attached read-only by secondaries. Every read
 * goes through the entry seqlock and is validated, since a secondary
 * cannot trust what it maps.
 */
#ifndef DVS_REGISTRY_H
#define DVS_REGISTRY_H

#include <cstdint>
#include <string>

#include <sys/types.h>

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
	/* Fault the whole mapping in with one call (MADV_POPULATE_READ) before
	 * walking every entry: one fault per page costs several times more.
	 * Best effort: a kernel without it faults page by page as before. */
	void prefault() const;

	/* Seqlocked copy of slot @slot. 0, or -EAGAIN when the writer never
	 * finished (a dead primary) or -EBADMSG when the copy is corrupt. */
	int read(uint32_t slot, RegEntry *snap) const;
	/* Find a live entry by name: 0 with the copy and slot, or -ENOENT. */
	int find(const char *name, RegEntry *snap, uint32_t *slot) const;
	/* The lookup hot path: find a live entry by name (@len = strlen)
	 * comparing in place under the seqlock, no copy. 0 with its slot,
	 * generation and type; -ENOENT; -EAGAIN/-EBADMSG as read(). */
	int locate(const char *name, size_t len, uint32_t *slot, uint32_t *gen,
		   uint32_t *type) const
	{
		return locate(name, len, name_hash(name), slot, gen, type);
	}
	/* The same with @hash = name_hash(@name) already known. */
	int locate(const char *name, size_t len, uint32_t hash, uint32_t *slot, uint32_t *gen,
		   uint32_t *type) const;
	/* First slot >= @from ever taken, or nslots(): walk with
	 * for (s = next_used(0); s < nslots(); s = next_used(s + 1)). */
	uint32_t next_used(uint32_t from) const;

	/* Writer side (primary, one caller at a time). */
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
	void write_entry(RegEntry &dst, const RegEntry &src);

	Fd fd_;
	Fd ro_fd_;
	Mapping map_;
};

} // namespace dvs

#endif
