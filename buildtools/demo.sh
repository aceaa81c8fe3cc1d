#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The one-command demo: packets through shared queues. A primary shares
# sim0 (the software mlx5 device) with its engine on a service core, and
# steers queue 1 to queue 2 with a flow counter on the way. Secondary B
# makes port 1 (queues 2 and 3: VIRTIO_NET_Qs on the device's PD and TIS,
# their rings and mbufs in DPDK memory, a key over it, a VAR to kick) and
# receives; secondary A makes port 0 (queues 0 and 1) and sends N frames
# through its TX queue. B checks every frame byte for byte. Then a table
# of what each process did and what the device saw. Exits non-zero if
# anything went wrong.
set -euo pipefail

source "$(dirname "$0")/common.sh"
prepare_demo

pmd=build-demo/app/dvshare-pmd/dvshare-pmd
prefix="dvs-demo-$$"
work=$(mktemp -d)
prim="" recv=""
bursts=16 burst=32 len=64
n=$((bursts * burst))
cleanup() {
  [ -n "$recv" ] && kill "$recv" 2>/dev/null || true
  [ -n "$prim" ] && kill "$prim" 2>/dev/null || true
  remove_dpdk_files "$prefix"
  rm -rf "$work"
}
trap cleanup EXIT
fail() { echo "demo: $*" >&2; for f in "$work"/*.log; do echo "--- $f" >&2; cat "$f" >&2; done; exit 1; }

eal=(--no-pci "--file-prefix=$prefix" --log-level=lib.eal:error)
mkfifo "$work/primary.in" "$work/B.in"

# Primary: lcore 0 runs the prompt (fed by the fifo), lcore 1 the engine.
step "starting the primary: sim0, its engine, queue 1 steered to queue 2 (flow counter rx2)"
"$pmd" -l 0,1 -s 0x2 -m 64 "${eal[@]}" -- --dev sim0 --counter rx2 --engine --stdin \
  < "$work/primary.in" > "$work/primary.log" 2>&1 &
prim=$!
exec 3> "$work/primary.in"
wait_for_line "$work/primary.log" '^ready primary' "$prim" || fail "the primary did not get ready"
echo "steer sim0 1 2 rx2" >&3
wait_for_line "$work/primary.log" '^queue 1 delivers to queue 2' "$prim" || fail "the primary did not steer"

# B first: its port, then forwarding in rxonly (each frame checked). Its
# RX ring holds every frame A sends: A and B share core 0, and a frame
# that finds no RX buffer is dropped, as on a NIC.
step "secondary B: port 1 (queues 2, 3, 1,024 entries), receiving in rxonly"
"$pmd" -l 0 --proc-type=secondary "${eal[@]}" -- --stdin < "$work/B.in" > "$work/B.log" 2>&1 &
recv=$!
exec 4> "$work/B.in"
printf 'port create sim0 1 1024\nset fwd rxonly\nstart\n' >&4
wait_for_line "$work/B.log" '^rxonly packet forwarding started' "$recv" ||
  fail "secondary B did not start receiving"

step "secondary A: port 0 (queues 0, 1), $n frames of $len bytes ($bursts bursts of $burst)"
"$pmd" -l 0 --proc-type=secondary "${eal[@]}" -- --cmd "port create sim0 0" \
  --cmd "set fwd rxonly" --cmd "set burst $burst" --cmd "set txpkts $len" \
  --cmd "start tx_first $bursts" --cmd "stop" --cmd "show port stats 0" --cmd "quit" \
  > "$work/A.log" 2>&1 || fail "secondary A failed"

step "B stops and reports; the primary reads the flow counter and closes"
printf 'stop\nshow port stats 1\nquit\n' >&4
exec 4>&-
wait "$recv" || fail "secondary B failed"
recv=""
printf 'query rx2\nshow engine\nquit\n' >&3
exec 3>&-
wait "$prim" || fail "the primary failed"
prim=""

# "  RX-packets: 512  ..." and friends, from a log's last statistics.
stat() { grep -E "^ +$2:" "$work/$1.log" | tail -1 | awk -v k="$2:" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }'; }
qfield() { grep -E "^  p[0-9]+\.$2 " "$work/$1.log" | tail -1 | sed -n "s/.*$3=\([^ ]*\).*/\1/p"; }
pid_of() { sed -n 's/^ready [a-z]* pid=\([0-9]*\).*/\1/p' "$work/$1.log"; }

sent=$(stat A TX-packets) got=$(stat B RX-packets)
bad=$(sed -n 's/^  RX-bad: \([0-9]*\).*/\1/p' "$work/B.log" | tail -1)
kicks=$(sed -n 's/^  Kicks: \([0-9]*\) in \([0-9]*\) TX bursts.*/\1 \2/p' "$work/A.log" | tail -1)
txused=$(qfield A txq hw_used_index) txdesc=$(qfield A txq desc)
rxused=$(qfield B rxq hw_used_index) rxdesc=$(qfield B rxq desc)
counter=$(grep "^query rx2:" "$work/primary.log") || fail "the primary could not read rx2"
cpk=$(sed -n 's/.*packets=\([0-9]*\).*/\1/p' <<<"$counter")
coct=$(sed -n 's/.*octets=\([0-9]*\).*/\1/p' <<<"$counter")
[ "$sent" = "$n" ] || fail "A sent $sent frames, not $n"
[ "$got" = "$n" ] && [ "$bad" = 0 ] || fail "B received $got frames ($bad bad), not $n"
[ "$txused" = "$n" ] && [ "$rxused" = "$n" ] || fail "device indexes: TX used $txused, RX used $rxused"
[ "$cpk" = "$n" ] && [ "$coct" = $((n * len)) ] || fail "flow counter: $cpk packets, $coct octets"
read -r k b <<<"$kicks"
[ "$k" -le "$b" ] || fail "A kicked $k times in $b bursts"

row() { printf '%-13s %-50s %s\n' "$@"; }
echo
echo "dvshare demo on sim0 (software mlx5 device), file prefix $prefix"
row "process" "did" "device saw"
row "primary" "pid $(pid_of primary): shares sim0, engine on lcore 1" "TX queue 1 -> RX queue 2"
row "secondary A" "pid $(pid_of A): port 0, sent $sent frames ($len B)" \
  "TX queue 1: hw_used_index=$txused, desc=$txdesc"
row "" "  $k kick(s) in $b bursts (none while polled)" ""
row "secondary B" "pid $(pid_of B): port 1, received $got, $bad bad" \
  "RX queue 2: hw_used_index=$rxused, desc=$rxdesc"
row "flow counter" "rx2, on the steering from queue 1 to 2" "packets=$cpk octets=$coct"
echo
echo "Every frame crossed from A's TX ring to B's RX ring through the device, checked byte for byte."
echo "demo: OK"
