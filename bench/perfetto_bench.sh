#!/usr/bin/env bash
# Perfetto traces: a generated Android dump converted to a heap-graph trace and to an
# embedded-HPROF trace, then each opened.  Prints wall and CPU seconds, peak anonymous memory
# (bench/peak_anon.py: RssAnon, not the mapped files' page cache) and its bytes per object.
# Usage: bench/perfetto_bench.sh [SIZE_MB]   (default 256; the issue's figure: 1024)
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
B="$SRC/build-release"
[ -x "$B/hprofkit" ] || { CC=gcc meson setup "$B" --buildtype=release >/dev/null; }
nice ninja -C "$B" >/dev/null
W=$(mktemp -d "${BENCH_TMP:-/tmp}/pfbench.XXXXXX")
trap 'rm -rf "$W"' EXIT
"$B/fixtures/genhprof" --scenario big --size-mb "${1:-256}" -o "$W/big.hprof" | tail -1
n=$("$B/hprofkit" info "$W/big.hprof" --json | jq .objects)
echo "objects: $n"
t() {
  local label=$1; shift
  python3 "$SRC/bench/peak_anon.py" "$@" >/dev/null 2>"$W/t.err" || { cat "$W/t.err"; return 1; }
  awk -v l="$label" -v n="$n" '/peak_anon_bytes/ { printf "%s: %s s wall, %s s CPU, peak anon %.0f MB = %.1f bytes/object (load %s)\n", l, $6, $8, $2 / 1048576, $2 / n, $10 }' "$W/t.err"
}
t "index the HPROF (info)" "$B/hprofkit" info "$W/big.hprof"
t "top on the HPROF" "$B/hprofkit" top "$W/big.hprof" -n 5
t "convert to heap graph" "$B/hprofkit" convert "$W/big.hprof" --to perfetto-heapgraph --trace "$W/hg.pftrace"
t "convert to embedded" "$B/hprofkit" convert "$W/big.hprof" --to perfetto-embedded --trace "$W/em.pftrace"
ls -l "$W"/*.pftrace | awk '{print $5, $9}'
t "open the heap graph (info)" "$B/hprofkit" info "$W/hg.pftrace"
t "top on the heap graph" "$B/hprofkit" top "$W/hg.pftrace" -n 5
t "open the embedded dump (info)" "$B/hprofkit" info "$W/em.pftrace"
