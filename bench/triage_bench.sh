#!/usr/bin/env bash
# triage benchmark: CPU time of `triage --json --report` against `top` on the
# generated 1 GB dump of index_bench.sh (genhprof --scenario big), three runs each, and the
# report's size.  Usage: bench/triage_bench.sh [SIZE_MB]
set -eu
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
. bench/lib.sh
gen=$work/big-${size_mb}.hprof
[ -s "$gen" ] || build-release/fixtures/genhprof --scenario big --size-mb "$size_mb" -o "$gen" >/dev/null
bench_machine
cat "$gen" > /dev/null   # page cache
cpu() {  # label command...: user+sys seconds of each of three runs
  local label=$1; shift
  local runs=""
  for i in 1 2 3; do
    /usr/bin/time -f "%U %S %M" -o "$work/time.txt" "$@" > /dev/null
    runs="$runs $(awk '{printf "%.2f", $1 + $2}' "$work/time.txt")"
  done
  echo "$label CPU s:$runs (peak RSS $(awk '{printf "%.0f MB", $3 / 1024}' "$work/time.txt"))"
}
cpu top $HK top "$gen" --json
cpu triage $HK triage "$gen" --json -o "$work/facts.json" --report "$work/report.html"
echo "report: $(stat -c %s "$work/report.html") bytes; facts: $(stat -c %s "$work/facts.json") bytes"
