#!/usr/bin/env bash
# hprofkit against hprof-slurp (../shared/peer/slurp: a multi-threaded Rust streaming analyzer,
# shallow histogram only) on the same HotSpot dump, in interleaved rounds (A B C A B C ...):
#   hist   hprofkit histogram DUMP -n 0 --json       (shallow and retained bytes per class)
#   lua    hprofkit run bench/shallow_histogram.lua   (the shallow histogram alone)
#   slurp  slurp.sh DUMP                             (hprof-slurp --top 1000000: every class)
# then per round the ratios hprofkit/slurp (wall and CPU), and their medians.
# Usage: bench/slurp_bench.sh [ROUNDS]   (default 5; each run under `nice`)
#   DUMP=FILE  the dump (default: bench/SlurpHeap.java with N = 6,000,000 in $BENCH_DIR: 15 M
#              objects, ~690 MB, made once, with the JVM's histogram beside it)
#   SLURP=BIN  hprof-slurp (default $SLURP_HOME/hprof-slurp; build it with
#              MIRROR=GITDIR ../shared/peer/slurp/build.sh, GITDIR from the `fetch` tool)
set -euo pipefail
cd "$(dirname "$0")/.."
. bench/lib.sh
peer=../shared/peer/slurp
rounds=${1:-5}
dump=${DUMP:-$(bench_slurp_dump 6000000)}
export SLURP=${SLURP:-${SLURP_HOME:-${TMPDIR:-/tmp}/hprof-slurp}/hprof-slurp}
[ -x "$SLURP" ] || { echo "slurp_bench: no hprof-slurp at $SLURP (see $peer/README.md)" >&2; exit 2; }
cat "$dump" > /dev/null
bench_machine
echo "dump: $dump ($(du -m "$dump" | cut -f1) MB, $($HK info "$dump" --json | jq .objects) objects); hprof-slurp: $("$SLURP" --version)"
python3 "$peer/bench.py" "$rounds" hist="nice $HK histogram $dump -n 0 --json" \
  lua="nice $HK run bench/shallow_histogram.lua $dump" slurp="nice $peer/slurp.sh $dump" | tee "$work/slurp_bench.tsv"
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
# paired ratios: each round's hprofkit run over the same round's slurp run
awk -F'\t' '
  $1 ~ /^[0-9]+$/ { w[$1, $2] = $3; c[$1, $2] = $4 + $5; if ($1 + 1 > n) n = $1 + 1 }
  function med(a, k,   i, j, t) { for (i = 1; i <= k; i++) for (j = i + 1; j <= k; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                   return k % 2 ? a[(k + 1) / 2] : (a[k / 2] + a[k / 2 + 1]) / 2 }
  END {
    split("hist lua", ls, " ")
    for (l = 1; l <= 2; l++) {
      delete rw; delete rc; line = ""
      for (r = 0; r < n; r++) { rw[r + 1] = w[r, ls[l]] / w[r, "slurp"]; rc[r + 1] = c[r, ls[l]] / c[r, "slurp"]; line = line sprintf(" %.2f", rw[r + 1]) }
      printf "%s/slurp: wall ratio median %.2fx (rounds:%s), CPU ratio median %.2fx\n", ls[l], med(rw, n), line, med(rc, n)
    }
  }' "$work/slurp_bench.tsv"
