/* SPDX-License-Identifier: BSD-3-Clause */
#include "log_budget.h"

#include <algorithm>

namespace dvs {

LogBudget &LogBudget::get()
{
	static LogBudget *b = new LogBudget; /* logged into until the exit */
	return *b;
}

void LogBudget::refill(Bucket *b, double burst, double per_sec,
		       std::chrono::steady_clock::time_point now)
{
	double sec = std::chrono::duration<double>(now - b->at).count();

	b->tokens = std::min(burst, b->tokens + sec * per_sec);
	b->at = now;
}

bool LogBudget::take(pid_t pid, bool *last)
{
	auto now = std::chrono::steady_clock::now();
	std::lock_guard<std::mutex> lock(mu_);
	auto it = peers_.try_emplace(pid, Bucket{ kPeerBurst, now }).first;
	Bucket &b = it->second;

	refill(&b, kPeerBurst, kPeerPerSec, now);
	refill(&all_, kAllBurst, kAllPerSec, now);
	if (last != nullptr)
		*last = false;
	if (b.tokens >= 1 && all_.tokens >= 1) {
		b.tokens -= 1;
		all_.tokens -= 1;
		b.told = false;
		return true;
	}
	if (b.told || all_.tokens < 1)
		return false;
	/* Its first line past the budget goes, saying so. */
	b.told = true;
	if (last != nullptr)
		*last = true;
	all_.tokens -= 1;
	return true;
}

bool LogBudget::spent(pid_t pid)
{
	auto now = std::chrono::steady_clock::now();
	std::lock_guard<std::mutex> lock(mu_);
	auto it = peers_.find(pid);

	if (it == peers_.end())
		return false;
	refill(&it->second, kPeerBurst, kPeerPerSec, now);
	return it->second.tokens < 1;
}

void LogBudget::forget(pid_t pid)
{
	std::lock_guard<std::mutex> lock(mu_);

	peers_.erase(pid);
}

} // namespace dvs
