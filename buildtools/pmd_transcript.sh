#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# doc/pmd.md's "Two processes by hand" transcript is a real run: a primary
# and a secondary of dvshare-pmd on sim0, each reading its commands with
# --echo, their output spliced between the markers "transcript: made by
# buildtools/pmd_transcript.sh" and "end of transcript".
#   pmd_transcript.sh PMD [SOURCE_ROOT]          rewrite doc/pmd.md's
#   pmd_transcript.sh --check PMD [SOURCE_ROOT]  fail, with a diff, if a new
#                                                run differs (suite pmd,
#                                                "transcript"); numbers
#                                                (ids, pids, counts) and
#                                                column widths may differ
# Needs hugepages and two lcores (the engine on service lcore 1).
set -euo pipefail
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
pmd=$1 root=${2:-$(cd "$(dirname "$0")/.." && pwd)}
source "$root/buildtools/common.sh" # wait_for_line, remove_dpdk_files
doc=$root/doc/pmd.md
fp="dvs-transcript-$$"
dir=$(mktemp -d)
cleanup() {
  exec 3>&- 4>&- 2>/dev/null || true
  for p in ${spid:-} ${ppid:-}; do kill "$p" 2>/dev/null || true; done
  rm -rf "$dir"
  remove_dpdk_files "$fp"
}
trap cleanup EXIT

# What the doc shows, with the prefix the doc uses.
primary_args=(-l 0,1 -s 0x2 --no-pci --file-prefix=demo -- --dev sim0
  --var db0 --virtq q0:0:256:queue=0 --counter rx0 --engine)
secondary_args=(-l 0 --proc-type=secondary --no-pci --file-prefix=demo)
secondary_cmds=("modify q0 avail 100" "ring db0 0 100 100" "query rx0" "show objects")
primary_cmds=("show engine" "show peers" "query q0")

# Run it: the doc's arguments, a private prefix, quiet logs, and a fixed
# base address for DPDK's memory (as the other multi-process tests): an
# ASan build's secondary cannot always map the primary's memory at the
# address EAL picked for it ("Cannot reserve ... please use
# --base-virtaddr", seen once in CI).
real() {
	sed "s/--file-prefix=demo/--file-prefix=$fp --base-virtaddr=0x200000000000/" <<<"$*"
}
mkfifo "$dir/p.in" "$dir/s.in"
# shellcheck disable=SC2046 # the arguments are words without blanks
"$pmd" $(real "${primary_args[@]}") --quiet --echo --stdin <"$dir/p.in" >"$dir/p.out" 2>&1 &
ppid=$!
exec 3>"$dir/p.in"
wait_for_line "$dir/p.out" '^ready primary' "$ppid" || { cat "$dir/p.out"; exit 1; }
# shellcheck disable=SC2046
"$pmd" $(real "${secondary_args[@]}") -- --quiet --echo --stdin <"$dir/s.in" >"$dir/s.out" 2>&1 &
spid=$!
exec 4>"$dir/s.in"
wait_for_line "$dir/s.out" '^ready secondary' "$spid" || { cat "$dir/s.out"; exit 1; }

# Each side's commands, then a comment: its echo says they all ran.
printf '%s\n' "${secondary_cmds[@]}" '# done' >&4
wait_for_line "$dir/s.out" '^dvshare> # done' "$spid" || { cat "$dir/s.out"; exit 1; }
printf '%s\n' "${primary_cmds[@]}" '# done' >&3
wait_for_line "$dir/p.out" '^dvshare> # done' "$ppid" || { cat "$dir/p.out"; exit 1; }
echo quit >&4; exec 4>&-; wait "$spid" || true; spid=
echo quit >&3; exec 3>&-; wait "$ppid" || true; ppid=

session() { awk '/^dvshare> # done/ { exit } /^dvshare> / { on = 1 } on' "$1"; }
{
  echo
  echo "    # terminal 1"
  printf '    dvshare-pmd %s \\\n        %s\n' "${primary_args[*]:0:9}" "${primary_args[*]:9}"
  echo "    # terminal 2"
  echo "    dvshare-pmd ${secondary_args[*]}"
  session "$dir/s.out" | sed 's/^/    /'
  echo "    # terminal 1"
  session "$dir/p.out" | sed 's/^/    /'
  echo
} >"$dir/block"

# doc/pmd.md with the block between the markers.
awk -v gen="$dir/block" '
  /transcript: made by buildtools\/pmd_transcript.sh/ { print; while ((getline l < gen) > 0) print l; skip = 1; next }
  /end of transcript/ { skip = 0 }
  !skip { print }' "$doc" >"$dir/doc"
grep -q 'transcript: made by' "$doc" && grep -q 'end of transcript' "$doc" ||
  { echo "pmd_transcript: a marker is missing in $doc" >&2; exit 1; }
if [ $check -eq 0 ]; then
  cp "$dir/doc" "$doc"
  echo "pmd_transcript: $doc rewritten from a real run"
  exit 0
fi
mask() { sed -E 's/[0-9]+/N/g; s/ +/ /g' "$1"; }
if ! diff -u <(mask "$doc") <(mask "$dir/doc"); then
  echo "pmd_transcript: $doc's transcript is not what a run shows (numbers aside); run buildtools/pmd_transcript.sh $pmd" >&2
  exit 1
fi
echo "pmd_transcript: $doc's transcript matches a real run"
