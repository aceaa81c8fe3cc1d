/* SPDX-License-Identifier: BSD-3-Clause */
/**
 * @file
 * dvshare: share mlx5 VAR doorbell pages, DEVX objects and DEVX UMEMs from a
 * DPDK primary process with its secondaries.
 *
 * The primary opens (or adopts) a device and publishes objects by name.
 * Each secondary imports every published object into its *own* device
 * context while rte_eal_init() runs, so afterwards a lookup is a memory
 * read and a doorbell is one store (dvshare_doorbell32()). The PRM commands
 * that create, query and modify objects are built with dvshare_prm.h.
 *
 * Error convention: functions returning int give 0 (or a count) on success
 * and a negative errno on failure; functions returning a pointer give NULL.
 * Either way rte_errno holds the (positive) errno and the reason is logged
 * under the "lib.dvshare" logtype. No call leaves shared state half-changed.
 * Every call taking a device refuses NULL with EINVAL and a closed device
 * with ENODEV (a closed device's pointer stays safe to pass).
 *
 * Threading: control calls may be made from any thread; the hot path
 * (dvshare_var_doorbell(), dvshare_doorbell32()) takes no lock.
 *
 * ABI: calls marked __rte_experimental may change; an application uses
 * them by defining ALLOW_EXPERIMENTAL_API, as with DPDK.
 */
#ifndef DVSHARE_H
#define DVSHARE_H

#include <stddef.h>
#include <stdint.h>

#include <sys/types.h>

#include <rte_compat.h>
#include <rte_io.h>

#include "dvshare_version.h"

