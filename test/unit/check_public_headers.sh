#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Suite unit: an application finds both public headers (dvshare.h,
# dvshare_prm.h) through the uninstalled pkg-config file Meson writes, and
# they compile warning-free as C11 and as C++20.
# argv: BUILD_DIR CC CXX
set -euo pipefail
build=$1 cc=$2 cxx=$3
export PKG_CONFIG_PATH="$build/meson-uninstalled${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}"
cflags=$(pkg-config --cflags dvshare)
src=$(mktemp --suffix=.c)
trap 'rm -f "$src"' EXIT
cat > "$src" <<'C'
#include <dvshare.h>
#include <dvshare_prm.h>

int main(void)
{
	uint8_t in[DVSHARE_PRM_VIRTQ_SIZE];
	struct dvshare_prm_virtq q;

	memset(&q, 0, sizeof(q));
	q.queue_size = 64;
	return dvshare_prm_virtq_create(in, &q) == DVSHARE_PRM_VIRTQ_SIZE ? 0 : 1;
}
C
"$cc" -std=c11 -Wall -Wextra -Werror -fsyntax-only $cflags -x c "$src"
"$cxx" -std=c++20 -Wall -Wextra -Werror -fsyntax-only $cflags -x c++ "$src"
echo "public headers: found through $build/meson-uninstalled/dvshare-uninstalled.pc, C11 and C++20 clean"
