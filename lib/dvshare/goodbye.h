/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Telling a normal exit from a death. Each secondary shares one socket
 * pair with its primary (made at its first attach). A process that exits
 * normally writes a goodbye on its end; when the other side's pidfd fires,
 * it reads its end: a goodbye from that pid means a clean exit (detach,
 * close), none means a death. rte_mp cannot carry this: EAL closes its
 * channel in rte_eal_cleanup(), before exit-time code runs.
 */
#ifndef DVS_GOODBYE_H
#define DVS_GOODBYE_H

#include <sys/types.h>

#include "dvs_fd.h"

namespace dvs {

/* A new pair: @mine stays in this process, @theirs goes to the peer.
 * 0 or -errno. */
int bye_pair(Fd *mine, Fd *theirs);
/* This process exits normally: say so on @fd (never blocks). */
void bye_send(int fd);
/* Did @pid say goodbye on @fd before its pidfd fired? Reads what is
 * queued, never blocks. */
bool bye_heard(int fd, pid_t pid);

} // namespace dvs

#endif
