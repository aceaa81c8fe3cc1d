#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The hostile-peer soak (test/fault/soak.c): 16 secondaries creating,
# destroying, detaching, exiting, dying, stopping and reconnecting at
# random against one primary, then the primary's fds, threads, RSS, DPDK
# heap and registry use at the start and the end. Not part of test.sh
# (10 minutes); run it after a change to the peer handling.
#   buildtools/soak.sh [--minutes N] [--seed S]
set -euo pipefail
source "$(dirname "$0")/common.sh"
minutes=10 seed=$$
while [ $# -gt 0 ]; do
  case $1 in
    --minutes) minutes=$2; shift 2 ;;
    --seed) seed=$2; shift 2 ;;
    *) echo "usage: $0 [--minutes N] [--seed S]" >&2; exit 2 ;;
  esac
done
step_quiet "installing packages (buildtools/deps.sh)" /tmp/dvshare-deps.log bash buildtools/deps.sh
step_quiet "reserving hugepages (buildtools/hugepages.sh)" /tmp/dvshare-hugepages.log \
  bash buildtools/hugepages.sh
build build
step "soaking for $minutes minute(s) (the DPDK logs: build/meson-logs/soak-stderr.txt)"
build/test/fault/soak "$PWD/build/test/mp/mp_peer" "$PWD/build/test/fault/exhaust" \
  $((minutes * 60)) "$seed" 2>build/meson-logs/soak-stderr.txt
