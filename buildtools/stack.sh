#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Build (once) and name the DPDK + rdma-core stack dvshare is built on.
#
#   buildtools/stack.sh [options] STACK        builds STACK if needed, then prints
#                                              the environment that selects it
#   eval "$(buildtools/stack.sh connectx)"     ... and takes it
#
# STACK is one of:
#   debian      Debian 12's packages: DPDK 22.11, rdma-core 44 (nothing built)
#   dpdk-24.11  DPDK 24.11 LTS, minimal (the vdev bus and the libraries dvshare,
#               its apps and tests use, the driver SDK, dpdk-testpmd), on
#               Debian's rdma-core 44
#   connectx    rdma-core 64 (the v63 export/import API) into one prefix, then
#               DPDK 25.11 LTS into another, built against it with its mlx5
#               drivers (common, net, vdpa): what a ConnectX or BlueField user
#               runs, with the two installed apart: <cache>/connectx/rdma-core
#               and <cache>/connectx/dpdk
#
# Options (each also an environment variable):
#   --sources DIR  DVSHARE_STACK_SOURCES  where the release tarballs are
#                  (dpdk-<version>.tar.xz, rdma-core-<version>.tar.gz; the
#                  newest of each series is taken, a SHA256SUMS beside them is
#                  checked); default ../shared/vendor next to the checkout
#                  (or next to the repository it was cloned from)
#   --prefix DIR   DVSHARE_PREFIX_<STACK> (DVSHARE_PREFIX_CONNECTX,
#                  DVSHARE_PREFIX_DPDK_24_11) an install prefix of your own
#                  that already holds the stack: nothing is built, it is
#                  only checked. For connectx it holds DPDK, and rdma-core
#                  too unless --rdma-prefix names another
#   --rdma-prefix DIR  DVSHARE_RDMA_PREFIX_CONNECTX (connectx, with --prefix)
#                  the install prefix of your rdma-core when it is not
#                  DPDK's; both are checked and both are named in the output
#   --cache DIR    DVSHARE_STACK_CACHE    where stacks are built and kept;
#                  default $HOME/.cache/dvshare/stacks
#   --check        build nothing: exit 0 if STACK is ready (cached or --prefix),
#                  3 if it would have to be built
#
# Output on stdout: export lines (PKG_CONFIG_PATH, LD_LIBRARY_PATH naming
# each prefix of the stack, DPDK's first, and DVSHARE_STACK, the stack's
# name). Progress and errors go to stderr.
# Exit status: 0 ready, 1 failed, 2 sources missing (the message says how to
# provide them), 3 (--check only) not built yet.
#
# A stack's prefix must have no world-writable directory above it: DPDK >= 23
# refuses to load its drivers from such a place. A cached stack is reused as
# long as its tarballs and recipe are the same (the stamp file in
# <cache>/<stack>).
set -euo pipefail

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)

stacks=(debian dpdk-24.11 connectx)

usage() {
  sed -n '3,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
  exit "${1:-1}"
}
say() { printf 'stack: %s\n' "$*" >&2; }
die() { say "$*"; exit 1; }

# Default sources: ../shared/vendor beside this checkout, or beside the
# repository it was cloned from (a clone made elsewhere, as CI's may be).
default_sources() {
  local origin
  origin=$(git -C "$root" config --get remote.origin.url 2>/dev/null || true)
  for d in "$root/../shared/vendor" "${origin:+$origin/../shared/vendor}"; do
    if [ -n "$d" ] && [ -d "$d" ]; then (cd "$d" && pwd); return; fi
  done
  echo "$root/../shared/vendor"
}
sources=${DVSHARE_STACK_SOURCES:-$(default_sources)}
prefix_given=""
rdma_prefix_given=""
cache=${DVSHARE_STACK_CACHE:-${HOME:?HOME is not set}/.cache/dvshare/stacks}
check_only=0
stack=""
while [ $# -gt 0 ]; do
  case $1 in
    --sources) sources=${2:?--sources needs a directory}; shift 2 ;;
    --prefix) prefix_given=${2:?--prefix needs a directory}; shift 2 ;;
    --rdma-prefix) rdma_prefix_given=${2:?--rdma-prefix needs a directory}; shift 2 ;;
    --cache) cache=${2:?--cache needs a directory}; shift 2 ;;
    --check) check_only=1; shift ;;
    -h|--help) usage 0 ;;
    -*) say "unknown option $1"; usage ;;
    *) [ -z "$stack" ] || usage; stack=$1; shift ;;
  esac
done
[ -n "$stack" ] || usage
case " ${stacks[*]} " in
  *" $stack "*) ;;
  *) die "unknown stack '$stack' (known: ${stacks[*]})" ;;
