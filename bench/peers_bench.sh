#!/usr/bin/env bash
# Peers benchmark: two of hprofkit's jobs side by side with the tool a user would run instead,
# on the same dumps in one run, each checked for giving the same answer.
#  - Leaks: LeakCanary's Shark 2.7 (../shared/peer/shark: HeapAnalyzer with Android defaults,
#    FilteringLeakingObjectFinder over appLeakingObjectFilters, retained sizes on) against
#    `hprofkit leaks DUMP --json`, on the shared 2015 LeakCanary dump and a generated
#    Android-dialect dump (`genhprof --scenario leaks --objects N`, ~116 MB at the default N:
#    destroyed Activities, Services, Fragments, watched objects ... and N filler objects).
#    Same answer: every object Shark reports leaking is among hprofkit's, and hprofkit's others
#    come from its own finders, not Shark's (tests/shark_compare.py's candidates and
#    leaking-objects checks).
#  - Diff: ahat's baseline mode (bench/AhatDiff.java: ahat's Parser on both dumps as `ahat
#    --baseline` does, then Diff.snapshots) against `hprofkit diff BASE DUMP -n 0 --json`, on the
#    shared ahat pair (with its R8 map) and a generated pair (the leaks scenario at N and N*1.1).
#    Same answer: the per-class instance-count deltas, summed over heaps (ahat counts only
#    reachable objects: a class whose unreachable count changed differs, and is listed).
#  - Histogram: VisualVM's heap library (open + every class's count and size) against hprofkit's
#    shallow class histogram, through bench/visualvm_bench.sh on the benchmark's HotSpot dumps:
#    the app-shaped one (bench/AppHeap.java) and IndexBig's.  Same answer: every class's count.
# Times: wall and CPU (user + sys) of the whole process (JVM start included for the peers), best
# of RUNS (default 3) for hprofkit, best of PEER_RUNS (default 1: Shark takes minutes on a loaded
# machine) for the peers; the peer's own figure of its analysis beside it.  Ratio = peer / hprofkit.
# Usage: bench/peers_bench.sh     (LEAK_OBJECTS=N, RUNS=N, PEER_RUNS=N, AHAT_HEAP=10g: ahat's -Xmx,
# 4g runs out on the generated pair; SECTIONS="leaks diff histogram" or some; BENCH_DIR for the
# scratch)
set -eu
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
peer_runs=${PEER_RUNS:-1}
nobj=${LEAK_OBJECTS:-4000000}
. bench/lib.sh
bench_machine
SHARK=../shared/peer/shark AHAT=../shared/peer/ahat R=../shared/realdata/hprof
SHARK_CP="$SHARK/shark27-all.jar:$SHARK/harness27.jar:/usr/share/java/kotlin-stdlib.jar:/usr/share/java/okio.jar"
for f in "$SHARK/harness27.jar" "$AHAT/ahat.jar" /usr/share/java/kotlin-stdlib.jar /usr/share/java/okio.jar; do
  [ -f "$f" ] || { echo "peers_bench: $f is absent (apt-get install kotlin libokio-java)" >&2; exit 1; }
done
gen() { # NAME OBJECTS: the leaks scenario with OBJECTS filler objects, made once; prints its path
  local f=$work/leaks-$2.hprof
  [ -s "$f" ] || build-release/fixtures/genhprof --scenario leaks --objects "$2" -o "$f" >/dev/null 2>&1
  echo "$f"
}
mkdir -p "$work/ahat-classes"
javac -cp "$AHAT/ahat.jar" -d "$work/ahat-classes" bench/AhatDiff.java

# timed N OUT ERR CMD...: best wall of N runs of CMD (stdout to OUT, stderr to ERR); prints
# "wall cpu peak_rss_mb" of that run
timed() {
  local n=$1 out=$2 errf=$3 best="" line
  shift 3
  for _ in $(seq "$n"); do
    /usr/bin/time -f "%e %U %S %M" -o "$work/time.txt" "$@" >"$out" 2>"$errf"
    line=$(awk '{printf "%.2f %.2f %d", $1, $2 + $3, $4 / 1024}' "$work/time.txt")
    if [ -z "$best" ] || awk -v a="${line%% *}" -v b="${best%% *}" 'BEGIN{exit !(a < b)}'; then best=$line; fi
  done
  echo "$best"
}
row() { # LABEL PEER_TIMES HK_TIMES PEER_OWN CHECK: one table row with the ratios
  read -r pw pc pr <<<"$2"
  read -r hw hc hr <<<"$3"
  awk -v l="$1" -v pw="$pw" -v pc="$pc" -v pr="$pr" -v hw="$hw" -v hc="$hc" -v hr="$hr" -v own="$4" -v ck="$5" 'BEGIN {
    printf "| %s | %.2f s (CPU %.2f s, %d MB; own figure %s) | %.2f s (CPU %.2f s, %d MB) | %.1fx | %.1fx | %s |\n",
      l, pw, pc, pr, own, hw, hc, hr, pw / hw, pc / hc, ck }'
}

