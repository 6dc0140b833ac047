#!/usr/bin/env bash
# Diff benchmark: two generated dumps of the index benchmark's size (`genhprof --scenario
# big`): "sizes", BASE of SIZE_MB - 24 and DUMP of SIZE_MB with a list grown by 10000 pages (the
# same app later: most of the heap is the same); "seeds", both of SIZE_MB, DUMP with another seed
# (its filler trees differ: most of the heap is added and removed) and the grown list.  CPU time
# (user + sys) of `hprofkit diff BASE DUMP` against `hprofkit top DUMP` (index + dominators of
# one dump), best of 3 each.  Usage: bench/diff_bench.sh [SIZE_MB]
set -eu
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
tools/deps.sh --test >/dev/null
[ -d build-release ] || meson setup build-release --buildtype=release >/dev/null
ninja -C build-release >/dev/null
HK=build-release/hprofkit
work=${BENCH_DIR:-/tmp/hprofkit-diff-bench}
mkdir -p "$work"
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB; load $(cut -d' ' -f1 /proc/loadavg); date: $(date -u +%F)"
dump=$work/dump-${size_mb}.hprof
[ -s "$dump" ] || build-release/fixtures/genhprof --scenario big --size-mb "$size_mb" --grow 10000 -o "$dump" 2>/dev/null
sizes=$work/base-$((size_mb - 24)).hprof
[ -s "$sizes" ] || build-release/fixtures/genhprof --scenario big --size-mb $((size_mb - 24)) --grow 0 -o "$sizes" 2>/dev/null
seeds=$work/seed1-${size_mb}.hprof
[ -s "$seeds" ] || build-release/fixtures/genhprof --scenario big --size-mb "$size_mb" --seed 1 --grow 0 -o "$seeds" 2>/dev/null

best() {  # command...: best of 3 by CPU time; prints "cpu wall rss_mb"
  local bc=999999 bw=0 br=0
  for i in 1 2 3; do
    cat "$@" > /dev/null 2>&1 || true   # the dumps in the page cache
    /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" $HK "$@" > "$work/out.txt"
    read -r w kb u s < "$work/time.txt"
    local c; c=$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')
    if awk -v a="$c" -v b="$bc" 'BEGIN{exit !(a<b)}'; then bc=$c; bw=$w; br=$((kb / 1024)); fi
  done
  echo "$bc $bw $br"
}
read -r tc tw tr < <(best top "$dump" -n 10)
echo "| pair | objects (base, dump) | top DUMP: CPU (wall), peak RSS | diff BASE DUMP: CPU (wall), peak RSS | diff / top (CPU) | top grower |"
echo "|---|---|---|---|---|---|"
for pair in sizes seeds; do
  base=${!pair}
  read -r dc dw dr < <(best diff "$base" "$dump" -n 10)
  top_grower=$($HK diff "$base" "$dump" -n 1 --no-bitmaps --json | jq -r .summary.top_grower)
  ob=$($HK info "$base" --json | jq .objects); od=$($HK info "$dump" --json | jq .objects)
  awk -v p="$pair" -v ob="$ob" -v od="$od" -v tc="$tc" -v tw="$tw" -v tr="$tr" -v dc="$dc" -v dw="$dw" -v dr="$dr" -v g="$top_grower" 'BEGIN {
    printf "| %s | %d, %d | %.2f s (%.2f s), %d MB | %.2f s (%.2f s), %d MB | %.2f | %s |\n", p, ob, od, tc, tw, tr, dc, dw, dr, dc / tc, g }'
done