esac
prefix_var=DVSHARE_PREFIX_$(tr 'a-z.-' 'A-Z__' <<<"$stack")
[ -n "$prefix_given" ] || prefix_given=${!prefix_var:-}
rdma_prefix_var=DVSHARE_RDMA_PREFIX_$(tr 'a-z.-' 'A-Z__' <<<"$stack")
[ -n "$rdma_prefix_given" ] || rdma_prefix_given=${!rdma_prefix_var:-}
if [ -n "$rdma_prefix_given" ]; then
  [ "$stack" = connectx ] ||
    die "--rdma-prefix ($rdma_prefix_var): stack $stack takes Debian's rdma-core, only connectx has its own"
  [ -n "$prefix_given" ] ||
    die "--rdma-prefix ($rdma_prefix_var) names the rdma-core of a stack you installed: give its DPDK's prefix too (--prefix DIR or $prefix_var)"
fi

emit() { # prefix... (none: the default search paths): the lines the caller evals
  local p pc="" ld=""
  for p in "$@"; do
    case ":$ld:" in *":$p/lib:"*) continue ;; esac
    pc=${pc:+$pc:}$p/lib/pkgconfig
    ld=${ld:+$ld:}$p/lib
  done
  printf 'export DVSHARE_STACK=%q\n' "$stack"
  printf 'export PKG_CONFIG_PATH=%q\n' "$pc"
  printf 'export LD_LIBRARY_PATH=%q\n' "$ld"
}

# DPDK's rule (eal_common_options.c, verify_perms): no directory from the
# plugin path up to / may be world-writable.
check_not_world_writable() { # dir (need not exist yet)
  local d=$1
  while [ ! -e "$d" ]; do d=$(dirname "$d"); done
  d=$(cd "$d" && pwd -P)
  while :; do
    if [ -n "$(find "$d" -maxdepth 0 -perm -o+w 2>/dev/null)" ]; then
      die "$1 lies below the world-writable directory $d: DPDK >= 23 would refuse to load its drivers from there; use a prefix under \$HOME (--cache or --prefix)"
    fi
    [ "$d" = / ] && break
    d=$(dirname "$d")
  done
}

# What a stack's prefixes must hold: its DPDK series, rdma-core >= 63
# (libmlx5.pc's version is <abi>.<minor>.<release>.<fix>, 1.27.64.0 for 64.0),
# the mlx5 drivers where the stack has them, and no world-writable parent
# above DPDK's (its plugin directory).
pc_version() { # prefix package
  [ -f "$1/lib/pkgconfig/$2.pc" ] || die "$1 has no lib/pkgconfig/$2.pc: not a $stack prefix"
  PKG_CONFIG_PATH="$1/lib/pkgconfig" pkg-config --modversion "$2" ||
    die "pkg-config cannot read $1/lib/pkgconfig/$2.pc"
}
check_prefix() { # DPDK's prefix [rdma-core's prefix (connectx), default DPDK's]
  local p=$1 r=${2:-$1} dpdk series rdma mlx5
  case $stack in
    dpdk-24.11) series=24.11 ;;
    connectx) series=25.11 ;;
  esac
  dpdk=$(pc_version "$p" libdpdk)
  case $dpdk in
    "$series"|"$series".*) ;;
    *) die "$p has DPDK $dpdk, stack $stack is DPDK $series" ;;
  esac
  if [ "$stack" = connectx ]; then
    if [ "$r" = "$p" ] && [ ! -f "$p/lib/pkgconfig/libmlx5.pc" ]; then
      die "$p has no lib/pkgconfig/libmlx5.pc: if your rdma-core is in a prefix of its own, name it with --rdma-prefix DIR or $rdma_prefix_var"
    fi
    mlx5=$(pc_version "$r" libmlx5)
    rdma=$(cut -d. -f3 <<<"$mlx5")
    [ "${rdma:-0}" -ge 63 ] 2>/dev/null ||
      die "$r has rdma-core $rdma (libmlx5 $mlx5), stack connectx needs >= 63"
    ls "$p"/lib/dpdk/pmds-*/librte_common_mlx5.so >/dev/null 2>&1 ||
      die "$p has no DPDK mlx5 drivers (lib/dpdk/pmds-*/librte_common_mlx5.so): stack connectx needs DPDK built with common/mlx5, net/mlx5, vdpa/mlx5"
  fi
  check_not_world_writable "$p"
}