#ifdef __cplusplus
extern "C" {
#endif

struct ibv_context;
struct mlx5dv_var;
struct mlx5dv_devx_obj;

struct dvshare_dev;
struct dvshare_var;
struct dvshare_obj;
struct dvshare_umem;

/** Longest object name, including the terminating NUL. */
#define DVSHARE_NAME_MAX 64
/** Most application metadata bytes per object. */
#define DVSHARE_META_MAX 128
/** Default registry capacity (objects per device). */
#define DVSHARE_DEFAULT_MAX_OBJECTS 16384u

/** Device configuration; a NULL conf means all defaults. */
struct dvshare_dev_conf {
	/** Registry capacity; 0 selects DVSHARE_DEFAULT_MAX_OBJECTS. */
	uint32_t max_objects;
	/**
	 * Effective uids whose secondaries may attach, i.e. receive the
	 * device's cmd_fd (a capability for the whole device context).
	 * NULL / 0 entries: the primary's own effective uid only.
	 */
	const uid_t *allowed_uids;
	/** Number of entries in @c allowed_uids. */
	uint32_t n_allowed_uids;
	/** Per-object wait of dvshare_dev_close() for secondaries (ms); 0: 2000. */
	uint32_t close_timeout_ms;
	/**
	 * Objects one secondary may have created on the device and not
	 * destroyed (dvshare_var_alloc(), dvshare_obj_create(),
	 * dvshare_umem_reg() called in a secondary, persistent ones
	 * included while their creator runs); past it a create gets EDQUOT.
	 * 0: a quarter of the registry (@c max_objects / 4, at least 1).
	 * Added in 0.3.
	 */
	uint32_t max_objects_per_secondary;
	/**
	 * Objects all secondaries together may have created on the device
	 * and not destroyed: their own, the persistent ones (for as long as
	 * they are published), and orphans (a gone secondary's objects whose
	 * destroy is still held up). Past it a create in a secondary gets
	 * EDQUOT, so the primary keeps the rest of the registry. 0: half of
	 * it (@c max_objects / 2, at least 1); above @c max_objects: EINVAL.
	 * Added in 0.3.
	 */
	uint32_t max_objects_secondaries;
};

/**
 * In the flags of dvshare_var_alloc() and dvshare_obj_create_flags() and
 * the access of dvshare_umem_reg(), called in a secondary: the object is
 * handed to the primary at create, so it outlives its creator (it is not
 * destroyed when the creator exits, dies or closes the device). Ignored in
 * the primary, which owns whatever it creates. Never passed to rdma-core.
 */
#define DVSHARE_CREATE_PERSIST (1u << 31)

/** Kind of a published object. */
enum dvshare_type {
	DVSHARE_TYPE_VAR = 1,  /**< VAR doorbell page */
	DVSHARE_TYPE_OBJ = 2,  /**< DEVX object */
	DVSHARE_TYPE_UMEM = 3, /**< DEVX UMEM */
};

/** What dvshare_foreach() reports for each object. */
struct dvshare_info {
	const char *name;       /**< valid during the callback only */
	enum dvshare_type type; /**< VAR, DEVX object or UMEM */
	uint32_t id;            /**< VAR: page_id; OBJ: obj_id / pd / flow_counter_id; UMEM: umem_id */
	uint16_t obj_type;      /**< OBJ: PRM general-object type (0 if none or unknown) */
	uint16_t meta_len;      /**< bytes of application metadata */
	uint64_t size;          /**< VAR: page length; UMEM: registered length */
	uint16_t create_op;     /**< OBJ: opcode of its create command, e.g.
				 *   DVSHARE_PRM_CMD_ALLOC_PD (0 if published
				 *   with dvshare_obj_publish()) */
	pid_t owner;            /**< the secondary that owns it (created it
				 *   without DVSHARE_CREATE_PERSIST), or 0: the
				 *   primary. An owner that has exited may still
				 *   be named while its objects' destroy is held
				 *   up by a secondary (orphans, see doc/api.md):
				 *   they are never given to the pid's next
				 *   process. Added in 0.3. */
	int orphan;             /**< primary only: 1 if @c owner has exited,
				 *   died or detached and the destroy of the
				 *   object failed (a secondary did not let go in
				 *   time, or the device refused): it awaits a
				 *   retry (an orphan, doc/api.md), else 0.
				 *   Added in 0.3. */
};

/**
 * Called for each object by dvshare_foreach().
 * @param dev   the device walked
 * @param info  the object (its name is valid during the call only)
 * @param arg   as given to dvshare_foreach()
 * @return 0 to go on; any other value stops the walk and is returned by
 *   dvshare_foreach().
 */
typedef int (*dvshare_foreach_cb)(struct dvshare_dev *dev, const struct dvshare_info *info,
				  void *arg);

/** Events delivered to dvshare_event_register() callbacks. */
enum dvshare_event {
	/** Secondary: the primary published @c name on this device. */
	DVSHARE_EVENT_PUBLISHED = 1,
	/** Primary: a secondary attached (name is NULL; see @c pid). */
	DVSHARE_EVENT_PEER_ATTACHED = 2,
	/** Primary: a secondary detached from the device: it closed it, or
	 *  exited normally (returned from main() or called exit()). */
	DVSHARE_EVENT_PEER_DETACHED = 3,
	/** Both: @c name is being destroyed; lookups no longer find it. */
	DVSHARE_EVENT_REVOKING = 4,
	/** Both: this process let go of @c name (VAR fenced, import dropped). */
	DVSHARE_EVENT_REVOKED = 5,
	/** Primary: an attached secondary died (killed, crashed or _exit()ed
	 *  without a normal exit); what it held is reclaimed. */
	DVSHARE_EVENT_PEER_DIED = 6,
	/** Secondary: the primary died; imported objects keep working,
	 *  lookups are refused from now on. */
	DVSHARE_EVENT_PRIMARY_DIED = 7,
	/** Secondary: the primary closed the device (dvshare_dev_close(), whose
	 *  destroys this process has already let go of) or exited normally
	 *  (objects it did not destroy keep working); lookups fail with ENODEV
	 *  from now on. */
	DVSHARE_EVENT_CLOSED = 8,
	/** Both: a batch destroy (dvshare_destroy_many(), a close, the
	 *  reclaim of a dead secondary's objects), once per batch whatever its
	 *  size, name NULL: in the primary once it destroyed some of it, in a
	 *  secondary once it let go of what it held of it (as REVOKED: also
	 *  for a batch the primary then calls off). REVOKING and REVOKED
	 *  still come for each object to the callbacks that ask for them;
	 *  one that asks for this event alone
	 *  (dvshare_event_register_mask()) spares the process that work. */
	DVSHARE_EVENT_BATCH_REVOKED = 9,
};

/**
 * Event callback. Runs on DPDK's interrupt thread for what other
 * processes did (their messages, their deaths), on the calling thread for
 * this process's own publishes and destroys: keep it short, do not block.
 * It may call dvshare, but not wait for other processes from the
 * interrupt thread (destroys and a primary's close give -EDEADLK there).
 * @param dev   device concerned
 * @param event what happened
 * @param name  object name, or NULL for peer events
 * @param pid   process concerned (the primary for PUBLISHED)
 * @param arg   as registered
 */
typedef void (*dvshare_event_cb)(struct dvshare_dev *dev, enum dvshare_event event,
				 const char *name, pid_t pid, void *arg);

/* ---------------------------------------------------------------- primary */

/**
 * Open an ibdev with DEVX and start sharing it (primary only).
 *
 * "simN" opens the software device; any other name the real rdma-core
 * (>= 63 for export/import), loaded at run time. The device's
 * capabilities are read (QUERY_HCA_CAP): VAR pages are offered only when
 * it has VIRTIO_NET_Q, and their doorbell offset comes from its virtio
 * emulation caps.
 *
 * @param ibdev  device name, e.g. "sim0" or "mlx5_0"
 * @param conf   configuration, or NULL for defaults
 * @return the device, or NULL with rte_errno (the reason is logged whole):
 *   EEXIST (already shared), ENOENT (rdma-core libraries not installed),
 *   ENOSYS (no RDMA support in the kernel), ENODEV (no such device; the
 *   log lists those there are), ENOTSUP (rdma-core older than 63), EPERM
 *   (not the primary), ENOTCONN (rte_eal_init() has not run), EEXIST (a
 *   copy of rdma-core other than the one loaded is named by
 *   DVSHARE_LIBIBVERBS/DVSHARE_LIBMLX5), EINVAL (NULL name, bad conf),
 *   ENOMEM.
 */
struct dvshare_dev *dvshare_dev_open(const char *ibdev, const struct dvshare_dev_conf *conf);

/**
 * Share a context the application opened itself (with DEVX), primary only.
 * dvshare never closes an adopted context; the application does, after
 * dvshare_dev_close().
 *
 * @param ctx   the application's context (mlx5dv_open_device() with
 *              MLX5DV_CONTEXT_FLAGS_DEVX)
 * @param conf  configuration, or NULL for defaults
 * @return the device, or NULL with rte_errno: EINVAL (NULL @p ctx, bad
 *   conf), EEXIST (its device is already shared), ENOTSUP (rdma-core older
 *   than 63), ENOENT (rdma-core libraries not installed), EPERM (not the
 *   primary), ENOTCONN (rte_eal_init() has not run), ENOMEM.
 */
struct dvshare_dev *dvshare_dev_adopt(struct ibv_context *ctx, const struct dvshare_dev_conf *conf);

/**
 * Allocate a VAR doorbell page, map it and publish it as @p name.
 *
 * Creates in a secondary (here, dvshare_obj_create() and
 * dvshare_umem_reg()): the request goes to the primary on this process's
 * channel; the primary runs it on its context, publishes the object and
 * answers; this process imports it before the call returns. The object
 * belongs to this secondary: destroyed (coordinated, as
 * dvshare_destroy()) when it destroys it, closes the device, exits or
 * dies, unless DVSHARE_CREATE_PERSIST hands it to the primary. Errors are
 * the primary's as it saw them, and besides: EDQUOT (this secondary's
 * dvshare_dev_conf::max_objects_per_secondary reached), ENOTCONN (no
 * primary), ETIMEDOUT (no answer in 30 s: if the object is made later, the
 * primary destroys it). The calling thread reads the answer itself: a
 * secondary may create from an event callback too. See doc/api.md,
 * "Creating in a secondary".
 *
 * @param dev    the device
 * @param name   object name: printable, no blanks, shorter than
 *               DVSHARE_NAME_MAX
 * @param flags  passed to mlx5dv_alloc_var(): 0, or
 *               MLX5DV_VAR_ALLOC_FLAG_TLP (1 << 0) on rdma-core and kernels
 *               that know it; and DVSHARE_CREATE_PERSIST (never passed on)
 * @return a handle holding one reference, or NULL with rte_errno: EEXIST
 *   (name taken), EINVAL/ENAMETOOLONG (bad name), ENOSPC (registry full,
 *   or no free VAR page), EOPNOTSUPP (no VIRTIO_NET_Q on the device, or
 *   unknown flags), ENODEV (device closed), the errors of a create in a
 *   secondary (above), or the device's errno.
 */
struct dvshare_var *dvshare_var_alloc(struct dvshare_dev *dev, const char *name, uint32_t flags);

/**
 * Publish a VAR the application allocated on this device's context
 * (primary only). On success dvshare owns @p var (it is freed when the
 * object is destroyed); on failure the caller keeps it.
 *
 * @param dev   the device
 * @param name  object name (as for dvshare_var_alloc())
 * @param var   from mlx5dv_alloc_var() on dvshare_dev_ctx(@p dev)
 * @return a handle holding one reference, or NULL with rte_errno: EEXIST
 *   (name taken, or @p var already published under any name), EINVAL
 *   (NULL @p var, bad name), ENAMETOOLONG, ENOSPC (registry full),
 *   EOPNOTSUPP (no VIRTIO_NET_Q on the device), EPERM (secondary), ENODEV
 *   (device closed), or the errno of mapping the page.
 */
struct dvshare_var *dvshare_var_publish(struct dvshare_dev *dev, const char *name,
					struct mlx5dv_var *var);

/**
 * Create a DEVX object from a PRM command and publish it as @p name, in
 * any process (a secondary's create runs in the primary: see
 * dvshare_var_alloc()).
 *
 * Takes CREATE_GENERAL_OBJECT (e.g. dvshare_prm_virtq_create()), ALLOC_PD,
 * ALLOC_FLOW_COUNTER, ALLOC_TRANSPORT_DOMAIN and CREATE_TIS (the objects
 * a VIRTIO_NET_Q names), and reads the new object's id where that
 * command's output puts it (dvshare_prm_created_id()); other create
 * commands are refused before reaching the device (create them with
 * mlx5dv_devx_obj_create() and use dvshare_obj_publish()). The kernel
 * destroys the object with the command that matches its create.
 *
 * @param dev     the device
 * @param name    object name (as for dvshare_var_alloc())
 * @param in      the create command (dvshare_prm.h builders)
 * @param inlen   its length in bytes (at least DVSHARE_PRM_HDR_SIZE)
 * @param out     receives the command output, also when the device failed
 *                the command (status and syndrome)
 * @param outlen  its length (at least DVSHARE_PRM_HDR_SIZE)
 * @return a handle holding one reference, or NULL with rte_errno:
 *   EOPNOTSUPP (a create opcode not taken), EREMOTEIO (the device failed
 *   it: status and syndrome in @p out), EINVAL (the kernel refused the
 *   command, or NULL or short buffers; in a secondary also a command
 *   longer than 16384 bytes), EEXIST, ENAMETOOLONG, ENOSPC (registry full),
 *   ENODEV (device closed), the errors of a create in a secondary
 *   (dvshare_var_alloc()), or another errno of the device. In a secondary
 *   at most the first 128 bytes of output come back (a create's output is
 *   16).
 */
struct dvshare_obj *dvshare_obj_create(struct dvshare_dev *dev, const char *name,
				       const void *in, size_t inlen, void *out, size_t outlen);

/**
 * dvshare_obj_create() with flags: 0, or DVSHARE_CREATE_PERSIST (in a
 * secondary, the object is the primary's from the start).
 *
 * @param dev     the device
 * @param name    object name
 * @param in      the create command
 * @param inlen   its length
 * @param out     receives the command output
 * @param outlen  its length
 * @param flags   0 or DVSHARE_CREATE_PERSIST
 * @return as dvshare_obj_create(); EINVAL also for unknown @p flags.
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
struct dvshare_obj *dvshare_obj_create_flags(struct dvshare_dev *dev, const char *name,
					     const void *in, size_t inlen, void *out,
					     size_t outlen, uint32_t flags);

/**
 * Publish a DEVX object the application created on this device's context
 * (primary only). On success dvshare owns @p obj; on failure the caller
 * keeps it.
 *
 * @param dev     the device
 * @param name    object name (as for dvshare_var_alloc())
 * @param obj     from mlx5dv_devx_obj_create() on dvshare_dev_ctx(@p dev)
 * @param obj_id  the object's id, where its create command's output put it
 * @return a handle holding one reference, or NULL with rte_errno: EEXIST
 *   (name taken, or @p obj already published under any name), EINVAL
 *   (NULL @p obj, bad name), ENAMETOOLONG, ENOSPC (registry full), EPERM
 *   (secondary), ENODEV (device closed), or the errno of exporting it.
 */
struct dvshare_obj *dvshare_obj_publish(struct dvshare_dev *dev, const char *name,
					struct mlx5dv_devx_obj *obj, uint32_t obj_id);

/**
 * Register memory as a DEVX UMEM and publish it as @p name, in any
 * process (a secondary's create runs in the primary: see
 * dvshare_var_alloc()). The memory stays the caller's and must outlive the
 * UMEM, which lives until dvshare_destroy() or dvshare_dev_close(). In a
 * secondary it must lie in DPDK's memory (rte_malloc(), a mempool: what
 * every process of the prefix maps at the same address), since the
 * primary registers it through its own mapping; other memory is refused
 * with EINVAL.
 *
 * @param dev     the device
 * @param name    object name (as for dvshare_var_alloc())
 * @param addr    start of the memory (no alignment needed)
 * @param size    its length in bytes
 * @param access  0 or IBV_ACCESS_LOCAL_WRITE, IBV_ACCESS_REMOTE_WRITE,
 *                IBV_ACCESS_REMOTE_READ, IBV_ACCESS_RELAXED_ORDERING (remote
 *                write needs local write); and DVSHARE_CREATE_PERSIST
 * @return a handle holding one reference, or NULL with rte_errno: EINVAL
 *   (NULL @p addr, size 0, wrapping size, other access bits, bad name, in
 *   a secondary memory outside DPDK's), checked before the device is
 *   asked, EFAULT (memory not mapped), ENOMEM (past RLIMIT_MEMLOCK), EPERM
 *   (no locked memory allowed), EEXIST, ENAMETOOLONG, ENOSPC (registry
 *   full), ENODEV (device closed), the errors of a create in a secondary
 *   (dvshare_var_alloc()), or another errno of the device.
 */
struct dvshare_umem *dvshare_umem_reg(struct dvshare_dev *dev, const char *name, void *addr,
				      size_t size, uint32_t access);

/**
 * Allocate zeroed DPDK memory and register it as a UMEM published as
 * @p name, in one step, in any process. The memory lives and dies with
 * the UMEM: it is freed (rte_free()) once the UMEM is destroyed, by
 * dvshare_destroy(), dvshare_dev_close(), or the reclaim of what a
 * secondary owned when it exits, detaches or dies (a secondary that
 * crashes leaks nothing). It is allocated by the primary, in DPDK's heap,
 * which every process of the prefix maps at the same address:
 * dvshare_umem_addr() gives it, in this process and in any that looks
 * the UMEM up. Do not free it yourself, nor touch it after the destroy.
 * In a secondary, this is the way to make a UMEM whose memory nobody has
 * to free (see dvshare_umem_reg() for memory you keep).
 *
 * @param dev     the device
 * @param name    object name (as for dvshare_var_alloc())
 * @param size    bytes, not 0
 * @param align   a power of two up to 1 GiB; 0 for a 4 KiB page
 * @param access  as for dvshare_umem_reg(), DVSHARE_CREATE_PERSIST
 *                included
 * @return a handle holding one reference, or NULL with rte_errno: EINVAL
 *   (size 0, bad alignment, access or name), ENOMEM (not that much in
 *   DPDK's heap), EDQUOT, or the errors of dvshare_umem_reg().
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
struct dvshare_umem *dvshare_umem_alloc(struct dvshare_dev *dev, const char *name, size_t size,
					size_t align, uint32_t access);

/**
 * Set (replace) the application metadata of an object, primary only.
 * Secondaries see the new bytes on their next dvshare_get_meta().
 *
 * @param dev   the device
 * @param name  the object
 * @param meta  the bytes (may be NULL when @p len is 0)
 * @param len   how many, at most DVSHARE_META_MAX
 * @return 0, or -ENOENT (no such object), -EMSGSIZE (@p len too big),
 *   -EINVAL (NULL @p meta with a length, bad name), -ENAMETOOLONG, -EPERM
 *   (secondary), -ENODEV (device closed).
 */
int dvshare_set_meta(struct dvshare_dev *dev, const char *name, const void *meta, size_t len);

/**
 * Destroy a published object in every process, then in the device. The
 * primary may destroy any object; a secondary only those it owns (it
 * created them without DVSHARE_CREATE_PERSIST), through the primary.
 *
 * The entry is marked revoking (lookups stop finding it), every attached
 * secondary is asked to let go (a VAR mapping is fenced: replaced in place
 * by a private page, so a late doorbell lands nowhere; DEVX objects and
 * UMEMs refuse query/modify with -ENODEV and are unimported at their last
 * release), and once all have answered, or died, the kernel object is
 * destroyed and the entry freed. Handles in this process are revoked the
 * same way.
 *
 * @param dev         the device
 * @param name        the object
 * @param timeout_ms  how long to wait for the secondaries (from a
 *                    secondary, at most 10000)
 * @return 0; -EBUSY when a secondary did not answer in time (the object and
 *   its entry are intact and usable again); -ENOENT (no such object);
 *   -EINVAL/-ENAMETOOLONG (bad name); -EPERM in a secondary that does not
 *   own it; -ENOTCONN (secondary: no primary); -ENODEV
 *   (device closed); -EDEADLK when called from DPDK's interrupt thread (an
 *   event callback), where the secondaries' answers are read; or the
 *   device's errno when it refused the destroy (e.g. -EBUSY for a PD a
 *   queue still uses; nothing changed).
 */
int dvshare_destroy(struct dvshare_dev *dev, const char *name, unsigned int timeout_ms);

/**
 * Destroy many published objects in one revoke round (primary only): the
 * protocol of dvshare_destroy() for all of them at once, one message to
 * and one answer from each secondary. The kernel objects are then
 * destroyed in the order the device needs (DEVX objects, then UMEMs, then
 * VARs; newest first in each), whatever the order of @p names.
 *
 * @param dev         the device
 * @param names       @p n object names (a name given twice counts once)
 * @param n           entries in @p names
 * @param timeout_ms  how long to wait for the secondaries
 * @return the number of objects destroyed; -ENOENT when a name is not
 *   published, -EINVAL/-ENAMETOOLONG for a bad name or NULL @p names with
 *   @p n > 0 (both: nothing done); -EBUSY when a secondary did not answer
 *   in time (nothing destroyed, every object usable again); -EPERM in a
 *   secondary; -ENODEV (device closed); -EDEADLK (from DPDK's interrupt
 *   thread, as for dvshare_destroy()); or the errno of the first object
 *   the device refused to destroy (those stay published, the others are
 *   gone, and the log says how many).
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_destroy_many(struct dvshare_dev *dev, const char *const *names, unsigned int n,
			 unsigned int timeout_ms);

/**
 * dvshare_destroy_many() of every published object whose name matches
 * @p pattern (fnmatch(3), e.g. "rxq*").
 *
 * @param dev         the device
 * @param pattern     the glob
 * @param timeout_ms  how long to wait for the secondaries
 * @return as dvshare_destroy_many(); 0 when nothing matches; -EINVAL for a
 *   NULL @p pattern.
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_destroy_glob(struct dvshare_dev *dev, const char *pattern, unsigned int timeout_ms);

/**
 * Run the software device's engine as a DPDK service (primary, "simN"
 * devices): it turns doorbell stores into per-page kick counters, and is
 * the device of the VIRTIO_NET_Q queues they name: it moves each TX
 * queue's packets into an RX queue's buffers (dvshare_engine_steer()).
 * It runs on the first service lcore (-s / --service-lcore) if there is
 * one; otherwise the application runs it with
 * rte_service_run_iter_on_app_lcore(*service_id, 1).
 *
 * @param dev         the device
 * @param service_id  receives the service id (may be NULL)
 * @return 0; -ENOTSUP on a real NIC (the NIC is the engine); -EALREADY;
 *   -EPERM in a secondary; -ENODEV (device closed); or another negative
 *   errno.
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_engine_start(struct dvshare_dev *dev, uint32_t *service_id);

/**
 * The software device's steering (primary, "simN" devices): the packets
 * of TX queue index @p tx_queue (odd) go to RX queue index @p rx_queue
 * (even), and flow counter @p counter counts them. By default TX queue
 * 2k + 1 delivers to RX queue 2k. A NIC steers with RQT, TIR and flow
 * rules, which dvshare does not make: this call is the software device's
 * alone (doc/sim.md).
 *
 * @param dev       the device
 * @param tx_queue  a TX queue index: odd, below the device's
 *                  max_num_virtio_queues
 * @param rx_queue  an RX queue index (even), or -1 for tx_queue - 1
 * @param counter   a published flow counter to count the packets and
 *                  octets, or NULL for none
 * @return 0; -ENOTSUP on a real NIC; -EPERM in a secondary; -EINVAL (an
 *   index); -ENOENT (no such counter); -ENODEV (device closed).
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_engine_steer(struct dvshare_dev *dev, int tx_queue, int rx_queue, const char *counter);

/**
 * Doorbells the software device saw on a published VAR page, and the last
 * value written, as counted by the engine.
 *
 * @param dev         the device
 * @param name        the VAR
 * @param kicks       receives the count (may be NULL)
 * @param last_value  receives the last value (may be NULL)
 * @return 0; -ENOENT (no such VAR); -ENOTSUP (not a software device);
 *   -EINVAL/-ENAMETOOLONG (bad name); -ENODEV (device closed).
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_var_kicks(struct dvshare_dev *dev, const char *name, uint64_t *kicks,
		      uint32_t *last_value);

/* ------------------------------------------------------------ both sides */

/**
 * Find a shared device by ibdev name. In a secondary, a device the primary
 * opened after this process attached is attached now (one IPC round trip).
 *
 * @param ibdev  device name
 * @return the device, or NULL with rte_errno ENOENT (not shared) or
 *   EINVAL (NULL name).
 */
struct dvshare_dev *dvshare_dev_lookup(const char *ibdev);

/**
 * The devices this process shares (primary) or has attached (secondary),
 * in the order they were opened. No IPC.
 *
 * @param devs  filled with up to @p n devices (may be NULL when @p n is 0)
 * @param n     room in @p devs
 * @return the number of devices (which may exceed @p n), or -EINVAL (NULL
 *   @p devs with room).
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_dev_list(struct dvshare_dev **devs, unsigned int n);

/**
 * This process's own context on the device (never the primary's).
 *
 * @param dev  the device
 * @return the context, or NULL with rte_errno EINVAL (NULL) or ENODEV
 *   (device closed).
 */
struct ibv_context *dvshare_dev_ctx(struct dvshare_dev *dev);

/**
 * The device's ibdev name.
 *
 * @param dev  the device (also a closed one)
 * @return the name, or NULL for a NULL @p dev.
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
const char *dvshare_dev_name(const struct dvshare_dev *dev);

/**
 * Close a device. Primary: destroys every object with the dvshare_destroy()
 * protocol (DEVX objects, then UMEMs, then VARs, each kind newest first so
 * an object goes before what it was built on; conf close_timeout_ms per
 * object), withdraws the device and closes the context (unless adopted).
 * Secondary: detaches (unimport and unmap only; nothing is destroyed).
 *
 * Afterwards the pointer stays safe to pass (calls refuse it with ENODEV)
 * and handles still referenced stay valid memory, revoked, until released.
 *
 * @param dev  the device
 * @return 0; -EBUSY when a secondary held on (the device stays open with
 *   the objects not yet destroyed); -EINVAL (NULL or unknown device);
 *   -ENODEV (already closed); -EDEADLK (a primary's close from DPDK's
 *   interrupt thread, as for dvshare_destroy()); or another negative errno.
 */
int dvshare_dev_close(struct dvshare_dev *dev);

/**
 * Result of the attach done inside rte_eal_init() in a secondary.
 * @return the number of devices attached (0 when the primary shares none
 *   or does not use dvshare), or a negative errno, whose reason was logged
 *   (-EPROTO: built differently from the primary; -EPERM: this uid is not
 *   allowed). In a primary, 0.
 */
int dvshare_attach_status(void);

/** How a secondary attaches (dvshare_attach_mode_set()). */
enum dvshare_attach_mode {
	/** Import every published object inside rte_eal_init() (default). */
	DVSHARE_ATTACH_EAGER = 0,
	/** Inside rte_eal_init() only the devices and their registries; each
	 *  object is imported (a VAR mapped) at its first lookup. */
	DVSHARE_ATTACH_LAZY = 1,
	/** Eager for the names matching one of the patterns, lazy for the
	 *  rest. */
	DVSHARE_ATTACH_SELECTIVE = 2,
};

/**
 * Choose how this secondary attaches. Call it before rte_eal_init(): it
 * only records the choice, which the attach inside rte_eal_init() reads.
 * Without a call, the DVSHARE_ATTACH_MODE environment variable decides
 * ("eager", "lazy" or "selective:<glob>[,<glob>...]"; a bad value makes
 * the attach fail with -EINVAL, logged), else eager. Lookups, revokes,
 * fencing and the handling of dead peers work the same in every mode.
 *
 * @param mode      DVSHARE_ATTACH_EAGER, _LAZY or _SELECTIVE
 * @param patterns  SELECTIVE: a NULL-terminated array of 1 to 64 fnmatch(3)
 *                  patterns of 1 to 255 bytes (copied); other modes: NULL
 * @return 0; -EINVAL (unknown mode, patterns missing, present or out of
 *   range); -EBUSY (the attach already ran: the choice would be ignored).
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_attach_mode_set(enum dvshare_attach_mode mode, const char *const *patterns);

/** What a secondary knows of its primary (dvshare_stats.primary_state). */
enum dvshare_primary_state {
	DVSHARE_PRIMARY_ALIVE = 0,  /**< running (always, in the primary itself) */
	DVSHARE_PRIMARY_EXITED = 1, /**< left normally, saying goodbye: no new
				         lookups; objects it did not destroy keep
				         working through held handles */
	DVSHARE_PRIMARY_DIED = 2,   /**< gone without a goodbye (killed, crashed):
				         the same, and DVSHARE_EVENT_PRIMARY_DIED */
};

/** Process-wide counters (see dvshare_stats_get()). */
struct dvshare_stats {
	int32_t attach_status;     /**< as dvshare_attach_status() */
	uint32_t devices;          /**< devices shared (primary) or attached */
	uint64_t attach_ns;        /**< secondary: time of the attach in rte_eal_init() */
	uint64_t imports;          /**< objects imported by this process */
	uint64_t lookups;          /**< successful lookups */
	uint64_t published;        /**< primary: objects published */
	uint64_t destroyed;        /**< primary: objects destroyed by the protocol */
	uint64_t destroy_busy;     /**< primary: destroys called off (-EBUSY) */
	uint64_t revoked;          /**< handles this process let go of */
	uint32_t peers;            /**< primary: secondaries attached now */
	uint32_t orphaned;         /**< secondary: 1 once the primary died */
	uint32_t attach_mode;      /**< secondary: the dvshare_attach_mode used */
	uint64_t refused;          /**< messages refused: malformed, from a sender
				        that is not who it claims, or over rte_mp
				        where only a secondary's channel is taken
				        (doc/protocol.md, "Threats") */
	uint32_t primary_state;    /**< enum dvshare_primary_state (orphaned is
				        1 for DVSHARE_PRIMARY_DIED only) */
	uint64_t attach_cpu_ns;    /**< secondary: CPU time of the attach on the
				        thread that ran it (attach_ns less the
				        waits for the primary); added in 0.3 */
};

/** An attached secondary, as the primary sees it. */
struct dvshare_peer {
	pid_t pid;            /**< its process id */
	uid_t uid;            /**< effective uid, read from its pidfd */
	uint32_t n_devices;   /**< devices it is attached to */
	uint32_t queued;      /**< messages waiting for it to read them (it is
				   stopped, stuck or slow; doc/protocol.md) */
};

/**
 * The secondaries attached now (primary; a secondary has none).
 *
 * @param peers  filled with up to @p n entries (may be NULL when @p n is 0)
 * @param n      room in @p peers
 * @return the number of attached secondaries (which may exceed @p n), or
 *   -EINVAL (NULL @p peers with room).
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_peers(struct dvshare_peer *peers, unsigned int n);

/**
 * Read this process's dvshare counters.
 *
 * @param stats  receives them
 * @return 0, or -EINVAL for a NULL @p stats.
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_stats_get(struct dvshare_stats *stats);

/**
 * Look up a published VAR by name and take a reference. In a secondary the
 * first lookup of an object published after the attach imports it.
 *
 * @param dev   the device
 * @param name  the VAR
 * @return the handle, or NULL with rte_errno: ENOENT (no VAR of that name),
 *   EINVAL/ENAMETOOLONG (bad name), ENOTCONN (secondary: the primary died),
 *   ENODEV (device closed), or the import's errno.
 */
struct dvshare_var *dvshare_var_lookup(struct dvshare_dev *dev, const char *name);

/**
 * Look up a published DEVX object by name and take a reference.
 *
 * @param dev   the device
 * @param name  the object
 * @return the handle, or NULL with rte_errno as dvshare_var_lookup().
 */
struct dvshare_obj *dvshare_obj_lookup(struct dvshare_dev *dev, const char *name);

/**
 * Look up a published UMEM by name and take a reference.
 *
 * @param dev   the device
 * @param name  the UMEM
 * @return the handle, or NULL with rte_errno as dvshare_var_lookup().
 */
struct dvshare_umem *dvshare_umem_lookup(struct dvshare_dev *dev, const char *name);

/**
 * Drop a reference taken by a lookup, alloc, create, reg or publish. A
 * revoked handle is freed at its last release. NULL is a no-op; a release
 * with no reference left is ignored.
 *
 * @param var  the handle
 */
void dvshare_var_release(struct dvshare_var *var);
/**
 * Drop a reference to a DEVX object handle (as dvshare_var_release()).
 * @param obj  the handle
 */
void dvshare_obj_release(struct dvshare_obj *obj);
/**
 * Drop a reference to a UMEM handle (as dvshare_var_release()).
 * @param umem  the handle
 */
void dvshare_umem_release(struct dvshare_umem *umem);

/**
 * The VAR page as mapped in this process (after a destroy, a private fence
 * page at the same address).
 *
 * In a secondary the page is mapped at the first call of this,
 * dvshare_var_doorbell() or dvshare_var_length() on the handle (an mmap()
 * under the device's lock); later calls read one word. A VAR destroyed
 * before its first such call gets a private page, whose stores reach no
 * device.
 * @param var  the handle
 * @return the address, or NULL for a NULL handle, or when the first
 *   mapping fails (rte_errno set, e.g. ENOMEM; the call may be repeated).
 */
void *dvshare_var_addr(const struct dvshare_var *var);

/**
 * The VAR's doorbell register as mapped in this process: its page plus
 * the device's in-page doorbell offset (doorbell_bar_offset &
 * (page_size - 1) from the virtio emulation caps, recorded by the primary).
 * Write a virtio queue index there to kick that queue:
 * dvshare_doorbell32(dvshare_var_doorbell(var), 0, queue_index).
 * Call it once, outside the fast path, and keep the address: in a
 * secondary its first call maps the page (as dvshare_var_addr()).
 *
 * @param var  the handle
 * @return the address, or NULL for a NULL handle, or when the first
 *   mapping fails (rte_errno set; the call may be repeated).
 */
void *dvshare_var_doorbell(const struct dvshare_var *var);

/**
 * Length of the mapped VAR page (in a secondary, mapped by this call if
 * it was not yet: dvshare_var_addr()).
 * @param var  the handle
 * @return bytes, or 0 for a NULL handle or a mapping that failed.
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
size_t dvshare_var_length(const struct dvshare_var *var);

/**
 * This process's mlx5dv_var (imported in a secondary).
 * @param var  the handle
 * @return it, or NULL for a NULL or revoked handle.
 */
struct mlx5dv_var *dvshare_var_dv(const struct dvshare_var *var);

/**
 * This process's DEVX object (imported in a secondary).
 * @param obj  the handle
 * @return it, or NULL for a NULL handle or one whose object is gone.
 */
struct mlx5dv_devx_obj *dvshare_obj_dv(const struct dvshare_obj *obj);

/**
 * The DEVX object's id: obj_id of a general object, pd of a PD,
 * flow_counter_id of a flow counter (what PRM commands name it by).
 * @param obj  the handle
 * @return the id, or 0 for a NULL handle.
 */
uint32_t dvshare_obj_id(const struct dvshare_obj *obj);

/**
 * The UMEM's id, usable in DEVX commands from this process.
 * @param umem  the handle
 * @return the umem_id, or 0 for a NULL handle or a revoked UMEM.
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
uint32_t dvshare_umem_id(const struct dvshare_umem *umem);

/**
 * The memory of a UMEM made by dvshare_umem_alloc(), at the same address
 * in every process of the prefix.
 * @param umem  the handle
 * @return the address, or NULL for a NULL handle or a UMEM over memory
 *   its creator gave (dvshare_umem_reg()).
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
void *dvshare_umem_addr(const struct dvshare_umem *umem);

/**
 * Run a QUERY command on the object through this process's own context
 * (mlx5dv_devx_obj_query()).
 *
 * @param obj     the handle
 * @param in      the query command (e.g. dvshare_prm_virtq_query(),
 *                dvshare_prm_query_flow_counter())
 * @param inlen   its length
 * @param out     receives the output
 * @param outlen  its length
 * @return 0, or a negative errno: -EREMOTEIO (the device failed the
 *   command; status and syndrome are in @p out), -EINVAL (NULL handle, or
 *   the kernel refused the command: not a query, or naming another
 *   object), -ENODEV (the object was revoked), -ENOENT (the object is gone
 *   from the device).
 */
int dvshare_obj_query(struct dvshare_obj *obj, const void *in, size_t inlen, void *out,
		      size_t outlen);

/**
 * Run a MODIFY command on the object through this process's own context
 * (mlx5dv_devx_obj_modify()).
 *
 * @param obj     the handle
 * @param in      the modify command (e.g. dvshare_prm_virtq_modify())
 * @param inlen   its length
 * @param out     receives the output
 * @param outlen  its length
 * @return 0, or a negative errno as dvshare_obj_query().
 */
int dvshare_obj_modify(struct dvshare_obj *obj, const void *in, size_t inlen, void *out,
		       size_t outlen);

/**
 * Run a device command that is not about an object (e.g. QUERY_HCA_CAP,
 * dvshare_prm_query_hca_cap()) on this process's own context: the
 * equivalent of mlx5dv_devx_general_cmd(), in primary and secondaries.
 *
 * @param dev     the device
 * @param in      the command
 * @param inlen   its length
 * @param out     receives the output
 * @param outlen  its length
 * @return 0, or a negative errno: -EREMOTEIO (the device failed it; status
 *   and syndrome are in @p out), -EINVAL (a command the kernel does not
 *   pass, or NULL or bad buffers), -EOPNOTSUPP, -ENODEV (device closed).
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_dev_general_cmd(struct dvshare_dev *dev, const void *in, size_t inlen, void *out,
			    size_t outlen);

/**
 * Copy an object's application metadata into @p buf.
 *
 * @param dev   the device
 * @param name  the object
 * @param buf   receives up to @p len bytes (may be NULL when @p len is 0)
 * @param len   room in @p buf
 * @return the metadata length (which may exceed @p len), or -ENOENT (no
 *   such object), -EINVAL (NULL @p buf with room, bad name),
 *   -ENAMETOOLONG, -ENODEV (device closed).
 */
int dvshare_get_meta(struct dvshare_dev *dev, const char *name, void *buf, size_t len);

/**
 * Call @p cb for every published object of the device, in registry order.
 *
 * @param dev  the device
 * @param cb   the callback
 * @param arg  passed to @p cb
 * @return 0, the first non-zero value @p cb returned, or a negative errno
 *   (-EINVAL: NULL @p cb; -ENODEV: device closed).
 */
int dvshare_foreach(struct dvshare_dev *dev, dvshare_foreach_cb cb, void *arg);

/**
 * Register an event callback, for one device or for every device.
 *
 * @param dev  the device, or NULL for every device
 * @param cb   the callback
 * @param arg  passed to @p cb
 * @return 0, or -EINVAL (NULL @p cb), -ENODEV (@p dev not shared here, or
 *   closed), -ENOMEM.
 */
int dvshare_event_register(struct dvshare_dev *dev, dvshare_event_cb cb, void *arg);

/** The bit of @p event in an event mask (dvshare_event_register_mask()). */
#define DVSHARE_EVENT_BIT(event) (1u << (event))
/** Every event: what dvshare_event_register() asks for. */
#define DVSHARE_EVENT_ALL 0xffffffffu

/**
 * Register an event callback for some events only. A batch destroy or a
 * close raises REVOKING and REVOKED for every object, in every process:
 * a process where no callback asks for them skips that work (about 1 us
 * per object), which is why an application that listens only for, say,
 * CLOSED, or for DVSHARE_EVENT_BATCH_REVOKED (one per batch), should say
 * so.
 *
 * @param dev   the device, or NULL for every device
 * @param mask  the events wanted: DVSHARE_EVENT_BIT(DVSHARE_EVENT_CLOSED)
 *              | ..., or DVSHARE_EVENT_ALL
 * @param cb    the callback
 * @param arg   passed to @p cb
 * @return 0, or -EINVAL (NULL @p cb, or a @p mask with no known event),
 *   -ENODEV (@p dev not shared here, or closed), -ENOMEM. Unregister with
 *   dvshare_event_unregister().
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_event_register_mask(struct dvshare_dev *dev, uint32_t mask, dvshare_event_cb cb,
				void *arg);

/**
 * Unregister a callback registered with the same @p dev, @p cb and @p arg.
 * On return the callback is not running and will not be called again
 * (unless the caller is that very callback, whose current call goes on).
 *
 * @param dev  as registered
 * @param cb   as registered
 * @param arg  as registered
 * @return 0, or -EINVAL (NULL @p cb), -ENOENT (no such registration).
 */
int dvshare_event_unregister(struct dvshare_dev *dev, dvshare_event_cb cb, void *arg);

/**
 * Name of an event, for logs: "published", "peer-attached",
 * "peer-detached", "revoking", "revoked", "peer-died", "primary-died".
 *
 * @param event  the event
 * @return the name, or "unknown".
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
const char *dvshare_event_name(enum dvshare_event event);

/**
 * The release of the library running in this process (as rte_version()
 * says DPDK's), which may differ from the DVSHARE_VERSION an application
 * was compiled against.
 *
 * @return "MAJOR.MINOR.PATCH", a static string.
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
const char *dvshare_version(void);

/**
 * Why rte_eal_init() failed, as one line that names the cause and the fix.
 *
 * EAL decides these failures before dvshare runs, and words them its own
 * way (a second primary gets "Cannot init config" and rte_errno 0). Called
 * right after rte_eal_init() returned < 0, with the same arguments and
 * rte_errno, this reads the system as EAL would and tells, first match:
 * a secondary with no primary on its file prefix ("start the primary
 * first"); a second primary on a prefix, with the running one's pid; no
 * hugepages reserved, no hugetlbfs mounted (or not at --huge-dir), none
 * free for a primary; a user who cannot write the hugepage mount. Else it
 * gives EAL's errno and points at EAL's log. It changes nothing, needs no
 * EAL, and may be called in any process.
 *
 * @param argc       0 with a NULL @p argv: the process's command line is
 *                   read (/proc/self/cmdline), right for an application
 *                   that gave rte_eal_init() main()'s arguments; else the
 *                   count of @p argv
 * @param argv       NULL, or a copy of the arguments given to rte_eal_init(),
 *                   made before the call (EAL rewrites an entry of the
 *                   array it parses); the options before "--" are read
 * @param eal_errno  rte_errno after the failed rte_eal_init()
 * @param buf        where the line goes, NUL-terminated, without "\n"
 * @param size       size of @p buf (truncated to fit; 256 holds every line)
 * @return the length of the whole line (as snprintf()), or -EINVAL for a
 *   negative @p argc, a NULL @p argv with argc > 0, or a NULL @p buf with
 *   size > 0.
 *
 * @warning @b EXPERIMENTAL: may change, or move to the stable ABI, in a later
 *   release; build with ALLOW_EXPERIMENTAL_API to use it (doc/using.md, ABI).
 */
__rte_experimental
int dvshare_eal_init_explain(int argc, char *const argv[], int eal_errno, char *buf,
			     size_t size);

/**
 * Ring a doorbell: an I/O write barrier and one 32-bit store at
 * @p db + @p offset. No library state is read; no call, lock or syscall.
 *
 * @param db      dvshare_var_doorbell() of a VAR (look it up once, outside
 *                the loop)
 * @param offset  byte offset from @p db (0 for a VIRTIO_NET_Q kick)
 * @param value   value to write (a virtio queue index)
 */
static inline void dvshare_doorbell32(void *db, uint32_t offset, uint32_t value)
{
	rte_write32(value, (volatile uint8_t *)db + offset);
}

#ifdef __cplusplus
}
#endif

#endif /* DVSHARE_H */
