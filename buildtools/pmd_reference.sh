#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The command reference of doc/pmd.md and doc/man/dvshare-pmd.1 is made
# from dvshare-pmd's own help table (app/dvshare-pmd/pmd_help.c, its one
# source) by "dvshare-pmd -- --reference md|man", between the markers
# "commands: made by buildtools/pmd_reference.sh" and "end of commands".
#   pmd_reference.sh PMD [SOURCE_ROOT]          rewrite both files
#   pmd_reference.sh --check PMD [SOURCE_ROOT]  fail, with a diff, if either
#                                               differs (the pmd suite's
#                                               "reference" test)
set -euo pipefail
check=0
[ "${1:-}" = --check ] && { check=1; shift; }
pmd=$1 root=${2:-$(cd "$(dirname "$0")/.." && pwd)}
status=0

# Replace the lines strictly between the markers of file $1 with stdin.
splice() {
  local file=$1 out
  out=$(mktemp)
  awk -v gen=/dev/stdin '
    /commands: made by buildtools\/pmd_reference.sh/ { print; while ((getline l < gen) > 0) print l; skip = 1; next }
    /end of commands/ { skip = 0 }
    !skip { print }' "$file" >"$out"
  if [ $check -eq 1 ]; then
    if ! diff -u "$file" "$out"; then
      echo "pmd_reference: $file is not what dvshare-pmd --reference makes (run buildtools/pmd_reference.sh $pmd)" >&2
      status=1
    fi
    rm -f "$out"
  else
    mv "$out" "$file"
  fi
}

grep -q 'commands: made by' "$root/doc/pmd.md" && grep -q 'commands: made by' "$root/doc/man/dvshare-pmd.1" ||
  { echo "pmd_reference: a marker is missing" >&2; exit 1; }
# Not a pipe: splice must run in this shell, to set $status.
splice "$root/doc/pmd.md" < <("$pmd" -- --reference md)
splice "$root/doc/man/dvshare-pmd.1" < <("$pmd" -- --reference man)
[ $check -eq 1 ] && [ $status -eq 0 ] && echo "pmd_reference: doc/pmd.md and the manual page match dvshare-pmd's help"
exit $status
