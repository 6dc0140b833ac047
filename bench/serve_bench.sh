#!/usr/bin/env bash
# hprofkit serve on the generated 1 GB dump (genhprof --scenario big): p50/p95 latency of the API
# calls behind the object, class, instances, referrers and path pages; the overview against
# `triage --json`; peak RSS against `triage --report`'s; RSS over N (default 10,000) requests.
# Usage: bench/serve_bench.sh [SIZE_MB [N]]
set -eu
cd "$(dirname "$0")/.."
size_mb=${1:-1024}
n=${2:-10000}
. bench/lib.sh
gen=$(bench_generated_dump "$size_mb")
bench_machine
cat "$gen" > /dev/null # page cache
/usr/bin/time -f "%e %M" -o "$work/triage-json.time" $HK triage "$gen" --json > /dev/null
/usr/bin/time -f "%e %M" -o "$work/triage-report.time" $HK triage "$gen" --json -o /dev/null --report "$work/serve-report.html"
/usr/bin/time -f "%e %M" -o "$work/serve.time" $HK serve "$gen" > "$work/serve.out" 2> "$work/serve.err" &
tpid=$!
for _ in $(seq 6000); do grep -q http "$work/serve.out" 2>/dev/null && break; sleep 0.1; done
spid=$(pgrep -P $tpid)
trap 'kill -INT $spid 2>/dev/null || true' EXIT
url=$(grep -o 'http://[^ ]*' "$work/serve.out")
echo "serve: indexed and listening after $(ps -o etimes= -p "$spid" | tr -d ' ') s"
python3 bench/serve_client.py "$url" "$spid" "$n"
kill -INT "$spid"; wait $tpid || true
read -r tj_s tj_kb < "$work/triage-json.time"
read -r tr_s tr_kb < "$work/triage-report.time"
read -r _ sv_kb < "$work/serve.time"
echo "triage --json: $tj_s s wall; triage --report peak RSS $((tr_kb / 1024)) MB; serve peak RSS $((sv_kb / 1024)) MB" \
     "($(awk -v a="$sv_kb" -v b="$tr_kb" 'BEGIN {printf "%.2f", a / b}') x; target at most 1.1)"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
