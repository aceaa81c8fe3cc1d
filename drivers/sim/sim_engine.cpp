/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device engine: what the NIC does with a doorbell. Each pass takes
 * the doorbell register of every VAR page a VAR owns (at the in-page
 * doorbell offset the caps report) with an atomic exchange against
 * DVS_SIM_DB_IDLE, so a repeated store of the same value is still a new
 * kick; stores between two passes coalesce into one.
 */
#include <atomic>
#include <memory>
#include <thread>

#include <emmintrin.h>
#include <unistd.h>

#include "sim_context.h"

namespace dvs::sim {

namespace {

constexpr uint32_t kDbWord = DVS_SIM_DB_OFFSET / 4;

bool owned(const PageState &ps)
{
	return std::atomic_ref<const uint32_t>(ps.use).load(std::memory_order_acquire) ==
	       static_cast<uint32_t>(PageUse::Owned);
}

unsigned int poll_page(const Ufile &u, uint32_t page_id)
{
	PageState &ps = u.page(page_id);
	std::atomic_ref<uint32_t> reg(u.var_words(page_id)[kDbWord]);

	/* A plain load first: an idle register costs no bus lock. */
	if (reg.load(std::memory_order_relaxed) == DVS_SIM_DB_IDLE)
		return 0;
	uint32_t v = reg.exchange(DVS_SIM_DB_IDLE, std::memory_order_acquire);
	if (v == DVS_SIM_DB_IDLE)
		return 0;
	std::atomic_ref<uint64_t>(ps.kicks).fetch_add(1, std::memory_order_relaxed);
	std::atomic_ref<uint32_t>(ps.last).store(v, std::memory_order_relaxed);
	return 1;
}

/* Any doorbell of an owned page not idle? Plain loads, no lock: an idle
 * pass (the common case on a busy-polling service core) never touches
 * the ufile lock other processes' control calls need. */
bool any_pending(const Ufile &u)
{
	for (uint32_t p = 0; p < kVarPages; p++)
		if (owned(u.page(p)) &&
		    __atomic_load_n(&u.var_words(p)[kDbWord], __ATOMIC_RELAXED) != DVS_SIM_DB_IDLE)
			return true;
	return false;
}

} // namespace

} // namespace dvs::sim

using namespace dvs::sim;

struct dvs_sim_engine {
	Ufile ufile; /* its own fd and mapping: outlives the creating context */
	std::atomic<bool> run{false};
	std::thread thread;
	std::atomic<uint64_t> kicks{0};
};

struct dvs_sim_engine *dvs_sim_engine_create(struct ibv_context *ctx)
{
	SimContext *sc = to_sim(ctx);

	if (sc == nullptr)
		return fail_null<struct dvs_sim_engine>(EINVAL);
	int fd = dup(sc->ufile.fd());
	if (fd < 0)
		return nullptr;
	auto e = std::make_unique<dvs_sim_engine>();
	int rc = e->ufile.adopt(fd);
	if (rc != 0) {
		close(fd);
		return fail_null<struct dvs_sim_engine>(-rc);
	}
	e->ufile.take_fd(fd);
	rc = e->ufile.map_var_area();
	if (rc != 0)
		return fail_null<struct dvs_sim_engine>(-rc);
	return e.release();
}

void dvs_sim_engine_destroy(struct dvs_sim_engine *engine)
{
	if (engine == nullptr)
		return;
	dvs_sim_engine_stop(engine);
	std::unique_ptr<dvs_sim_engine> owned(engine);
}

unsigned int dvs_sim_engine_poll(struct dvs_sim_engine *engine)
{
	const Ufile &u = engine->ufile;
	unsigned int kicks = 0;

	if (!any_pending(u))
		return 0;
	/* Under the ufile lock, a page cannot be freed and handed to a new
	 * owner halfway through a pass, so no kick lands on the wrong page. */
	UfileLock lock(u.hdr());
	for (uint32_t p = 0; p < kVarPages; p++)
		if (owned(u.page(p)))
			kicks += poll_page(u, p);
	engine->kicks.fetch_add(kicks, std::memory_order_relaxed);
	return kicks;
}

int dvs_sim_engine_start(struct dvs_sim_engine *engine, unsigned int interval_us)
{
	if (engine == nullptr)
		return -EINVAL;
	if (engine->run.exchange(true))
		return -EALREADY;
	engine->thread = std::thread([engine, interval_us] {
		while (engine->run.load(std::memory_order_relaxed)) {
			dvs_sim_engine_poll(engine);
			if (interval_us != 0)
				usleep(interval_us);
			else
				_mm_pause();
		}
	});
	return 0;
}

void dvs_sim_engine_stop(struct dvs_sim_engine *engine)
{
	if (engine == nullptr || !engine->run.exchange(false))
		return;
	engine->thread.join();
}

uint64_t dvs_sim_engine_kicks(const struct dvs_sim_engine *engine)
{
	return engine->kicks.load(std::memory_order_relaxed);
}
