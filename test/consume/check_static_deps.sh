#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Every library a static link of DPDK names (pkg-config --static --libs
# libdpdk, which dvshare.pc requires) is installed by buildtools/deps.sh: it exists, and the
# Debian package that owns it is one deps.sh installs or one those depend
# on. A package someone installed by hand would make the static consumer
# link here and fail on a fresh machine.
# argv: SOURCE_ROOT. Prints one line per
# library not covered and exits 1 if there is any.
set -euo pipefail
src=$1
cc=${CC:-cc}

# deps.sh's packages and all they depend on (not recommends).
mapfile -t listed < <(bash "$src/buildtools/deps.sh" --list)
closure=$(apt-cache depends --recurse --no-recommends --no-suggests --no-conflicts \
            --no-breaks --no-replaces --no-enhances "${listed[@]}" 2>/dev/null |
          sed -n 's/^\([a-z0-9][a-z0-9.+-]*\)\(:[a-z0-9]*\)\{0,1\}$/\1/p' | sort -u)
[ -n "$closure" ] || { echo "static-deps: apt-cache gave no dependencies for deps.sh's packages"; exit 1; }

# The package owning a file: by the path the linker found, else by the
# file behind it (merged /usr: dpkg may list /lib/... for /usr/lib/...).
owner() { # file
  local f p
  for f in "$(realpath -s "$1")" "$(realpath "$1")"; do
    for p in "$f" "${f#/usr}"; do
      dpkg-query -S "$p" 2>/dev/null | head -n 1 | sed 's/:.*//' | grep . && return 0
    done
  done
  return 1
}

bad=0
libs=$(pkg-config --static --libs libdpdk | tr ' ' '\n' | sed -n 's/^-l\([^:].*\)$/\1/p' | sort -u)
for l in $libs; do
  file=""
  for f in "lib$l.so" "lib$l.a"; do
    p=$($cc -print-file-name="$f")
    if [ "$p" != "$f" ] && [ -e "$p" ]; then file=$p; break; fi
  done
  if [ -z "$file" ]; then
    echo "static-deps: -l$l: no lib$l.so or lib$l.a on this machine; buildtools/deps.sh must install the package that has it"
    bad=1
    continue
  fi
  pkg=$(owner "$file") || { echo "static-deps: -l$l: $file belongs to no Debian package"; bad=1; continue; }
  if ! grep -qx "$pkg" <<<"$closure"; then
    echo "static-deps: -l$l: $file comes from $pkg, which buildtools/deps.sh does not install (nor anything it installs depend on it)"
    bad=1
  fi
done
[ $bad -eq 0 ] && echo "static-deps: $(wc -w <<<"$libs") libraries, each from a package buildtools/deps.sh installs"
exit $bad
