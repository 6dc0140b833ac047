#!/usr/bin/env bash
# The whole suite's wall time as CI sees it: `./test.sh` from a fresh clone of COMMIT (default
# HEAD) in a scratch folder (its build, its npm install, every test file), timed end to end,
# with the load before and after (the figure means something only on an idle machine: say the
# load beside it), each file's seconds sorted slowest first, and the files over 180 s.  Per the
# targets: the suite <= 15 min on this 2-core machine at idle, no file over 3 min.  The clone is
# removed afterwards unless KEEP=1; the log stays in /tmp (its path printed).
# Usage: bench/suite_time.sh [COMMIT [PATTERN]]   (PATTERN: only tests/t_*PATTERN*.sh, to try the
# script or time the build; HK_TEST_TIMEOUT and HK_TEST_JOBS pass through to tests/run)
set -u
cd "$(dirname "$0")/.."
commit=$(git rev-parse "${1:-HEAD}")
# the clone must sit beside this checkout so that ../shared resolves as in the tests
dir=$(mktemp -d "$(cd .. && pwd)/suite-time.XXXXXX")
log=$(mktemp /tmp/suite-time.XXXXXX.log)
[ "${KEEP:-}" = 1 ] || trap 'rm -rf "$dir"' EXIT
git clone -q --no-checkout . "$dir" && git -C "$dir" checkout -q "$commit" || exit 1
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB; date: $(date -u '+%F %H:%M UTC'); commit $(git rev-parse --short "$commit")${2:+; only t_*$2*}"
echo "log: $log"
echo "load before: $(cut -d' ' -f1-3 /proc/loadavg)"
start=$(date +%s)
(cd "$dir" && nice ./test.sh ${2:-}) >"$log" 2>&1
rc=$?
wall=$(($(date +%s) - start))
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "exit status $rc; $(tail -1 "$log")"
times >"$log.times"   # the CPU of all it ran: user and system seconds (the 2nd line)
printf 'wall: %d min %02d s (build and install included; the test files: %s); CPU %s s\n' $((wall / 60)) $((wall % 60)) \
  "$(sed -n 's/^# test files: //p' "$log")" \
  "$(awk 'NR == 2 { split($1, u, /[ms]/); split($2, y, /[ms]/); printf "%d", u[1] * 60 + u[2] + y[1] * 60 + y[2] }' "$log.times")"
# per file: wall seconds and CPU seconds (tests/run prints "(Ns, CPU Ms)")
grep -E '^# t_[a-z0-9_]+: ' "$log" | sed -E 's/^# (t_[a-z0-9_]+): .*\(([0-9]+)s, CPU ([0-9]+)s\)$/\2 \3 \1/' >"$log.files"
awk '{ w += $1; c += $2 } END { printf "test files: %d s of wall summed over files, %d s of CPU\n", w, c }' "$log.files"
echo "slowest files (wall, CPU):"
sort -rn "$log.files" | head -10 | awk '{printf "  %4d s %4d s %s%s\n", $1, $2, $3, ($1 > 180 ? "  (over 180 s)" : "")}'
if [ "$rc" -ne 0 ]; then
  echo "failures:"
  grep -E '^\[t_[a-z0-9_]+\] FAIL ' "$log" | cut -c1-200 | head -20
fi
exit "$rc"
