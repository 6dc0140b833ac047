#!/usr/bin/env bash
# Perfetto traces: a generated Android dump converted to a heap-graph trace and to an
# embedded-HPROF trace, then each opened.  Prints wall and CPU seconds and peak RSS.
# Usage: bench/perfetto_bench.sh [SIZE_MB]   (default 256)
set -eu
SRC=$(cd "$(dirname "$0")/.." && pwd)
B="$SRC/build-release"
[ -x "$B/hprofkit" ] || { CC=gcc meson setup "$B" --buildtype=release >/dev/null; }
nice ninja -C "$B" >/dev/null
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
"$B/fixtures/genhprof" --scenario big --size-mb "${1:-256}" -o "$W/big.hprof" | tail -1
t() { local label=$1; shift; /usr/bin/time -f "$label: %e s wall, %U+%S s CPU, %M KB peak" "$@" >/dev/null; }
t "index the HPROF" "$B/hprofkit" info "$W/big.hprof"
t "convert to heap graph" "$B/hprofkit" convert "$W/big.hprof" --to perfetto-heapgraph -o "$W/hg.pftrace"
t "convert to embedded" "$B/hprofkit" convert "$W/big.hprof" --to perfetto-embedded -o "$W/em.pftrace"
ls -l "$W"/*.pftrace | awk '{print $5, $9}'
t "open the heap graph" "$B/hprofkit" info "$W/hg.pftrace"
t "open the embedded dump" "$B/hprofkit" info "$W/em.pftrace"
