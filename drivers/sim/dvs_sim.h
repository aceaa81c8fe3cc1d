/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The software mlx5 device: a model of the kernel's uverbs file ("ufile")
 * plus libmlx5's VAR, DEVX object and UMEM calls, good enough that the whole
 * of dvshare runs on it. See doc/sim.md for what it models and where it is
 * stricter than rdma-core.
 *
 * The device list holds DVS_SIM_NUM_DEVICES devices named "sim0", "sim1", ...
 * Each dv_open_device() makes a new ufile: a sealed memfd that is the
 * context's cmd_fd and holds the kernel-object table and the VAR pages.
 */
#ifndef DVS_SIM_H
#define DVS_SIM_H

#include <stdint.h>

#include "dvs_glue.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DVS_SIM_NUM_DEVICES 8u       /**< sim0 .. sim7 */
#define DVS_SIM_MAX_OBJECTS 32767u   /**< kernel objects per ufile, all types */
#define DVS_SIM_VAR_PAGES 4096u      /**< VAR pages per ufile */
#define DVS_SIM_PAGE_SIZE 4096u      /**< length of one VAR page */
/** Doorbell registers the engine watches: the first 64 words of a VAR page. */
#define DVS_SIM_DB_WORDS 64u
/** Value of an idle doorbell register; a store of it is not a kick. */
#define DVS_SIM_DB_IDLE 0xffffffffu

/** Export blob sizes of the software device (see doc/sim.md). */
#define DVS_SIM_VAR_EXPORT_SIZE 32u
#define DVS_SIM_OBJ_EXPORT_SIZE 32u
#define DVS_SIM_UMEM_EXPORT_SIZE 16u

/**
 * Syndromes the sim's "firmware" puts in a failed command's output (with
 * the PRM status). Real firmware uses other values; tests match these.
 */
enum dvs_sim_syndrome {
	DVS_SIM_SYND_BAD_OPCODE = 0x5d000001,     /**< BAD_OP */
	DVS_SIM_SYND_BAD_OBJ_TYPE = 0x5d000002,   /**< BAD_PARAM */
	DVS_SIM_SYND_BAD_QUEUE_SIZE = 0x5d000003, /**< BAD_PARAM */
	DVS_SIM_SYND_BAD_UMEM = 0x5d000004,       /**< BAD_PARAM */
	DVS_SIM_SYND_BAD_STATE = 0x5d000005,      /**< BAD_PARAM: create not INIT, or bad transition */
	DVS_SIM_SYND_BAD_SELECT = 0x5d000006,     /**< BAD_PARAM: unknown modify bits */
	DVS_SIM_SYND_BAD_RES_STATE = 0x5d000007,  /**< BAD_RES_STATE: addresses of a RDY queue */
	DVS_SIM_SYND_INPUT_LEN = 0x5d000008,      /**< BAD_INPUT_LEN */
	DVS_SIM_SYND_OUTPUT_LEN = 0x5d000009,     /**< BAD_OUTPUT_LEN */
};

/** The sim's call table (always complete). */
const struct dvs_glue *dvs_sim_glue(void);

/** True when @p ctx is a software-device context (opened or imported). */
int dvs_sim_is_context(const struct ibv_context *ctx);

/** What the device holds now, shared by every context on the ufile. */
struct dvs_sim_stats {
	uint32_t vars;            /**< live VAR objects */
	uint32_t devx_objs;       /**< live DEVX objects */
	uint32_t umems;           /**< live UMEMs */
	uint64_t lock_recoveries; /**< times a dead lock holder was recovered */
};

/**
 * Read the live-object counts of the ufile behind @p ctx.
 * @return 0, or -EINVAL when @p ctx is not a sim context.
 */
int dvs_sim_stats(struct ibv_context *ctx, struct dvs_sim_stats *stats);

/**
 * Doorbell counters of one VAR page.
 * @return 0, -EINVAL for a bad context or page, -ENOENT when the page is not
 *   allocated.
 */
int dvs_sim_page_kicks(struct ibv_context *ctx, uint32_t page_id,
		       uint64_t *kicks, uint32_t *last_value);

/** Device engine: turns doorbell stores into per-page kick counts. */
struct dvs_sim_engine;

/**
 * Create an engine for the ufile behind @p ctx (any context sharing it).
 * @return the engine, or NULL with errno set.
 */
struct dvs_sim_engine *dvs_sim_engine_create(struct ibv_context *ctx);

/** Stop (if running) and free an engine. NULL is a no-op. */
void dvs_sim_engine_destroy(struct dvs_sim_engine *engine);

/**
 * One pass over every allocated VAR page: each doorbell register holding
 * a value other than DVS_SIM_DB_IDLE is taken with an atomic exchange and
 * counted. Stores that land between two passes coalesce, as on hardware.
 * @return the number of kicks seen in this pass.
 */
unsigned int dvs_sim_engine_poll(struct dvs_sim_engine *engine);

/**
 * Run dvs_sim_engine_poll() on a thread of its own until stopped.
 * @param interval_us  sleep between passes (0: busy-poll with a CPU pause).
 * @return 0, -EALREADY when running, or a negative errno.
 */
int dvs_sim_engine_start(struct dvs_sim_engine *engine, unsigned int interval_us);

/** Stop the engine thread; it has finished its last pass on return. */
void dvs_sim_engine_stop(struct dvs_sim_engine *engine);

/** Total kicks this engine has counted. */
uint64_t dvs_sim_engine_kicks(const struct dvs_sim_engine *engine);

/**
 * Take the ufile's robust lock (for tests that kill a holder). Pair with
 * dvs_sim_unlock(). @return 0 or a negative errno.
 */
int dvs_sim_lock(struct ibv_context *ctx);
/** Release the lock taken by dvs_sim_lock(). */
void dvs_sim_unlock(struct ibv_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* DVS_SIM_H */
