#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build and run dvshare-bench on the software device. The run's figures go
# to build/bench.json as well as to the terminal; with --plot, charts of
# them are drawn (gnuplot) into build/bench-charts/, or into DIR with
# --out DIR (--out doc/img redraws doc/benchmarks.md's). Other arguments
# go to the benchmark (after its "--"), e.g. --quick, --sections 3,4.
set -euo pipefail

source "$(dirname "$0")/common.sh"

plot=0 out=build/bench-charts args=()
while [ $# -gt 0 ]; do
  case $1 in
    --plot) plot=1; shift ;;
    --out) out=${2:?--out needs a directory}; shift 2 ;;
    *) args+=("$1"); shift ;;
  esac
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
  mkdir -p "$out"
  step "drawing charts of $json into $out/"
  python3 buildtools/bench_plot.py "$json" "$out"
fi
