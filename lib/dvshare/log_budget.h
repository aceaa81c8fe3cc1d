/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * How much peers may make the primary log at the default levels: a token
 * bucket per peer, never refilled by anything it does (a detach keeps it;
 * its death drops it), and one for all peers together, so that neither
 * one peer asking wrongly nor a storm of new processes fills the log.
 * Past either, what a peer causes is logged at debug level.
 */
#ifndef DVS_LOG_BUDGET_H
#define DVS_LOG_BUDGET_H

#include <chrono>
#include <map>
#include <mutex>

#include <sys/types.h>

namespace dvs {

class LogBudget {
public:
	/* Per peer: this many lines at once, then one a minute. */
	static constexpr double kPeerBurst = 8;
	static constexpr double kPeerPerSec = 1.0 / 60;
	/* All peers together: this many at once, then one a second. */
	static constexpr double kAllBurst = 64;
	static constexpr double kAllPerSec = 1;

	static LogBudget &get();
	/* May a line caused by @pid go at its level now? Takes a token of
	 * @pid's and one of everyone's; the first line refused to @pid is
	 * let through with a note that the rest go at debug level. */
	bool take(pid_t pid, bool *last = nullptr);
	/* Is @pid's budget spent (its requests then log at debug level)? */
	bool spent(pid_t pid);
	/* @pid is gone: its budget goes (a later process of that pid is
	 * another). */
	void forget(pid_t pid);

private:
	struct Bucket {
		double tokens;
		std::chrono::steady_clock::time_point at;
		bool told = false; /* it was said that its lines go at debug */
	};
	static void refill(Bucket *b, double burst, double per_sec,
			   std::chrono::steady_clock::time_point now);

	std::mutex mu_;
	std::map<pid_t, Bucket> peers_;
	Bucket all_{ kAllBurst, std::chrono::steady_clock::now() };
};

} // namespace dvs

#endif
