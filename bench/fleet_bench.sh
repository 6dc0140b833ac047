#!/usr/bin/env bash
# Fleet benchmark.  The map: FLEET_N (default 300) generated fleet dumps triaged by GNU parallel
# with one job per core; dumps per second per core = dumps / wall / jobs, and CPU seconds per
# dump.  The reduce: FACTS (default 100000) facts files made from the map's (new dump_sha256,
# versions, devices, routes, labels and leak sizes varied), then fleet-ingest of all of them in one
# run pinned to one core (target: 60 s of CPU) and fleet-report on the database (target: 5 s),
# by version and by route.  Then what a fleet pays per dump on real dumps: triage --json of each
# dump in ../shared/realdata/hprof and of the generated 1 GB dump (MAP_REAL=0 skips it).
# Usage: bench/fleet_bench.sh   (env: FLEET_N, FACTS, MAP_REAL, BENCH_DIR)
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
N=${FLEET_N:-300}
FACTS=${FACTS:-100000}
. bench/lib.sh
HK=$SRC/$HK
GEN=$SRC/build-release/fixtures/genhprof
big_dump=$([ "${MAP_REAL:-1}" = 1 ] && bench_generated_dump 1024 || true)
fleet=$work/fleet
rm -rf "$fleet" && mkdir -p "$fleet/dumps" "$fleet/facts"
cd "$fleet"
jobs=$(nproc)
bench_machine
cpu_of() { awk '{printf "%.2f", $2 + $3}' "$1"; }

