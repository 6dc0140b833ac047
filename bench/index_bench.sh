#!/usr/bin/env bash
# Index benchmark: index a generated 1 GB Android dump and a real HotSpot dump
# of 15 million objects; report MB/s, objects/s, peak RSS and index bytes per object, the peak
# anonymous memory (RssAnon, sampled: the mapped dump's pages do not count) of the index alone
# (`info`) and with the graph (`top`: referrers, dominators, retained sizes), `top`'s wall and
# CPU time on 1 and 2 threads (-j), the index alone (`info`) on 1 and 2 threads; iterate every
# instance from Lua.
# Usage: bench/index_bench.sh [SIZE_MB] [HOTSPOT_ENTRIES]   (IndexBig.java's N: 3 objects per
# HashMap entry and 2 per LinkedList node, N of each)
set -eu
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
hs_objects=${2:-3000000}   # IndexBig N
tools/deps.sh --test
. bench/lib.sh
bench_machine

# best_index FILE: `info` with -j 1 and -j 2 alternately, best of 3 each: "w1 c1 w2 c2"
best_index() {
  local f=$1 j i w u s bw1=999 bc1=999 bw2=999 bc2=999
  for i in 1 2 3; do
    for j in 1 2; do
      /usr/bin/time -f "%e %U %S" -o "$work/time.txt" $HK -j $j info "$1" --json > /dev/null
      read -r w u s < "$work/time.txt"
      if [ $j = 1 ]; then
        read -r bw1 bc1 < <(awk -v w="$w" -v c="$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')" -v bw="$bw1" -v bc="$bc1" 'BEGIN{print (w<bw?w:bw), (c<bc?c:bc)}')
      else
        read -r bw2 bc2 < <(awk -v w="$w" -v c="$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')" -v bw="$bw2" -v bc="$bc2" 'BEGIN{print (w<bw?w:bw), (c<bc?c:bc)}')
      fi
    done
  done
  echo "$bw1 $bc1 $bw2 $bc2"
}

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
  # the index alone on 1 and 2 threads
  read -r iw1 ic1 iw2 ic2 < <(best_index "$f")
  awk -v l="$label" -v w1="$iw1" -v c1="$ic1" -v w2="$iw2" -v c2="$ic2" -v ld="$(cut -d' ' -f1 /proc/loadavg)" 'BEGIN {
    printf "| %s | %.2f s (CPU %.2f) | %.2f s (CPU %.2f) | %.2f× | %s |\n", l, w1, c1, w2, c2, w1/w2, ld }' >> "$work/table3.md"
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
: > "$work/table3.md"

gen=$(bench_generated_dump "$size_mb")
measure "generated Android dump" "$gen"

hs=$(bench_hotspot_dump "$hs_objects")
[ -s "$hs" ] && measure "real HotSpot dump" "$hs"
echo "| dump | size | objects | index time | throughput | objects/s | peak RSS | index bytes/object |"
echo "|---|---|---|---|---|---|---|---|"
cat "$work/table1.md"
echo
echo "| dump | index (info) -j 1, best of 3 | index -j 2, best of 3 | -j 1 / -j 2 | load |"
echo "|---|---|---|---|---|"
cat "$work/table3.md"
echo
echo "| dump | peak anon, index (info) | peak anon, index + graph (top) | top -j 1 wall | top -j 2 wall |"
echo "|---|---|---|---|---|"
cat "$work/table2.md"
echo

echo "Lua iteration (every instance of every class, one field read each):"
$HK run bench/iterate.lua "$hs"
$HK run bench/iterate.lua "$gen"
