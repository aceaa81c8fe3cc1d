#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Install every Debian package dvshare's build, tests and demo need.
# Idempotent: packages already present are left alone. Uses sudo only when
# not root.
#   deps.sh           what buildtools/test.sh (and everything else) needs
#   deps.sh --demo    only what buildtools/demo.sh needs
#   deps.sh --stacks  everything, and what buildtools/stack.sh needs to build
#                     DPDK and rdma-core from source (buildtools/matrix.sh)
#   deps.sh --list [--stacks | --demo]   print the packages, one per line;
#                     install nothing
# Then (but with --demo or --list) DPDK's driver-SDK headers, which Debian's
# libdpdk-dev lacks, from Debian's dpdk source package into a cache
# (buildtools/dpdk_sdk.sh): net_dvshare builds against them.
set -euo pipefail

pkgs=(
  build-essential pkg-config meson ninja-build python3
  libdpdk-dev          # DPDK 22.11: EAL, rte_mp, telemetry, cmdline, vdev bus
  libsystemd-dev       # pkg-config --static libdpdk names -lsystemd (libpcap, dbus)
  libibverbs-dev       # rdma-core headers (types only; libraries are dlopen()ed)
  ibverbs-providers    # libmlx5.so.1, loaded at run time for real NICs
  libcunit1-dev        # test framework
  libjansson-dev       # dvshare-bench writes its --json figures with jansson
  doxygen              # API reference; suite docs checks it is complete
  dpdk-dev             # dpdk-telemetry.py (the telemetry test), dpdk-testpmd and its
                       # net_vhost/net_virtio_user drivers (the bench's packets baseline)
  groff-base           # checks the dvshare-pmd manual page
  man-db               # man doc/man/dvshare-pmd.1 (README.md)
  dpdk                 # dpdk-hugepages.py: buildtools/hugepages.sh reserves and mounts with it
  gnuplot-nox          # buildtools/bench.sh --plot draws the charts (doc/benchmarks.md's)
  abigail-tools        # abidw/abidiff: the stable ABI by types (suite unit, abi_types)
)
# The demo's own (buildtools/demo.sh): build dvshare-pmd, run it on sim0.
demo_pkgs=(
  build-essential pkg-config meson ninja-build python3
  libdpdk-dev libsystemd-dev libibverbs-dev
  dpdk                 # dpdk-hugepages.py (buildtools/hugepages.sh)
)
stack_pkgs=(
  python3-pyelftools   # DPDK's build scripts
  cmake                # rdma-core's build
  libnl-3-dev libnl-route-3-dev  # rdma-core's netlink (libibverbs, providers)
)

list=0
sdk=1
while [ $# -gt 0 ]; do
  case $1 in
    --stacks) pkgs+=("${stack_pkgs[@]}") ;;
    --demo) pkgs=("${demo_pkgs[@]}"); sdk=0 ;;
    --list) list=1 ;;
    *) echo "usage: $0 [--list] [--stacks | --demo]" >&2; exit 1 ;;
  esac
  shift
done
if [ $list -eq 1 ]; then
  printf '%s\n' "${pkgs[@]}"
  exit 0
fi

sdk_headers() {
  [ $sdk -eq 1 ] || return 0
  bash "$(dirname "$0")/dpdk_sdk.sh"
}

missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done
if [ ${#missing[@]} -eq 0 ]; then
  echo "deps: all ${#pkgs[@]} packages present"
  sdk_headers
  exit 0
fi

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "deps: not root and no sudo; install: ${missing[*]}" >&2; exit 1; }
  sudo="sudo"
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq
$sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
sdk_headers
