#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# DPDK's driver-SDK headers for Debian's libdpdk-dev, which ships none of
# them (ethdev_driver.h, ethdev_vdev.h, bus_vdev_driver.h, dev_driver.h,
# bus_driver.h): net_dvshare, a vdev ethdev driver, needs them. They come
# from Debian's own `dpdk` source package of exactly the installed
# version, fetched from the package mirror into a cache outside the
# repository; nothing of DPDK's is copied into dvshare.
#
#   dpdk_sdk.sh --dir VERSION   print the cache's include directory for
#                               DPDK VERSION (as pkg-config says it); fetch
#                               nothing (Meson asks this)
#   dpdk_sdk.sh                 fetch for the installed libdpdk-dev (deps.sh)
#
# The cache: ${DVSHARE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dvshare}/dpdk-sdk/VERSION
set -euo pipefail

cache=${DVSHARE_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/dvshare}/dpdk-sdk
headers=(lib/ethdev/ethdev_driver.h lib/ethdev/ethdev_vdev.h drivers/bus/vdev/bus_vdev_driver.h
  lib/eal/include/dev_driver.h lib/eal/include/bus_driver.h)

if [ "${1:-}" = --dir ]; then
  echo "$cache/${2:?usage: $0 --dir VERSION}/include"
  exit 0
fi

# The Debian version (22.11.11-0+deb12u1) and the upstream one (22.11.11).
deb=$(dpkg-query -W -f='${Version}' libdpdk-dev 2>/dev/null) ||
  { echo "dpdk-sdk: libdpdk-dev is not installed" >&2; exit 1; }
up=${deb%%-*}
up=${up#*:}
inc=$cache/$up/include
if [ -f "$inc/.complete" ]; then
  echo "dpdk-sdk: driver headers of DPDK $up in $inc"
  exit 0
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# A private apt state naming the mirror's source index: the machine's own
# sources list is left alone (it may have no deb-src).
mkdir -p "$work/lists/partial"
sed -n 's/^Types: *deb$/Types: deb-src/p; /^Types:/!p' /etc/apt/sources.list.d/debian.sources \
  >"$work/src.sources" 2>/dev/null || true
if ! grep -q deb-src "$work/src.sources" 2>/dev/null; then
  grep -h '^deb ' /etc/apt/sources.list /etc/apt/sources.list.d/*.list 2>/dev/null |
    sed 's/^deb /deb-src /' >"$work/src.list" || true
fi
apt_opts=(-o "Dir::State::Lists=$work/lists" -o Dir::Etc::SourceParts=/dev/null)
# As root, apt would hand the download to _apt, which cannot write $work.
[ "$(id -u)" -ne 0 ] || apt_opts+=(-o APT::Sandbox::User=root)
if [ -s "$work/src.sources" ]; then
  apt_opts+=(-o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$work")
  mv "$work/src.sources" "$work/debian.sources"
elif [ -s "$work/src.list" ]; then
  apt_opts+=(-o "Dir::Etc::SourceList=$work/src.list")
else
  echo "dpdk-sdk: no Debian mirror in /etc/apt to fetch the dpdk source package from" >&2
  exit 1
fi
apt-get "${apt_opts[@]}" update -qq >"$work/update.log" 2>&1 ||
  { cat "$work/update.log" >&2; echo "dpdk-sdk: apt-get update of the source index failed" >&2; exit 1; }
(cd "$work" && apt-get "${apt_opts[@]}" source --download-only -qq "dpdk=$deb" >"$work/source.log" 2>&1) ||
  { cat "$work/source.log" >&2; echo "dpdk-sdk: no source package dpdk=$deb on the mirror" >&2; exit 1; }
orig=$(ls "$work"/dpdk_"$up".orig.tar.* 2>/dev/null | head -1)
[ -n "$orig" ] || { echo "dpdk-sdk: the source package had no dpdk_$up.orig tarball" >&2; exit 1; }
mkdir -p "$work/x"
tar -xf "$orig" -C "$work/x" --wildcards "${headers[@]/#/*/}"
# Debian's patches, where one touches these headers (none did in 22.11.11).
deb_tar=$(ls "$work"/dpdk_"$deb".debian.tar.* 2>/dev/null | head -1 || true)
if [ -n "$deb_tar" ]; then
  tar -xf "$deb_tar" -C "$work"
  for h in "${headers[@]}"; do
    if grep -lq -- "+++ [^ ]*/$h" "$work"/debian/patches/* 2>/dev/null; then
      echo "dpdk-sdk: a Debian patch changes $h: not handled, refusing" >&2
      exit 1
    fi
  done
fi
mkdir -p "$inc"
for h in "${headers[@]}"; do
  cp "$work"/x/*/"$h" "$inc/"
done
echo "$deb" >"$inc/.complete"
echo "dpdk-sdk: driver headers of DPDK $up (Debian $deb) in $inc"
