/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A shared device: this process's context, the registry, and the handles
 * of every registry slot this process holds. The primary creates the
 * registry and publishes into it; a secondary attaches to the primary's
 * registry and imports into its own context.
 */
#ifndef DVS_DEVICE_H
#define DVS_DEVICE_H

#include <atomic>
#include <condition_variable>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>
#include <string>
#include <vector>

#include "caps.h"
#include "dpdk_memory.h"
#include "dvs_glue.h"
#include "dvshare.h"
#include "engine_service.h"
#include "handles.h"
#include "attach_mode.h"
#include "slot_store.h"
#include "registry.h"

struct dvshare_dev {
public:
	/* Primary: open @ibdev with DEVX, or adopt the application's @ctx. */
	static int open(const char *ibdev, const struct dvshare_dev_conf *conf,
			std::unique_ptr<dvshare_dev> *out);
	static int adopt(struct ibv_context *ctx, const struct dvshare_dev_conf *conf,
			 std::unique_ptr<dvshare_dev> *out);
	/* Secondary: import the primary's device from its cmd_fd and registry
	 * fd, and import every published object. Takes both fds. */
	static int attach(dvs::Fd cmd_fd, dvs::Fd reg_fd, const dvs::AttachPolicy &policy,
			  std::unique_ptr<dvshare_dev> *out, std::string *why);

	~dvshare_dev();
	dvshare_dev(const dvshare_dev &) = delete;
	/* Let go of all this process holds; the shell refuses calls after. */
	void teardown();
	/* Closed (or being closed): every call refuses with ENODEV. */
	bool gone() const { return gone_.load(std::memory_order_acquire); }
	void mark_gone() { gone_.store(true, std::memory_order_release); }
	/* Secondary: the primary closed this device; true the first time. */
	bool note_closed() { return !closed_noted_.exchange(true); }
	/* Secondary: the primary closed it (note_closed() was called). */
	bool closed_by_primary() const { return closed_noted_.load(); }
	dvshare_dev &operator=(const dvshare_dev &) = delete;

	/* Primary publishing; on failure nullptr with rte_errno set. The
	 * creates take whom the object is for (a secondary's request). */
	dvshare_var *var_alloc(const char *name, uint32_t flags, dvs::Origin o = {});
	dvshare_var *var_publish(const char *name, struct mlx5dv_var *dv);
	dvshare_obj *obj_create(const char *name, const void *in, size_t inlen, void *out,
				size_t outlen, dvs::Origin o = {});
	dvshare_obj *obj_publish(const char *name, struct mlx5dv_devx_obj *dv, uint32_t obj_id);
	/* @frees: @addr is rte_malloc() memory (its headers within @lead
	 * bytes before it) the UMEM frees when it is deregistered, or here
	 * on failure (umem_alloc). */
	dvshare_umem *umem_reg(const char *name, void *addr, size_t size, uint32_t access,
			       dvs::Origin o = {}, bool frees = false, size_t lead = 0);
	/* DPDK memory (@size bytes aligned to @align) registered as a UMEM
	 * that frees it (dvshare_umem_alloc()). */
	dvshare_umem *umem_alloc(const char *name, size_t size, size_t align, uint32_t access,
				 dvs::Origin o = {});
	/* Primary, for secondaries' requests (peer_requests.cpp). */
	/* May @who create one more object? 0, or -EDQUOT with the limit it
	 * meets in @why: its own, or the one for all secondaries. */
	int may_create(const dvs::PeerId &who, std::string *why);
	uint32_t created_by(const dvs::PeerId &who);
	unsigned int close_timeout_ms() const { return close_timeout_ms_; }
	/* Coordinated destroy of every object @owner owns that was published
	 * by publish sequence @upto (what it made before a detach, not after
	 * it attached again), in one batch: the number destroyed, or as
	 * destroy_many(); on -EBUSY the pids that did not let go in
	 * @blockers. What stays is still @owner's and still counts against
	 * its quota (an orphan). */
	int destroy_owned(const dvs::PeerId &owner, uint64_t upto, unsigned int timeout_ms,
			  std::set<pid_t> *blockers);
	/* The publish sequence of the newest object (primary). */
	uint64_t publish_seq();
	/* @who is gone: what it made persistent stops counting against its
	 * quota (it still counts against the secondaries' total). */
	void forget_creator(const dvs::PeerId &who);
	/* May @who's create @in name what it names (device_owners.cpp)?
	 * 0, or -EPERM with the reason in @why. */
	int check_peer_create(const dvs::PeerId &who, const void *in, size_t inlen,
			      std::string *why);
	int set_meta(const char *name, const void *meta, size_t len);

