#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Suite unit: the stable ABI by types, with libabigail as DPDK checks its
# own (Debian package abigail-tools, buildtools/deps.sh). abidw describes
# the library's exported interfaces and the types they reach; abidiff
# compares that with the stored baseline (lib/dvshare/abi/dvshare.abi) and
# fails on any change that reaches a stable (DVSHARE_0) call: a field of
# dvshare_dev_conf or dvshare_info added, moved or resized, a signature
# changed. Changes reaching only EXPERIMENTAL or INTERNAL calls are
# suppressed; the opaque handles (struct dvshare_dev ...) and the types of
# DPDK and rdma-core, which the stacks differ in and which dvshare takes
# by pointer only, are left out of the description.
#   check_abi_types.sh LIBRARY VERSION_MAP BASELINE            check
#   check_abi_types.sh --update LIBRARY VERSION_MAP BASELINE   rewrite it
set -euo pipefail
update=0
[ "${1:-}" = --update ] && { update=1; shift; }
lib=$1 map=$2 baseline=$3
command -v abidw >/dev/null && command -v abidiff >/dev/null ||
  { echo "abi-types: abidw/abidiff missing: install abigail-tools (buildtools/deps.sh)"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

cat >"$work/types" <<'SUPP'
[suppress_type]
  name_regexp = ^(dvshare_dev|dvshare_var|dvshare_obj|dvshare_umem)$
  drop = yes
[suppress_type]
  name_regexp = ^(ibv_|mlx5dv_|rte_)
  drop = yes
SUPP
abidw --exported-interfaces-only --no-corpus-path --no-show-locs --no-comp-dir-path \
  --suppressions "$work/types" "$lib" >"$work/now.abi"
if [ $update -eq 1 ]; then
  cp "$work/now.abi" "$baseline"
  echo "abi-types: $baseline rewritten"
  exit 0
fi
# Every call outside the stable node, by name, from version.map.
unstable=$(awk '/^(EXPERIMENTAL|INTERNAL) *\{/ { on = 1; next } /^\}/ { on = 0 }
  on && match($0, /^[ \t]+[a-z_0-9]+;/) { s = substr($0, RSTART, RLENGTH); gsub(/[ \t;]/, "", s); print s }' "$map" |
  paste -sd'|')
printf '[suppress_function]\n  name_regexp = ^(%s)$\n' "$unstable" >"$work/unstable"
set +e
abidiff --no-added-syms --suppressions "$work/unstable" "$baseline" "$work/now.abi" >"$work/diff"
rc=$?
set -e
if [ $rc -ne 0 ]; then
  cat "$work/diff"
  echo "abi-types: the stable ABI differs from $baseline (abidiff status $rc); an intended" \
       "change is a reviewed edit: check_abi_types.sh --update"
  exit 1
fi
echo "abi-types: the stable calls and the types they reach match $baseline"
