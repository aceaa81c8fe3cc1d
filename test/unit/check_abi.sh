#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Suite unit: the exported ABI of libdvshare.so against the list of the last
# release (lib/dvshare/abi/dvshare.symbols). A symbol that disappears or
# moves to another version node fails; so does a new one not listed (it
# belongs in the EXPERIMENTAL node first), and any exported symbol outside
# the dvshare_ prefix but the INTERNAL dvs_sim_ entry points, and the
# fault hooks, which only the test-only library has.
# argv: LIBRARY SYMBOL_LIST
set -euo pipefail
lib=$1 list=$2
now=$(nm -D --defined-only "$lib" | awk 'NF == 3 { print $3 }' | grep -v '^\(DVSHARE_[0-9]*\|EXPERIMENTAL\|INTERNAL\)$' || true)
fail=0
while read -r sym node; do
  case "$sym" in ''|'#'*) continue ;; esac
  if ! grep -qx "$sym@@$node" <<<"$now"; then
    have=$(grep "^$sym@" <<<"$now" || true)
    echo "abi: $sym@@$node is gone${have:+ (now $have)}"
    fail=1
  fi
done < "$list"
while read -r versioned; do
  sym=${versioned%%@*} node=${versioned##*@}
  case "$node" in
    INTERNAL)
      [[ $sym == dvs_sim_* ]] || { echo "abi: $sym is exported as INTERNAL but is not a dvs_sim_ entry point"; fail=1; } ;;
    *)
      [[ $sym == dvshare_* ]] || { echo "abi: $versioned is exported without the dvshare_ prefix"; fail=1; }
      grep -qx "$sym $node" "$list" || { echo "abi: new symbol $versioned: list it in $list (new calls go to EXPERIMENTAL)"; fail=1; } ;;
  esac
done <<<"$now"
# The fault-injection hooks live in the test-only libdvshare_faults.so.
if grep -q '^dvs_sim_fail_next_' <<<"$now"; then
  echo "abi: the installed library exports the fault hooks (dvs_sim_fail_next_*)"
  fail=1
fi
[ $fail -eq 0 ] && echo "abi: $(grep -vc '^#' "$list") symbols as listed, INTERNAL only dvs_sim_*"
exit $fail
