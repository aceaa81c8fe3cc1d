/* SPDX-License-Identifier: BSD-3-Clause */
#include "engine_service.h"

#include <cerrno>
#include <cstdio>

#include <unistd.h>

#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_memory.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include "dvs_log.h"
#include "dvs_sim.h"

namespace dvs {

int32_t EngineService::run(void *arg)
{
	auto *e = static_cast<dvs_sim_engine *>(arg);

	/* -EAGAIN: no work this time (the service core's idle statistics). */
	return dvs_sim_engine_poll(e) != 0 || dvs_sim_engine_active(e) ? 0 : -EAGAIN;
}

std::unique_ptr<EngineService> EngineService::start(struct ibv_context *ctx,
						     const std::string &dev, int *err)
{
	std::unique_ptr<EngineService> s(new EngineService());
	struct rte_service_spec spec = {};
	uint32_t lcores[RTE_MAX_LCORE];

	s->engine_ = dvs_sim_engine_create(ctx);
	if (s->engine_ == nullptr) {
		*err = -errno;
		return nullptr;
	}
	snprintf(spec.name, sizeof(spec.name), "dvshare_engine_%s", dev.c_str());
	spec.callback = run;
	spec.callback_userdata = s->engine_;
	spec.socket_id = SOCKET_ID_ANY;
	if (rte_service_component_register(&spec, &s->id_) != 0) {
		*err = -EIO;
		DVS_LOG(ERR, "%s: cannot register the engine service", dev.c_str());
		return nullptr;
	}
	s->registered_ = true;
	rte_service_component_runstate_set(s->id_, 1);
	rte_service_runstate_set(s->id_, 1);
	int n = rte_service_lcore_list(lcores, RTE_MAX_LCORE);
	if (n > 0 && rte_service_map_lcore_set(s->id_, lcores[0], 1) == 0) {
		int rc = rte_service_lcore_start(lcores[0]);
		if (rc == 0 || rc == -EALREADY)
			s->lcore_ = static_cast<int>(lcores[0]);
	}
	if (s->lcore_ >= 0)
		DVS_LOG(INFO, "%s: engine service %u on service lcore %d", dev.c_str(), s->id_,
			s->lcore_);
	else /* nothing moves until the application runs it: say so */
		DVS_LOG(NOTICE, "%s: no service lcore runs the engine (service %u): give one "
			"with -s (e.g. -l 0,1 -s 0x2), or run it with "
			"rte_service_run_iter_on_app_lcore()", dev.c_str(), s->id_);
	*err = 0;
	return s;
}

EngineService::~EngineService()
{
	if (registered_) {
		rte_service_runstate_set(id_, 0);
		rte_service_component_runstate_set(id_, 0);
		/* Let a service lcore finish its current pass first. */
		for (int i = 0; i < 1000 && rte_service_may_be_active(id_) == 1; i++)
			usleep(1000);
		if (lcore_ >= 0)
			rte_service_map_lcore_set(id_, static_cast<uint32_t>(lcore_), 0);
		rte_service_component_unregister(id_);
	}
	dvs_sim_engine_destroy(engine_);
}

uint64_t EngineService::kicks() const
{
	return dvs_sim_engine_kicks(engine_);
}

} // namespace dvs
