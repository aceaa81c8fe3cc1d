#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build and run dvshare-bench on the software device; extra arguments go
# to the benchmark (after its "--"), e.g. --seconds 1 --objects 0,1000.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash buildtools/deps.sh >/dev/null
bash buildtools/hugepages.sh >/dev/null
[ -f build/build.ninja ] || meson setup build >/dev/null
ninja -C build >/dev/null

prefix="dvs-bench-$$"
cleanup() { rm -rf /dev/hugepages/"$prefix"* "/var/run/dpdk/$prefix"; }
trap cleanup EXIT
./build/app/dvshare-bench/dvshare-bench -l 0 --no-pci --no-telemetry \
  --file-prefix="$prefix" --log-level=lib.eal:error -- "$@"
