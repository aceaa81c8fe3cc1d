/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How a secondary attaches (dvshare_attach_mode_set(), or the
 * DVSHARE_ATTACH_MODE environment variable): which objects it imports
 * inside rte_eal_init(), and which at their first lookup.
 */
#ifndef DVS_ATTACH_MODE_H
#define DVS_ATTACH_MODE_H

#include <string>
#include <vector>

#include "dvshare.h"

namespace dvs {

struct AttachPolicy {
	enum dvshare_attach_mode mode = DVSHARE_ATTACH_EAGER;
	std::vector<std::string> patterns; /* SELECTIVE: fnmatch(3) globs */

	/* Is @name imported during the attach (else at its first lookup)? */
	bool eager_for(const char *name) const;
	/* Does the attach walk the registry at all? */
	bool walks() const { return mode != DVSHARE_ATTACH_LAZY; }
};

/* Record the application's choice; -EINVAL (bad mode or patterns) or
 * -EBUSY (the attach already ran). */
int attach_mode_set(unsigned int mode, const char *const *patterns);
/* The policy of this process's attach: the application's choice, else
 * DVSHARE_ATTACH_MODE, else eager. Fixed from the first call on.
 * 0, or -EINVAL with the reason in @why (a bad environment value). */
int attach_policy(AttachPolicy *out, std::string *why);
/* The mode in force (for stats), eager until decided. */
enum dvshare_attach_mode attach_mode_now();
const char *attach_mode_name(enum dvshare_attach_mode mode);

/* Parse a DVSHARE_ATTACH_MODE value ("eager", "lazy",
 * "selective:<glob>[,<glob>...]"). 0 or -EINVAL with @why. */
int parse_attach_mode(const char *text, AttachPolicy *out, std::string *why);

} // namespace dvs

#endif
