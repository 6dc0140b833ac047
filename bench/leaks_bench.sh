#!/usr/bin/env bash
# Leaks benchmark: `leaks` against `top` on the generated 1 GB Android dump of
# bench/index_bench.sh (the demo heap, whose destroyed Activity is a leak, plus filler).  Both
# index the dump and compute retained sizes; leaks also runs the finders, the leak path search
# and the inspectors.  Reports CPU time (user + sys, best of 3: steady on a shared machine).
# Usage: bench/leaks_bench.sh [SIZE_MB]
set -eu
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
. bench/lib.sh
bench_machine
gen=$work/big-${size_mb}.hprof
[ -s "$gen" ] || build-release/fixtures/genhprof --scenario big --size-mb "$size_mb" -o "$gen" >/dev/null 2>&1
cat "$gen" > /dev/null
cpu() {  # best CPU seconds of 3 runs of: hprofkit ARGS...
  local best=999999
  for i in 1 2 3; do
    /usr/bin/time -f "%U %S %e %M" -o "$work/time.txt" "$HK" "$@" > "$work/out.txt"
    read -r u s e kb < "$work/time.txt"
    c=$(awk -v u="$u" -v s="$s" 'BEGIN{print u+s}')
    if awk -v a="$c" -v b="$best" 'BEGIN{exit !(a<b)}'; then best=$c; wall=$e; rss=$kb; fi
  done
  echo "$best $wall $rss"
}
read -r top_cpu top_wall top_rss < <(cpu top "$gen" -n 20)
read -r leaks_cpu leaks_wall leaks_rss < <(cpu leaks "$gen" --json)
traces=$(jq '[.leaks[].count] | add // 0' "$work/out.txt")
echo "| dump | objects | top CPU | leaks CPU | ratio | leak traces | leaks peak RSS |"
echo "|---|---|---|---|---|---|---|"
awk -v t="$top_cpu" -v l="$leaks_cpu" -v n="$traces" -v r="$leaks_rss" -v o="$("$HK" info "$gen" --json | jq .objects)" \
  'BEGIN { printf "| generated %s MB | %d | %.2f s | %.2f s | %.2fx | %d | %.0f MB |\n", '"$size_mb"', o, t, l, l / t, n, r / 1024 }'