if [ "$stack" = debian ]; then
  # Debian's own packages (buildtools/deps.sh): the default search paths.
  [ "$check_only" = 1 ] || pkg-config --exists libdpdk ||
    die "Debian's libdpdk-dev is not installed (buildtools/deps.sh installs it)"
  emit
  exit 0
fi

if [ -n "$prefix_given" ]; then
  prefix_given=$(cd "$prefix_given" 2>/dev/null && pwd) || die "--prefix: no such directory"
  if [ -n "$rdma_prefix_given" ]; then
    rdma_prefix_given=$(cd "$rdma_prefix_given" 2>/dev/null && pwd) ||
      die "--rdma-prefix: no such directory"
  fi
  check_prefix "$prefix_given" "$rdma_prefix_given"
  emit "$prefix_given" ${rdma_prefix_given:+"$rdma_prefix_given"}
  exit 0
fi

# The newest tarball of a series in the sources directory.
tarball() { # glob
  local f
  f=$(cd "$sources" 2>/dev/null && ls -1 $1 2>/dev/null | sort -V | tail -n 1) || true
  if [ -n "$f" ]; then printf '%s/%s\n' "$sources" "$f"; fi
}
need_sources() { # what (for the message), glob...
  local what=$1; shift
  local g f
  for g in "$@"; do
    f=$(tarball "$g")
    if [ -z "$f" ]; then
      say "stack $stack needs $what: no $g in $sources"
      say "  give the directory of the release tarballs with --sources DIR or DVSHARE_STACK_SOURCES,"
      say "  (DPDK: https://fast.dpdk.org/rel/, rdma-core: https://github.com/linux-rdma/rdma-core/releases),"
      say "  or an install prefix that already has the stack with --prefix DIR or $prefix_var"
      exit 2
    fi
  done
}

case $stack in
  dpdk-24.11)
    need_sources "DPDK 24.11" 'dpdk-24.11*.tar.*'
    tarballs=("$(tarball 'dpdk-24.11*.tar.*')") ;;
  connectx)
    need_sources "rdma-core >= 63 and DPDK 25.11" 'rdma-core-*.tar.*' 'dpdk-25.11*.tar.*'
    tarballs=("$(tarball 'rdma-core-*.tar.*')" "$(tarball 'dpdk-25.11*.tar.*')") ;;
esac

# The libraries dvshare, its apps and tests use: EAL (rte_mp, services,
# interrupts), telemetry, cmdline, hash (the bench's baseline). DPDK adds the
# ones it always builds. The driver SDK's headers (ethdev_driver.h ...) for
# net_dvshare, and dpdk-testpmd, which suite net drives. Shared libraries,
# so that testpmd's -d loads the plugin. Everything else is off: no other
# apps, tests, docs.
dpdk_args=(-Dbuildtype=release -Dplatform=generic -Dlibdir=lib -Ddefault_library=shared
  -Denable_driver_sdk=true -Denable_apps=test-pmd -Dtests=false -Dexamples= -Denable_docs=false)
case $stack in
  dpdk-24.11)
    dpdk_args+=(-Denable_libs=cmdline,hash,telemetry -Denable_drivers=bus/vdev) ;;
  connectx)
    # vdpa/mlx5 needs vhost (and with it cryptodev and dmadev) and sched; the mlx5
    # drivers link rdma-core directly (ibverbs_link=shared), so the EAL
    # loads it with them.
    dpdk_args+=(-Denable_libs=cmdline,hash,telemetry,vhost,cryptodev,dmadev,sched
      -Denable_drivers=bus/vdev,bus/pci,bus/auxiliary,common/mlx5,net/mlx5,vdpa/mlx5
      -Dibverbs_link=shared) ;;
esac
# rdma-core's libraries and providers only; paths it would otherwise put
# outside the prefix (systemd helpers) are kept inside.
rdma_args=(-GNinja -DCMAKE_BUILD_TYPE=Release -DCMAKE_INSTALL_LIBDIR=lib
  -DNO_PYVERBS=1 -DNO_MAN_PAGES=1 -DENABLE_STATIC=0)

# The stack's directory: the stamp, and the prefixes (connectx: rdma-core
# and DPDK apart, as a user who installs them apart has them).
prefix="$cache/$stack"
case $stack in
  connectx) rdma_prefix="$prefix/rdma-core" dpdk_prefix="$prefix/dpdk" ;;
  *) rdma_prefix="" dpdk_prefix="$prefix" ;;
esac
check_not_world_writable "$prefix"

