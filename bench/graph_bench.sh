#!/usr/bin/env bash
# The heap graph's benchmark: seconds and peak memory of each graph phase on a
# generated dump of about 10 million objects and on a real HotSpot dump, on 1 and 2 threads.
# Usage: bench/graph_bench.sh [BUILD_DIR] [SIZE_MB]   (defaults: build, 440 = ~10M objects)
set -euo pipefail
SRC=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$(cd "${1:-$SRC/build}" && pwd)
SIZE_MB=${2:-440}
GC=${GRAPH_CHECK:-$BUILD/tests/graph/graph_check}
GEN=$BUILD/fixtures/genhprof
[ -x "$GC" ] || { echo "graph_bench: $GC not built (tests/meson.build needs subdir('graph'))" >&2; exit 1; }
W=$(mktemp -d /tmp/graphbench.XXXXXX)
trap 'kill "${pid:-}" 2>/dev/null || true; rm -rf "$W"' EXIT
echo "# machine: $(nproc) CPUs, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/{print $2}') GB; $(date -u +%F)"
echo "## generated: genhprof --scenario big --size-mb $SIZE_MB"
"$GEN" --scenario big --size-mb "$SIZE_MB" -o "$W/big.hprof" >/dev/null 2>&1
for j in 1 2; do echo "### -j $j"; "$GC" bench "$W/big.hprof" -j $j; done
rm -f "$W/big.hprof"
if command -v javac >/dev/null && command -v jcmd >/dev/null; then
  echo "## HotSpot: tests/java/GraphApp.java with a 2,000,000-link chain, jcmd GC.heap_dump -all"
  javac -nowarn -d "$W" "$SRC/tests/java/GraphApp.java" 2>/dev/null
  java -Xint -cp "$W" GraphApp 2000000 > "$W/out.txt" 2>&1 &
  pid=$!
  for _ in $(seq 300); do grep -q ready "$W/out.txt" && break; sleep 0.1; done
  jcmd "$pid" GC.heap_dump -all "$W/hs.hprof" >/dev/null
  kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
  for j in 1 2; do echo "### -j $j"; "$GC" bench "$W/hs.hprof" -j $j; done
fi
