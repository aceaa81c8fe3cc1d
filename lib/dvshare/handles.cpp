/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Letting go of a handle's rdma-core object: owners destroy it, importers
 * unimport it; a VAR mapping is fenced first, so the handle's addresses
 * stay valid memory that reaches no device.
 */
#include "handles.h"

#include <cinttypes>
#include <cstring>
#include <string>
#include <vector>

#include <sys/mman.h>

#include <rte_malloc.h>

#include "device.h"
#include "dpdk_memory.h"
#include "dvs_log.h"

namespace {

/* Destroy what we own; when that fails (the object is gone or busy) the
 * local struct is still ours and is unimported, as rdma-core expects. */
template <typename T>
bool put_dv(const dvs::Handle &h, T **dv, int (*destroy)(T *), void (*unimport)(T *),
	    const char *what)
{
	if (*dv == nullptr)
		return false;
	if (h.owner) {
		int rc = destroy(*dv);
		if (rc == 0) {
			*dv = nullptr;
			return true;
		}
		DVS_LOG(WARNING, "%s: destroy of %s %s failed: %s", h.dev->name().c_str(), what,
			h.name, strerror(rc));
	}
	unimport(*dv);
	*dv = nullptr;
	return false;
}

} // namespace

const char *dvs::type_str(uint32_t type)
{
	switch (type) {
	case DVSHARE_TYPE_VAR: return "VAR";
	case DVSHARE_TYPE_OBJ: return "DEVX object";
	case DVSHARE_TYPE_UMEM: return "UMEM";
	default: return "object";
	}
}

void dvs::Handle::clear()
{
	slot = 0;
	gen = 0;
	memset(name, 0, sizeof(name));
	peer = {};
	creator = {};
	orphan = false;
	for_peer = false;
}

dvs::Handle *dvs::HandlePool::take(enum dvshare_type type)
{
	std::lock_guard<std::mutex> lock(mu_);
	auto &v = free_[type & 3];

	if (v.empty())
		return nullptr;
	Handle *h = v.back();
	v.pop_back();
	outstanding_++;
	return h;
}

void dvs::HandlePool::grow_locked(size_t len)
{
	Mapping m = Mapping::anon(len);

	if (!m.valid())
		throw std::bad_alloc();
	chunks_.push_back(std::move(m));
	used_ = 0;
}

void dvs::HandlePool::reserve(size_t n)
{
	std::lock_guard<std::mutex> lock(mu_);
	const size_t len = n * kBlock;

	if (n == 0 || (!chunks_.empty() && used_ + len <= chunks_.back().length()))
		return;
	Mapping m = Mapping::anon_huge(len);
	if (!m.valid())
		return; /* no room (an address-space limit): grown as needed instead */
	chunks_.push_back(std::move(m)); /* what is left of the last chunk stays unused */
	used_ = 0;
}

void *dvs::HandlePool::alloc()
{
	constexpr size_t kFirst = 64 << 10, kHuge = 2 << 20;
	std::lock_guard<std::mutex> lock(mu_);

	/* 64 KiB first (a device with a few objects), doubling up to 2 MiB
	 * chunks, each a transparent hugepage. */
	if (chunks_.empty() || used_ + kBlock > chunks_.back().length())
		grow_locked(chunks_.empty() ? kFirst : std::min(chunks_.back().length() * 2, kHuge));
	void *p = static_cast<uint8_t *>(chunks_.back().addr()) + used_;
	used_ += kBlock;
	outstanding_++;
	return p;
}

void dvs::HandlePool::give(Handle *h)
{
	h->clear(); /* unimports, unmaps: outside the lock */
	std::lock_guard<std::mutex> lock(mu_);
	outstanding_--;
	if (closed_) {
		h->~Handle();
		unmap_if_unused();
		return;
	}
	free_[h->type & 3].push_back(h);
}

void dvs::HandlePool::close()
{
	std::lock_guard<std::mutex> lock(mu_);

	closed_ = true;
	for (auto &v : free_) {
		for (Handle *h : v)
			h->~Handle();
		v.clear();
	}
	unmap_if_unused();
}

void dvs::HandlePool::unmap_if_unused()
{
	if (outstanding_ == 0)
		chunks_.clear();
}

