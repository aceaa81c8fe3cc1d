#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Reserve 2 MiB hugepages for multi-process DPDK and mount hugetlbfs.
# DPDK's own dpdk-hugepages.py (Debian package dpdk) does both when it is
# installed; without it, sysfs and mount(8) do. Either way the script then
# checks what the kernel gave, and says why when it fell short.
# Usage: hugepages.sh [PAGES]   (default 512 = 1 GiB: the test suite in
# parallel runs several primaries of 64 MiB each, plus the demo)
set -euo pipefail

want=${1:-${DVSHARE_HUGEPAGES:-512}}
nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
mnt=/dev/hugepages

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  command -v sudo >/dev/null || { echo "hugepages: need root (or sudo) to reserve hugepages" >&2; exit 1; }
  sudo="sudo"
fi

if [ ! -e "$nr" ]; then
  echo "hugepages: $nr not found: this kernel has no 2 MiB hugepages" >&2
  exit 1
fi
tool=$(command -v dpdk-hugepages.py || true)
have=$(cat "$nr")
if [ "$have" -lt "$want" ]; then
  if [ -n "$tool" ]; then
    $sudo "$tool" -p 2M -r "$((want * 2))M" || true
  else
    echo "$want" | $sudo tee "$nr" >/dev/null || true
  fi
  have=$(cat "$nr")
  if [ "$have" -lt "$want" ]; then
    echo "hugepages: asked for $want 2 MiB pages, the kernel gave $have (memory too fragmented or limited?)" >&2
    exit 1
  fi
  echo "hugepages: reserved $have x 2 MiB"
else
  echo "hugepages: $have x 2 MiB already reserved"
fi

if ! grep -qs " $mnt hugetlbfs " /proc/mounts; then
  $sudo mkdir -p "$mnt"
  if [ -n "$tool" ]; then
    $sudo "$tool" -p 2M -m -d "$mnt" || true
  else
    $sudo mount -t hugetlbfs -o pagesize=2M nodev "$mnt" || true
  fi
  grep -qs " $mnt hugetlbfs " /proc/mounts || {
    echo "hugepages: cannot mount hugetlbfs at $mnt" >&2; exit 1; }
  echo "hugepages: mounted hugetlbfs at $mnt"
else
  echo "hugepages: hugetlbfs already mounted at $mnt"
fi
free_pages=$(cat /sys/kernel/mm/hugepages/hugepages-2048kB/free_hugepages)
echo "hugepages: $free_pages free"
