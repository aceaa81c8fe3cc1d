#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dvshare on each stack it supports: build the stack if it is not cached
# (buildtools/stack.sh), build dvshare against it in build-<stack>, run the
# default suites there. ASan runs on debian only, in buildtools/test.sh.
#
#   buildtools/matrix.sh [--require] [STACK...]   (default: every stack)
#
# A stack whose sources are missing (a machine without ../shared/vendor)
# is skipped, saying how to provide them; with --require (CI) that is a
# failure. With both dpdk-24.11 and connectx, dvshare is also built (not
# run) against DPDK 24.11's prefix and rdma-core 64's, a split install
# (row "split"). The last line counts every test of every stack:
#   dvshare matrix: <passed> passed, <failed> failed (<stack> <passed>/<failed>, ...)
set -euo pipefail

source "$(dirname "$0")/common.sh"

require=0
stacks=()
for a in "$@"; do
  case $a in
    --require) require=1 ;;
    -*) echo "usage: $0 [--require] [debian|dpdk-24.11|connectx ...]" >&2; exit 1 ;;
    *) stacks+=("$a") ;;
  esac
done
[ ${#stacks[@]} -gt 0 ] || stacks=(debian dpdk-24.11 connectx)

step_quiet "installing packages (buildtools/deps.sh --stacks)" /tmp/dvshare-deps.log \
  bash buildtools/deps.sh --stacks
step_quiet "reserving hugepages (buildtools/hugepages.sh)" /tmp/dvshare-hugepages.log \
  bash buildtools/hugepages.sh

total_p=0 total_f=0 status=0
rows=() skipped=() times=()
declare -A stack_env=() # the environment of each stack that built
for s in "${stacks[@]}"; do
  t0=$SECONDS
  log=/tmp/dvshare-stack-$s.log
  step "stack $s: buildtools/stack.sh $s (log: $log)"
  set +e
  env=$(bash buildtools/stack.sh "$s" 2>"$log")
  rc=$?
  set -e
  if [ $rc -eq 2 ]; then
    sed 's/^stack: /        /' "$log"
    skipped+=("$s")
    [ $require -eq 0 ] || { status=1; total_f=$((total_f + 1)); rows+=("$s no-sources"); }
    continue
  elif [ $rc -ne 0 ]; then
    cat "$log" >&2
    step "stack $s: FAILED to build (log above)"
    status=1 total_f=$((total_f + 1)) rows+=("$s stack-failed")
    continue
  fi
  grep '^stack: .*([0-9]* s)$' "$log" | sed 's/^stack: /        /' || true
  stack_env[$s]=$env
  t_stack=$((SECONDS - t0))
  dir=build-$s
  rm -f "$dir/meson-logs/testlog.json"
  t1=$SECONDS
  # Each stack's environment stays in its subshell.
  if ( eval "$env"
       build "$dir" -Ddocs=disabled
       step "stack $s: default suites on $dir"
       meson test -C "$dir" --print-errorlogs --num-processes 2 ) ; then :; else status=1; fi
  read -r p f < <(python3 buildtools/count_tests.py "$dir/meson-logs/testlog.json")
  total_p=$((total_p + p)) total_f=$((total_f + f))
  rows+=("$s $p/$f")
  times+=("$s: stack ${t_stack} s, dvshare build and tests $((SECONDS - t1)) s")
  step "stack $s: $p passed, $f failed"
done

# A split install, as a user had it (issue 26): DPDK in one prefix (24.11's,
# whose libdpdk.pc names no rdma-core, unlike 25.11's with the mlx5
# drivers), rdma-core 64 in another (connectx's), Debian's rdma-core 44
# headers in /usr/include. Built whole, tests included: a target that
# reads the old headers does not compile. Not run: both stacks' suites ran.
if [ -n "${stack_env[dpdk-24.11]:-}" ] && [ -n "${stack_env[connectx]:-}" ]; then
  t1=$SECONDS
  rdma=$( (eval "${stack_env[connectx]}"; tr ':' '\n' <<<"$PKG_CONFIG_PATH" |
           while read -r d; do [ -f "$d/libmlx5.pc" ] && echo "$d"; done) | head -n 1)
  step "split: DPDK 24.11's prefix with rdma-core 64's (${rdma%/lib/pkgconfig}), built in build-split"
  if [ -n "$rdma" ] &&
     ( eval "${stack_env[dpdk-24.11]}"
       export PKG_CONFIG_PATH=$PKG_CONFIG_PATH:$rdma LD_LIBRARY_PATH=$LD_LIBRARY_PATH:${rdma%/pkgconfig}
       build build-split -Ddocs=disabled &&
       grep -q "v63 export API in headers *: *True\|v63 export API in headers: True" build-split/meson-logs/meson-log.txt ) ; then
    total_p=$((total_p + 1)) rows+=("split build-ok")
  else
    step "split: FAILED (build-split/meson-logs/)"
    status=1 total_f=$((total_f + 1)) rows+=("split build-failed")
  fi
  times+=("split: dvshare build $((SECONDS - t1)) s")
fi

for t in "${times[@]}"; do step "time $t"; done
if [ ${#skipped[@]} -gt 0 ]; then
  step "skipped: ${skipped[*]} (no sources: give buildtools/stack.sh --sources DIR, DVSHARE_STACK_SOURCES, or an installed prefix, see doc/using.md)"
fi
[ $total_f -eq 0 ] || status=1
summary=$(printf '%s, ' "${rows[@]:-no stack}")
echo "dvshare matrix: $total_p passed, $total_f failed (${summary%, })"
exit $status
