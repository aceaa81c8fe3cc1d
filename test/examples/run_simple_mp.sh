#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Suite examples: examples/simple_mp as its README says to run it. The
# primary publishes and waits; a secondary (a real second process) finds
# everything, rings the doorbell, queries the queue and the counter; then
# the primary's stdin closes and its dvshare_dev_close() destroys it all.
# Needs hugepages (a secondary maps the primary's memory).
# argv: PRIMARY SECONDARY
set -euo pipefail
primary=$1 secondary=$2
source "$(dirname "$0")/../../buildtools/common.sh" # wait_for_line
fp="dvs-example-$$"
eal=(-l 0 --file-prefix="$fp" -m 64 --no-pci --no-telemetry --base-virtaddr=0x200000000000
     --log-level=lib.eal:error)
dir=$(mktemp -d)
cleanup() {
  exec 3>&- 2>/dev/null || true
  [ -n "${ppid:-}" ] && kill "$ppid" 2>/dev/null || true
  rm -rf "$dir"
  remove_dpdk_files "$fp"
}
trap cleanup EXIT
fail() { echo "examples: $*"; echo "--- primary:"; cat "$dir/primary.out"; exit 1; }

# Before the primary: the secondary says so in one line, and what to do.
if out=$("$secondary" "${eal[@]}" --proc-type=secondary 2>&1); then
  echo "$out"; fail "a secondary with no primary succeeded"
fi
grep -q "EAL init: no primary running with file prefix $fp (start the primary first)\$" <<<"$out" ||
  { echo "$out"; fail "secondary without a primary: not the one line"; }
remove_dpdk_files "$fp"

mkfifo "$dir/stdin"
"$primary" "${eal[@]}" <"$dir/stdin" >"$dir/primary.out" 2>&1 &
ppid=$!
exec 3>"$dir/stdin"
wait_for_line "$dir/primary.out" '^primary: ready' "$ppid" || fail "primary not ready"

out=$("$secondary" "${eal[@]}" --proc-type=secondary 2>&1) || { echo "$out"; fail "secondary failed"; }
echo "$out"
grep -q '^secondary: rxq0: queue 0, 256 entries, state init' <<<"$out" || fail "secondary: no rxq0"
grep -q '^secondary: hits: 0 packets, 0 bytes' <<<"$out" || fail "secondary: no counter"
grep -q '^secondary: rang rxq0 1000 times' <<<"$out" || fail "secondary: no doorbells"

exec 3>&- # Enter for the primary: close, destroying everything
wait "$ppid" || fail "primary failed to close"
ppid=
cat "$dir/primary.out"
grep -q '^primary: closed' "$dir/primary.out" || fail "primary did not close"
echo "examples: simple_mp ok"
