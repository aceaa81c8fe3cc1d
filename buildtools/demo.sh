#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The one-command demo: a primary shares sim0 (the software mlx5 device)
# with its engine on a service core: two VAR doorbell pages, two
# VIRTIO_NET_Q objects (each on the device's PD and TIS, with three UMEMs
# sized from the device's caps and its own counters, as DPDK's vdpa driver
# builds one) and a flow counter. Two secondaries import them all
# during EAL init, kick their queue through the doorbell, move the queue's
# available index, and one reads the shared flow counter; then a table of
# what each process did and what the device saw. Exits non-zero if
# anything went wrong.
set -euo pipefail

source "$(dirname "$0")/common.sh"
prepare_demo

pmd=build-demo/app/dvshare-pmd/dvshare-pmd
prefix="dvs-demo-$$"
work=$(mktemp -d)
prim=""
cleanup() {
  [ -n "$prim" ] && kill "$prim" 2>/dev/null || true
  remove_dpdk_files "$prefix"
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "demo: $*" >&2; for f in "$work"/*.log; do echo "--- $f" >&2; cat "$f" >&2; done; exit 1; }

eal=(--no-pci "--file-prefix=$prefix" --log-level=lib.eal:error)
mkfifo "$work/primary.in"

# Primary: lcore 0 runs the prompt (fed by the fifo), lcore 1 the engine.
step "starting the primary: sim0, 2 VARs, 2 VIRTIO_NET_Qs, a flow counter, the engine"
"$pmd" -l 0,1 -s 0x2 -m 64 "${eal[@]}" -- --dev sim0 \
  --var db0 --var db1 --virtq q0:0:256:queue=0,size=256 --virtq q1:1:256:queue=1,size=256 \
  --counter rx0 --engine --stdin < "$work/primary.in" > "$work/primary.log" 2>&1 &
prim=$!
exec 3> "$work/primary.in"
wait_for_line "$work/primary.log" '^ready primary' "$prim" || fail "the primary did not get ready"

# Two secondaries at once: each posts 500 buffers on its queue (the hardware
# available index) and kicks it 500 times (the doorbell value is the queue
# index, as DPDK's vdpa driver writes it); B also reads the flow counter.
secondary() { # name var queue_index queue [more commands]
  local name=$1 var=$2 qi=$3 q=$4; shift 4
  "$pmd" -l 0 --proc-type=secondary "${eal[@]}" -- \
    --cmd "modify $q avail 500" --cmd "ring $var $qi 500 100" --cmd "query $q" \
    --cmd "meta get sim0 $q" "$@" > "$work/$name.log" 2>&1
}
step "running two secondaries: each drives and kicks its queue; B reads the counter"
secondary A db0 0 q0 & a=$!
secondary B db1 1 q1 --cmd "query rx0" & b=$!
wait "$a" || fail "secondary A failed"
wait "$b" || fail "secondary B failed"

step "asking the primary what the device saw, then closing it"
echo "show engine" >&3
echo "query q0" >&3
echo "query q1" >&3
echo "quit" >&3
exec 3>&-
wait "$prim" || fail "the primary failed"
prim=""

field() { sed -n "s/.*$2=\([^ ]*\).*/\1/p" <<<"$1"; }
row() { # name var queue_index queue
  local log="$work/$1.log" eng q pid
  pid=$(sed -n 's/^ready secondary pid=\([0-9]*\).*/\1/p' "$log")
  grep -q "^ring $2: 500 doorbell(s) written, value=$3" "$log" || fail "secondary $1 did not ring"
  grep -q "^modify $4: avail=500" "$log" || fail "secondary $1 could not modify $4"
  # show engine's row: DEVICE ENGINE LCORE VAR PAGE KICKS LAST
  eng=$(grep -E "^sim0 +on +[^ ]+ +$2 " "$work/primary.log") || fail "no engine row for $2"
  q=$(grep "^query $4:" "$work/primary.log") || fail "the primary could not query $4"
  local kicks last avail
  read -r _ _ _ _ _ kicks last <<<"$eng"
  avail=$(field "$q" hw_available_index)
  [ "$kicks" -ge 1 ] && [ "$last" = "$3" ] && [ "$avail" = 500 ] ||
    fail "device saw kicks=$kicks last=$last avail=$avail for secondary $1"
  printf '%-16s %-58s %s\n' "secondary $1" "pid $pid: $4 avail=500, kicked queue $3 500x via $2" \
    "$2: $kicks kicks, last queue $last; $4: avail $avail"
}

counter=$(grep "^query rx0:" "$work/B.log") || fail "secondary B could not read the flow counter"

echo
echo "dvshare demo on sim0 (software mlx5 device), file prefix $prefix"
printf '%-16s %-58s %s\n' "process" "did" "device saw"
printf '%-16s %-58s %s\n' "primary" "pid $(sed -n 's/^ready primary pid=\([0-9]*\).*/\1/p' "$work/primary.log"): 2 VARs, 2 queues (+PD, TIS, UMEMs), 1 counter" "engine on service lcore 1"
row A db0 0 q0
row B db1 1 q1
printf '%-16s %-58s %s\n' "secondary B" "read flow counter rx0 through its own context" \
  "packets=$(field "$counter" packets) octets=$(field "$counter" octets)"
echo
echo "Kicks between two engine passes reach the sim as one (a NIC sees each); see doc/sim.md."
echo "demo: OK"
