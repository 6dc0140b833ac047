#!/usr/bin/env bash
# Index benchmark: index a generated 1 GB Android dump and a real HotSpot dump
# of 15 million objects; report MB/s, objects/s, peak RSS and index bytes per object, the peak
# anonymous memory (RssAnon, sampled: the mapped dump's pages do not count) of the index alone
# (`info`) and with the graph (`top`: referrers, dominators, retained sizes), `top`'s wall and
# CPU time on 1 and 2 threads (-j); iterate every instance from Lua.
# Usage: bench/index_bench.sh [SIZE_MB] [HOTSPOT_ENTRIES]   (IndexBig.java's N: 3 objects per
# HashMap entry and 2 per LinkedList node, N of each)
set -eu
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
hs_objects=${2:-3000000}   # IndexBig N
tools/deps.sh --test
. bench/lib.sh
bench_machine

measure() {  # label file
  local label=$1 f=$2
  cat "$f" > /dev/null   # page cache
  # best of 3; CPU time (user+sys) is reported too, as it is steady on a shared machine
  local best=999999 rss=0 cpu=0
  for i in 1 2 3; do
    /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" $HK info "$f" --json > "$work/info.json"
    read -r secs kb u s < "$work/time.txt"
    if awk -v a="$secs" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$secs; rss=$kb; cpu=$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}'); fi
  done
  local bytes objects
  bytes=$(stat -c %s "$f")
  objects=$(jq .objects "$work/info.json")
  cat > "$work/stats.lua" <<'LUA'
local s = hk.open(arg.dump):index_stats()
print(string.format("%.2f", s.bytes_per_object), s.object_table_bytes, s.total_bytes)
LUA
  read -r bpo table total < <($HK run "$work/stats.lua" "$f")
  awk -v l="$label" -v s="$best" -v c="$cpu" -v b="$bytes" -v o="$objects" -v r="$rss" -v bpo="$bpo" 'BEGIN {
    printf "| %s | %.0f MB | %d | %.2f s (CPU %.2f s) | %.0f MB/s (CPU: %.0f MB/s) | %.2f M/s | %.0f MB | %s |\n",
      l, b/1e6, o, s, c, b/1e6/s, b/1e6/c, o/1e6/s, r/1024, bpo }' >> "$work/table1.md"
  # peak anonymous memory: the index alone, then with the graph, on 1 and 2 threads
  local ia ta1 ta2
  ia=$(bench/peak_anon.py $HK info "$f" 2>&1 >/dev/null | awk '/^peak_anon_bytes/ {print $2}')
  bench/peak_anon.py $HK -j 1 top "$f" -n 10 2> "$work/top1.txt" >/dev/null
  bench/peak_anon.py $HK -j 2 top "$f" -n 10 2> "$work/top2.txt" >/dev/null
  read -r _ ta1 _ _ _ w1 _ c1 _ l1 < <(grep '^peak_anon_bytes' "$work/top1.txt")
  read -r _ ta2 _ _ _ w2 _ c2 _ l2 < <(grep '^peak_anon_bytes' "$work/top2.txt")
  awk -v l="$label" -v o="$objects" -v ia="$ia" -v ta="$ta1" -v ta2="$ta2" -v w1="$w1" -v c1="$c1" -v w2="$w2" -v c2="$c2" -v l1="$l1" -v l2="$l2" 'BEGIN {
    printf "| %s | %.0f MB = %.1f B/object | %.0f MB = %.1f B/object (-j 2: %.1f) | %.2f s (CPU %.2f, load %s) | %.2f s (CPU %.2f, load %s) |\n",
      l, ia/1e6, ia/o, ta/1e6, ta/o, ta2/o, w1, c1, l1, w2, c2, l2 }' >> "$work/table2.md"
}
: > "$work/table1.md"
: > "$work/table2.md"

gen=$(bench_generated_dump "$size_mb")
measure "generated Android dump" "$gen"

hs=$(bench_hotspot_dump "$hs_objects")
[ -s "$hs" ] && measure "real HotSpot dump" "$hs"
echo "| dump | size | objects | index time | throughput | objects/s | peak RSS | index bytes/object |"
echo "|---|---|---|---|---|---|---|---|"
cat "$work/table1.md"
echo
echo "| dump | peak anon, index (info) | peak anon, index + graph (top) | top -j 1 wall | top -j 2 wall |"
echo "|---|---|---|---|---|"
cat "$work/table2.md"
echo

echo "Lua iteration (every instance of every class, one field read each):"
$HK run bench/iterate.lua "$hs"
$HK run bench/iterate.lua "$gen"
