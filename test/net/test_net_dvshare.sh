#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Suite net: net_dvshare driven by an unmodified dpdk-testpmd (Debian's,
# or the source-built stack's), on the software device:
#   forward   a testpmd primary probes net_dvshare0 from devargs; a testpmd
#             secondary forwards in io mode with --tx-first
#   second    another secondary on the same queues: told once that another
#             process drives them; the first forwards on, undisturbed
#   takeover  the forwarding secondary SIGKILLed mid-burst; a new one takes
#             the queues over and forwards
#   counts    the primary's show port stats against the device's counters
#             (show port xstats) and the last forwarder's own counts
#   devargs   bad devargs: one line naming the key and value, no port
#   no dvshare  a secondary with the plugin under a primary without it
# Each check waits for a line in a log (never a fixed time).
# argv: PLUGIN (librte_net_dvshare.so) DVSHARE_LIBDIR [TESTPMD]
set -uo pipefail
plugin=$1
libdir=$2
source "$(dirname "$0")/../../buildtools/common.sh" # wait_for_line, remove_dpdk_files
testpmd=${3:-$(command -v dpdk-testpmd)} && [ -x "$testpmd" ] || {
  echo "net_dvshare: dpdk-testpmd not found: install Debian's dpdk package (buildtools/deps.sh)"
  echo "dvs-tests: test_net_dvshare tests=1 failed=1"
  exit 1
}
echo "net_dvshare: driven by $testpmd"
fp="dvs-net-$$"
dir=$(mktemp -d)
# EAL refuses a -d path under a world-writable directory (/tmp): the
# plugin is copied somewhere private when its own path is not safe.
safe_path() {
  local d
  d=$(dirname "$(realpath "$1")")
  while :; do
    [ "$(( $(stat -c '%a' "$d" | sed 's/^/0/') & 2 ))" -eq 0 ] || return 1
    [ "$d" = / ] && return 0
    d=$(dirname "$d")
  done
}
plugdir=""
if ! safe_path "$plugin"; then
  plugdir="$HOME/.cache/dvshare/net-test-$$"
  mkdir -p "$plugdir" && chmod 700 "$plugdir"
  cp "$plugin" "$plugdir/" && plugin="$plugdir/$(basename "$plugin")"
  export LD_LIBRARY_PATH="$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi
pids=()
cleanup() {
  exec 3>&- 5>&- 2>/dev/null || true
  for p in "${pids[@]}"; do kill -9 "$p" 2>/dev/null || true; done
  wait 2>/dev/null
  [ -n "${DVS_KEEP:-}" ] && echo "kept $dir" || rm -rf "$dir" ${plugdir:+"$plugdir"}
  remove_dpdk_files "$fp"
  remove_dpdk_files "$fp-bad"
  remove_dpdk_files "$fp-nodvs"
}
trap cleanup EXIT
tests=0
failed=0
check() { # NAME CONDITION-STATUS MESSAGE...
  tests=$((tests + 1))
  if [ "$2" -eq 0 ]; then
    echo "net_dvshare: $1: ok"
  else
    failed=$((failed + 1))
    echo "net_dvshare: $1: FAILED: ${*:3}"
  fi
}
eal=(--no-pci --no-telemetry -d "$plugin" --log-level=pmd.net.dvshare:notice)

# The primary, reading commands from a pipe; its stdout line-buffered
# (testpmd's printf output to a file would wait for its exit).
mkfifo "$dir/cmd"
exec 3<>"$dir/cmd"
stdbuf -oL "$testpmd" -l 0-1 "${eal[@]}" --file-prefix="$fp" --vdev net_dvshare0,dev=sim0 -- -i \
  <&3 >"$dir/primary.log" 2>&1 &
prim=$!
pids+=("$prim")
wait_for_line "$dir/primary.log" 'Port 0: ' "$prim"
check "primary probes net_dvshare0 and starts it" $? "$(tail -5 "$dir/primary.log")"

# A forwarding secondary: io mode, --tx-first, stats every second.
secondary() { # LOG
  stdbuf -oL "$testpmd" -l 0-1 "${eal[@]}" --file-prefix="$fp" --proc-type=secondary -- \
    --forward-mode=io --tx-first --stats-period 1 >"$1" 2>&1 &
  pids+=("$!")
}
# Wait for a stats line of LOG (by PID) showing packets moving.
moving() { # LOG PID
  wait_for_line "$1" 'Rx-pps: *[1-9]' "$2"
}
rx_count() { # LOG: the last RX-packets figure
  grep -oE 'RX-packets: *[0-9]+' "$1" | tail -1 | grep -oE '[0-9]+$'
}

secondary "$dir/a.log"
a=$!
moving "$dir/a.log" "$a"
check "a secondary forwards (io, --tx-first)" $? "$(tail -20 "$dir/a.log")"

secondary "$dir/b.log"
b=$!
wait_for_line "$dir/b.log" "is driven by process $a" "$b"
check "a second driver of the queues is told who drives them" $? "$(tail -20 "$dir/b.log")"
before=$(rx_count "$dir/a.log")
for _ in $(seq 300); do
  now=$(rx_count "$dir/a.log")
  [ "${now:-0}" -gt "${before:-0}" ] && grep -q 'Rx-pps: *[1-9]' <(tail -12 "$dir/a.log") && break
  sleep 0.1
done
[ "${now:-0}" -gt "${before:-0}" ]
check "the first driver forwards on beside it" $? "RX-packets $before then $now"
kill -INT "$b"
wait "$b" 2>/dev/null
n_b=$(grep -c 'is driven by process' "$dir/b.log")
[ "$n_b" -le 2 ]
check "the second driver is told once per queue" $? "$n_b lines"

