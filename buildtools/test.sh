#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The one test command: deps, hugepages, build, every default suite, then
# the unit and sim suites again under AddressSanitizer + UBSan.
set -euo pipefail

root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"

bash buildtools/deps.sh
bash buildtools/hugepages.sh

setup() { # builddir, extra meson args...
  local dir=$1; shift
  if [ -f "$dir/build.ninja" ]; then
    meson setup --reconfigure "$dir" "$@" >/dev/null
  else
    meson setup "$dir" "$@" >/dev/null
  fi
  ninja -C "$dir"
}

status=0
setup build
meson test -C build --print-errorlogs --num-processes 2 || status=1

setup build-asan -Db_sanitize=address,undefined
ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 \
UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 \
  meson test -C build-asan --print-errorlogs --num-processes 2 --suite unit --suite sim --suite fuzz || status=1

# One closing line for whoever reads the log: CUnit tests across both runs.
python3 - build/meson-logs/testlog.json build-asan/meson-logs/testlog.json <<'PY'
import json, re, sys
passed = failed = 0
for path in sys.argv[1:]:
    for line in open(path):
        t = json.loads(line)
        m = re.search(r'dvs-cunit: \S+ tests=(\d+) failed=(\d+)', t.get('stdout', ''))
        if m:
            passed += int(m.group(1)) - int(m.group(2))
            failed += int(m.group(2))
        elif t.get('result') not in ('OK', 'SKIP', 'EXPECTEDFAIL'):
            failed += 1  # a program that died before its summary
print(f"dvshare: {passed} passed, {failed} failed")
PY
exit $status
