/* SPDX-License-Identifier: BSD-3-Clause */
#include "sim_ufile.h"

#include "sim_var_pages.h"

#include <cerrno>
#include <cstring>
#include <mutex>
#include <set>

#include <emmintrin.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

namespace dvs::sim {

namespace {

constexpr unsigned int kSeals = F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL;

int init_lock(pthread_mutex_t *m)
{
	pthread_mutexattr_t a;
	int rc = pthread_mutexattr_init(&a);

	if (rc != 0)
		return -rc;
	rc = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED);
	if (rc == 0)
		rc = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST);
	if (rc == 0)
		rc = pthread_mutex_init(m, &a);
	pthread_mutexattr_destroy(&a);
	return -rc;
}

/* Every Ufile of this process. The mutex is held across fork() by the
 * handlers in sim_var_pages.cpp (lock_all, for_each, unlock_all). Both
 * are never destroyed: contexts may be closed by exit-time destructors
 * that run after this file's statics would be gone. */
std::mutex &registry_mu()
{
	static auto *mu = new std::mutex;
	return *mu;
}

std::set<Ufile *> &registry()
{
	static auto *all = new std::set<Ufile *>;
	return *all;
}

} // namespace

Ufile::Ufile()
{
	std::lock_guard<std::mutex> lock(registry_mu());
	registry().insert(this);
}

Ufile::~Ufile()
{
	{
		std::lock_guard<std::mutex> lock(registry_mu());
		registry().erase(this);
	}
	unmap();
	if (fd_ >= 0)
		close(fd_);
}

void Ufile::lock_all()
{
	registry_mu().lock();
}

void Ufile::unlock_all()
{
	registry_mu().unlock();
}

void Ufile::for_each(const std::function<void(Ufile &)> &fn)
{
	for (Ufile *u : registry())
		if (u->hdr_ != nullptr)
			fn(*u);
}

int Ufile::map_view(int fd)
{
	void *p = mmap(nullptr, kCtlSize, PROT_READ | PROT_WRITE, MAP_SHARED, fd, kCtlOff);

	if (p == MAP_FAILED)
		return -errno;
	hdr_ = static_cast<UfileHdr *>(p);
	track_forks();
	return 0;
}

void Ufile::unmap()
{
	uint8_t *var = var_base_.exchange(nullptr);

	if (var != nullptr)
		munmap(var, kCtlOff);
	if (hdr_ != nullptr)
		munmap(hdr_, kCtlSize);
	hdr_ = nullptr;
}

int Ufile::map_var_area() const
{
	if (var_base_.load(std::memory_order_acquire) != nullptr)
		return 0;
	/* Offset 0: sim_var_pages.cpp tells this view from an application's
	 * VAR mapping by that offset, which no VAR page has. PROT_NONE but
	 * the pages in use (var_words()): 8 GiB of a sparse memfd that an
	 * application's mlockall() (dpdk-testpmd's, by default) would fill
	 * otherwise, where a NIC's VAR pages are device memory it skips. */
	void *p = mmap(nullptr, kCtlOff, PROT_NONE, MAP_SHARED, fd_, 0);
	if (p == MAP_FAILED)
		return -errno;
	uint8_t *none = nullptr;
	if (!var_base_.compare_exchange_strong(none, static_cast<uint8_t *>(p),
					       std::memory_order_acq_rel))
		munmap(p, kCtlOff); /* another thread mapped it first */
	return 0;
}

int Ufile::create(uint32_t dev_index)
{
	struct stat st;
	int fd = memfd_create("dvs-sim-ufile", MFD_CLOEXEC | MFD_ALLOW_SEALING);

	if (fd < 0)
		return -errno;
	fd_ = fd;
	if (ftruncate(fd, static_cast<off_t>(kUfileSize)) != 0 || fstat(fd, &st) != 0)
		return -errno;
	int rc = map_view(fd);
	if (rc != 0)
		return rc;
	UfileHdr *h = hdr_;
	h->version = kLayoutVersion;
	h->dev_index = dev_index;
	/* Every sim context has DEVX (dv_open_device), and
	 * mlx5_ib_alloc_ucontext gives a DEVX context a uid of its own. */
	h->devx = 1;
	h->devx_uid = 1 + (static_cast<uint32_t>(getpid()) & 0x7fff);
	h->ino = st.st_ino;
	h->dev = st.st_dev;
	h->ctl_off = kCtlOff;
	h->table_off = kTableOff;
	h->pages_off = kPagesOff;
	h->maps_off = kMapsOff;
	h->entries_off = kEntriesOff;
	h->total_size = kUfileSize;
	rc = init_lock(&h->lock);
	if (rc == 0)
		rc = init_lock(&h->engine_lock);
	if (rc != 0)
		return rc;
	dp().mtu = kDefaultMtu;
	HandleTable::format(&h->htab, kSlots);
	for (VqSlot &q : dp().vq) {
		q.handle = HandleTable::kNone;
		q.route = kNoRoute;
	}
	if (fcntl(fd, F_ADD_SEALS, kSeals) != 0)
		return -errno;
	/* The magic goes last: a half-made ufile is never accepted. */
	__atomic_store_n(&h->magic, kMagic, __ATOMIC_RELEASE);
	return 0;
}