kill -9 "$a"
wait "$a" 2>/dev/null
secondary "$dir/c.log"
c=$!
wait_for_line "$dir/c.log" "taken over from process $a" "$c" && moving "$dir/c.log" "$c"
check "a new secondary takes the queues of a SIGKILLed one over and forwards" $? \
  "$(tail -20 "$dir/c.log")"
kill -INT "$c"
wait "$c" 2>/dev/null
c_rx=$(grep -A3 'Forward statistics for port 0' "$dir/c.log" | grep -oE 'RX-packets: *[0-9]+' |
  grep -oE '[0-9]+$')

# The primary's view: its stats, and the device's counters.
: >"$dir/stats.log"
printf 'show port stats 0\nshow port xstats 0\nshow port stats 0\n' >&3
wait_for_line "$dir/primary.log" 'tx_q0_lost' "$prim"
sleep_until_two() { # the second 'show port stats' is printed after xstats
  for _ in $(seq 300); do
    [ "$(grep -c 'NIC statistics for port 0' "$dir/primary.log")" -ge 2 ] && return 0
    sleep 0.1
  done
  return 1
}
sleep_until_two
xs() { grep -oE "^$1: [0-9]+" "$dir/primary.log" | tail -1 | grep -oE '[0-9]+$'; }
p_rx=$(grep -oE 'RX-packets: *[0-9]+' "$dir/primary.log" | tail -1 | grep -oE '[0-9]+$')
p_tx=$(grep -oE 'TX-packets: *[0-9]+' "$dir/primary.log" | tail -1 | grep -oE '[0-9]+$')
d_rx=$(xs rx_q0_dev_completed_desc)
d_tx=$(xs tx_q0_dev_completed_desc)
lost=$(( $(xs rx_q0_lost || echo 0) + $(xs tx_q0_lost || echo 0) + 0 ))
take=$(( $(xs rx_q0_takeovers || echo 0) + $(xs tx_q0_takeovers || echo 0) + 0 ))
echo "net_dvshare: primary RX $p_rx TX $p_tx; device RX $d_rx TX $d_tx; last forwarder RX $c_rx;" \
  "takeovers $take, mbufs a dead driver held $lost"
# The device returned every RX buffer the drivers took, and at most a ring
# more (buffers filled, not yet taken); it sent what the drivers posted,
# but what is still in flight (a ring).
ok=1
[ -n "$p_rx" ] && [ -n "$d_rx" ] && [ "$p_rx" -gt 0 ] &&
  [ "$d_rx" -ge "$p_rx" ] && [ "$d_rx" -le $((p_rx + 256 + lost)) ] &&
  [ "$d_tx" -le "$p_tx" ] && [ "$d_tx" -ge $((p_tx - 256 - lost)) ] &&
  [ "${c_rx:-0}" -gt 0 ] && [ "$c_rx" -lt "$p_rx" ] && [ "$take" -ge 1 ] && ok=0
check "show port stats in the primary agrees with the device and the forwarders" $ok \
  "see the figures above"
printf 'quit\n' >&3
wait "$prim"
check "the primary quits cleanly" $? "$(tail -5 "$dir/primary.log")"

# Bad devargs: one line naming the key and the value; no port is made.
bad() { # DEVARGS PATTERN
  local out
  out=$(echo quit | timeout 60 "$testpmd" -l 0-1 "${eal[@]}" --file-prefix="$fp-bad" \
    --vdev "net_dvshare0,$1" -- -i 2>&1)
  grep -qE -- "$2" <<<"$out" && ! grep -q 'Port 0: ' <<<"$out"
  check "devargs $1" $? "no line matching $2 (or a port was made): $(grep -i dvshare <<<"$out" | head -5)"
  remove_dpdk_files "$fp-bad"
}
bad "dev=sim0,queues=99" 'queues=99: want a number from 1 to 16'
bad "dev=sim0,qsize=100" 'qsize=100: want a power of two'
bad "dev=sim0,bogus=1" 'unknown key bogus=1'
bad "queues=2" 'no dev='
bad "dev=nosuch0" 'dev=nosuch0: '
bad "dev=sim0,mac=zz" 'mac=zz: want a unicast MAC'
bad "dev=sim0,engine=fast" 'engine=fast: want thread, service or none'

# A primary without dvshare (no plugin, no port): a secondary that loads
# the plugin is told so in one line, and runs on to its prompt.
nodvs_fp="$fp-nodvs"
mkfifo "$dir/nodvs.cmd"
exec 5<>"$dir/nodvs.cmd"
stdbuf -oL "$testpmd" -l 0-1 --no-pci --no-telemetry --file-prefix="$nodvs_fp" -- -i <&5 >"$dir/nodvs.log" 2>&1 &
np=$!
pids+=("$np")
wait_for_line "$dir/nodvs.log" '^Done' "$np"
out=$(echo quit | timeout 60 "$testpmd" -l 0-1 "${eal[@]}" --file-prefix="$nodvs_fp" \
  --proc-type=secondary -- -i 2>&1)
rc=$?
[ $rc -eq 0 ] && grep -q "the primary (pid $np) does not use dvshare" <<<"$out" &&
  grep -q 'Bye' <<<"$out"
check "a secondary of a primary without dvshare is told so and runs on" $? \
  "exit $rc: $(grep -iE 'dvshare|error|bye' <<<"$out" | head -5)"
printf 'quit\n' >&5
wait "$np"
exec 5>&-
remove_dpdk_files "$nodvs_fp"

echo "dvs-tests: test_net_dvshare tests=$tests failed=$failed"
[ "$failed" -eq 0 ]
