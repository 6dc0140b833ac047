#!/usr/bin/env bash
# The shallow class histogram against VisualVM's heap library, in the same run, on the same
# dumps: `hprofkit run bench/shallow_histogram.lua` (open + index + per-class counts and bytes),
# `hprofkit histogram` (the same plus the heap graph's retained bytes) and VisualVM's
# HeapFactory.createHeap + JavaClass.getInstancesCount/getAllInstancesSize for every class (its
# .hwcache index deleted before each run, so each run builds its own).  Wall and CPU seconds
# (user + sys) of each whole process, best of RUNS (default 3) taken apart for wall and CPU, the
# load beside them, and the ratio VisualVM / shallow histogram.  Same answer: every class's
# instance count equals VisualVM's, but java.lang.Class, where hprofkit also counts each class's
# own class object (VisualVM's count + the dump's classes).  Needs Debian's visualvm.
# Dumps: the arguments, else the benchmark's HotSpot dumps, made once (bench/lib.sh): the
# app-shaped one (bench/AppHeap.java: 15.0 M objects, 662 MB) and IndexBig's (15.0 M, 607 MB).
# Usage: bench/visualvm_bench.sh [DUMP...]     (RUNS=N)
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${RUNS:-3}
tools/deps.sh --bench >/dev/null
jar=/usr/share/visualvm/visualvm/modules/org-graalvm-visualvm-lib-jfluid-heap.jar
[ -f "$jar" ] || { echo "visualvm_bench: $jar missing (apt-get install visualvm)" >&2; exit 1; }
. bench/lib.sh
bench_machine
[ $# -gt 0 ] || set -- "$(bench_app_dump 3000000)" "$(bench_hotspot_dump 3000000)"
W=$(mktemp -d /tmp/vvbench.XXXXXX)
trap 'rm -rf "$W"' EXIT
javac -nowarn -cp "$jar" -d "$W" bench/VisualVMHistogram.java

# best N LABEL CMD...: runs CMD N times (stdout to $W/out), one line per run on stderr; prints
# "best_wall best_cpu load_min-load_max"
best() {
  local n=$1 label=$2 bw=999999 bc=999999 lo=999 hi=0 e u s c l
  shift 2
  for _ in $(seq "$n"); do
    l=$(cut -d' ' -f1 /proc/loadavg)
    /usr/bin/time -f "%e %U %S" -o "$W/t" "$@" >"$W/out"
    read -r e u s <"$W/t"
    c=$(awk -v u="$u" -v s="$s" 'BEGIN{print u + s}')
    echo "  $label: wall $e s, cpu $c s, load $l; $(head -1 "$W/out")" >&2
    bw=$(awk -v a="$e" -v b="$bw" 'BEGIN{print (a < b ? a : b)}')
    bc=$(awk -v a="$c" -v b="$bc" 'BEGIN{print (a < b ? a : b)}')
    lo=$(awk -v a="$l" -v b="$lo" 'BEGIN{print (a < b ? a : b)}')
    hi=$(awk -v a="$l" -v b="$hi" 'BEGIN{print (a > b ? a : b)}')
  done
  echo "$bw $bc $lo-$hi"
}
# VisualVM on DUMP with no index of an earlier run (its .hwcache), and none left behind
vv=(bash -c 'rm -rf "$3.hwcache"; java -Xmx8g -cp "$1:$2" VisualVMHistogram "$3" "$2/vv.tsv"; r=$?; rm -rf "$3.hwcache"; exit $r' vv "$jar" "$W")

echo "| dump | objects | hprofkit shallow histogram: wall / CPU (load) | VisualVM open + histogram: wall / CPU (load) | wall ratio | CPU ratio | hprofkit histogram with retained bytes: wall / CPU | same counts |"
echo "|---|---|---|---|---|---|---|---|"
for f in "$@"; do
  cat "$f" >/dev/null
  echo "$(basename "$f"):" >&2
  read -r hw hc hl < <(HK_HIST_OUT="$W/hk.tsv" best "$runs" "hprofkit shallow histogram" "$HK" run bench/shallow_histogram.lua "$f")
  read -r rw rc _ < <(best "$runs" "hprofkit histogram" "$HK" histogram "$f" --json)
  read -r vw vc vl < <(best "$runs" "VisualVM" "${vv[@]}" "$f")
  nclasses=$("$HK" info "$f" --json | jq .classes)
  ck=$(awk -F'\t' -v nc="$nclasses" 'NR == FNR { v[$1] = $2; next }
    { h[$1] = $2 }
    END { bad = 0
      for (c in h) { want = c == "java.lang.Class" ? v[c] + nc : v[c]; if (h[c] != want) { bad++; if (bad < 4) printf "%s hprofkit %d VisualVM %d; ", c, h[c], v[c] } }
      for (c in v) if (!(c in h)) { bad++; if (bad < 4) printf "%s VisualVM only; ", c }
      if (bad) print bad " classes differ"; else print "all " length(h) " classes equal" }' "$W/vv.tsv" "$W/hk.tsv")
  objs=$("$HK" info "$f" --json | jq .objects)
  awk -v d="$(basename "$f") ($(du -m "$f" | cut -f1) MB)" -v o="$objs" -v hw="$hw" -v hc="$hc" -v hl="$hl" \
    -v vw="$vw" -v vc="$vc" -v vl="$vl" -v rw="$rw" -v rc="$rc" -v ck="$ck" 'BEGIN {
    printf "| %s | %.1f M | %.2f / %.2f s (%s) | %.2f / %.2f s (%s) | %.1fx | %.1fx | %.2f / %.2f s | %s |\n",
      d, o / 1e6, hw, hc, hl, vw, vc, vl, vw / hw, vc / hc, rw, rc, ck }'
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