t0=$(date +%s.%N)
for i in $(seq 0 $((N - 1))); do "$GEN" --scenario fleet --index "$i" -o "dumps/d$i.hprof" --expect "dumps/d$i.expect.json" >/dev/null 2>&1; done
t1=$(date +%s.%N)
/usr/bin/time -f "%e %U %S" -o map.time parallel --will-cite --halt now,fail=1 -j "$jobs" \
  "$HK" triage {} --json -o {.}.facts.json ::: dumps/*.hprof
read -r wall u s < map.time
bytes=$(du -cb dumps/*.hprof | tail -1 | cut -f1)
awk -v n="$N" -v g="$(echo "$t1 - $t0" | bc)" -v w="$wall" -v u="$u" -v s="$s" -v j="$jobs" -v b="$bytes" 'BEGIN {
  printf "map: %d dumps (%.0f KB each) generated in %.1f s; triaged by parallel -j %d in %.1f s wall, %.1f s CPU\n", n, b / n / 1024, g, j, w, u + s
  printf "     %.1f dumps/s, %.1f dumps/s per core, %.0f ms CPU per dump\n", n / w, n / w / j, (u + s) / n * 1000 }'

# the whole fleet's report against what the generator recorded it injected
"$HK" fleet-ingest fleet300.db dumps/*.facts.json >/dev/null
for by in version route; do
  "$HK" fleet-report fleet300.db --by "$by" --json -o "report300-$by.json"
  if python3 "$SRC/tests/fleet_check.py" "report300-$by.json" dumps/*.expect.json --by "$by"; then
    echo "check: the $N-dump fleet's report by $by (counts, P50/P75/P95, max, first/last seen, regressions) equals the generator's record"
  else
    echo "check: the $N-dump fleet's report by $by DIFFERS from the generator's record"
  fi
done

# FACTS facts files from the map's: each a different dump of a random one of them
python3 - "$FACTS" <<'PY'
import glob, hashlib, json, random, sys
n = int(sys.argv[1])
src = [json.load(open(p)) for p in sorted(glob.glob("dumps/*.facts.json"))]
rnd = random.Random(20)
versions = [("3.%d.0" % k, 300 + k) for k in range(12)]
routes = ["com.example.%sActivity" % r for r in ("Main", "Checkout", "Search", "Player", "Settings")] + [None]
for i in range(n):
    f = json.loads(json.dumps(src[i % len(src)]))
    f["dump_sha256"] = hashlib.sha256(b"fleet-bench %d" % i).hexdigest()
    f["app"]["version_name"], f["app"]["version_code"] = versions[i % len(versions)]
    f["origin"]["fingerprint"] += "/%d" % rnd.randrange(200)
    f["origin"]["timestamp"] += i * 1000
    f["route"]["activity"] = rnd.choice(routes)
    f["labels"] = {"farm": "farm-%d" % (i % 7)}
    for l in f["leaks"]["leaks"]:
        l["retained_bytes"] = int(l["retained_bytes"] * rnd.uniform(0.5, 2.0))
    json.dump(f, open("facts/f%06d.json" % i, "w"))
PY
# the file list through xargs (docs/fleet.md: more files than a command line holds), pinned to
# one core; time counts xargs's children, every fleet-ingest it ran
find facts -name '*.json' -print0 | sort -z |
  /usr/bin/time -f "%e %U %S" -o ingest.time xargs -0 taskset -c 0 "$HK" fleet-ingest fleet.db > ingest.out
echo "ingest: $(grep -c '^database:' ingest.out) fleet-ingest runs (xargs split the list)"
/usr/bin/time -f "%e %U %S" -o report.time "$HK" fleet-report fleet.db --json -o report.json
/usr/bin/time -f "%e %U %S" -o route.time "$HK" fleet-report fleet.db --by route --json -o route.json
/usr/bin/time -f "%e %U %S" -o html.time "$HK" fleet-report fleet.db --by version,route --report fleet.html > /dev/null
for t in ingest report route html; do
  read -r w u s < $t.time
  printf "%s: %.2f s wall, %.2f s CPU\n" "$t" "$w" "$(echo "$u + $s" | bc)"
done
echo "facts: $FACTS files, $(du -sb facts | cut -f1) bytes; database $(stat -c %s fleet.db) bytes, $(sqlite3 fleet.db 'SELECT count(*) FROM dumps') dumps; report: $(jq '.groups | length' report.json) groups, $(jq '.regressions | length' report.json) regressions; by route: $(jq '.routes | length' route.json) routes; fleet.html $(stat -c %s fleet.html) bytes"

# the map's cost per dump on real dumps: triage --json of each shared real dump (best of 5, CPU
# from getrusage: these take tens of ms), then of the generated 1 GB dump with -j 1 and the default
[ "${MAP_REAL:-1}" = 1 ] || exit 0
python3 - "$HK" "$SRC"/../shared/realdata/hprof/*.hprof <<'PY'
import os, resource, subprocess, sys, time
for d in sys.argv[2:]:
    cpu, wall = [], []
    for _ in range(5):
        a, t = resource.getrusage(resource.RUSAGE_CHILDREN), time.time()
        subprocess.run([sys.argv[1], "-j", "1", "triage", d, "--json", "-o", "real.json"], stderr=subprocess.DEVNULL, check=True)
        b = resource.getrusage(resource.RUSAGE_CHILDREN)
        wall.append(time.time() - t)
        cpu.append(b.ru_utime - a.ru_utime + b.ru_stime - a.ru_stime)
    print("map %s (%.1f MB) -j 1: best of 5 %.0f ms CPU, %.0f ms wall" % (os.path.basename(d), os.path.getsize(d) / 1048576, min(cpu) * 1000, min(wall) * 1000))
PY
for j in 1 "$jobs"; do
  /usr/bin/time -f "%e %U %S %M" -o real.time "$HK" -j "$j" triage "$big_dump" --json -o real.json
  read -r w u s m < real.time
  printf "map %s (%s MB) -j %d: %.2f s wall, %.2f s CPU, peak RSS %d MB\n" "$(basename "$big_dump")" \
    "$(awk -v b="$(stat -c %s "$big_dump")" 'BEGIN {printf "%.1f", b / 1048576}')" "$j" "$w" "$(echo "$u + $s" | bc)" $((m / 1024))
done
