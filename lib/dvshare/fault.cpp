/* SPDX-License-Identifier: BSD-3-Clause */
#include "fault.h"

#include <atomic>
#include <csignal>
#include <cstdlib>
#include <cstring>

#include <unistd.h>

namespace dvs {

void fault_point(const char *point)
{
	static const char *armed = getenv("DVSHARE_FAULT");
	static std::atomic<bool> stalled{ false };
	const size_t n = strlen(point);

	if (armed == nullptr || strncmp(armed, point, n) != 0)
		return;
	if (armed[n] == '\0')
		raise(SIGKILL);
	else if (strcmp(armed + n, ":stall") == 0 && !stalled.exchange(true))
		usleep(1000 * 1000);
}

} // namespace dvs
