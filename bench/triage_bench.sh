#!/usr/bin/env bash
# triage benchmark: CPU time (user + sys) of `triage --json --report` against `top` on the
# generated 1 GB dump of index_bench.sh (genhprof --scenario big), best of RUNS (default 5) each,
# the two commands alternating so both see the same load on a shared machine; prints the ratio
# of the bests and the report's size.  Usage: bench/triage_bench.sh [SIZE_MB [RUNS]]
set -eu
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
runs=${2:-5}
. bench/lib.sh
gen=$work/big-${size_mb}.hprof
[ -s "$gen" ] || build-release/fixtures/genhprof --scenario big --size-mb "$size_mb" -o "$gen" >/dev/null
bench_machine
cat "$gen" > /dev/null # page cache
cpu() {                # command...: prints user+sys seconds and peak RSS in MB
  /usr/bin/time -f "%U %S %M" -o "$work/time.txt" "$@" > /dev/null
  awk '{printf "%.2f %.0f\n", $1 + $2, $3 / 1024}' "$work/time.txt"
}
top_runs="" triage_runs=""
for i in $(seq "$runs"); do
  read -r t top_rss < <(cpu $HK top "$gen" --json)
  top_runs="$top_runs $t"
  read -r t triage_rss < <(cpu $HK triage "$gen" --json -o "$work/facts.json" --report "$work/report.html")
  triage_runs="$triage_runs $t"
done
best() { tr ' ' '\n' | grep . | sort -n | head -1; }
top_best=$(echo "$top_runs" | best)
triage_best=$(echo "$triage_runs" | best)
echo "top CPU s:$top_runs (best $top_best, peak RSS $top_rss MB)"
echo "triage --json --report CPU s:$triage_runs (best $triage_best, peak RSS $triage_rss MB)"
echo "ratio (best against best): $(awk -v a="$triage_best" -v b="$top_best" 'BEGIN {printf "%.2f", a / b}') x top (target: under 2)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "report: $(stat -c %s "$work/report.html") bytes; facts: $(stat -c %s "$work/facts.json") bytes"
