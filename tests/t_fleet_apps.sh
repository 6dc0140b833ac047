#!/usr/bin/env bash
# The fleet database, one app at a time: a database of two apps is listed, not mixed; --app picks
# one (ingest and report); a version 1 database the old build wrote (tests/fleet/fleet-db-v1.sql,
# loaded with sqlite3) is migrated and keeps working; hprofkit-triage/1 facts are still read; a
# kill in the middle of an ingest leaves a whole database that a re-run completes; dumps of the
# map's list without facts are named as failed.
. "$SRC/tests/lib.sh"
command -v sqlite3 >/dev/null || { skip fleet_apps "sqlite3 is not installed (tools/deps.sh --test)"; exit 0; }

# two versions of the generated app (BuildConfig) and, when ../shared is there, the real
# LeakCanary sample app (com.example.leakcanary): the issue's mix of two apps in one database
for i in 0 1 2; do "$GEN" --scenario fleet --index "$i" -o "d$i.hprof" >/dev/null 2>&1; done
for i in 0 1 2; do "$HK" triage "d$i.hprof" --json -o "d$i.json"; done
real=$REALDATA/hprof/leakcanary-leak_service_binder.hprof
other=com.example.leakcanary
if [ -f "$real" ]; then "$HK" triage "$real" --json -o lc.json
else   # the same facts under another package: still two apps
  other=com.example.other
  jq '.dump_sha256 = ("f" * 64) | .app.package = "com.example.other"' d2.json > lc.json
fi

"$HK" fleet-ingest two.db d0.json d1.json lc.json >/dev/null
"$HK" fleet-report two.db >two.out 2>two.err
eq fleet_apps_listed "$?:$(cat two.err)" "2:hprofkit fleet-report: two.db holds 2 apps: com.example.fleet (2 dumps), $other (1 dump); versions compare only within one app: choose it with --app PACKAGE"
eq fleet_apps_no_output "$(wc -c < two.out)" 0
"$HK" fleet-report two.db --app com.example.fleet --json -o fleet.json
eq fleet_app_picked "$(jq -c '[.app, .dumps, [.versions[].version], [.regressions[] | .version]]' fleet.json)" \
  '["com.example.fleet",2,["1.9.2","1.10.0"],[]]'
"$HK" fleet-report two.db --app "$other" --json -o other.json
eq fleet_app_other "$(jq -c '[.app, .dumps, (.regressions | length)]' other.json)" "[\"$other\",1,0]"
err fleet_app_unknown "two.db has no dumps of com.nope; holds 2 apps" "$HK" fleet-report two.db --app com.nope
# ingest --app: the other app's facts are named and skipped
"$HK" fleet-ingest one.db d0.json lc.json --app com.example.fleet --json -o one.json 2>one.err
eq fleet_ingest_app "$(jq -c '[.ingested, .skipped]' one.json):$(cat one.err)" \
  "[1,1]:hprofkit fleet-ingest: skipped lc.json: is of app $other, not com.example.fleet"
"$HK" fleet-ingest one.db lc.json --app com.example.fleet --strict >/dev/null 2>&1
eq fleet_ingest_app_strict "$?" 1

# a database the old build wrote (version 1, no route): migrated on open, the old rows kept,
# new facts added, a /2 re-ingest of a dump the old build stored fills in its route
sqlite3 old.db < "$SRC/tests/fleet/fleet-db-v1.sql"
"$HK" fleet-ingest old.db d0.json d2.json --json -o mig.json
eq fleet_migrated "$(sqlite3 old.db "SELECT value FROM meta WHERE key = 'fleet_db'; PRAGMA integrity_check")" "$(printf '2\nok')"
eq fleet_migrated_counts "$(jq -c '[.ingested, .already_present, .dumps_in_database]' mig.json)" '[1,1,4]'
eq fleet_migrated_routes "$(sqlite3 old.db "SELECT quote(route) FROM dumps WHERE package = 'com.example.fleet' ORDER BY version_code" | tr '\n' ' ')" \
  "'com.example.MainActivity' NULL 'com.example.CheckoutActivity' "
"$HK" fleet-report old.db --app com.example.fleet --by route --json -o mroute.json
eq fleet_migrated_report "$(jq -c '[.dumps, [.routes[] | [.route, .dumps]]]' mroute.json)" \
  '[3,[["(unknown)",1],["com.example.CheckoutActivity",1],["com.example.MainActivity",1]]]'
"$HK" fleet-report old.db --app com.example.fleet --by route --report routes.html >/dev/null
if grep -q '<b>app</b> com.example.fleet' routes.html && grep -q 'id="routes"' routes.html &&
   grep -q '<td>com.example.CheckoutActivity</td>' routes.html && grep -q 'href="#routes"' routes.html; then
  pass fleet_routes_html; else fail fleet_routes_html "routes.html lacks the app or the routes section"; fi
