#!/usr/bin/env bash
# Diff benchmark: two generated dumps of the index benchmark's size (`genhprof --scenario
# big`): "sizes", BASE of SIZE_MB - 24 and DUMP of SIZE_MB with a list grown by 10000 pages (the
# same app later: most of the heap is the same); "seeds", both of SIZE_MB, DUMP with another seed
# (its filler trees differ: most of the heap is added and removed) and the grown list.  CPU time
# (user + sys) of `hprofkit diff BASE DUMP -n 10` against `hprofkit top DUMP -n 10` (index +
# dominators of one dump), run alternately (top, diff sizes, diff seeds, top, ...) so that both
# see the same load on a shared machine; best of RUNS (default 5) each, and the ratio per pair.
# Usage: bench/diff_bench.sh [SIZE_MB]    (RUNS=3 for fewer rounds; DIFF_ARGS="--no-leaks" ...)
set -eu
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
runs=${RUNS:-5}
tools/deps.sh --test >/dev/null
. bench/lib.sh
bench_machine
dump=$work/dump-${size_mb}.hprof
[ -s "$dump" ] || build-release/fixtures/genhprof --scenario big --size-mb "$size_mb" --grow 10000 -o "$dump" 2>/dev/null
sizes=$work/base-$((size_mb - 24)).hprof
[ -s "$sizes" ] || build-release/fixtures/genhprof --scenario big --size-mb $((size_mb - 24)) --grow 0 -o "$sizes" 2>/dev/null
seeds=$work/seed1-${size_mb}.hprof
[ -s "$seeds" ] || build-release/fixtures/genhprof --scenario big --size-mb "$size_mb" --seed 1 --grow 0 -o "$seeds" 2>/dev/null
cat "$dump" "$sizes" "$seeds" > /dev/null # the dumps in the page cache

run() { # label command...: one run; appends "label cpu wall rss_mb" to $work/runs.txt
  local label=$1
  shift
  /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$HK" "$@" > /dev/null
  read -r w kb u s < "$work/time.txt"
  echo "$label $(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}') $w $((kb / 1024))" >> "$work/runs.txt"
}
: > "$work/runs.txt"
for i in $(seq "$runs"); do
  run top top "$dump" -n 10
  run sizes diff "$sizes" "$dump" -n 10 ${DIFF_ARGS:-}
  run seeds diff "$seeds" "$dump" -n 10 ${DIFF_ARGS:-}
done
echo "CPU s per run (top sizes seeds, in run order): $(awk '{printf "%s%.2f", (NR > 1 ? " " : ""), $2}' "$work/runs.txt")"
best() { # label: "cpu wall rss_mb" of the run with the least CPU
  awk -v l="$1" '$1 == l && (!n++ || $2 < c) {c = $2; w = $3; r = $4} END {print c, w, r}' "$work/runs.txt"
}
read -r tc tw tr < <(best top)
echo "| pair | objects (base, dump) | top DUMP: CPU (wall), peak RSS | diff BASE DUMP: CPU (wall), peak RSS | diff / top (CPU) | top grower |"
echo "|---|---|---|---|---|---|"
for pair in sizes seeds; do
  base=${!pair}
  read -r dc dw dr < <(best "$pair")
  top_grower=$($HK diff "$base" "$dump" -n 1 --no-bitmaps --no-leaks --json | jq -r .summary.top_grower)
  ob=$($HK info "$base" --json | jq .objects)
  od=$($HK info "$dump" --json | jq .objects)
  awk -v p="$pair" -v ob="$ob" -v od="$od" -v tc="$tc" -v tw="$tw" -v tr="$tr" -v dc="$dc" -v dw="$dw" -v dr="$dr" -v g="$top_grower" 'BEGIN {
    printf "| %s | %d, %d | %.2f s (%.2f s), %d MB | %.2f s (%.2f s), %d MB | %.2f | %s |\n", p, ob, od, tc, tw, tr, dc, dw, dr, dc / tc, g }'
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
