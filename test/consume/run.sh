#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dvshare as other projects consume it (doc/using.md), each way checked by
# building consumer.c outside the tree and running it on the software
# device:
#   install      the library (shared and static), headers, dvshare.pc and
#                dvshare-pmd into a prefix, from a build with no tests
#   pkgconfig    cc + the installed dvshare.pc, linked shared
#   static-deps  every library pkg-config --static names comes from a
#                package buildtools/deps.sh installs (check_static_deps.sh)
#   static       cc + pkg-config --static: libdvshare.a and DPDK's archives
#   static-libs  cc + the installed dvshare.pc's static_libs: libdvshare.a,
#                DPDK shared
#   uninstalled  cc + the dvshare-uninstalled.pc of that build tree
#   meson        a Meson project finding the installed dvshare.pc
#   subproject   a Meson project with dvshare as subprojects/dvshare,
#                built shared and static
#   experimental an experimental call without ALLOW_EXPERIMENTAL_API is
#                refused at compile time
#   pmd          the installed dvshare-pmd runs with no LD_LIBRARY_PATH
#   makefile     examples/simple_mp/Makefile builds the pair outside the
#                tree (make: shared), and it runs as the examples suite
#                runs it (hugepages)
#   makefile-static  the same with make static
#   mixed-link   a static secondary of a shared primary dies in EAL
#                ("Cannot init tail queues"): doc/using.md says so
# Prints "consume: <step>: ok" or "consume: <step>: FAIL (why)" per step
# and exits non-zero if any failed.
# argv: SOURCE_ROOT WORK_DIR (WORK_DIR is emptied first)
set -uo pipefail
src=$(cd "$1" && pwd)
work=$2
rm -rf "$work" && mkdir -p "$work" && work=$(cd "$work" && pwd)
here="$src/test/consume"
cc=${CC:-cc}
unset LD_LIBRARY_PATH
failed=0
log="$work/log"

ok() { echo "consume: $1: ok${2:+ ($2)}"; }
bad() { echo "consume: $1: FAIL ($2)"; failed=$((failed + 1)); }
# step NAME COMMAND...: run, log output, report.
step() {
  local name=$1; shift
  if "$@" >>"$log" 2>&1; then ok "$name"; else bad "$name" "see $log"; fi
}

# The consumer on the software device: a lone primary, no hugepages.
run_consumer() { # binary
  local fp="dvs-consume-$$-$RANDOM" out
  out=$("$1" -l 0 --no-huge -m 64 --no-pci --no-telemetry --file-prefix="$fp" \
          --log-level=lib.eal:error 2>&1)
  local rc=$?
  rm -rf "/var/run/dpdk/$fp"
  echo "$out"
  [ $rc -eq 0 ] && grep -q '^consumer: ok' <<<"$out"
}

# The shared libraries a program loads (read whole: grep -q closing a pipe
# early would fail the pipeline under pipefail).
loads() { # program pattern
  local libs
  libs=$(ldd "$1" 2>&1) || return 1
  grep -q "$2" <<<"$libs"
}
links_libdvshare_so() { loads "$1" 'libdvshare\.so'; }

# --- install ------------------------------------------------------------
prefix="$work/prefix"
if meson setup "$work/build" "$src" -Dtests=false -Dexamples=false \
     -Ddefault_library=both --prefix="$prefix" >>"$log" 2>&1 &&
   ninja -C "$work/build" install >>"$log" 2>&1; then
  ok install "$prefix"
else
  bad install "see $log"
  echo "consume: nothing to consume"; exit 1
fi
pc_dir=$(dirname "$(find "$prefix" -name dvshare.pc | head -1)")
# Installed stripped (meson.build: strip=true), built with debug info.
# The file is libdvshare.so.<ABI>.<minor release> (DPDK's naming); the
# links to it are not files (-type f).
check_stripped() {
  local so
  so=$(find "$prefix" "$work/build" -type f -name 'libdvshare.so.[0-9]*.[0-9]*' ! -name '*.symbols')
  [ "$(wc -l <<<"$so")" -eq 2 ] &&
  ! readelf -S "$(grep "^$prefix" <<<"$so")" | grep -q '\.debug_info' &&
  readelf -S "$(grep "^$work/build/" <<<"$so")" | grep -q '\.debug_info'
}
step stripped check_stripped
export PKG_CONFIG_PATH="$pc_dir"
libdir=$(pkg-config --variable=libdir dvshare)

