/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The device engine: what the NIC does with a doorbell. Each pass takes
 * the doorbell register of every VAR page a VAR owns (at the in-page
 * doorbell offset the caps report) with an atomic exchange against
 * DVS_SIM_DB_IDLE, so a repeated store of the same value is still a new
 * kick; stores between two passes coalesce into one. A kick arms the
 * queue index it carries, and the data path (sim_datapath.cpp) serves
 * the armed queues.
 */
#include <atomic>
#include <memory>
#include <thread>

#include <emmintrin.h>
#include <unistd.h>

#include "sim_context.h"
#include "sim_datapath.h"

using namespace dvs::sim;

struct dvs_sim_engine {
	Ufile ufile; /* its own fd and mapping: outlives the creating context */
	std::unique_ptr<DataPath> dp;
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
	e->dp = std::make_unique<DataPath>(e->ufile);
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
	unsigned int kicks = engine->dp->pass();

	if (kicks != 0)
		engine->kicks.fetch_add(kicks, std::memory_order_relaxed);
	return kicks;
}

int dvs_sim_engine_active(const struct dvs_sim_engine *engine)
{
	return engine->dp->active();
}

void dvs_sim_engine_stats(const struct dvs_sim_engine *engine, struct dvs_sim_engine_stats *st)
{
	const DpCounts &c = engine->dp->counts();

	st->kicks = c.kicks;
	st->packets = c.packets;
	st->octets = c.octets;
	st->dropped = c.dropped;
	st->errors = c.errors;
	st->unreachable = c.unreachable;
	st->oversize = c.oversize;
	st->fenced = c.fenced;
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
