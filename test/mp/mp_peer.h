/* SPDX-License-Identifier: BSD-3-Clause */
/* mp_peer's parts: the command loop (mp_peer.c), its packet ports
 * (mp_peer_port.c) and its raw ports (mp_peer_rawport.c). */
#ifndef MP_PEER_H
#define MP_PEER_H

#include "dvshare.h"

/* One answer line ("@@ ..."). */
void reply(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* "err <rte_errno> <what>: <reason>". */
void reply_err(const char *what);
/* The device @name, or NULL after an error reply. */
struct dvshare_dev *dev_of(const char *name);

/* The sim engine of @dev in this process, made on first use; NULL with
 * errno (after an error reply when there is no such device). */
struct dvs_sim_engine *mp_engine(const char *dev);

/* A "port ..." or "engine..." packet command: 1 when @line was one. */
int mp_port_run(const char *line);
/* Stop streams, destroy nothing (the device's close or exit does). */
void mp_port_cleanup(void);

/* A "rawport ..." command (mp_peer_rawport.c): 1 when @line was one. */
int mp_rawport_run(const char *line);
/* Stop the raw ports' threads. */
void mp_rawport_cleanup(void);

#endif