# --- pkg-config, shared -------------------------------------------------
check_pkgconfig() {
  $cc -std=c11 -Wall -Wextra -Werror "$here/consumer.c" -o "$work/c-shared" \
    $(pkg-config --cflags --libs dvshare) -Wl,-rpath,"$libdir" &&
  links_libdvshare_so "$work/c-shared" && run_consumer "$work/c-shared"
}
step pkgconfig check_pkgconfig

# --- what a static link needs is installed by deps.sh ---------------------
check_static_deps() {
  local out
  out=$(bash "$here/check_static_deps.sh" "$src") && return 0
  printf '%s\n' "$out" | tee -a "$log" >&2
  return 1
}
step static-deps check_static_deps

# --- pkg-config --static: libdvshare.a and DPDK's archives ----------------
check_static() {
  $cc -std=c11 -Wall -Wextra -Werror -DALLOW_EXPERIMENTAL_API "$here/consumer.c" \
    -o "$work/c-static" $(pkg-config --cflags dvshare) $(pkg-config --static --libs dvshare) &&
  ! links_libdvshare_so "$work/c-static" && ! loads "$work/c-static" 'librte_' &&
  run_consumer "$work/c-static"
}
step static check_static

# --- libdvshare.a with a shared DPDK (static_libs) ------------------------
check_static_libs() {
  $cc -std=c11 -Wall -Wextra -Werror "$here/consumer.c" -o "$work/c-static-libs" \
    $(pkg-config --cflags dvshare) $(pkg-config --variable=static_libs dvshare) \
    $(pkg-config --libs libdpdk) &&
  ! links_libdvshare_so "$work/c-static-libs" && loads "$work/c-static-libs" 'librte_eal' &&
  run_consumer "$work/c-static-libs"
}
step static-libs check_static_libs

# --- uninstalled pkg-config ---------------------------------------------
check_uninstalled() {
  local pcu="$work/build/meson-uninstalled" ldir
  ldir=$(PKG_CONFIG_PATH="$pcu" pkg-config --variable=libdir dvshare)
  $cc -std=c11 -Wall -Wextra -Werror "$here/consumer.c" -o "$work/c-uninstalled" \
    $(PKG_CONFIG_PATH="$pcu" pkg-config --cflags --libs dvshare) \
    -Wl,-rpath,"$work/build/lib/dvshare" &&
  loads "$work/c-uninstalled" "$work/build/lib/dvshare/libdvshare.so" &&
  run_consumer "$work/c-uninstalled"
}
step uninstalled check_uninstalled

# --- Meson, installed dvshare.pc ----------------------------------------
check_meson() {
  local dir="$work/meson"
  meson setup "$dir" "$here" -Dexperimental=true &&
  ninja -C "$dir" && ! [ -d "$dir/subprojects" ] &&
  links_libdvshare_so "$dir/dvshare-consumer" && run_consumer "$dir/dvshare-consumer"
}
step meson check_meson

# --- Meson subproject, shared and static ----------------------------------
check_subproject() { # shared|static
  local proj="$work/subproject" dir="$work/subproject/build-$1"
  if ! [ -d "$proj" ]; then
    mkdir -p "$proj/subprojects" &&
    cp "$here/consumer.c" "$here/meson.build" "$here/meson_options.txt" "$proj/" &&
    ln -s "$src" "$proj/subprojects/dvshare" || return 1
  fi
  PKG_CONFIG_PATH= meson setup "$dir" "$proj" --force-fallback-for=dvshare \
    -Ddvshare:default_library="$1" &&
  ninja -C "$dir" &&
  # The consumer's warnings policy, not dvshare's: no -Werror in its build.
  ! grep '"command"' "$dir/compile_commands.json" | grep 'subprojects/dvshare' | grep -q -- '-Werror' &&
  # Only the library: none of dvshare's tests, apps or examples.
  [ -z "$(find "$dir/subprojects/dvshare" -type f -executable -name 'test_*')" ] &&
  ! [ -e "$dir/subprojects/dvshare/app/dvshare-pmd/dvshare-pmd" ] &&
  if [ "$1" = static ]; then ! links_libdvshare_so "$dir/dvshare-consumer"
  else links_libdvshare_so "$dir/dvshare-consumer"; fi &&
  run_consumer "$dir/dvshare-consumer"
}
step subproject check_subproject shared
step subproject-static check_subproject static

