/* SPDX-License-Identifier: BSD-3-Clause */
#include "var_region.h"

#include <algorithm>
#include <cerrno>

#include <sys/mman.h>

namespace dvs {

VarRegion::~VarRegion()
{
	close();
}

bool VarRegion::fits(size_t len)
{
	std::lock_guard<std::mutex> lock(mu_);

	if (stride_ == 0 && len != 0 && len % 4096 == 0)
		stride_ = len;
	return len == stride_;
}

int VarRegion::take(uint32_t *idx, void **addr)
{
	std::lock_guard<std::mutex> lock(mu_);

	if (closed_)
		return -ENODEV;
	if (base_ == nullptr) {
		if (cap_ == 0 || stride_ == 0)
			return -ENOSPC;
		void *p = mmap(nullptr, static_cast<size_t>(cap_) * stride_, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (p == MAP_FAILED)
			return -ENOMEM;
		base_ = static_cast<char *>(p);
		used_.assign(cap_, false);
	}
	uint32_t i;
	if (!free_.empty()) {
		i = free_.top();
		free_.pop();
	} else if (next_ < cap_) {
		i = next_++;
	} else {
		return -ENOSPC;
	}
	used_[i] = true;
	*idx = i;
	*addr = at(i);
	return 0;
}

void VarRegion::give(uint32_t idx)
{
	std::lock_guard<std::mutex> lock(mu_);

	if (base_ == nullptr || idx >= cap_ || !used_[idx])
		return;
	used_[idx] = false;
	if (!closed_) {
		free_.push(idx);
		return;
	}
	if (mapped_[idx]) {
		munmap(at(idx), stride_);
		mapped_[idx] = false;
	}
}

int VarRegion::fence(std::vector<uint32_t> idx)
{
	int rc = 0;

	std::sort(idx.begin(), idx.end());
	std::lock_guard<std::mutex> lock(mu_);
	for (size_t a = 0; a < idx.size();) {
		size_t b = a + 1;
		while (b < idx.size() && idx[b] == idx[b - 1] + 1)
			b++;
		const size_t len = (b - a) * stride_;
		fence_calls_++;
		if (mmap(at(idx[a]), len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
			rc = -errno;
			munmap(at(idx[a]), len);
		}
		a = b;
	}
	return rc;
}

void VarRegion::close()
{
	std::lock_guard<std::mutex> lock(mu_);

	if (closed_ || base_ == nullptr) {
		closed_ = true;
		return;
	}
	closed_ = true;
	mapped_.assign(cap_, false);
	/* Unmap each run of places not in use; keep the others. */
	for (uint32_t a = 0; a < cap_;) {
		const bool use = used_[a];
		uint32_t b = a + 1;
		while (b < cap_ && used_[b] == use)
			b++;
		if (use)
			std::fill(mapped_.begin() + a, mapped_.begin() + b, true);
		else
			munmap(at(a), static_cast<size_t>(b - a) * stride_);
		a = b;
	}
}

} // namespace dvs