int Ufile::adopt(int fd)
{
	struct stat st;
	int seals = fcntl(fd, F_GET_SEALS);

	/* Only a sealed memfd of exactly our size can be a ufile; F_GET_SEALS
	 * fails on anything that is not a memfd. */
	if (seals < 0 || (static_cast<unsigned int>(seals) & kSeals) != kSeals)
		return -EINVAL;
	if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
	    static_cast<uint64_t>(st.st_size) != kUfileSize)
		return -EINVAL;
	if (map_view(fd) != 0)
		return -EINVAL;
	const UfileHdr *h = hdr_;
	if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != kMagic ||
	    h->version != kLayoutVersion || h->total_size != kUfileSize ||
	    h->ctl_off != kCtlOff || h->maps_off != kMapsOff || h->entries_off != kEntriesOff ||
	    h->dev_index >= DVS_SIM_NUM_DEVICES || h->ino != st.st_ino) {
		unmap();
		return -EINVAL;
	}
	return 0;
}

HandleTable Ufile::table() const
{
	auto *ctl = reinterpret_cast<uint8_t *>(hdr_);

	return HandleTable(&hdr_->htab, reinterpret_cast<Kobj *>(ctl + kTableOff));
}

PageState &Ufile::page(uint32_t page_id) const
{
	auto *ctl = reinterpret_cast<uint8_t *>(hdr_);

	return reinterpret_cast<PageState *>(ctl + kPagesOff)[page_id];
}

MapRec &Ufile::map_rec(uint32_t page_id, uint32_t i) const
{
	auto *ctl = reinterpret_cast<uint8_t *>(hdr_);

	return reinterpret_cast<MapRec *>(ctl + kMapsOff)[static_cast<size_t>(i) * kVarPages + page_id];
}

EntryRec &Ufile::entry(uint32_t e) const
{
	auto *ctl = reinterpret_cast<uint8_t *>(hdr_);

	return reinterpret_cast<EntryRec *>(ctl + kEntriesOff)[e];
}

DpState &Ufile::dp() const
{
	auto *ctl = reinterpret_cast<uint8_t *>(hdr_);

	return *reinterpret_cast<DpState *>(ctl + kDpOff);
}

uint32_t *Ufile::var_words(uint32_t page_id) const
{
	/* The engine reads without the lock, after seeing the page Owned
	 * (acquire): the entry was set before. */
	uint32_t e = std::atomic_ref<uint32_t>(page(page_id).entry).load(std::memory_order_relaxed);
	uint8_t *p = var_base_.load(std::memory_order_acquire) + entry_mmap_off(e);
	std::atomic<uint64_t> &w = open_entries_[(e / 64) % (kMmapEntries / 64)];
	const uint64_t bit = 1ull << (e % 64);

	/* Once per entry and process: a system call, then a bit test. */
	if ((w.load(std::memory_order_acquire) & bit) == 0 &&
	    mprotect(p, kPage, PROT_READ | PROT_WRITE) == 0)
		w.fetch_or(bit, std::memory_order_acq_rel);
	return reinterpret_cast<uint32_t *>(p);
}

namespace {

uint64_t now_ns()
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return static_cast<uint64_t>(t.tv_sec) * 1000000000u + static_cast<uint64_t>(t.tv_nsec);
}

std::atomic_ref<uint32_t> fence_of(UfileHdr *hdr)
{
	return std::atomic_ref<uint32_t>(hdr->engine_fence);
}

/* Take a robust mutex that may have been left by a dead holder: its
 * state is consistent at every store, so marking it usable is the repair. */
