/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A ufile: the memfd that is a sim context's cmd_fd, and this process's
 * mapping of it. Owns both (RAII).
 */
#ifndef DVS_SIM_UFILE_H
#define DVS_SIM_UFILE_H

#include <cstdint>

#include "sim_handle_table.h"
#include "sim_layout.h"

namespace dvs::sim {

class Ufile {
public:
	/* A new ufile for device simN. Returns 0 or a negative errno. */
	int create(uint32_t dev_index, bool devx);
	/* Take ownership of @fd if it is a sim ufile; -EINVAL otherwise
	 * (the fd is then left open for the caller). */
	int adopt(int fd);

	Ufile() = default;
	Ufile(const Ufile &) = delete;
	Ufile &operator=(const Ufile &) = delete;
	~Ufile();

	int fd() const { return fd_; }
	UfileHdr *hdr() const { return hdr_; }
	HandleTable table() const;
	PageState &page(uint32_t page_id) const;
	/* This process's view of a VAR page (the whole file is mapped). */
	uint32_t *var_words(uint32_t page_id) const;

private:
	int map_control(int fd);

	int fd_ = -1;
	UfileHdr *hdr_ = nullptr;
};

/* The ufile's robust process-shared lock, as a scope guard. A holder that
 * died is recovered: the table is consistent at every store (see Kobj). */
class UfileLock {
public:
	explicit UfileLock(UfileHdr *hdr);
	~UfileLock();
	UfileLock(const UfileLock &) = delete;
	UfileLock &operator=(const UfileLock &) = delete;

	static int acquire(UfileHdr *hdr);
	static void release(UfileHdr *hdr);

private:
	UfileHdr *hdr_;
};

} // namespace dvs::sim

#endif
