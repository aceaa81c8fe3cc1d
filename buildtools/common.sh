# SPDX-License-Identifier: BSD-3-Clause
# Sourced by the buildtools entry points: where they are, what step they
# are in, and the build they run from.

root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
cd "$root"

# One line per step, the same in a terminal and in a CI log: the time
# since the script started, then what it is doing.
step_t0=${step_t0:-$(date +%s)}
step() {
  local t=$(( $(date +%s) - step_t0 ))
  printf '[%d:%02d] %s\n' $((t / 60)) $((t % 60)) "$*"
}

# The step's command with its output kept in a log and shown only if it
# fails: step_quiet "what" LOG CMD...
step_quiet() {
  local what=$1 log=$2; shift 2
  step "$what"
  if ! "$@" >"$log" 2>&1; then
    cat "$log" >&2
    step "$what: FAILED (log above, also in $log)"
    return 1
  fi
}

# Configure @dir if needed (extra meson arguments after it), then build it
# (only the ninja targets in $BUILD_TARGETS, when set) with a live count: in a terminal one line updated in place, in a log a
# line at each quarter. The full ninja output is kept in
# @dir/meson-logs/ninja-output.txt and shown if the build fails.
build() {
  local dir=$1; shift
  local tmp_log
  tmp_log=$(mktemp)
  if [ -f "$dir/build.ninja" ]; then
    [ $# -eq 0 ] || step_quiet "configuring $dir" "$tmp_log" meson setup --reconfigure "$dir" "$@" || return 1
  else
    step_quiet "configuring $dir" "$tmp_log" meson setup "$dir" "$@" || return 1
  fi
  rm -f "$tmp_log"
  local log="$dir/meson-logs/ninja-output.txt" tty=0 quarter=0 line n t
  [ -t 1 ] && tty=1
  step "building $dir"
  set +e
  # shellcheck disable=SC2086 # a list of targets
  NINJA_STATUS='[%f/%t] ' ninja -C "$dir" ${BUILD_TARGETS:-} 2>&1 | tee "$log" | while IFS= read -r line; do
    [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]] || continue
    n=${BASH_REMATCH[1]} t=${BASH_REMATCH[2]}
    if [ $tty -eq 1 ]; then
      printf '\r        %d/%d targets' "$n" "$t"
    elif [ $((n * 4 / t)) -gt $quarter ]; then
      quarter=$((n * 4 / t))
      printf '        %d/%d targets\n' "$n" "$t"
    fi
  done
  local rc=${PIPESTATUS[0]}
  set -e
  [ $tty -eq 1 ] && printf '\n'
  if [ "$rc" -ne 0 ]; then
    cat "$log" >&2
    step "building $dir: FAILED (ninja output above, also in $log)"
    return 1
  fi
  step "built $dir"
}

# What the demo needs, and no more: its packages (deps.sh --demo), the
# hugepages, and dvshare-pmd alone in build-demo (no tests, examples,
# benchmark or reference).
prepare_demo() {
  step_quiet "installing the demo's packages (buildtools/deps.sh --demo)" /tmp/dvshare-deps.log \
    bash buildtools/deps.sh --demo
  step_quiet "reserving hugepages (buildtools/hugepages.sh)" /tmp/dvshare-hugepages.log \
    bash buildtools/hugepages.sh
  BUILD_TARGETS=app/dvshare-pmd/dvshare-pmd build build-demo -Dtests=false -Dexamples=false \
    -Ddocs=disabled
}

# Packages, hugepages and an up-to-date default build, each step said.
prepare_build() {
  step_quiet "installing packages (buildtools/deps.sh)" /tmp/dvshare-deps.log bash buildtools/deps.sh
  step_quiet "reserving hugepages (buildtools/hugepages.sh)" /tmp/dvshare-hugepages.log \
    bash buildtools/hugepages.sh
  build build
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
