#!/usr/bin/env bash
# The shallow class histogram against VisualVM's heap library, in the same run, on
# the same dumps: `hprofkit run bench/shallow_histogram.lua` (open + index + per-class counts and
# bytes), `hprofkit histogram` (the same plus the heap graph's retained bytes) and VisualVM's
# HeapFactory.createHeap + JavaClass.getInstancesCount/getAllInstancesSize for every class.
# Wall and CPU seconds of each, best of N (default 3).  Needs Debian's visualvm.
# Usage: bench/visualvm_bench.sh DUMP... [N via RUNS=]
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
tools/deps.sh --bench
jar=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
[ -f "$jar" ] || { echo "visualvm_bench: $jar missing (apt-get install visualvm)" >&2; exit 1; }
[ -x build-release/hprofkit ] || { meson setup build-release --buildtype=release >/dev/null; ninja -C build-release >/dev/null; }
W=$(mktemp -d /tmp/vvbench.XXXXXX)
trap 'rm -rf "$W"' EXIT
javac -nowarn -cp "$jar" -d "$W" bench/VisualVMHistogram.java
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); $(date -u '+%F %H:%M') UTC"
for f in "$@"; do
  cat "$f" > /dev/null
  for r in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S" -o "$W/t" build-release/hprofkit run bench/shallow_histogram.lua "$f" > "$W/hk.txt"
    read -r e u s < "$W/t"
    echo "$(basename "$f") hprofkit shallow histogram ($(cat "$W/hk.txt")): wall $e s, cpu $(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') s, load $(cut -d' ' -f1 /proc/loadavg)"
    /usr/bin/time -f "%e %U %S" -o "$W/t" build-release/hprofkit histogram "$f" --json > /dev/null
    read -r e u s < "$W/t"
    echo "$(basename "$f") hprofkit histogram with retained bytes: wall $e s, cpu $(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') s, load $(cut -d' ' -f1 /proc/loadavg)"
    rm -rf "$f.hwcache"   # VisualVM's index of an earlier run: each run must build its own
    /usr/bin/time -f "%e %U %S" -o "$W/t" java -Xmx8g -cp "$jar:$W" VisualVMHistogram "$f" > "$W/vv.txt"
    read -r e u s < "$W/t"
    rm -rf "$f.hwcache"
    echo "$(basename "$f") $(cat "$W/vv.txt"); process wall $e s, cpu $(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') s, load $(cut -d' ' -f1 /proc/loadavg)"
  done
done
