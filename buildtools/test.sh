#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The one test command: deps, hugepages, build, every default suite
# (including the API reference check and the examples), every suite again
# under AddressSanitizer (leaks included) + UBSan, then dvshare consumed as
# other projects do: installed, pkg-config, static, Meson subproject.
set -euo pipefail

source "$(dirname "$0")/common.sh"

step_quiet "installing packages (buildtools/deps.sh)" /tmp/dvshare-deps.log bash buildtools/deps.sh
step_quiet "reserving hugepages (buildtools/hugepages.sh)" /tmp/dvshare-hugepages.log \
  bash buildtools/hugepages.sh

# Every default suite, named as meson test runs it.
suites() { # builddir
  meson test -C "$1" --list 2>/dev/null | sed -n 's/^[^:]*:\([^ ]*\) \/ .*/\1/p' | sort -u |
    paste -sd, - | sed 's/,/, /g'
}

status=0
build build -Ddocs=enabled
step "running the default suites on build: $(suites build)"
meson test -C build --print-errorlogs --num-processes 2 || status=1

# The default suites but docs (nothing compiled to check).
build build-asan -Db_sanitize=address,undefined -Ddocs=disabled
step "running the default suites under ASan+UBSan on build-asan: $(suites build-asan)"
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-asan --print-errorlogs --num-processes 2 || status=1

step "building against dvshare as other projects do (test/consume/run.sh)"
consume_log=build/meson-logs/consume.txt
bash test/consume/run.sh . build-consume | tee "$consume_log" || status=1

# One closing line for whoever reads the log: every CUnit test, script
# check and consumption step across the runs.
read -r passed failed < <(python3 buildtools/count_tests.py build/meson-logs/testlog.json \
  build-asan/meson-logs/testlog.json "$consume_log")
echo "dvshare: $passed passed, $failed failed"
exit $status