/* Replace the VAR page in place with a private anonymous page, so a
 * doorbell written after this lands in the fence, never on a page the
 * device may give to someone else. */
void dvshare_var::fence()
{
	if (fenced || !page.valid())
		return;
	fenced = true;
	int rc = 0;
	if (page.region() != nullptr) {
		rc = page.region()->fence({ page.index() });
	} else if (mmap(page.addr(), page.length(), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		rc = -errno;
	}
	if (rc != 0) {
		/* Unmapped instead: a late write faults rather than land. */
		DVS_LOG(ERR, "%s: cannot fence VAR %s (%s): unmapping it", dev->name().c_str(), name,
			strerror(-rc));
		page.reset();
		db.store(nullptr, std::memory_order_release);
	}
}

/* Fenced, then freed (owner) or unimported. */
void dvshare_var::let_go()
{
	fence();
	if (dv != nullptr) {
		if (owner)
			dev->glue()->free_var(dv); /* cannot fail: it frees the local struct too */
		else
			dev->glue()->var_unimport(dv);
		dv = nullptr;
	}
}

/* Fenced before its place is given back: the place may stay mapped (a
 * region's places are reused, not unmapped), and must not reach the page. */
dvshare_var::~dvshare_var()
{
	let_go();
	page.reset();
}

void dvshare_var::clear()
{
	let_go();
	page.reset();
	db.store(nullptr, std::memory_order_relaxed);
	fenced = false;
	Handle::clear();
}

void dvshare_obj::let_go()
{
	const struct dvs_glue *g = dev->glue();

	put_dv(*this, &dv, g->devx_obj_destroy, g->devx_obj_unimport, "DEVX object");
}

dvshare_obj::~dvshare_obj()
{
	let_go();
}

void dvshare_obj::clear()
{
	let_go();
	obj_id = 0;
	obj_type = 0;
	create_op = 0;
	Handle::clear();
}

void dvshare_umem::let_go()
{
	const struct dvs_glue *g = dev->glue();

	if (put_dv(*this, &dv, g->devx_umem_dereg, g->devx_umem_unimport, "UMEM"))
		free_mem();
}

/* Only once the device has let go of it: a UMEM the device refused to
 * deregister may still be read or written by it. DPDK's heaps are
 * shared, so the primary frees what it allocated for a secondary. A
 * process that freed it itself (a bug, doc/api.md) may have let DPDK
 * release its pages or give it to another allocation: then it is left
 * alone, since a second free would corrupt the heap or free someone
 * else's memory. */
void dvshare_umem::free_mem()
{
	if (!frees_mem || mem == nullptr)
		return;
	frees_mem = false;
	const auto at = reinterpret_cast<uintptr_t>(mem);
	/* After rte_eal_cleanup() DPDK's memory and its memory config are
	 * unmapped: nothing is left to free, and no DPDK call may be made
	 * (doc/api.md). mincore() says so without touching either. */
	const uintptr_t page = 4096, lo = (at - mem_lead) & ~(page - 1);
	std::vector<unsigned char> v((at + size - lo + page - 1) / page);
	if (mincore(reinterpret_cast<void *>(lo), at + size - lo, v.data()) != 0) {
		DVS_LOG(INFO, "%s: the memory of UMEM %s is no longer mapped (DPDK cleaned up): "
			      "nothing to free", dev->name().c_str(), name);
		return;
	}
	std::string why;
	size_t sz = 0;
	if (dvs::dpdk_memory_covers(at - mem_lead, mem_lead + size, &why) != 0 ||
	    rte_malloc_validate(mem, &sz) != 0 || sz != mem_size) {
		DVS_LOG(WARNING, "%s: the memory of UMEM %s [%p, +%" PRIu64 ") was freed by someone "
				 "else: not freed again", dev->name().c_str(), name, mem, size);
		return;
	}
	rte_free(mem);
}

dvshare_umem::~dvshare_umem()
{
	let_go();
}

void dvshare_umem::clear()
{
	let_go();
	size = 0;
	mem = nullptr;
	frees_mem = false;
	mem_size = 0;
	mem_lead = 0;
	Handle::clear();
}
