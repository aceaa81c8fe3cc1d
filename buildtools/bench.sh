#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build and run dvshare-bench on the software device. The run's figures go
# to build/bench.json as well as to the terminal; with --plot, charts of
# them are drawn into doc/img/ (gnuplot). Other arguments go to the
# benchmark (after its "--"), e.g. --quick, --sections 3,4, --runs 5.
set -euo pipefail

source "$(dirname "$0")/common.sh"

plot=0 args=()
for a in "$@"; do
  if [ "$a" = "--plot" ]; then plot=1; else args+=("$a"); fi
done

prepare_build
if [ $plot -eq 1 ] && ! command -v gnuplot >/dev/null; then
  echo "bench.sh: --plot needs gnuplot (buildtools/deps.sh installs gnuplot-nox)" >&2
  exit 1
fi

prefix="dvs-bench-$$"
json=build/bench.json
trap 'remove_dpdk_files "$prefix"' EXIT
step "running dvshare-bench ${args[*]:-} (figures also in $json)"
./build/app/dvshare-bench/dvshare-bench -l 0 --no-pci --no-telemetry \
  --file-prefix="$prefix" --log-level=lib.eal:error -- --json "$json" "${args[@]}"
if [ $plot -eq 1 ]; then
  step "drawing charts of $json into doc/img/"
  python3 buildtools/bench_plot.py "$json" doc/img
fi