	/* Coordinated destroy (primary): revoke in every secondary, then
	 * destroy. -EBUSY when one did not let go in time (nothing changed). */
	int destroy(const char *name, unsigned int timeout_ms) { return destroy(name, timeout_ms, nullptr); }
	/* The same for a secondary's request: -EPERM unless @owner (when
	 * given) owns it, checked under the lock that marks it. */
	int destroy(const char *name, unsigned int timeout_ms, const dvs::PeerId *owner);
	/* Coordinated destroy of many objects in one round: one message to
	 * and one answer from each secondary. @names all exist, or nothing is
	 * done (-ENOENT). The number destroyed, or a negative errno: -EBUSY
	 * (nothing destroyed), or the device's refusal of some (those stay
	 * published, the others are gone). */
	int destroy_many(const std::vector<std::string> &names, unsigned int timeout_ms);
	/* The names of live objects matching fnmatch(3) @pattern. */
	std::vector<std::string> names_matching(const char *pattern);
	/* Primary: destroy every object (objects, UMEMs, VARs) in one batch,
	 * then close. */
	int close_all(unsigned int timeout_ms);
	/* Primary, IPC thread: @pid let go of revoke @revoke_id. */
	void revoke_ack(pid_t pid, uint32_t revoke_id, uint32_t slot, uint32_t gen);
	/* Primary, interrupt thread: @pid died; stop waiting for it. */
	void peer_gone(pid_t pid);
	bool uid_allowed(uid_t uid) const;
	const std::vector<uid_t> &allowed_uids() const { return allowed_uids_; }

	/* Secondary, IPC thread: let go of the object in @slot if the
	 * registry still asks for it. Returns true when an ack is due. */
	bool revoke_local(uint32_t slot, uint32_t gen, uint32_t revoke_id, std::string *name);
	/* Secondary: batch @revoke_id in two steps around its answer. What
	 * the answer waits for: every handle this process holds that the
	 * batch names is hidden, refused and (VAR) fenced. With @names (an
	 * application listens to events), the names it let go of, after
	 * REVOKING events for every name in the batch. */
	struct BatchLetGo {
		std::vector<dvs::HandlePtr<>> handles;
		std::vector<std::string> names;
	};
	void revoke_batch_fence(uint32_t revoke_id, bool names, BatchLetGo *out);
	/* After the answer: unimport and recycle. */
	void revoke_batch_finish(BatchLetGo *lg);
	/* Secondary, after attach: drop imports the registry no longer has. */
	void revalidate();
	/* Revoked handle @h lost its last reference: back to the pool. */
	void reap(dvs::Handle *h);

	/* Software device only: the engine as a DPDK service (primary). */
	int engine_start(uint32_t *service_id);
	int engine_steer(int tx_queue, int rx_queue, const char *counter);
	const dvs::EngineService *engine() const { return engine_.get(); }
	int var_kicks(const char *name, uint64_t *kicks, uint32_t *last);

	/* Both sides. */
	dvs::Handle *lookup(const char *name, enum dvshare_type type);
	/* A device command on this process's context (QUERY_HCA_CAP). */
	int general_cmd(const void *in, size_t inlen, void *out, size_t outlen);
	int get_meta(const char *name, void *buf, size_t len);
	int foreach(dvshare_foreach_cb cb, void *arg);
	/* Primary: did a reclaim fail to destroy the object in @slot? */
	bool orphan(uint32_t slot, uint32_t gen);
	/* Primary: destroy everything and withdraw the registry. */
	void close_primary();
	/* Process exit: let go of this process's view only (unimport, unmap,
	 * close our fds); no kernel object is destroyed. */
	void abandon();

	const std::string &name() const { return name_; }
	struct ibv_context *ctx() const { return ctx_; }
	const struct dvs_glue *glue() const { return glue_; }
	bool primary() const { return primary_; }
	const dvs::Registry &registry() const { return reg_; }
	int cmd_fd() const { return ctx_->cmd_fd; }
	/* Where the doorbell register sits in a VAR page of this device. */
	uint32_t db_offset() const { return db_off_; }
	/* A secondary's VAR is mapped at its first dvshare_var_doorbell() or
	 * dvshare_var_addr(), not at its import: the doorbell address, or
	 * NULL with errno. One revoked before that gets a private page (its
	 * doorbell reaches no device, as a fenced one's). */
	void *map_var_late(dvshare_var *v);
	uint32_t attached_objects() const { return imported_; }
	const dvs::VarRegion &var_region() const { return vars_; }

private:
	dvshare_dev() = default;
	int init_primary(const struct dvs_glue *g, struct ibv_context *ctx, bool owns,
			 const struct dvshare_dev_conf *conf);
	template <typename Map> int place_var_page(dvshare_var *v, size_t len, Map &&map);
	int map_var(dvshare_var *v);
	int map_fence_page(dvshare_var *v);
	int publish_precheck(const char *name) const;
	template <typename H>
	H *publish(dvs::HandlePtr<H> h, dvs::RegEntry e, bool give_back, dvs::Origin o);
	dvshare_var *publish_var(dvs::HandlePtr<dvshare_var> h, const char *name, bool give_back,
				 dvs::Origin o);
	dvshare_obj *publish_obj(const char *name, struct mlx5dv_devx_obj *dv, uint32_t obj_id,
				 uint16_t obj_type, uint16_t create_op, bool give_back,
				 dvs::Origin o);
	int var_precheck(const char *name) const;
	bool holds(const void *dv);
	int import_slot(uint32_t slot, const dvs::RegEntry &e, dvs::Handle **out);
	dvs::Handle *handle_at(uint32_t slot, uint32_t gen) const;
	dvs::Handle *lookup_slow(const char *name, uint32_t slot, uint32_t gen);
	void release_ref(dvs::Handle *h);
	void drop_handles(enum dvshare_type type);
	int may_build_on(const dvs::PeerId &who, enum dvshare_type type, uint32_t id, uint16_t create_op,
			 std::string *why);
	int kill_kernel_object(dvs::Handle *h);
	/* destroy_many() of @names, or of what @owner owns, or of every live
	 * object when both are null (found in the same walk that marks them,
	 * for a close). */
	int destroy_batch(const std::vector<std::string> *names, const dvs::PeerId *owner,
			  uint64_t upto, unsigned int timeout_ms, std::set<pid_t> *blockers);
	void let_go_locked(uint32_t slot);
	dvs::HandlePtr<> detach_locked(uint32_t slot, bool fence_var = true);
	/* Fence @vars, one mmap() per run of consecutive places. */
	void fence_vars(const std::vector<dvshare_var *> &vars);
	void retire_locked(dvs::HandlePtr<> h);
	void mark_orphan_locked(uint32_t slot, bool reclaim);
	void reap_locked(dvs::Handle *h);
	void reap_all_locked();
	bool on_ipc_thread() const;
	int wait_acks(uint32_t revoke_id, unsigned int timeout_ms, std::set<pid_t> *missing);