# What the cached build was made from: tarballs (by checksum) and recipe.
stamp_text() {
  local t
  for t in "${tarballs[@]}"; do
    printf 'source %s %s\n' "$(basename "$t")" "$(sha256sum "$t" | cut -d' ' -f1)"
  done
  printf 'dpdk %s\n' "${dpdk_args[*]}"
  if [ "$stack" = connectx ]; then
    printf 'rdma-core %s\n' "${rdma_args[*]}"
    printf 'prefixes rdma-core=%s dpdk=%s\n' "${rdma_prefix#"$prefix"/}" "${dpdk_prefix#"$prefix"/}"
  fi
  printf 'cc %s\n' "$(cc -dumpfullversion 2>/dev/null || echo unknown)"
}
stamp="$prefix/.dvshare-stack"
want_stamp=$(stamp_text)
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want_stamp" ]; then
  say "$stack: cached in $prefix"
  emit "$dpdk_prefix" ${rdma_prefix:+"$rdma_prefix"}
  exit 0
fi
if [ "$check_only" = 1 ]; then
  say "$stack: not built yet in $prefix"
  exit 3
fi

# Checksums, when the sources come with a SHA256SUMS.
if [ -f "$sources/SHA256SUMS" ]; then
  for t in "${tarballs[@]}"; do
    if grep -q " $(basename "$t")\$" "$sources/SHA256SUMS"; then
      (cd "$sources" && grep " $(basename "$t")\$" SHA256SUMS | sha256sum -c --quiet -) >&2 ||
        die "$t does not match $sources/SHA256SUMS"
    fi
  done
fi
for tool in meson ninja cmake; do
  command -v $tool >/dev/null || die "$tool not found (buildtools/deps.sh --stacks installs what stacks need)"
done
# DPDK's build runs the first python3 on PATH and needs pyelftools in it
# (25.11 refuses to fall back): the first python3 that has it, Debian's
# where python3-pyelftools puts it, goes first on PATH for the build.
elf_python=""
for py in $(type -ap python3) /usr/bin/python3; do
  if "$py" -c 'import elftools' >/dev/null 2>&1; then elf_python=$py; break; fi
done
[ -n "$elf_python" ] ||
  die "DPDK's build needs python3-pyelftools (buildtools/deps.sh --stacks installs it)"

rm -rf "$prefix"
work="$cache/.build-$stack"
rm -rf "$work"
mkdir -p "$work" "$prefix"
log="$work/build.log"
run() { # what, command...
  local what=$1; shift
  local t0=$SECONDS
  if ! "$@" >>"$log" 2>&1; then
    tail -n 60 "$log" >&2
    die "$stack: $what failed (last lines above, whole log in $log)"
  fi
  say "$stack: $what ($((SECONDS - t0)) s)"
}
unpack() { # tarball -> prints the directory
  local d="$work/src-$(basename "$1" | sed 's/\.tar\..*//')"
  mkdir -p "$d"
  tar -xf "$1" -C "$d" --strip-components=1
  printf '%s\n' "$d"
}

say "$stack: building into $prefix (log: $log)"
# DPDK's build finds the rdma-core just built (connectx) by pkg-config.
export PKG_CONFIG_PATH="${rdma_prefix:-$prefix}/lib/pkgconfig"
mkdir -p "$work/bin"
ln -s "$elf_python" "$work/bin/python3"
export PATH="$work/bin:$PATH"
for t in "${tarballs[@]}"; do
  src=$(unpack "$t")
  case $(basename "$t") in
    rdma-core-*)
      run "rdma-core: configure" cmake -S "$src" -B "$src/build" "${rdma_args[@]}" \
        -DCMAKE_INSTALL_PREFIX="$rdma_prefix" -DCMAKE_INSTALL_SYSTEMD_BINDIR="$rdma_prefix/lib/systemd" \
        -DSYSUSERS_DIR="$rdma_prefix/lib/sysusers.d"
      run "rdma-core: build" ninja -C "$src/build"
      run "rdma-core: install" ninja -C "$src/build" install
      outside=$(grep -v "^$rdma_prefix/" "$src/build/install_manifest.txt" || true)
      [ -z "$outside" ] || die "rdma-core installed files outside $rdma_prefix: $outside"
      ;;
    dpdk-*)
      run "DPDK: configure" meson setup "$src/build" "$src" --prefix="$dpdk_prefix" "${dpdk_args[@]}"
      run "DPDK: build" ninja -C "$src/build"
      run "DPDK: install" meson install -C "$src/build" --no-rebuild
      ;;
  esac
done
check_prefix "$dpdk_prefix" "$rdma_prefix"
printf '%s\n' "$want_stamp" >"$stamp"
rm -rf "$work"
say "$stack: ready in $prefix"
emit "$dpdk_prefix" ${rdma_prefix:+"$rdma_prefix"}
