/* SPDX-License-Identifier: BSD-3-Clause */
/* dvshare between processes: everything on each secondary's channel and
 * its request lines (protocol in ipc_proto.h, doc/protocol.md); nothing
 * over rte_mp. */
#ifndef DVS_IPC_H
#define DVS_IPC_H

#include <cstddef>
#include <cstdint>

#include <sys/types.h>

#include "dvshare.h"

struct dvshare_dev;

namespace dvs {

/* Primary: listen for channels and advertise dvshare (idempotent);
 * -ENOTCONN before rte_eal_init(). */
int ipc_primary_init();
struct AttachReq;
/* Primary, on the interrupt thread: peer @pid (the kernel's word, from
 * its channel) asks for devices: answered on its channel if it presents
 * the token that channel holds; otherwise refused and counted. */
void ipc_on_attach(pid_t pid, const AttachReq &req);
/* Primary: tell secondaries @event (PUBLISHED @name, CLOSED) on @dev. */
void ipc_announce(const dvshare_dev *dev, enum dvshare_event event, const char *name,
		  pid_t except = 0);
/* Primary: ask every secondary to let go of @slot (revoke @revoke_id). */
void ipc_revoke(const dvshare_dev *dev, uint32_t slot, uint32_t gen, uint32_t revoke_id);

/* Secondary: ask the primary for its devices and attach the new ones.
 * Returns the number of devices attached now, or a negative errno. */
int ipc_secondary_attach();
/* Secondary: tell the primary this process let go of @dev. */
void ipc_send_detach(const dvshare_dev *dev);
/* Secondary: this process exits normally; tell the primary. */
void ipc_secondary_bye();

/* Secondary: a create for the primary to run (doc/protocol.md, "Creates"). */
struct RemoteCreate {
	const char *ibdev;
	const char *name;
	uint32_t kind;  /* dvshare_type */
	uint32_t flags; /* DVSHARE_CREATE_PERSIST or 0 */
	uint32_t arg;   /* VAR: mlx5dv_alloc_var() flags; UMEM: access */
	const void *in; /* OBJ: the command, and where its output goes */
	size_t inlen;
	void *out;
	size_t outlen;
	uint64_t addr;  /* UMEM: its start; with @alloc, the alignment */
	uint64_t size;
	bool alloc;     /* UMEM: the primary allocates it (kCreateAlloc) */
};
/* Ask the primary to create @c, waiting for its answer: 0 with the
 * object's registry slot and generation and the pid of the primary that
 * made it, or a negative errno (the
 * primary's, or -ENOTCONN, -ETIMEDOUT). A create given up on (timed out)
 * is destroyed by the primary if it is made later. */
int ipc_remote_create(const RemoteCreate &c, uint32_t *slot, uint32_t *gen, pid_t *primary);
/* Ask the primary to destroy @name, which this process owns (-EDEADLK on
 * DPDK's interrupt thread). */
int ipc_remote_destroy(const char *ibdev, const char *name, unsigned int timeout_ms);

/* Secondary, between ipc_secondary.cpp and ipc_requests.cpp: this
 * process's channel (-1 if none); the primary is gone (every wait ends
 * with @err). */
int ipc_secondary_channel();
void ipc_requests_fail(int err);

} // namespace dvs

#endif
