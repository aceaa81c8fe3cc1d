#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Suite unit: buildtools/dpdk_lib_check.sh, which configure runs so that
# the vdev bus comes from the DPDK pkg-config found. Three fake DPDK
# libdirs, each with an EAL of ABI 90 and a libdpdk.pc of version 90.11:
#   - with its own librte_bus_vdev.so of ABI 90: accepted, its path printed;
#   - with none: refused, naming libdpdk 90.11 and the DPDK whose
#     librte_bus_vdev.so the linker would take instead (from the pkg-config
#     file beside it), or saying there is none;
#   - with one of ABI 91: refused, naming both ABIs.
# argv: SOURCE_ROOT CC...
set -uo pipefail
src=$1; shift
check="$src/buildtools/dpdk_lib_check.sh"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failed=0
expect() { # what, command... (the command must succeed)
  local what=$1; shift
  if "$@"; then echo "ok: $what"; else echo "FAIL: $what"; failed=1; fi
}

cc="$*"
# A shared library with a given soname.
solib() { # path soname
  echo 'int dvs_fake;' | $cc -x c -shared -fPIC -Wl,-soname,"$2" -o "$1" -
}
fake_dpdk() { # dir vdev-abi (empty: no vdev)
  mkdir -p "$1/pkgconfig"
  printf 'Name: DPDK\nVersion: 90.11.0\n' >"$1/pkgconfig/libdpdk.pc"
  solib "$1/librte_eal.so" librte_eal.so.90
  [ -z "$2" ] || solib "$1/librte_bus_vdev.so" "librte_bus_vdev.so.$2"
}

fake_dpdk "$work/own" 90
out=$(bash "$check" "$work/own" 90.11.0 rte_bus_vdev $cc 2>&1)
expect "its own vdev bus is taken" test "$out" = "$work/own/librte_bus_vdev.so"

fake_dpdk "$work/none" ""
out=$(bash "$check" "$work/none" 90.11.0 rte_bus_vdev $cc 2>&1)
rc=$?
expect "a DPDK without a vdev bus is refused" test $rc -ne 0
expect "the refusal names libdpdk 90.11.0 and its libdir" \
  grep -q "not in $work/none, where libdpdk 90.11.0 is" <<<"$out"
other=$($cc -print-file-name=librte_bus_vdev.so)
if [ "$other" != librte_bus_vdev.so ] && [ -e "$other" ]; then
  # This machine has another DPDK's vdev bus (Debian's): it is named, with
  # its version.
  ver=$(sed -n 's/^Version: *//p' "$(dirname "$other")/pkgconfig/libdpdk.pc" 2>/dev/null)
  expect "the refusal names the other DPDK ($ver)" \
    grep -q "the one of DPDK ${ver:-?}" <<<"$out"
else
  expect "the refusal says there is no vdev bus anywhere" grep -q "nor anywhere" <<<"$out"
fi

fake_dpdk "$work/mixed" 91
out=$(bash "$check" "$work/mixed" 90.11.0 rte_bus_vdev $cc 2>&1)
rc=$?
expect "a vdev bus of another ABI is refused" test $rc -ne 0
expect "the refusal names both ABIs" grep -q "has ABI 91, but the EAL .* has ABI 90" <<<"$out"

exit $failed
