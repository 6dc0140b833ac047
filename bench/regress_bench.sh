#!/usr/bin/env bash
# Did a change make the common work slower?  Runs the same commands with two builds, alternately,
# on the generated 1 GB dump (index_bench.sh's), and prints CPU time (user+sys), best of N, of each
# with the ratio new/old: indexing (`info`), the shallow histogram, `top` (the heap graph), Lua
# iteration (bench/iterate.lua), and with JOBS=1 the jobs of bench/jobs_memory.sh too (histogram
# with retained sizes, leaks, triage with the report).  A ratio above 1.10 is a regression.
# Usage: bench/regress_bench.sh OLD_HPROFKIT [RUNS]   (the new build is this tree's release build)
set -eu
cd "$(dirname "$0")/.."
old=${1:?usage: bench/regress_bench.sh OLD_HPROFKIT [RUNS]}
runs=${2:-5}
. bench/lib.sh
bench_machine
dump=$work/big-1024.hprof
[ -f "$dump" ] || build-release/fixtures/genhprof --scenario big --size-mb 1024 -o "$dump" >/dev/null
cat "$dump" >/dev/null
cpu() {  # HK ARGS...: CPU seconds of one run
  local hk=$1; shift
  /usr/bin/time -f "%U %S" -o "$work/regress.time" "$hk" "$@" >/dev/null 2>&1
  awk '{print $1 + $2}' "$work/regress.time"
}
printf '| work | old CPU s | new CPU s | new/old |\n|---|---|---|---|\n'
while IFS='|' read -r label args; do
  [ -n "$label" ] || continue
  bo=999 bn=999
  for _ in $(seq "$runs"); do
    # shellcheck disable=SC2086
    o=$(cpu "$old" $args); n=$(cpu "$HK" $args)
    bo=$(awk -v a="$o" -v b="$bo" 'BEGIN{print a < b ? a : b}')
    bn=$(awk -v a="$n" -v b="$bn" 'BEGIN{print a < b ? a : b}')
  done
  awk -v l="$label" -v o="$bo" -v n="$bn" 'BEGIN{printf "| %s | %.2f | %.2f | %.3f |\n", l, o, n, n / o}'
done <<LIST
$(if [ -n "${JOBS:-}" ]; then printf '%s\n' "histogram (retained)|histogram $dump --json" "leaks|leaks $dump --json" \
  "triage --report|triage $dump --json -o $work/regress-facts.json --report $work/regress-report.html"; fi)
index (info)|info $dump --json
shallow histogram|run bench/shallow_histogram.lua $dump
top (graph, -j 1)|top $dump -n 20 -j 1 --json
top (graph, -j 2)|top $dump -n 20 -j 2 --json
Lua iteration|run bench/iterate.lua $dump
LIST
