#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Run by meson: which lib<NAME>.so the build links, refusing one that does
# not belong to the DPDK pkg-config found.
#
#   dpdk_lib_check.sh LIBDIR VERSION NAME CC...
#
# LIBDIR and VERSION are libdpdk.pc's libdir and version; CC is the
# compiler, asked where its linker would find the library when LIBDIR lacks
# it. Prints the library's path and exits 0 when it lies in LIBDIR and has
# the ABI of LIBDIR's EAL; else says which DPDK each one is and exits 1.
set -euo pipefail

libdir=$1 version=$2 name=$3
shift 3

abi() { # library -> soname major ("23" of librte_eal.so.23), or "?"
  readelf -d "$1" 2>/dev/null | sed -n 's/.*Library soname: \[.*\.so\.\([0-9]*\).*/\1/p' | head -n 1 | grep . || echo '?'
}
# The DPDK a library belongs to: the libdpdk.pc beside it, else its ABI.
owner() { # library
  local dir pc
  dir=$(cd "$(dirname "$1")" && pwd -P)
  pc="$dir/pkgconfig/libdpdk.pc"
  if [ -f "$pc" ]; then
    printf 'DPDK %s in %s' "$(sed -n 's/^Version: *//p' "$pc")" "$dir"
  else
    printf 'a DPDK of ABI %s in %s' "$(abi "$1")" "$dir"
  fi
}

want_abi=$(abi "$libdir/librte_eal.so")
lib="$libdir/lib$name.so"
if [ ! -e "$lib" ]; then
  other=$("$@" -print-file-name="lib$name.so")
  if [ "$other" = "lib$name.so" ] || [ ! -e "$other" ]; then
    echo "lib$name.so is not in $libdir, where libdpdk $version is, nor anywhere the linker looks: build DPDK $version with it" >&2
  else
    echo "lib$name.so is not in $libdir, where libdpdk $version is; the linker would take the one of $(owner "$other"), which would load a second EAL: build DPDK $version with it, or point PKG_CONFIG_PATH at the DPDK that has it" >&2
  fi
  exit 1
fi
have_abi=$(abi "$lib")
if [ "$have_abi" != "$want_abi" ]; then
  echo "$lib has ABI $have_abi, but the EAL of libdpdk $version beside it has ABI $want_abi: that directory mixes two DPDKs" >&2
  exit 1
fi
printf '%s\n' "$lib"
