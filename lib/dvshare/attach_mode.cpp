/* SPDX-License-Identifier: BSD-3-Clause */
#include "attach_mode.h"

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>

#include <fnmatch.h>

namespace dvs {

namespace {

/* A glob longer than a name could never be more useful than a name. */
constexpr size_t kPatternMax = 255;
constexpr size_t kPatternsMax = 64;

std::mutex mu;
bool chosen;   /* by the application */
bool decided;  /* the attach read it: no more changes */
AttachPolicy policy;
std::string refused; /* why DVSHARE_ATTACH_MODE was refused, if it was */

int check_patterns(const std::vector<std::string> &p, std::string *why)
{
	if (p.empty() || p.size() > kPatternsMax) {
		*why = p.empty() ? "selective needs at least one pattern"
				 : "more than " + std::to_string(kPatternsMax) + " patterns";
		return -EINVAL;
	}
	for (const std::string &s : p) {
		if (s.empty() || s.size() > kPatternMax) {
			*why = s.empty() ? "an empty pattern"
					 : "a pattern over " + std::to_string(kPatternMax) + " bytes";
			return -EINVAL;
		}
	}
	return 0;
}

} // namespace

bool AttachPolicy::eager_for(const char *name) const
{
	switch (mode) {
	case DVSHARE_ATTACH_EAGER:
		return true;
	case DVSHARE_ATTACH_LAZY:
		return false;
	case DVSHARE_ATTACH_SELECTIVE:
		for (const std::string &p : patterns)
			if (fnmatch(p.c_str(), name, 0) == 0)
				return true;
		return false;
	}
	return true;
}

const char *attach_mode_name(enum dvshare_attach_mode mode)
{
	switch (mode) {
	case DVSHARE_ATTACH_EAGER: return "eager";
	case DVSHARE_ATTACH_LAZY: return "lazy";
	case DVSHARE_ATTACH_SELECTIVE: return "selective";
	}
	return "unknown";
}

int parse_attach_mode(const char *text, AttachPolicy *out, std::string *why)
{
	static const char sel[] = "selective:";
	AttachPolicy p;

	if (strcmp(text, "eager") == 0) {
		p.mode = DVSHARE_ATTACH_EAGER;
	} else if (strcmp(text, "lazy") == 0) {
		p.mode = DVSHARE_ATTACH_LAZY;
	} else if (strncmp(text, sel, sizeof(sel) - 1) == 0) {
		p.mode = DVSHARE_ATTACH_SELECTIVE;
		std::string list = text + sizeof(sel) - 1;
		size_t start = 0;
		while (true) {
			size_t comma = list.find(',', start);
			p.patterns.push_back(list.substr(start, comma == std::string::npos
									? std::string::npos
									: comma - start));
			if (comma == std::string::npos)
				break;
			start = comma + 1;
		}
		int rc = check_patterns(p.patterns, why);
		if (rc != 0)
			return rc;
	} else {
		*why = "expected eager, lazy or selective:<glob>[,<glob>...]";
		return -EINVAL;
	}
	*out = std::move(p);
	return 0;
}

int attach_mode_set(unsigned int raw, const char *const *patterns)
{
	AttachPolicy p;
	std::string why;

	if (raw != DVSHARE_ATTACH_EAGER && raw != DVSHARE_ATTACH_LAZY &&
	    raw != DVSHARE_ATTACH_SELECTIVE)
		return -EINVAL;
	enum dvshare_attach_mode mode = static_cast<enum dvshare_attach_mode>(raw);
	p.mode = mode;
	if ((mode == DVSHARE_ATTACH_SELECTIVE) != (patterns != nullptr))
		return -EINVAL;
	for (size_t i = 0; patterns != nullptr && patterns[i] != nullptr; i++) {
		if (i == kPatternsMax)
			return -EINVAL;
		p.patterns.emplace_back(patterns[i]);
	}
	if (mode == DVSHARE_ATTACH_SELECTIVE && check_patterns(p.patterns, &why) != 0)
		return -EINVAL;
	std::lock_guard<std::mutex> lock(mu);
	if (decided)
		return -EBUSY;
	policy = std::move(p);
	chosen = true;
	return 0;
}

int attach_policy(AttachPolicy *out, std::string *why)
{
	std::lock_guard<std::mutex> lock(mu);

	const bool first = !decided;

	decided = true; /* the attach runs now: later choices would be ignored */
	if (first && !chosen) {
		const char *env = getenv("DVSHARE_ATTACH_MODE");
		if (env != nullptr && env[0] != '\0' && parse_attach_mode(env, &policy, why) != 0)
			refused = std::string("DVSHARE_ATTACH_MODE=") + env + ": " + *why;
	}
	/* Every attach of the process (a late device too) refuses it alike. */
	if (!refused.empty()) {
		*why = refused;
		return -EINVAL;
	}
	*out = policy;
	return 0;
}

enum dvshare_attach_mode attach_mode_now()
{
	std::lock_guard<std::mutex> lock(mu);
	return policy.mode;
}

} // namespace dvs
