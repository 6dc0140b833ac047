#!/usr/bin/env bash
# Fleet benchmark.  The map: FLEET_N (default 300) generated fleet dumps triaged by
# GNU parallel with one job per core; dumps per second per core = dumps / wall / jobs, and CPU
# seconds per dump.  The reduce: FACTS (default 10000) facts files made from the map's (new
# dump_sha256, versions, devices, labels and leak sizes varied), then fleet-ingest of all of
# them in one run and fleet-report on the database (wall and CPU).
# Usage: bench/fleet_bench.sh   (env: FLEET_N, FACTS, BENCH_DIR)
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
N=${FLEET_N:-300}
FACTS=${FACTS:-10000}
[ -d build-release ] || meson setup build-release --buildtype=release >/dev/null
ninja -C build-release >/dev/null
HK=$PWD/build-release/hprofkit
GEN=$PWD/build-release/fixtures/genhprof
work=${BENCH_DIR:-/tmp/hprofkit-fleet-bench}
rm -rf "$work" && mkdir -p "$work/dumps" "$work/facts"
cd "$work"
jobs=$(nproc)
echo "machine: $jobs cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB; date: $(date -u '+%F %H:%M UTC'); load: $(cut -d' ' -f1-3 /proc/loadavg)"

t0=$(date +%s.%N)
for i in $(seq 0 $((N - 1))); do "$GEN" --scenario fleet --index "$i" -o "dumps/d$i.hprof" --expect "dumps/d$i.expect" >/dev/null 2>&1; done
t1=$(date +%s.%N)
/usr/bin/time -f "%e %U %S" -o map.time parallel --will-cite --halt now,fail=1 -j "$jobs" \
  "$HK" triage {} --json -o {.}.json ::: dumps/*.hprof
read -r wall u s < map.time
bytes=$(du -cb dumps/*.hprof | tail -1 | cut -f1)
awk -v n="$N" -v g="$(echo "$t1 - $t0" | bc)" -v w="$wall" -v u="$u" -v s="$s" -v j="$jobs" -v b="$bytes" 'BEGIN {
  printf "map: %d dumps (%.0f KB each) generated in %.1f s; triaged by parallel -j %d in %.1f s wall, %.1f s CPU\n", n, b / n / 1024, g, j, w, u + s
  printf "     %.1f dumps/s, %.1f dumps/s per core, %.0f ms CPU per dump\n", n / w, n / w / j, (u + s) / n * 1000 }'

# the whole fleet's report against what the generator recorded it injected
"$HK" fleet-ingest fleet300.db dumps/*.json >/dev/null
"$HK" fleet-report fleet300.db --json -o report300.json
if python3 "$SRC/tests/fleet_check.py" report300.json dumps/*.expect; then
  echo "check: the $N-dump fleet's report (counts, P50/P75/P95, max, first/last seen, regressions) equals the generator's record"
else
  echo "check: the $N-dump fleet's report DIFFERS from the generator's record"
fi

# 10,000 facts files from the map's: each a different dump of a random one of them
python3 - "$FACTS" <<'PY'
import glob, hashlib, json, random, sys
n = int(sys.argv[1])
src = [json.load(open(p)) for p in sorted(glob.glob("dumps/*.json"))]
rnd = random.Random(20)
versions = [("3.%d.0" % k, 300 + k) for k in range(12)]
for i in range(n):
    f = json.loads(json.dumps(src[i % len(src)]))
    f["dump_sha256"] = hashlib.sha256(b"fleet-bench %d" % i).hexdigest()
    f["app"]["version_name"], f["app"]["version_code"] = versions[i % len(versions)]
    f["origin"]["fingerprint"] += "/%d" % rnd.randrange(200)
    f["origin"]["timestamp"] += i * 1000
    f["labels"] = {"farm": "farm-%d" % (i % 7)}
    for l in f["leaks"]["leaks"]:
        l["retained_bytes"] = int(l["retained_bytes"] * rnd.uniform(0.5, 2.0))
    json.dump(f, open("facts/f%05d.json" % i, "w"))
PY
/usr/bin/time -f "%e %U %S" -o ingest.time "$HK" fleet-ingest fleet.db facts/*.json > /dev/null
/usr/bin/time -f "%e %U %S" -o report.time "$HK" fleet-report fleet.db --json -o report.json
/usr/bin/time -f "%e %U %S" -o html.time "$HK" fleet-report fleet.db --report fleet.html > /dev/null
for t in ingest report html; do
  read -r w u s < $t.time
  printf "%s: %.2f s wall, %.2f s CPU\n" "$t" "$w" "$(echo "$u + $s" | bc)"
done
echo "facts: $FACTS files, $(du -sb facts | cut -f1) bytes; database $(stat -c %s fleet.db) bytes; report: $(jq '.groups | length' report.json) groups, $(jq '.regressions | length' report.json) regressions; fleet.html $(stat -c %s fleet.html) bytes"
