#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# Suite unit: buildtools/hugepages.sh reserves through DPDK's
# dpdk-hugepages.py when it is installed. A stand-in of the tool on PATH
# records how it is called and reserves as the tool would; the script must
# call it for two more pages than are reserved, with DPDK's options, and
# then check what the kernel gave. The reservation is put back afterwards.
# Needs root (it changes the reservation), as the suites need hugepages.
# argv: SOURCE_ROOT
set -euo pipefail
root=$1
nr=/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages
[ "$(id -u)" -eq 0 ] || { echo "hugepages-tool: needs root to change the reservation"; exit 1; }
work=$(mktemp -d)
before=$(cat "$nr")
trap 'echo "$before" >"$nr"; rm -rf "$work"' EXIT
cat >"$work/dpdk-hugepages.py" <<'TOOL'
#!/usr/bin/env bash
echo "$*" >>"$(dirname "$0")/calls"
while [ $# -gt 0 ]; do
  case $1 in -r) size=${2%M}; echo $((size / 2)) >/sys/kernel/mm/hugepages/hugepages-2048kB/nr_hugepages; shift ;; esac
  shift
done
TOOL
chmod +x "$work/dpdk-hugepages.py"
want=$((before + 2))
PATH="$work:$PATH" DVSHARE_HUGEPAGES=$want bash "$root/buildtools/hugepages.sh" >"$work/out"
if [ "$(cat "$work/calls" 2>/dev/null)" != "-p 2M -r $((want * 2))M" ]; then
  echo "hugepages-tool: dpdk-hugepages.py called as '$(cat "$work/calls" 2>/dev/null)', wanted '-p 2M -r $((want * 2))M'"
  exit 1
fi
grep -q "reserved $want x 2 MiB" "$work/out" || { cat "$work/out"; echo "hugepages-tool: no check of what the kernel gave"; exit 1; }
echo "hugepages-tool: hugepages.sh reserved $want pages through dpdk-hugepages.py, then checked them"
