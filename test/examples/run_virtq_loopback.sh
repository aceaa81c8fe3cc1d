#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Suite examples: examples/virtq_loopback as its comment says to run it,
# one process: 48 frames from queue 1 to queue 0 through the software
# device, every byte checked by the example (non-zero exit otherwise).
# argv: PROGRAM
set -euo pipefail
prog=$1
source "$(dirname "$0")/../../buildtools/common.sh" # remove_dpdk_files
fp="dvs-loopback-$$"
trap 'remove_dpdk_files "$fp"' EXIT
out=$("$prog" -l 0 --file-prefix="$fp" -m 64 --no-pci --no-telemetry \
      --log-level=lib.eal:error -- 48 2>&1) || { echo "$out"; echo "examples: virtq_loopback failed"; exit 1; }
echo "$out"
grep -q '^loopback: 48 frames sent, 48 received, 0 bad; TX used 48$' <<<"$out" ||
  { echo "examples: virtq_loopback: not every frame came back whole"; exit 1; }
echo "examples: virtq_loopback ok"
