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
cpu() {                # command...: prints user+sys seconds, peak RSS in MB and wall seconds
  /usr/bin/time -f "%U %S %M %e" -o "$work/time.txt" "$@" > /dev/null
  awk '{printf "%.2f %.0f %.2f\n", $1 + $2, $3 / 1024, $4}' "$work/time.txt"
}
top_runs="" triage_runs="" top_walls="" triage_walls=""
for i in $(seq "$runs"); do
  read -r t top_rss w < <(cpu $HK top "$gen" --json)
  top_runs="$top_runs $t" top_walls="$top_walls $w"
  read -r t triage_rss w < <(cpu $HK triage "$gen" --json -o "$work/facts.json" --report "$work/report.html")
  triage_runs="$triage_runs $t" triage_walls="$triage_walls $w"
done
best() { tr ' ' '\n' | grep . | sort -n | head -1; }
top_best=$(echo "$top_runs" | best)
triage_best=$(echo "$triage_runs" | best)
echo "top CPU s:$top_runs (best $top_best, peak RSS $top_rss MB); wall s:$top_walls (best $(echo "$top_walls" | best))"
echo "triage --json --report CPU s:$triage_runs (best $triage_best, peak RSS $triage_rss MB); wall s:$triage_walls (best $(echo "$triage_walls" | best))"
echo "ratio (best against best): $(awk -v a="$triage_best" -v b="$top_best" 'BEGIN {printf "%.2f", a / b}') x top (target: 1.8)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "report: $(stat -c %s "$work/report.html") bytes; facts: $(stat -c %s "$work/facts.json") bytes"