# a current database on a read-only file system is reported from (nothing is written)
mkdir -p ro && cp old.db ro/
if unshare --mount --propagation private true 2>/dev/null; then
  got=$(unshare --mount --propagation private sh -c 'mount --bind -o ro ro ro && touch ro/x 2>/dev/null; "$0" fleet-report ro/old.db --app com.example.fleet --json' "$HK" | jq -c '[.app, .dumps]')
  eq fleet_read_only_db "$got:$(ls ro)" '["com.example.fleet",3]:old.db'
else
  skip fleet_read_only_db "no mount namespace here to make a read-only folder"
fi
sqlite3 new.db "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT); INSERT INTO meta VALUES ('fleet_db', '3')"
err fleet_db_newer "new.db: a fleet database of version 3, this hprofkit reads 2" "$HK" fleet-ingest new.db d0.json

# hprofkit-triage/1 facts (the same without route) are read; their route is unknown
jq 'del(.route) | .schema = "hprofkit-triage/1"' d1.json > v1facts.json
"$HK" fleet-ingest v1.db v1facts.json d0.json --json -o v1.json
eq fleet_v1_facts "$(jq -c '[.ingested, .skipped]' v1.json):$(sqlite3 v1.db "SELECT quote(route) FROM dumps ORDER BY version_code" | tr '\n' ' ')" \
  "[2,0]:'com.example.MainActivity' NULL "
jq '.schema = "hprofkit-triage/3"' d1.json > v3facts.json
"$HK" fleet-ingest v1.db v3facts.json 2>v3.err >/dev/null
eq fleet_other_schema "$(cat v3.err)" "hprofkit fleet-ingest: skipped v3facts.json: has schema 'hprofkit-triage/3', not hprofkit-triage/1 or /2"

# a truncated file, one that is not JSON, an empty one: each named with its reason
echo '{"schema": "hprofkit-triage/2", "dump_sha' > cut.json
echo 'hello' > hello.json
: > empty.json
"$HK" fleet-ingest bad.db cut.json hello.json empty.json d0.json --json -o bad.json 2>bad.err
eq fleet_bad_files "$(jq -c '[.ingested, .skipped]' bad.json):$(cat bad.err)" "[1,3]:hprofkit fleet-ingest: skipped cut.json: is not JSON (invalid JSON at byte 42: unterminated string)
hprofkit fleet-ingest: skipped hello.json: is not JSON (invalid JSON at byte 0: value expected)
hprofkit fleet-ingest: skipped empty.json: is empty"

# --dumps: the map's list; a dump without facts (its job failed) is named, the others ingested
printf 'd0.hprof\nd1.hprof\nlost.hprof\n' > list.txt
"$HK" fleet-ingest failed.db d0.json d1.json --dumps list.txt --json -o failed.json 2>failed.err
eq fleet_failed_dump "$?:$(jq -c '[.ingested, .failed, .failed_dumps]' failed.json):$(cat failed.err)" \
  '0:[2,1,[{"dump":"lost.hprof","why":"no facts (its map job failed or did not run)"}]]:hprofkit fleet-ingest: failed lost.hprof: no facts (its map job failed or did not run)'
"$HK" fleet-ingest failed.db d0.json --dumps list.txt --strict >/dev/null 2>&1
eq fleet_failed_strict "$?" 1

# killed in the middle of an ingest: the database stays whole, a re-run completes
python3 - d0.json <<'PY'
import json, sys
f = json.load(open(sys.argv[1]))
keep = {k: f[k] for k in ("schema", "labels", "origin", "app", "route", "totals", "leaks", "bitmaps",
                          "duplicate_strings", "duplicate_arrays")}
for i in range(4000):
    keep["dump_sha256"] = "%064x" % (i + 1)
    json.dump(keep, open("k%04d.json" % i, "w"))
PY
"$HK" fleet-ingest kill.db k*.json >/dev/null 2>&1 &
pid=$!
n=0
for _ in $(seq 200); do   # until the first 1000 files are committed (at most 20 s)
  n=$(sqlite3 -cmd ".timeout 2000" kill.db "SELECT count(*) FROM dumps" 2>/dev/null || echo 0)
  [ "${n:-0}" -ge 1000 ] && break
  sleep 0.1
done
if kill -9 "$pid" 2>/dev/null; then
  wait "$pid" 2>/dev/null
  got=$(sqlite3 kill.db "PRAGMA integrity_check; SELECT count(*) % 1000, count(*) < 4000 FROM dumps")
  eq fleet_kill_whole "$got" "$(printf 'ok\n0|1')"
else
  skip fleet_kill_whole "the ingest finished before it could be killed"
fi
"$HK" fleet-ingest kill.db k*.json --json -o rerun.json
eq fleet_kill_rerun "$(jq -c '[.ingested + .already_present, .dumps_in_database]' rerun.json):$(sqlite3 kill.db 'PRAGMA integrity_check')" '[4000,4000]:ok'
