/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * The software mlx5 device: a model of the kernel's uverbs file ("ufile"),
 * mlx5_ib's DEVX and VAR code, the firmware commands dvshare uses, and
 * libmlx5's VAR, DEVX object and UMEM calls, so that the whole of dvshare
 * runs on it. See doc/sim.md for what it models, with sources, and every
 * place it differs from a ConnectX-6 Dx / BlueField.
 *
 * The device list holds DVS_SIM_NUM_DEVICES devices named "sim0", "sim1", ...
 * Each dv_open_device() makes a new ufile: a sealed memfd that is the
 * context's cmd_fd and holds the object table and the VAR pages.
 *
 * These entry points are dvshare's INTERNAL ABI (__rte_internal, exported
 * for its own tests and tools only): build with ALLOW_INTERNAL_API.
 */
#ifndef DVS_SIM_H
#define DVS_SIM_H

#include <stddef.h>
#include <stdint.h>

#include <rte_compat.h>

#include "dvs_glue.h"

#ifdef __cplusplus
extern "C" {
#endif

#define DVS_SIM_NUM_DEVICES 8u       /**< sim0 .. sim7 */
#define DVS_SIM_MAX_OBJECTS 131072u  /**< uverbs objects per ufile, all types */
#define DVS_SIM_VAR_PAGES 4096u      /**< VAR pages per device (log_doorbell_bar_size 12) */
#define DVS_SIM_PAGE_SIZE 4096u      /**< length of one VAR page */

/**
 * Virtio emulation capabilities the sim reports (QUERY_HCA_CAP op_mod
 * 0x27). doorbell_bar_offset's in-page part (0x800) is not zero on
 * purpose, as on a 64 KiB-page host: every doorbell written through
 * dvshare then proves it adds the offset.
 */
#define DVS_SIM_DOORBELL_BAR_OFFSET 0x800ull
#define DVS_SIM_DB_OFFSET (DVS_SIM_DOORBELL_BAR_OFFSET & (DVS_SIM_PAGE_SIZE - 1))
#define DVS_SIM_LOG_DB_STRIDE 12u    /**< one VAR page per doorbell */
#define DVS_SIM_MAX_VIRTQ 256u       /**< max_num_virtio_queues */
#define DVS_SIM_FREEZE_TO_RDY 0      /**< freeze_to_rdy_supported: SUSPEND -> RDY refused */
#define DVS_SIM_MAX_QUEUE_SIZE 32768u
/**
 * The port's MTU: 1500 when the device is made (a netdev's default), up to
 * DVS_SIM_MAX_MTU (dvs_sim_set_mtu()). The largest frame the device sends
 * is MTU + DVS_SIM_FRAME_OVERHEAD (an Ethernet header and one VLAN tag: the
 * hard MTU of Linux mlx5e without the FCS); a TX packet longer than that is
 * taken from its queue and dropped, counted per TX queue (doc/sim.md).
 */
#define DVS_SIM_DEFAULT_MTU 1500u
#define DVS_SIM_MIN_MTU 68u           /**< IPv4's minimum (RFC 791), the kernel's ETH_MIN_MTU */
#define DVS_SIM_MAX_MTU 9216u         /**< the sim's own limit */
#define DVS_SIM_FRAME_OVERHEAD 18u
#define DVS_SIM_UMEM_A0 128u         /**< umem_1_buffer_param_a */
#define DVS_SIM_UMEM_B0 4096u        /**< umem_1_buffer_param_b */
#define DVS_SIM_UMEM_A1 32u
#define DVS_SIM_UMEM_B1 4096u
#define DVS_SIM_UMEM_A2 16u
#define DVS_SIM_UMEM_B2 4096u
#define DVS_SIM_LOG_MAX_PD 18u
#define DVS_SIM_LOG_MAX_MKEY 17u     /**< log_max_mkey: the object table's size */
#define DVS_SIM_LOG_MAX_KLM 3u       /**< log_maxklm_list_size: 8 entries per indirect mkey */

/**
 * error_type the sim's device gives a queue it moves to ERR (the values
 * are the sim's own: firmware's are not public; tests on a NIC look at
 * the state and the counters only). Each comes with its VIRTIO_Q_COUNTERS
 * counter.
 */
enum dvs_sim_vq_error {
	DVS_SIM_VQ_ERR_BAD_DESC = 1,         /**< bad_desc_errors: index past the ring, INDIRECT,
						  wrong direction, avail jump, no room for the header */
	DVS_SIM_VQ_ERR_EXCEED_MAX_CHAIN = 2, /**< exceed_max_chain: a chain longer than the ring */
	DVS_SIM_VQ_ERR_INVALID_BUFFER = 3,   /**< invalid_buffer: outside the key, or without the right */
};

/** Value of an idle doorbell register; a store of it is not a kick. */
#define DVS_SIM_DB_IDLE 0xffffffffu

/** Export blob sizes: rdma-core 65's on x86-64 (var, DEVX object, UMEM). */
#define DVS_SIM_VAR_EXPORT_SIZE 24u
#define DVS_SIM_OBJ_EXPORT_SIZE 32u
#define DVS_SIM_UMEM_EXPORT_SIZE 8u

/**
 * Syndromes the sim's "firmware" puts in a failed command's output (with
 * the PRM status). Real firmware uses its own values: tests on hardware
 * match the status at most, never these.
 */
enum dvs_sim_syndrome {
	DVS_SIM_SYND_BAD_OPCODE = 0x5d000001,     /**< BAD_OP: not modelled */
	DVS_SIM_SYND_BAD_OBJ_TYPE = 0x5d000002,   /**< BAD_PARAM: type not in general_obj_types */
	DVS_SIM_SYND_BAD_QUEUE_SIZE = 0x5d000003, /**< BAD_PARAM */
	DVS_SIM_SYND_BAD_UMEM = 0x5d000004,       /**< BAD_PARAM: no such UMEM, or too small */
	DVS_SIM_SYND_BAD_STATE = 0x5d000005,      /**< BAD_PARAM: create not INIT, or bad transition */
	DVS_SIM_SYND_BAD_SELECT = 0x5d000006,     /**< BAD_PARAM: modify bits not supported */
	DVS_SIM_SYND_BAD_RES_STATE = 0x5d000007,  /**< BAD_RES_STATE: only state changes in RDY */
	DVS_SIM_SYND_INPUT_LEN = 0x5d000008,      /**< BAD_INPUT_LEN */
	DVS_SIM_SYND_OUTPUT_LEN = 0x5d000009,     /**< BAD_OUTPUT_LEN */
	DVS_SIM_SYND_BAD_PD = 0x5d00000a,         /**< BAD_PARAM: no such pd */
	DVS_SIM_SYND_BAD_QUEUE_INDEX = 0x5d00000b,/**< BAD_PARAM: index >= max_num_virtio_queues */
	DVS_SIM_SYND_UNSUPPORTED = 0x5d00000c,    /**< BAD_PARAM: a feature the caps do not offer */
	DVS_SIM_SYND_IN_USE = 0x5d00000d,         /**< RESOURCE_BUSY: still referenced */
	DVS_SIM_SYND_NO_MKEY = 0x5d00000e,        /**< BAD_PARAM: RDY without virtio_q_mkey */
	DVS_SIM_SYND_BAD_CAP = 0x5d00000f,        /**< BAD_PARAM: capability type not modelled */
	DVS_SIM_SYND_BAD_TD = 0x5d000010,         /**< BAD_PARAM: no such transport domain */
	DVS_SIM_SYND_BAD_TIS = 0x5d000011,        /**< BAD_PARAM: queue's tisn_or_qpn names no TIS */
	DVS_SIM_SYND_BAD_COUNTERS = 0x5d000012,   /**< BAD_PARAM: counter_set_id names no counters */
	DVS_SIM_SYND_BAD_MKEY = 0x5d000013,       /**< BAD_PARAM: virtio_q_mkey names no live key */
	DVS_SIM_SYND_BAD_MKEY_RANGE = 0x5d000014, /**< BAD_PARAM: a key's range outside what it maps */
	DVS_SIM_SYND_BAD_MKEY_ACCESS = 0x5d000015,/**< BAD_PARAM: lw over a UMEM not writable */
	DVS_SIM_SYND_BAD_KLM = 0x5d000016,        /**< BAD_PARAM: a KLM entry names no direct key on the PD */
	DVS_SIM_SYND_BAD_RINGS = 0x5d000017,      /**< BAD_PARAM: RDY with a ring outside the key or misaligned */
	DVS_SIM_SYND_INDEX_TAKEN = 0x5d000018,    /**< BAD_PARAM: RDY with the index another live queue holds */
};

/** The sim's call table (always complete). */
const struct dvs_glue *dvs_sim_glue(void);

/** True when @p ctx is a software-device context (opened or imported). */
__rte_internal
int dvs_sim_is_context(const struct ibv_context *ctx);

/** What the device holds now, shared by every context on the ufile. */
struct dvs_sim_stats {
	uint32_t vars;            /**< live VAR objects */
	uint32_t devx_objs;       /**< live DEVX objects */
	uint32_t umems;           /**< live UMEMs */
	uint32_t pages_held;      /**< VAR pages freed but still mapped somewhere */
	uint64_t lock_recoveries; /**< times a dead lock holder was recovered */
	uint32_t uars;            /**< live UARs: one per open or imported context
				       not closed (a dead process's stays) */
	uint64_t fence_waits;     /**< control calls that waited for an engine's turn to end */
	uint64_t fence_wait_max_ns; /**< the longest such wait, the caller's scheduling included */
	uint64_t fenced_turn_max_ns; /**< the longest turn a control call found in progress, as the engine timed it */
};

/**
 * Read the live-object counts of the ufile behind @p ctx. Pages whose
 * mappings are all gone are returned to the pool first.
 * @return 0, or -EINVAL when @p ctx is not a sim context.
 */
__rte_internal
int dvs_sim_stats(struct ibv_context *ctx, struct dvs_sim_stats *stats);

/**
 * Doorbell counters of one VAR page.
 * @return 0, -EINVAL for a bad context or page, -ENOENT when no VAR owns
 *   the page.
 */
__rte_internal
int dvs_sim_page_kicks(struct ibv_context *ctx, uint32_t page_id,
		       uint64_t *kicks, uint32_t *last_value);

/**
 * Make the next import_device() on any sim ufile fail with @p err after it
 * has matched the device, closing the fd as libibverbs does on that path
 * (for tests of fd ownership). 0 disarms.
 */
__rte_internal
void dvs_sim_fail_next_import(int err);

/**
 * Make the next DEVX object destroy or UMEM dereg in this process fail
 * with @p err, the object and its handle staying (as when the firmware
 * refuses a destroy). For tests of a refused destroy that must not rely
 * on which destroys a given firmware refuses. 0 disarms.
 */
__rte_internal
void dvs_sim_fail_next_destroy(int err);

/**
 * Make the next mmap of a VAR page through a sim cmd_fd in this process
 * fail with @p err (as the kernel's would, out of address space or
 * memory). 0 disarms.
 */
__rte_internal
void dvs_sim_fail_next_mmap(int err);

/**
 * The errno the kernel gives for a firmware status of a command it built
 * itself (mlx5_core's cmd_status_to_err: INTERNAL_ERR, BAD_SYS_STATE and
 * the length errors EIO, RESOURCE_BUSY EBUSY, EXCEED_LIM ENOMEM,
 * NO_RESOURCES EAGAIN, the parameter, resource, state and index errors
 * EINVAL, anything else EIO), e.g. the destroys of DEVX objects.
 */
__rte_internal
int dvs_sim_cmd_status_errno(uint8_t status);

/**
 * Device engine: turns doorbell stores into per-page kick counts, and
 * serves the VIRTIO_NET_Q queues the kicks name (sim_datapath.h): each
 * TX queue's packets go to its RX queue. It reaches a queue's memory
 * only in the process that registered the queue's UMEMs.
 */
struct dvs_sim_engine;

/**
 * Create an engine for the ufile behind @p ctx (any context sharing it).
 * @return the engine, or NULL with errno set.
 */
__rte_internal
struct dvs_sim_engine *dvs_sim_engine_create(struct ibv_context *ctx);

/** Stop (if running) and free an engine. NULL is a no-op. */
__rte_internal
void dvs_sim_engine_destroy(struct dvs_sim_engine *engine);

/**
 * One pass over every VAR page a VAR owns: its doorbell register (at
 * DVS_SIM_DB_OFFSET) is taken with an atomic exchange when it holds a
 * value other than DVS_SIM_DB_IDLE, and counted; the value arms that
 * queue index. Then every armed queue is served. Two stores landing
 * between passes are seen as one kick with the last value (a NIC sees
 * both: see doc/sim.md).
 * @return the number of kicks seen in this pass.
 */
__rte_internal
unsigned int dvs_sim_engine_poll(struct dvs_sim_engine *engine);

/** Non-zero while a queue is armed: the engine has work, or polls one. */
__rte_internal
int dvs_sim_engine_active(const struct dvs_sim_engine *engine);

/** What an engine did since it was created. */
struct dvs_sim_engine_stats {
	uint64_t kicks;       /**< doorbells seen */
	uint64_t packets;     /**< packets put in an RX buffer */
	uint64_t octets;      /**< their bytes, without the virtio-net header */
	uint64_t dropped;     /**< packets sent but not delivered (no RX queue ready,
				   no buffer, one too small, longer than the largest frame) */
	uint64_t oversize;    /**< of those, the ones longer than the largest frame */
	uint64_t errors;      /**< queues moved to ERR */
	uint64_t unreachable; /**< times a queue's memory was another process's */
	uint64_t fenced;      /**< queue turns not taken: a control call held the device */
};

/** Read an engine's stats (any thread; each value read atomically). */
__rte_internal
void dvs_sim_engine_stats(const struct dvs_sim_engine *engine, struct dvs_sim_engine_stats *st);

/**
 * The sim's steering (its own rule: a NIC steers with RQT/TIR and flow
 * rules): TX queue index @p tx_index (odd) delivers to RX queue index
 * @p rx_index (even; UINT16_MAX: its default, tx_index - 1), and flow
 * counter @p flow_counter_id (0: none) counts its packets and octets.
 * Kept across the queues' re-creation; a destroyed counter is dropped.
 * @return 0; -EINVAL (bad context or index); -ENOENT (no such counter).
 */
__rte_internal
int dvs_sim_steer(struct ibv_context *ctx, uint16_t tx_index, uint16_t rx_index,
		  uint32_t flow_counter_id);

/** What the device counted for one queue index (besides VIRTIO_Q_COUNTERS). */
struct dvs_sim_vq_counts {
	uint64_t kicks;       /**< doorbells that named the index */
	uint64_t rx_dropped;  /**< packets steered to it and dropped (no RX queue
				   ready, no buffer, one too small) */
	uint64_t tx_oversize; /**< TX: packets longer than the largest frame,
				   taken and dropped */
};

/** Read the counts of queue index @p index. @return 0 or -EINVAL. */
__rte_internal
int dvs_sim_vq_stats(struct ibv_context *ctx, uint16_t index, struct dvs_sim_vq_counts *counts);

/**
 * Set the port's MTU (what SIOCSIFMTU on the netdev does on a NIC, as
 * DPDK's vdpa/mlx5 sets it): from DVS_SIM_MIN_MTU to DVS_SIM_MAX_MTU.
 * Packets already taken are not affected. @return 0 or -EINVAL.
 */
__rte_internal
int dvs_sim_set_mtu(struct ibv_context *ctx, uint32_t mtu);

/** The port's MTU, or 0 when @p ctx is not a sim context. */
__rte_internal
uint32_t dvs_sim_mtu(struct ibv_context *ctx);

/**
 * The memory [@p addr, @p addr + @p len) of this process is going away
 * (DPDK frees its pages): every UMEM this process registered over it is
 * fenced, the device reaching it no more, and the queues using it go to
 * ERR (invalid_buffer) instead of touching unmapped memory. A NIC, which
 * pinned the pages, would go on writing them (doc/sim.md).
 * @return how many UMEMs were fenced, or -EINVAL.
 */
__rte_internal
int dvs_sim_umem_fence(struct ibv_context *ctx, const void *addr, size_t len);

/**
 * Run dvs_sim_engine_poll() on a thread of its own until stopped.
 * @param interval_us  sleep between passes (0: busy-poll with a CPU pause).
 * @return 0, -EALREADY when running, or a negative errno.
 */
__rte_internal
int dvs_sim_engine_start(struct dvs_sim_engine *engine, unsigned int interval_us);

/** Stop the engine thread; it has finished its last pass on return. */
__rte_internal
void dvs_sim_engine_stop(struct dvs_sim_engine *engine);

/** Total kicks this engine has counted. */
__rte_internal
uint64_t dvs_sim_engine_kicks(const struct dvs_sim_engine *engine);

/**
 * Take the ufile's robust lock (for tests that kill a holder). Pair with
 * dvs_sim_unlock(). @return 0 or a negative errno.
 */
__rte_internal
int dvs_sim_lock(struct ibv_context *ctx);
/** Release the lock taken by dvs_sim_lock(). */
__rte_internal
void dvs_sim_unlock(struct ibv_context *ctx);

#ifdef __cplusplus
}
#endif

#endif /* DVS_SIM_H */