want() { [[ " ${SECTIONS:-leaks diff histogram} " == *" $1 "* ]]; }
if want leaks; then
echo
echo "Leaks: Shark 2.7 vs hprofkit leaks --json (peer runs $peer_runs, hprofkit best of $runs)"
echo "| dump | Shark: wall (CPU, peak RSS; its analysis) | hprofkit leaks: wall (CPU, peak RSS) | wall ratio | CPU ratio | same leaking objects |"
echo "|---|---|---|---|---|---|"
for dump in "$R/leakcanary-leak_service_binder.hprof" "$(gen leaks "$nobj")"; do
  base=$(basename "$dump" .hprof)
  cat "$dump" >/dev/null
  st=$(timed "$peer_runs" "$work/$base.shark" "$work/$base.shark.err" nice java -Xmx4g -cp "$SHARK_CP" SharkOracleKt "$dump" filter)
  if grep -q -E '^FAILURE|Exception' "$work/$base.shark" "$work/$base.shark.err"; then
    echo "| $base | Shark failed: $(grep -h -m1 -E 'FAILURE|Exception' "$work/$base.shark" "$work/$base.shark.err" | head -1) |"
    continue
  fi
  own=$(grep -o 'analysis [0-9]* ms' "$work/$base.shark" | awk '{printf "%.2f s", $2 / 1000}')
  ht=$(timed "$runs" "$work/$base.hk.json" "$work/$base.hk.err" nice "$HK" leaks "$dump" --json)
  "$HK" run tests/lua/leak_side.lua "$dump" >"$work/$base.side" 2>/dev/null
  ck=$(python3 tests/shark_compare.py "$work/$base.shark" "$work/$base.side" | grep -E '^(PASS|FAIL) (candidates|leaking-objects)' | cut -c1-120 | paste -sd' ')
  ns=$(grep -c '^-- trace' "$work/$base.shark" || true)
  nh=$(jq '[.leaks[].traces[]] | length' "$work/$base.hk.json")
  row "$base ($(du -m "$dump" | cut -f1) MB)" "$st" "$ht" "$own" "Shark $ns traces, hprofkit $nh; $ck"
done
fi
if want diff; then
echo
echo "Diff: ahat --baseline (parse both, Diff.snapshots) vs hprofkit diff -n 0 --json (index, retained sizes, matching, leaks and bitmaps of both)"
echo "| pair | ahat: wall (CPU, peak RSS; its parse+diff) | hprofkit diff: wall (CPU, peak RSS) | wall ratio | CPU ratio | per-class count deltas |"
echo "|---|---|---|---|---|---|"
pair() { # LABEL BASE DUMP [MAP]: MAP deobfuscates both dumps (ahat's --map and --baseline-map)
  local label=$1 base=$2 dump=$3 map=${4:-} at ht own ck
  cat "$base" "$dump" >/dev/null
  at=$(timed "$peer_runs" "$work/ahat.tsv" "$work/ahat.err" nice java -Xmx${AHAT_HEAP:-10g} -cp "$AHAT/ahat.jar:$work/ahat-classes" \
    com.android.ahat.heapdump.AhatDiff "$base" "$dump" $map $map)
  if grep -q Exception "$work/ahat.err"; then echo "| $label | ahat failed: $(grep -m1 Exception "$work/ahat.err") |"; return; fi
  own=$(grep -o '[0-9.]* s$' "$work/ahat.err" || echo "?")
  ht=$(timed "$runs" "$work/hkdiff.json" "$work/hkdiff.err" nice "$HK" diff "$base" "$dump" -n 0 --json ${map:+--map "$map" --base-map "$map"})
  awk -F'\t' '{d[$2] += $3 - $4} END {for (c in d) if (d[c] != 0) print c "\t" d[c]}' "$work/ahat.tsv" | sort >"$work/ahat.d"
  jq -r '.classes[] | select(.count_delta != 0) | [.class, .count_delta] | @tsv' "$work/hkdiff.json" | sort >"$work/hk.d"
  ck="$(comm -12 "$work/ahat.d" "$work/hk.d" | wc -l) classes changed alike"
  if ! cmp -s "$work/ahat.d" "$work/hk.d"; then
    ck="$ck; differ: $(diff "$work/ahat.d" "$work/hk.d" | grep '^[<>]' | sed 's/^</ahat/;s/^>/hprofkit/' | tr '\t' ' ' | paste -sd';')"
  fi
  row "$label" "$at" "$ht" "$own" "$ck"
}
pair "ahat test pair (base, dump)" "$R/aosp-art-ahat-test-dump-base.hprof" "$R/aosp-art-ahat-test-dump.hprof" \
  "$R/aosp-art-ahat-test-dump.map"
big_base=$(gen leaks "$nobj")
big_dump=$(gen leaks $((nobj * 11 / 10)))
pair "generated leaks $(du -m "$big_base" | cut -f1) MB, $(du -m "$big_dump" | cut -f1) MB" "$big_base" "$big_dump"
fi
if want histogram; then
  echo
  echo "Histogram: VisualVM 2.1.5's heap library vs hprofkit's shallow class histogram (best of $runs each)"
  RUNS=$runs bench/visualvm_bench.sh | grep -v -e '^machine' -e '^load after'
fi
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