int take_robust(pthread_mutex_t *m, bool try_only)
{
	int rc = try_only ? pthread_mutex_trylock(m) : pthread_mutex_lock(m);

	if (rc == EOWNERDEAD)
		rc = pthread_mutex_consistent(m) == 0 ? EOWNERDEAD : ENOTRECOVERABLE;
	return rc;
}

/* A turn is tens of microseconds: a control call spins this long for
 * it before it sleeps on the lock, so a waker's scheduling latency (the
 * waiter's CPU may be busy) is not added to the wait. */
constexpr uint64_t kFenceSpinNs = 200'000;

void cpu_relax()
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	asm volatile("yield" ::: "memory");
#endif
}

/* Under @hdr->lock: keep every engine out of the queues until release().
 * An engine in a turn ends it first (one queue's bounded work); none
 * starts one while the fence is up, so no engine waits on this lock and
 * no control call waits for more than one turn, however busy the queues. */
void fence_engines(UfileHdr *hdr)
{
	fence_of(hdr).store(1, std::memory_order_seq_cst);
	int rc = take_robust(&hdr->engine_lock, true);
	if (rc == EBUSY) {
		uint64_t t0 = now_ns(), t = t0;
		while (rc == EBUSY && t - t0 < kFenceSpinNs) {
			cpu_relax();
			rc = take_robust(&hdr->engine_lock, true);
			t = now_ns();
		}
		if (rc == EBUSY)
			rc = take_robust(&hdr->engine_lock, false);
		uint64_t waited = now_ns() - t0;
		hdr->fence_waits++;
		hdr->fence_wait_max_ns = std::max(hdr->fence_wait_max_ns, waited);
	}
	if (rc == 0 || rc == EOWNERDEAD) /* EOWNERDEAD: an engine died in a turn */
		pthread_mutex_unlock(&hdr->engine_lock);
}

} // namespace

int UfileLock::acquire(UfileHdr *hdr)
{
	int rc = take_robust(&hdr->lock, false);

	if (rc == EOWNERDEAD) {
		hdr->lock_recoveries++;
		rc = 0;
	}
	if (rc != 0)
		return -rc;
	fence_engines(hdr);
	return 0;
}

void UfileLock::release(UfileHdr *hdr)
{
	fence_of(hdr).store(0, std::memory_order_release);
	pthread_mutex_unlock(&hdr->lock);
}

UfileLock::UfileLock(UfileHdr *hdr) : hdr_(hdr)
{
	/* Only fails if the mutex is unrecoverable, which acquire() never
	 * leaves behind; a failure here would be a memory-corruption bug. */
	if (acquire(hdr_) != 0)
		hdr_ = nullptr;
}

UfileLock::~UfileLock()
{
	if (hdr_ != nullptr)
		release(hdr_);
}

EngineTurn::EngineTurn(UfileHdr *hdr)
{
	if (fence_of(hdr).load(std::memory_order_relaxed) != 0)
		return;
	int rc = take_robust(&hdr->engine_lock, false);
	if (rc != 0 && rc != EOWNERDEAD)
		return;
	/* Seen after the lock: a fence raised before it is seen here, one
	 * raised after it waits for this turn's end. */
	if (fence_of(hdr).load(std::memory_order_seq_cst) != 0) {
		pthread_mutex_unlock(&hdr->engine_lock);
		return;
	}
	hdr_ = hdr;
	start_ns_ = now_ns();
}

EngineTurn::~EngineTurn()
{
	if (hdr_ == nullptr)
		return;
	/* A control call waits for this turn: how long it held the queues
	 * (under engine_lock: the one writer). */
	if (fence_of(hdr_).load(std::memory_order_relaxed) != 0)
		hdr_->fenced_turn_max_ns = std::max(hdr_->fenced_turn_max_ns, now_ns() - start_ns_);
	pthread_mutex_unlock(&hdr_->engine_lock);
}

bool EngineTurn::lift_dead_fence(UfileHdr *hdr)
{
	if (fence_of(hdr).load(std::memory_order_relaxed) == 0)
		return false;
	int rc = take_robust(&hdr->lock, true);
	if (rc != 0 && rc != EOWNERDEAD)
		return false; /* a live holder: its release lifts it */
	if (rc == EOWNERDEAD)
		hdr->lock_recoveries++;
	/* Whoever raised the fence died holding the lock: release()
	 * lowers it before it unlocks. */
	fence_of(hdr).store(0, std::memory_order_release);
	pthread_mutex_unlock(&hdr->lock);
	return true;
}

} // namespace dvs::sim