# --- experimental calls need ALLOW_EXPERIMENTAL_API ----------------------
check_experimental_guard() {
  local f="$work/exp.c" out
  printf '#include <dvshare.h>\nint f(struct dvshare_stats *s) { return dvshare_stats_get(s); }\n' >"$f"
  out=$($cc -std=c11 -Werror -c "$f" -o "$work/exp.o" $(pkg-config --cflags dvshare) 2>&1)
  [ $? -ne 0 ] && grep -q 'not yet part of stable ABI' <<<"$out" &&
  $cc -std=c11 -Werror -DALLOW_EXPERIMENTAL_API -c "$f" -o "$work/exp.o" $(pkg-config --cflags dvshare)
}
step experimental check_experimental_guard

# --- the installed dvshare-pmd ------------------------------------------
check_pmd() {
  local fp="dvs-consume-pmd-$$" out rc
  out=$("$prefix/bin/dvshare-pmd" -l 0 --no-huge -m 64 --no-pci --no-telemetry \
          --file-prefix="$fp" --log-level=lib.eal:error -- --dev sim0 --var db \
          --cmd "show objects" 2>&1)
  rc=$?
  rm -rf "/var/run/dpdk/$fp"
  echo "$out"
  [ $rc -eq 0 ] && grep -q 'var db on sim0' <<<"$out" &&
  loads "$prefix/bin/dvshare-pmd" "$libdir/libdvshare.so"
}
step pmd check_pmd

# --- examples/simple_mp/Makefile, outside the tree ---------------------
# Built as DPDK's examples are (make, make static) against the installed
# dvshare.pc; run by the examples suite's own script.
mk="$work/make"
mkdir -p "$mk" &&
  cp "$src/examples/simple_mp/Makefile" "$src/examples/simple_mp/primary.c" \
     "$src/examples/simple_mp/secondary.c" "$mk/"
run_pair() { # primary secondary
  bash "$src/test/examples/run_simple_mp.sh" "$1" "$2"
}
check_makefile() { # shared|static
  local p="$mk/build/simple_mp_primary" s="$mk/build/simple_mp_secondary" goal=()
  [ "$1" = static ] && goal=(static) # shared: plain make
  CFLAGS="-Wall -Wextra -Werror" make -C "$mk" "${goal[@]}" LDFLAGS="-Wl,-rpath,$libdir" ||
    return 1
  if [ "$1" = static ]; then
    ! links_libdvshare_so "$p" && ! loads "$p" 'librte_' && ! loads "$s" 'librte_'
  else
    loads "$p" "$libdir/libdvshare.so" && loads "$s" "$libdir/libdvshare.so"
  fi && run_pair "$p" "$s"
}
step makefile check_makefile shared
step makefile-static check_makefile static

# --- a primary and its secondary linked differently ----------------------
# DPDK's rule, which doc/using.md states: the static secondary registers
# tail queues (every library's) the shared primary never did.
check_mixed_link() {
  local out
  out=$(run_pair "$mk/build/simple_mp_primary-shared" "$mk/build/simple_mp_secondary-static" 2>&1)
  local rc=$?
  echo "$out"
  [ $rc -ne 0 ] && grep -q 'Cannot init tail queues' <<<"$out"
}
step mixed-link check_mixed_link

echo "consume: $failed step(s) failed"
[ $failed -eq 0 ]
