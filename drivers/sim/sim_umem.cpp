/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * DEVX UMEMs: register, deregister, export, import, unimport, with the
 * kernel's checks (mlx5_ib devx_umem_get, ib_umem_get).
 */
#include <algorithm>
#include <atomic>
#include <climits>
#include <cstring>
#include <memory>

#include <linux/capability.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "sim_context.h"
#include "sim_datapath.h"
#include "sim_export.h"
#include "sim_var_pages.h"

namespace dvs::sim {

namespace {

/* MLX5_IB_ATTR_DEVX_UMEM_REG_ACCESS takes these (uverbs_get_flags32);
 * anything else is EINVAL. */
constexpr uint32_t kUmemAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
				 IBV_ACCESS_REMOTE_READ | IBV_ACCESS_RELAXED_ORDERING;

/* Pages this process has pinned through UMEMs (mm->pinned_vm). */
std::atomic<uint64_t> pinned_pages{0};

size_t page_size()
{
	return static_cast<size_t>(sysconf(_SC_PAGESIZE));
}

/* ib_check_mr_access: remote write needs local write. */
bool access_ok(uint32_t access)
{
	if ((access & ~kUmemAccess) != 0)
		return false;
	return !((access & IBV_ACCESS_REMOTE_WRITE) && !(access & IBV_ACCESS_LOCAL_WRITE));
}

bool has_ipc_lock()
{
	struct __user_cap_header_struct hdr = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct data[2] = {};

	if (syscall(SYS_capget, &hdr, data) != 0)
		return false;
	return (data[CAP_IPC_LOCK / 32].effective >> (CAP_IPC_LOCK % 32)) & 1;
}

/* ib_umem_get's accounting: pinning past RLIMIT_MEMLOCK without
 * CAP_IPC_LOCK is ENOMEM; a limit of 0 is EPERM (can_do_mlock). */
int charge_pinned(uint64_t npages)
{
	struct rlimit rl;

	if (has_ipc_lock() || getrlimit(RLIMIT_MEMLOCK, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) {
		pinned_pages += npages;
		return 0;
	}
	if (rl.rlim_cur == 0)
		return EPERM;
	uint64_t now = pinned_pages += npages;
	if (now > rl.rlim_cur / page_size()) {
		pinned_pages -= npages;
		return ENOMEM;
	}
	return 0;
}

/* Pinning fails with EFAULT on memory that is not mapped; mincore()
 * answers "is every page of the range mapped". */
bool range_mapped(uintptr_t start, uintptr_t end)
{
	const size_t pg = page_size();
	static thread_local unsigned char vec[4096];

	for (uintptr_t p = start; p < end; p += pg * sizeof(vec)) {
		size_t len = std::min<size_t>(end - p, pg * sizeof(vec));
		if (mincore(reinterpret_cast<void *>(p), len, vec) != 0)
			return false;
	}
	return true;
}

/* ib_umem_get's argument checks and pinning: 0 or an errno. */
int pin(void *addr, size_t size, uint64_t *npages)
{
	const uintptr_t pg = page_size();
	uintptr_t a = reinterpret_cast<uintptr_t>(addr);

	if (a + size < a || ((a + size + pg - 1) & ~(pg - 1)) < a + size)
		return EINVAL; /* the range wraps */
	uintptr_t start = a & ~(pg - 1), end = (a + size + pg - 1) & ~(pg - 1);
	*npages = (end - start) / pg;
	if (*npages == 0 || *npages > UINT_MAX)
		return EINVAL;
	int err = charge_pinned(*npages);
	if (err != 0)
		return err;
	if (!range_mapped(start, end)) {
		pinned_pages -= *npages;
		return EFAULT;
	}
	return 0;
}

SimUmem *to_umem(struct mlx5dv_devx_umem *umem)
{
	return reinterpret_cast<SimUmem *>(umem);
}

struct mlx5dv_devx_umem *make_umem(SimContext *sc, uint32_t handle, uint32_t umem_id)
{
	auto u = std::make_unique<SimUmem>();

	u->ctx = sc;
	u->handle = handle;
	u->dv.umem_id = umem_id;
	return &u.release()->dv;
}

} // namespace

struct mlx5dv_devx_umem *umem_reg(struct ibv_context *ctx, void *addr, size_t size,
				  uint32_t access)
{
	SimContext *sc = to_sim(ctx);
	uint64_t npages = 0;

	if (sc == nullptr)
		return fail_null<struct mlx5dv_devx_umem>(EOPNOTSUPP);
	if (!access_ok(access))
		return fail_null<struct mlx5dv_devx_umem>(EINVAL);
	int err = pin(addr, size, &npages);
	if (err != 0)
		return fail_null<struct mlx5dv_devx_umem>(err);
	Kobj k{};
	k.addr = reinterpret_cast<uintptr_t>(addr);
	k.size = size;
	k.access = access;
	k.owner_pid = self_pid();
	k.owner_token = process_token();
	UfileLock lock(sc->ufile.hdr());
	HandleTable t = sc->ufile.table();
	uint32_t handle = t.insert(k, KobjType::Umem);
	if (handle == HandleTable::kNone) {
		pinned_pages -= npages;
		return fail_null<struct mlx5dv_devx_umem>(ENOMEM);
	}
	Kobj *live = t.at(handle);
	live->id = t.make_id(handle, false);
	return make_umem(sc, handle, live->id);
}

/* The kernel destroys whatever UMEM the handle names now; firmware
 * refuses while an object uses it (DESTROY_UMEM: RESOURCE_BUSY, which
 * mlx5_cmd_exec turns into EBUSY), and the local struct stays the
 * caller's. */
int umem_dereg(struct mlx5dv_devx_umem *umem)
{
	if (umem == nullptr)
		return fail(EINVAL);
	SimUmem *u = to_umem(umem);
	{
		UfileLock lock(u->ctx->ufile.hdr());
		HandleTable t = u->ctx->ufile.table();
		Kobj *k = nullptr;
		int rc = t.lookup(u->handle, KobjType::Umem, &k);
		if (rc != 0)
			return fail(-rc);
		if ((rc = take_destroy_failure()) != 0)
			return fail(rc);
		if (k->users != 0)
			return fail(EBUSY);
		if (k->owner_pid == self_pid()) {
			const uint64_t pg = page_size();
			uint64_t start = k->addr & ~(pg - 1);
			pinned_pages -= (k->addr + k->size + pg - 1 - start) / pg;
		}
		t.remove(u->handle);
	}
	std::unique_ptr<SimUmem> owned(u);
	return 0;
}

int umem_export(struct mlx5dv_devx_umem *umem, void *data)
{
	if (umem == nullptr)
		return fail(EINVAL);
	return export_blob<UmemBlob>(data, [&](UmemBlob &b) {
		b.handle = to_umem(umem)->handle;
		b.umem_id = umem->umem_id;
	});
}

struct mlx5dv_devx_umem *umem_import(struct ibv_context *ctx, void *data)
{
	return import_blob<UmemBlob, struct mlx5dv_devx_umem>(
		ctx, data, [](SimContext *sc, const UmemBlob &b) {
			return make_umem(sc, b.handle, b.umem_id);
		});
}

void umem_unimport(struct mlx5dv_devx_umem *umem)
{
	std::unique_ptr<SimUmem> owned(to_umem(umem));
}

} // namespace dvs::sim

int dvs_sim_umem_fence(struct ibv_context *ctx, const void *addr, size_t len)
{
	using namespace dvs::sim;
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr)
		return -EINVAL;
	const uint64_t lo = reinterpret_cast<uintptr_t>(addr), hi = lo + len;
	const uint64_t me = process_token();
	int n = 0;
	UfileLock lock(sc->ufile.hdr());
	HandleTable t = sc->ufile.table();
	/* Up to the last live UMEM only: the table is sparse. */
	uint32_t left = t.live(KobjType::Umem);
	for (uint32_t h = 0; h < kSlots && left != 0; h++) {
		Kobj *k = t.at(h);
		if (k == nullptr || k->type != static_cast<uint32_t>(KobjType::Umem))
			continue;
		left--;
		if (k->owner_token != me || k->fenced || k->addr >= hi || k->addr + k->size <= lo)
			continue;
		k->fenced = 1;
		n++;
	}
	if (n != 0)
		dp_changed(sc->ufile);
	return n;
}
