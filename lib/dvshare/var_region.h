/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Where a device's VAR pages are mapped in this process: one reserved
 * region (PROT_NONE) with a page-sized place per VAR, handed out lowest
 * first, so VARs imported or made together sit at consecutive addresses.
 * Fencing many of them (a close, a batch destroy) then takes one mmap()
 * per run of consecutive places instead of one per VAR. Places of VARs
 * the application still holds outlive the device's close; the rest of the
 * region is unmapped then, and each remaining place when let go.
 */
#ifndef DVS_VAR_REGION_H
#define DVS_VAR_REGION_H

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <queue>
#include <vector>

namespace dvs {

class VarRegion {
public:
	VarRegion() = default;
	VarRegion(const VarRegion &) = delete;
	VarRegion &operator=(const VarRegion &) = delete;
	~VarRegion();

	/* Room for @cap places (of the stride fits() sets), reserved at the
	 * first take(). */
	void configure(uint32_t cap) { cap_ = cap; }
	/* Can a VAR page of @len bytes take a place? The first one sets the
	 * stride; one of another length is mapped on its own. */
	bool fits(size_t len);
	/* A free place: 0 with its index and address, or -ENOSPC (full),
	 * -ENOMEM (no room to reserve), -ENODEV (closed). A place whose
	 * mapping then fails is not given back: mmap(MAP_FIXED) may have left
	 * a hole there that anything could take since, so it is never used
	 * again (nor unmapped by close()). */
	int take(uint32_t *idx, void **addr);
	/* Place @idx is no longer used (its VAR let go of): its fence page
	 * stays mapped until the place is taken again, or unmapped once the
	 * region is closed. */
	void give(uint32_t idx);
	/* Fence places @idx (any order): a private anonymous page over each,
	 * one mmap() per run of consecutive places. 0, or -errno of the mmap
	 * that failed (those places are then unmapped: a late doorbell
	 * faults rather than land). */
	int fence(std::vector<uint32_t> idx);
	/* The device closed: unmap every place not in use. */
	void close();
	/* mmap() calls made by fence(), for tests and benchmarks. */
	uint64_t fence_calls() const { return fence_calls_; }

private:
	void *at(uint32_t idx) const { return base_ + static_cast<size_t>(idx) * stride_; }
	void unmap_unused_locked();

	std::mutex mu_;
	char *base_ = nullptr;
	uint32_t cap_ = 0;
	size_t stride_ = 0;
	uint32_t next_ = 0; /* places [0, next_) were taken at least once */
	std::priority_queue<uint32_t, std::vector<uint32_t>, std::greater<>> free_;
	std::vector<bool> used_;
	std::vector<bool> mapped_; /* after close: which places are still mapped */
	bool closed_ = false;
	uint64_t fence_calls_ = 0;
};

} // namespace dvs

#endif
