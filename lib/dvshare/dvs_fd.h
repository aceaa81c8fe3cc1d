/* SPDX-License-Identifier: BSD-3-Clause */
/* RAII owners for file descriptors and memory mappings. */
#ifndef DVS_FD_H
#define DVS_FD_H

#include <cstddef>
#include <cstdint>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

namespace dvs {

class Fd {
public:
	Fd() = default;
	explicit Fd(int fd) : fd_(fd) {}
	Fd(Fd &&o) noexcept : fd_(o.release()) {}
	Fd &operator=(Fd &&o) noexcept
	{
		reset(o.release());
		return *this;
	}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;
	~Fd() { reset(); }

	int get() const { return fd_; }
	bool valid() const { return fd_ >= 0; }
	int release() { return std::exchange(fd_, -1); }
	void reset(int fd = -1)
	{
		if (fd_ >= 0)
			::close(fd_);
		fd_ = fd;
	}

private:
	int fd_ = -1;
};

class Mapping {
public:
	Mapping() = default;
	Mapping(void *addr, size_t len) : addr_(addr), len_(len) {}
	Mapping(Mapping &&o) noexcept
		: addr_(std::exchange(o.addr_, nullptr)), len_(std::exchange(o.len_, 0)) {}
	Mapping &operator=(Mapping &&o) noexcept
	{
		reset();
		addr_ = std::exchange(o.addr_, nullptr);
		len_ = std::exchange(o.len_, 0);
		return *this;
	}
	Mapping(const Mapping &) = delete;
	Mapping &operator=(const Mapping &) = delete;
	~Mapping() { reset(); }

	/* mmap() wrapper: an empty Mapping (and errno) on failure. */
	static Mapping map(size_t len, int prot, int flags, int fd, off_t off)
	{
		void *p = ::mmap(nullptr, len, prot, flags, fd, off);
		return p == MAP_FAILED ? Mapping() : Mapping(p, len);
	}

	/* Zeroed private memory of @len bytes; from 2 MiB up, aligned to
	 * 2 MiB and advised into transparent hugepages (what is read at
	 * random, per lookup, then costs no TLB miss per 4 KiB). */
	static Mapping anon(size_t len) { return anon_aligned(len); }

	/* The same for memory about to be written throughout (an eager
	 * attach's handles and view): from kHugeFrom up, rounded up to whole
	 * hugepages, so that it faults 2 MiB at a time. On the 2-core VM a
	 * 4 KiB page's first touch cost 12-15 us, and still 5-12 us after
	 * MADV_POPULATE_WRITE (presumably the hypervisor's own tables); a
	 * 2 MiB hugepage's about 200 us for all of it
	 * (doc/benchmarks.md, section 4). Not populated: what a registry
	 * claims (a lying primary's entry count) commits nothing until an
	 * import writes there. */
	static constexpr size_t kHugeFrom = 128u << 10;
	static Mapping anon_huge(size_t len)
	{
		constexpr size_t kHuge = 2u << 20;
		if (len >= kHugeFrom)
			len = (len + kHuge - 1) & ~(kHuge - 1);
		return anon_aligned(len);
	}

	void *addr() const { return addr_; }
	size_t length() const { return len_; }
	bool valid() const { return addr_ != nullptr; }
	void reset()
	{
		if (addr_ != nullptr)
			::munmap(addr_, len_);
		addr_ = nullptr;
		len_ = 0;
	}

private:
	static Mapping anon_aligned(size_t len)
	{
		constexpr size_t kHuge = 2u << 20;
		const size_t over = len >= kHuge ? kHuge : 0;
		Mapping m = map(len + over, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (!m.valid() || over == 0)
			return m;
		auto *base = static_cast<char *>(m.addr_);
		auto *at = reinterpret_cast<char *>((reinterpret_cast<uintptr_t>(base) + kHuge - 1) &
						    ~(kHuge - 1));
		if (at > base)
			::munmap(base, static_cast<size_t>(at - base));
		if (at + len < base + len + over)
			::munmap(at + len, static_cast<size_t>(base + len + over - (at + len)));
		m.addr_ = nullptr;
		(void)::madvise(at, len, MADV_HUGEPAGE);
		return Mapping(at, len);
	}

	void *addr_ = nullptr;
	size_t len_ = 0;
};

} // namespace dvs

#endif
