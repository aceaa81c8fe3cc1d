#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build and run dvshare-bench on the software device; extra arguments go
# to the benchmark (after its "--"), e.g. --seconds 1 --objects 0,1000.
set -euo pipefail

source "$(dirname "$0")/common.sh"
prepare_build

prefix="dvs-bench-$$"
trap 'remove_dpdk_files "$prefix"' EXIT
step "running dvshare-bench $*"
./build/app/dvshare-bench/dvshare-bench -l 0 --no-pci --no-telemetry \
  --file-prefix="$prefix" --log-level=lib.eal:error -- "$@"
