#!/usr/bin/env bash
# The graph on one core and on two: `top`'s graph phases (references, referrers,
# reachability, dominators, retained sizes) plus `histogram`'s per-class retained bytes, timed
# by `graph_check bench` on -j 1 and -j 2 alternately, best of RUNS (default 5) each, with the
# load average beside every run; the -j 1 / -j 2 ratio of the best wall times; the estimate of
# the two-thread wall time from one thread's CPU time per parallel part (`--estimate 2`: does not
# depend on the load); and the peak anonymous memory (RssAnon, bench/peak_anon.py) of
# `hprofkit top` and `hprofkit histogram` on both -j, per object.
# Dumps: the generated 1 GB Android dump and the HotSpot IndexBig dump of bench/index_bench.sh
# (made here when missing, in $BENCH_DIR, default /tmp/hprofkit-bench), or the DUMPs given.
# Usage: bench/parallel_bench.sh [DUMP...]
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
runs=${RUNS:-5}
GC=build-release/tests/graph/graph_check
bench_machine
if [ $# -eq 0 ]; then
  set -- "$(bench_generated_dump 1024)" "$(bench_hotspot_dump 3000000)"
fi

phase_wall() {  # jobs dump -> "wall cpu"
  "$GC" bench "$2" -j "$1" | sed -n "s/^graph phases[^)]*) \([0-9.]*\) s (cpu \([0-9.]*\) s.*/\1 \2/p"
}

for f in "$@"; do
  [ -s "$f" ] || { echo "parallel_bench: no $f" >&2; continue; }
  cat "$f" > /dev/null   # page cache
  objects=$($HK info "$f" --json | jq .objects)
  echo "## $(basename "$f"): $objects objects"
  best1=999 best2=999
  for r in $(seq "$runs"); do
    for j in 1 2; do
      read -r w c < <(phase_wall $j "$f")
      echo "run $r -j $j: graph phases wall $w s, cpu $c s, load $(cut -d' ' -f1 /proc/loadavg)"
      if [ $j = 1 ]; then best1=$(awk -v a="$w" -v b="$best1" 'BEGIN{print a<b?a:b}')
      else best2=$(awk -v a="$w" -v b="$best2" 'BEGIN{print a<b?a:b}'); fi
    done
  done
  echo "best wall: -j 1 $best1 s, -j 2 $best2 s: $(awk -v a="$best1" -v b="$best2" 'BEGIN{printf "%.2f", a/b}')x"
  "$GC" bench "$f" --estimate 2 | grep '^graph phases' | sed 's/^/estimate from one thread: /'
  for cmd in top histogram; do
    for j in 1 2; do
      bench/peak_anon.py $HK -j $j $cmd "$f" > /dev/null 2> "$work/peak.txt"
      read -r _ peak _ _ _ w _ c _ l < <(grep '^peak_anon_bytes' "$work/peak.txt")
      echo "$cmd -j $j: peak anonymous $(awk -v p="$peak" -v o="$objects" 'BEGIN{printf "%.0f MB = %.1f B/object", p/1e6, p/o}'), wall $w s, cpu $c s, load $l"
    done
  done
done
