# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the buildtools entry points that run programs from build/.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# Packages, hugepages and an up-to-date default build, quietly.
prepare_build() {
  bash buildtools/deps.sh >/dev/null
  bash buildtools/hugepages.sh >/dev/null
  [ -f build/build.ninja ] || meson setup build >/dev/null
  ninja -C build >/dev/null
}

# What a DPDK run on file prefix $1 leaves behind.
remove_dpdk_files() {
  rm -rf /dev/hugepages/"$1"* "/var/run/dpdk/$1"
}
