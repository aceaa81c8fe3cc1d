/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The software device's engine as a DPDK service: it runs on a service
 * lcore (-s / --service-lcore) when there is one, else the application
 * runs it (rte_service_run_iter_on_app_lcore).
 */
#ifndef DVS_ENGINE_SERVICE_H
#define DVS_ENGINE_SERVICE_H

#include <cstdint>
#include <memory>
#include <string>

struct ibv_context;
struct dvs_sim_engine;

namespace dvs {

class EngineService {
public:
	/* Register and start the engine of the ufile behind @ctx. */
	static std::unique_ptr<EngineService> start(struct ibv_context *ctx, const std::string &dev,
						    int *err);
	~EngineService();
	EngineService(const EngineService &) = delete;
	EngineService &operator=(const EngineService &) = delete;

	uint32_t id() const { return id_; }
	uint64_t kicks() const;
	bool on_service_lcore() const { return lcore_ >= 0; }

private:
	EngineService() = default;
	static int32_t run(void *arg);

	struct dvs_sim_engine *engine_ = nullptr;
	uint32_t id_ = 0;
	bool registered_ = false;
	int lcore_ = -1;
};

} // namespace dvs

#endif
