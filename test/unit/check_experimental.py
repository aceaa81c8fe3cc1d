#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Suite unit: the experimental calls can be seen where a user looks.

Every call of the EXPERIMENTAL node of version.map is declared
__rte_experimental in dvshare.h and its doc comment carries the
"@warning @b EXPERIMENTAL" line the reference shows; no stable call does;
every dvshare_ symbol of version.map says the release that added it.
argv: DVSHARE_H VERSION_MAP
"""
import re
import sys


def nodes(vmap):
    """{symbol: node} and the symbols lacking an "added in" note."""
    out, bare, node = {}, [], None
    for line in vmap.splitlines():
        m = re.match(r"^(\w+)\s*\{", line)
        if m:
            node = m.group(1)
            continue
        m = re.match(r"^\s+(dvshare_\w+);(.*)$", line)
        if m:
            out[m.group(1)] = node
            if not re.search(r"/\* added in \d+\.\d+", m.group(2)):
                bare.append(m.group(1))
    return out, bare


def declarations(header):
    """{function: (experimental?, warned?)} from its doc comment and prefix."""
    out = {}
    for m in re.finditer(r"/\*\*((?:(?!\*/).)*?)\*/\s*(__rte_experimental\s+)?"
                         r"[\w\s\*]*?\b(dvshare_\w+)\s*\(", header, re.S):
        out[m.group(3)] = (m.group(2) is not None, "@warning @b EXPERIMENTAL" in m.group(1))
    return out


def main():
    header = open(sys.argv[1]).read()
    syms, bare = nodes(open(sys.argv[2]).read())
    decl = declarations(header)
    bad = ["%s: no 'added in' note in version.map" % s for s in bare]
    for sym, node in sorted(syms.items()):
        if sym not in decl:
            bad.append("%s: no documented declaration in dvshare.h" % sym)
            continue
        exp, warned = decl[sym]
        want = node == "EXPERIMENTAL"
        if exp != want or warned != want:
            bad.append("%s (%s): __rte_experimental %s, @warning %s" %
                       (sym, node, "yes" if exp else "no", "yes" if warned else "no"))
    for line in bad:
        print("experimental: " + line)
    if not bad:
        print("experimental: %d calls, %d experimental, each marked and warned" %
              (len(syms), sum(1 for n in syms.values() if n == "EXPERIMENTAL")))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
