#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Suite pmd, test "startup": each way a start can go wrong ends in one line
# that names the cause and the fix (issue 26), checked on a real run:
#   - a second primary on a prefix; a secondary with no primary
#   - no hugetlbfs mounted (a mount namespace without one: unshare -m)
#   - a user who cannot write the hugepage mount (nobody, via setpriv)
#   - the engine started with no service lcore (-l 0)
#   - a secondary naming a device the primary does not share
#   - the primary quits while a secondary runs: one true line, a quiet quit
# Needs root (the mount namespace, another user) and hugepages: without
# either it fails, saying so.
# argv: PMD
set -euo pipefail
pmd=$1
source "$(dirname "$0")/../../buildtools/common.sh" # wait_for_line, remove_dpdk_files
[ "$(id -u)" = 0 ] || { echo "startup: needs root (unshare -m, setpriv to another user)"; exit 1; }
fp="dvs-startup-$$"
eal=(-l 0 --file-prefix="$fp" -m 64 --no-pci --no-telemetry --base-virtaddr=0x200000000000)
dir=$(mktemp -d)
chmod 755 "$dir"
cleanup() {
  exec 3>&- 2>/dev/null || true
  [ -n "${ppid:-}" ] && kill "$ppid" 2>/dev/null || true
  rm -rf "$dir"
  remove_dpdk_files "$fp"
  rm -rf "/dev/hugepages/$fp-nobody"* "$dir-xdg"
}
trap cleanup EXIT
status=0
# expect NAME PATTERN OUTPUT: the output has a line matching PATTERN (grep -E).
expect() {
  if grep -qE -- "$2" <<<"$3"; then
    echo "startup: $1: ok"
  else
    echo "startup: $1: FAILED, no line matching: $2"
    sed 's/^/    /' <<<"$3"
    status=1
  fi
}
run() { "$@" 2>&1 || true; }

# A running primary, its stdin a fifo: "quit" ends it.
mkfifo "$dir/stdin"
"$pmd" "${eal[@]}" -- --dev sim0 --var db0 --stdin <"$dir/stdin" >"$dir/primary.out" 2>&1 &
ppid=$!
exec 3>"$dir/stdin"
wait_for_line "$dir/primary.out" '^ready primary' "$ppid" || { cat "$dir/primary.out"; exit 1; }

out=$(run "$pmd" "${eal[@]}" -- --dev sim0 --cmd quit)
expect "second primary" "^error: EAL init failed: a primary with file prefix $fp is already running \\(pid $ppid\\)" "$out"

out=$(run "$pmd" "${eal[@]}" --proc-type=secondary -- --dev sim9 --cmd quit)
expect "device not shared" "no device sim9 is shared by the primary \\(it shares: sim0\\)" "$out"

# The primary leaves while a secondary runs: that secondary says so once,
# truly (the objects are gone), and quits without an error line.
mkfifo "$dir/sec.stdin"
"$pmd" "${eal[@]}" --proc-type=secondary -- --stdin <"$dir/sec.stdin" >"$dir/sec.out" 2>&1 &
spid=$!
exec 4>"$dir/sec.stdin"
wait_for_line "$dir/sec.out" '^ready secondary' "$spid" || { cat "$dir/sec.out"; exit 1; }
echo "ring db0 0 1" >&4
wait_for_line "$dir/sec.out" '^ring db0: 1 doorbell' "$spid" || { cat "$dir/sec.out"; exit 1; }
echo quit >&3
exec 3>&-
wait "$ppid" || { echo "startup: the primary failed to quit"; cat "$dir/primary.out"; status=1; }
ppid=
wait_for_line "$dir/sec.out" 'closed by the primary' "$spid" || true
echo quit >&4
exec 4>&-
sec_rc=0
wait "$spid" || sec_rc=$?
out=$(sed -n '/^ready secondary/,$p' "$dir/sec.out")
expect "primary closed" "^dvshare: sim0: closed by the primary \\(pid [0-9]+\\): its objects are destroyed" "$out"
after=$(grep -vE '^(ring db0:|bye:|ready secondary|dvshare: sim0: closed by the primary)' <<<"$out" || true)
if [ "$sec_rc" = 0 ] && [ -z "$after" ]; then
  echo "startup: quiet quit: ok"
else
  echo "startup: quiet quit: FAILED (exit $sec_rc), other lines:"; sed 's/^/    /' <<<"$out"; status=1
fi
remove_dpdk_files "$fp"

out=$(run "$pmd" "${eal[@]}" --proc-type=secondary -- --cmd quit)
expect "no primary" "^error: EAL init failed: no primary running with file prefix $fp \\(start the primary first\\)$" "$out"
remove_dpdk_files "$fp"

# No service lcore: the engine is started, and nothing would run it.
out=$(run "$pmd" "${eal[@]}" -- --dev sim0 --engine --cmd quit)
expect "engine, no service lcore" "no service lcore runs the engine .*give one with -s" "$out"
remove_dpdk_files "$fp"

# No hugetlbfs: a mount namespace where every one is unmounted.
out=$(run unshare -m sh -c '
  for m in $(awk '"'"'$3 == "hugetlbfs" { print $2 }'"'"' /proc/mounts); do umount -l "$m"; done
  exec "$@"' sh "$pmd" "${eal[@]}" -- --dev sim0 --cmd quit)
expect "no hugetlbfs" "^error: EAL init failed: no hugepages: .*run buildtools/hugepages.sh as root" "$out"
remove_dpdk_files "$fp"

# A user who cannot write the hugepage mount: nobody, running a copy of
# the pmd and of every library it loads from outside the system's
# directories (libdvshare, and a stack's DPDK and rdma-core: the build
# tree and ~/.cache may be root's only).
mkdir "$dir/bin" "$dir-xdg"
chmod 755 "$dir/bin"
chmod 777 "$dir-xdg"
cp "$pmd" "$dir/bin/"
ldd "$pmd" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | grep -vE '^/(usr/)?lib(64)?/' |
  while read -r lib; do cp -L "$lib" "$dir/bin/"; done
chmod -R a+rX "$dir/bin"
out=$(run setpriv --reuid=65534 --regid=65534 --clear-groups \
  env LD_LIBRARY_PATH="$dir/bin" XDG_RUNTIME_DIR="$dir-xdg" \
  "$dir/bin/$(basename "$pmd")" "${eal[@]/--file-prefix=$fp/--file-prefix=$fp-nobody}" -- --dev sim0 --cmd quit)
expect "user without hugepages" "^error: EAL init failed: user [a-z]+ cannot write the hugepage mount [^ ]+: run as root, or give this user the hugepage mount \\(doc/using.md\\)$" "$out"

[ $status -eq 0 ] && echo "startup: every line ok"
exit $status
