#!/usr/bin/env bash
# The fuzz campaign off the suite: every libFuzzer target (tests/fuzz/targets.sh) for SECONDS
# each (default 600), starting from its corpus kept in the repo (tests/fuzz/campaign/NAME/) and
# the inputs that once crashed it; afterwards the corpus is minimised (libFuzzer -merge=1) and
# kept (over 5 MB, its smallest inputs up to 5 MB), crashes are copied to tests/fuzz/corpus-NAME/
# (the suite's fuzz tests run them as seeds: commit them with the fix), and one line per target
# goes to bench/RESULTS.md as each target ends: seconds, the CPU seconds it got (user + system),
# runs, crashes, coverage (edges, features), corpus files and bytes.
#   bench/fuzz_campaign.sh [SECONDS] [TARGET...]   (from the project's root, the ASan build in build/)
# One target at a time (libFuzzer uses one core), at the lowest priority: on a shared machine a
# CPU-hour per target takes more than an hour of SECONDS, which the CPU column says.
set -u
renice -n 19 $$ >/dev/null 2>&1   # the machine is shared
cd "$(dirname "$0")/.."
SRC=$PWD BUILD=$PWD/build HK=$PWD/build/hprofkit GEN=$PWD/build/fixtures/genhprof
export SRC BUILD HK GEN
[ -x "$HK" ] || { echo "fuzz_campaign: build the ASan tree first (./test.sh style)" >&2; exit 2; }
command -v clang >/dev/null || { echo "fuzz_campaign: clang is not installed" >&2; exit 2; }
. tests/fuzz/targets.sh
secs=${1:-600}; shift || true
targets=${*:-hprof hprof-structured map native deaths trace meminfo lua-api facts}
work=${FUZZ_DIR:-/tmp/hprofkit-fuzz}
mkdir -p "$work"
"$GEN" --scenario leaks -o "$work/api.hprof" >/dev/null 2>&1
export HK_FUZZ_DUMP=$work/api.hprof HK_FUZZ_TMP=$work
machine="$(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg), $(date -u '+%F %H:%M') UTC"
header_done=0
row() {   # one row of this run's table in RESULTS.md, the table's header before the first
  if [ $header_done == 0 ]; then
    header_done=1
    { printf '\n### `bench/fuzz_campaign.sh %s %s` (%s)\n\n' "$secs" "$targets" "$machine"
      echo "| target | time | CPU | runs | crashes | coverage | corpus kept |"
      echo "|---|---|---|---|---|---|---|"; } | tee -a bench/RESULTS.md
  fi
  echo "$1" | tee -a bench/RESULTS.md
}
TIMEFORMAT='%U %S'
for name in $targets; do
  bin=$work/fuzz_$name kept=tests/fuzz/campaign/$name run=$work/corpus-$name
  echo "== $name: building" >&2
  if ! fuzz_build "$name" "$bin" 2>"$work/build-$name.err"; then
    row "| $name | build failed: $(head -c 120 "$work/build-$name.err" | tr '\n|' '  ') | | | | | |"; continue
  fi
  rm -rf "$run" "$work/crashes-$name"; mkdir -p "$run" "$kept" "$work/crashes-$name"
  fuzz_seed "$name" "$run"
  cp "$kept"/* "$run"/ 2>/dev/null
  regress=tests/fuzz/corpus-$name; [ "${name%-structured}" == hprof ] && regress=tests/fuzz/corpus
  cp "$regress"/* "$run"/ 2>/dev/null
  # the structured target grows heap segments past the threaded index's cut size (1 MiB inputs)
  maxlen="-max_len=65536"; [ "$name" == hprof-structured ] && maxlen="-max_len=1048576 -len_control=0"
  echo "== $name: ${secs}s" >&2
  # shellcheck disable=SC2046
  { time (cd "$work/crashes-$name" && env $(fuzz_env "$name") "$bin" -max_total_time="$secs" $maxlen \
     -rss_limit_mb=2048 -timeout=60 -close_fd_mask=1 -print_final_stats=1 "$run" > "$work/fuzz-$name.log" 2>&1) ; } \
     2> "$work/cpu-$name"
  cpu=$(awk '{ printf "%d s", $1 + $2 }' "$work/cpu-$name")
  runs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$work/fuzz-$name.log" | grep -o '[0-9]*$')
  cov=$(grep -oE 'cov: [0-9]+ ft: [0-9]+' "$work/fuzz-$name.log" | tail -1)
  crashes=$(find "$work/crashes-$name" -maxdepth 1 -name 'crash-*' -o -maxdepth 1 -name 'leak-*' \
            -o -maxdepth 1 -name 'timeout-*' -o -maxdepth 1 -name 'oom-*' | wc -l)
  if [ "$crashes" -gt 0 ]; then mkdir -p "$regress"; cp "$work/crashes-$name"/* "$regress"/; fi
  # minimise: the smallest set of inputs with the same coverage, all of it kept if within 5 MB
  rm -rf "$work/min-$name"; mkdir -p "$work/min-$name"
  env $(fuzz_env "$name") "$bin" -merge=1 -close_fd_mask=1 "$work/min-$name" "$run" > "$work/merge-$name.log" 2>&1
  bytes=$(du -sb "$work/min-$name" | cut -f1); files=$(ls "$work/min-$name" | wc -l)
  if [ "$files" == 0 ]; then kept_note="the merge kept nothing (see $work/merge-$name.log): old corpus left"
  elif [ "$bytes" -le $((5 << 20)) ]; then rm -rf "$kept"; cp -r "$work/min-$name" "$kept"; kept_note="$files files, $((bytes / 1024)) KiB"
  else  # over the cap: the smallest inputs up to 5 MB (they reach the most features per byte)
    n=0 total=0; rm -rf "$kept"; mkdir -p "$kept"
    while read -r size f; do
      [ $((total + size)) -le $((5 << 20)) ] || break
      cp "$f" "$kept"/; n=$((n + 1)) total=$((total + size))
    done < <(find "$work/min-$name" -maxdepth 1 -type f -printf '%s %p\n' | sort -n)
    kept_note="$n of $files files, $((total / 1024)) of $((bytes / 1024)) KiB: the smallest up to 5 MB"
  fi
  row "| $name | ${secs} s | $cpu | ${runs:-?} | $crashes | ${cov:-?} | $kept_note |"
done
