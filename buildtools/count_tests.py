#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Count the tests of finished runs: prints "<passed> <failed>".

Each argument is a meson test log (meson-logs/testlog.json) or a log of
test/consume/run.sh. In a meson log, a CUnit program counts its tests (its
"dvs-cunit: <prog> tests=N failed=M" line), a script check counts one,
and a program that died before its summary counts one failure; so does
a log that is not there (a build that failed before its tests ran).

Why not meson's testlog.junit.xml: it has one <testcase> per program for
the "exitcode" protocol our CUnit programs use (meson splits only TAP and
gtest output into cases; checked on meson 1.0: 25 cases for the unit,
fault suites' 25 programs), so the per-test counts would be lost. Each
program's own summary line, kept whole in testlog.json's "stdout", has
them; testlog.json also has each program's result, for the rest.
"""
import json
import re
import sys


def count_meson(path):
    passed = failed = 0
    with open(path) as f:
        for line in f:
            t = json.loads(line)
            m = re.search(r'dvs-(?:cunit|tests): \S+ tests=(\d+) failed=(\d+)',
                          t.get('stdout', ''))
            if m:
                passed += int(m.group(1)) - int(m.group(2))
                failed += int(m.group(2))
            elif t.get('result') == 'OK':
                passed += 1  # a script check (abi, headers, docs, examples)
            elif t.get('result') not in ('SKIP', 'EXPECTEDFAIL'):
                failed += 1  # a check that failed, or died before its summary
    return passed, failed


def count_consume(path):
    passed = failed = 0
    with open(path) as f:
        for line in f:
            m = re.match(r'consume: [\w-]+: (ok|FAIL)', line)
            if m:
                passed += m.group(1) == 'ok'
                failed += m.group(1) == 'FAIL'
    return passed, failed


def main(paths):
    passed = failed = 0
    for path in paths:
        try:
            p, f = (count_meson if path.endswith('.json') else count_consume)(path)
        except OSError as e:
            # A run that never got as far as its log: one failure.
            print(f'count_tests: {e}', file=sys.stderr)
            p, f = 0, 1
        passed += p
        failed += f
    print(passed, failed)


if __name__ == '__main__':
    main(sys.argv[1:])