	std::string name_;
	const struct dvs_glue *glue_ = nullptr;
	struct ibv_context *ctx_ = nullptr;
	bool owns_ctx_ = false;
	bool primary_ = false;
	bool torn_down_ = false;
	uint32_t db_off_ = 0; /* the registry header's, kept past teardown */
	std::atomic<bool> gone_{false};
	std::atomic<bool> closed_noted_{false};
	dvs::DeviceCaps caps_;
	struct mlx5dv_export_sizes sizes_ = {};
	dvs::Registry reg_;
	std::mutex ctl_; /* serialises registry writes and imports */
	/* Where this process maps the device's VAR pages (var_region.h):
	 * before the handles, which give their places back to it. */
	dvs::VarRegion vars_;
	/* Per registry slot: the handle (owned here) and a lock-free view. */
	dvs::SlotStore store_;
	/* Revoked handles, back to the pool once unreferenced (each by its
	 * last release; a sweep now and then for those whose last release
	 * was a lookup's passing reference). */
	std::unordered_map<dvs::Handle *, dvs::HandlePtr<>> retired_;
	size_t retired_since_sweep_ = 0; /* a sweep once as many as it walks: O(1) each */

	/* Primary: destroys waiting for secondaries. */
	struct Pending {
		uint32_t slot;
		uint32_t gen;
		std::set<pid_t> waiting;
	};
	std::mutex wait_mu_;
	std::condition_variable wait_cv_;
	std::map<uint32_t, Pending> pending_;
	uint32_t revoke_seq_ = 0;
	/* Under wait_mu_: destroys between their mark and their end. A close
	 * waits for them: what they mark is not in its batch, and they hold
	 * the device until they end. */
	int destroying_ = 0;
	/* Counts a destroy off when it ends, however it ends (or at done(),
	 * before its REVOKED callbacks, which may close the device). */
	struct DestroyRun {
		dvshare_dev *dev;
		explicit DestroyRun(dvshare_dev *d) : dev(d) {}
		DestroyRun(const DestroyRun &) = delete;
		DestroyRun &operator=(const DestroyRun &) = delete;
		~DestroyRun() { done(); }
		void done();
	};
	/* Wait up to @timeout_ms for no destroy to be running: true if none. */
	bool wait_destroys(unsigned int timeout_ms);
	std::vector<uid_t> allowed_uids_;
	std::unique_ptr<dvs::EngineService> engine_;
	std::unique_ptr<dvs::FreeWatch> free_watch_; /* software device, primary */
	unsigned int close_timeout_ms_ = 2000;
	uint32_t max_per_secondary_ = 1;
	uint32_t max_secondaries_ = 1; /* objects for all secondaries together */
	uint32_t for_peers_ = 0;       /* under ctl_: held now (Handle::for_peer) */
	bool closing_ = false; /* under ctl_: a close is under way, no publish */
	/* Under ctl_: objects held here per secondary they were created for
	 * (Handle::creator), for its limit without walking the store. */
	std::map<dvs::PeerId, uint32_t> created_;
	uint32_t imported_ = 0;
};

namespace dvs {

/* ibv_import_device() on @cmd_fd. On success the context owns the fd and
 * @cmd_fd is empty; on failure @cmd_fd is closed here unless rdma-core
 * already closed it (it owns the fd once it has matched the device). */
struct ibv_context *import_context(const struct dvs_glue *g, Fd *cmd_fd, std::string *why);

} // namespace dvs

#endif
