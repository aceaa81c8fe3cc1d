/* SPDX-License-Identifier: BSD-3-Clause */
/* dvshare between processes: the attach over rte_mp, everything else on
 * each secondary's channel (protocol in ipc_proto.h, doc/protocol.md). */
#ifndef DVS_IPC_H
#define DVS_IPC_H

#include <cstdint>

#include "dvshare.h"

struct dvshare_dev;

namespace dvs {

/* Primary: register the attach action, listen for channels and advertise
 * dvshare (idempotent); -ENOTCONN before rte_eal_init(). */
int ipc_primary_init();
/* Primary: tell secondaries @event (PUBLISHED @name, CLOSED) on @dev. */
void ipc_announce(const dvshare_dev *dev, enum dvshare_event event, const char *name);
/* Primary: ask every secondary to let go of @slot (revoke @revoke_id). */
void ipc_revoke(const dvshare_dev *dev, uint32_t slot, uint32_t gen, uint32_t revoke_id);

/* Secondary: register the refusers of what only channels carry
 * (idempotent). */
int ipc_secondary_init();
/* Secondary: ask the primary for its devices and attach the new ones.
 * Returns the number of devices attached now, or a negative errno. */
int ipc_secondary_attach();
/* Secondary: tell the primary this process let go of @dev. */
void ipc_send_detach(const dvshare_dev *dev);
/* Secondary: this process exits normally; tell the primary. */
void ipc_secondary_bye();

} // namespace dvs

#endif
