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

# Wait up to 30 s for a line matching $2 in log $1 written by process $3;
# 1 if the process exits first or the line does not come.
wait_for_line() {
  local log=$1 pattern=$2 pid=$3
  for _ in $(seq 300); do
    grep -q "$pattern" "$log" && return 0
    kill -0 "$pid" 2>/dev/null || return 1
    sleep 0.1
  done
  grep -q "$pattern" "$log"
}
