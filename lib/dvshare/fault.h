/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Fault injection for the fault suite: DVSHARE_FAULT=<point> in the
 * environment makes this process SIGKILL itself when it reaches <point>,
 * so tests can kill a peer at an exact protocol step;
 * DVSHARE_FAULT=<point>:stall makes the first thread to reach it sleep
 * 1 s there instead (a window for the test to act in). Points:
 *   attach-reply   secondary, the primary's answer received, nothing imported
 *   attach-import  secondary, one object imported
 *   revoke-fence   secondary, objects let go, ack not sent
 *   revoke-ack     secondary, ack sent
 *   primary-revoke primary, entry marked revoking, nobody asked yet
 *   create-reply   secondary, the primary made its object, not imported
 *   primary-created primary, a secondary's object made and answered, not
 *                  announced to the others
 *   primary-create primary, a secondary's create checked, not made yet
 */
#ifndef DVS_FAULT_H
#define DVS_FAULT_H

namespace dvs {

void fault_point(const char *point);

} // namespace dvs

#endif
