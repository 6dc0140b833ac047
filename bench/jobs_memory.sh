#!/usr/bin/env bash
# Memory of the jobs users run: peak anonymous memory (RssAnon sampled every 2 ms,
# bench/peak_anon.py: not the mapped dump's page cache) per object of the dump, for top,
# histogram, triage --report, leaks and diff (per object of both dumps) on the generated dump of
# SIZE_MB (default 1024: 23.5 M objects) and, for diff, a second one (another seed, a list grown
# by 10000 pages).  One run each (memory does not depend on the load; the wall and CPU beside it
# do).  Targets: top, histogram <= 30; triage <= 40; leaks <= 36; diff <= 40 B/object.
# Instead of SIZE_MB: `app`, the app-shaped HotSpot dump (bench/AppHeap.java, made once), or a
# DUMP file; then diff runs only against OTHER=DUMP2.
# Usage: bench/jobs_memory.sh [SIZE_MB | app | DUMP]      (JOBS="top leaks" for some of them)
set -eu
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
. bench/lib.sh
bench_machine
if [ "$size_mb" = app ]; then
  dump=$(bench_app_dump 3000000) other=${OTHER:-}
elif [ -f "$size_mb" ]; then
  dump=$size_mb other=${OTHER:-}
else
  dump=$(bench_generated_dump "$size_mb")
  other=$work/big-${size_mb}-seed1.hprof
  [ -s "$other" ] || build-release/fixtures/genhprof --scenario big --size-mb "$size_mb" --grow 10000 --seed 1 -o "$other" >/dev/null 2>&1
fi
od=$("$HK" info "$dump" --json | jq .objects)
oo=$([ -z "$other" ] || "$HK" info "$other" --json | jq .objects)
echo "dumps: $dump ($od objects)${other:+, $other ($oo objects)}"
echo "| job | peak anon | B/object | target | wall | CPU | load |"
echo "|---|---|---|---|---|---|---|"
job() { # NAME TARGET OBJECTS ARGS...: one run under peak_anon.py
  local name=$1 target=$2 n=$3
  shift 3
  cat "$dump" ${other:+"$other"} >/dev/null
  bench/peak_anon.py nice "$HK" "$@" >/dev/null 2>"$work/peak.txt" || { echo "| $name | failed: $(tail -1 "$work/peak.txt") |"; return; }
  read -r _ peak _ _ _ w _ c _ l < <(grep '^peak_anon_bytes' "$work/peak.txt")
  awk -v j="$name" -v p="$peak" -v n="$n" -v t="$target" -v w="$w" -v c="$c" -v l="$l" 'BEGIN {
    printf "| %s | %.0f MB | %.1f | <= %s | %.1f s | %.1f s | %s |\n", j, p / 1048576, p / n, t, w, c, l }'
}
for j in ${JOBS:-top histogram triage leaks diff}; do
  case $j in
  top) job "top -n 20" 30 "$od" top "$dump" -n 20 --json ;;
  histogram) job "histogram" 30 "$od" histogram "$dump" --json ;;
  triage) job "triage --report" 40 "$od" triage "$dump" --json -o "$work/facts.json" --report "$work/report.html" ;;
  leaks) job "leaks" 36 "$od" leaks "$dump" --json ;;
  diff) [ -z "$other" ] || job "diff (both dumps' objects)" 40 $((od + oo)) diff "$dump" "$other" --json ;;
  esac
done
