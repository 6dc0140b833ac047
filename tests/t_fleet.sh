#!/usr/bin/env bash
# fleet-ingest / fleet-report on a generated fleet: genhprof --scenario fleet records which
# leaks it injected in each dump (version, device, retained bytes, timestamp); the map runs
# with GNU parallel; the report's counts, percentiles and regressions must equal the records.
# The suite uses FLEET_N dumps (default 60: triage under ASan takes ~0.3 s a dump here);
# bench/fleet_bench.sh does the 300 of the issue.
. "$SRC/tests/lib.sh"
N=${FLEET_N:-60}
CHECK="python3 $SRC/tests/fleet_check.py"

# the fleet: even dumps in farm-a, odd in farm-b (the farm is a --label)
mkdir -p farm-a farm-b
gen_ok=1
for i in $(seq 0 $((N - 1))); do
  d=farm-$([ $((i % 2)) = 0 ] && echo a || echo b)
  "$GEN" --scenario fleet --index "$i" -o "$d/d$i.hprof" --expect "$d/d$i.expect.json" 2>/dev/null || gen_ok=0
done
eq fleet_generated "$gen_ok" 1

# the map: GNU parallel when this machine has it, else the same commands one by one
if command -v parallel >/dev/null; then
  ok fleet_map_parallel parallel --will-cite --halt now,fail=1 -j 2 \
    "$HK" triage {} --json -o {.}.facts.json --label farm={//} ::: farm-*/*.hprof
else
  skip fleet_map_parallel "GNU parallel is not installed (tools/deps.sh --test)"
  for f in farm-*/*.hprof; do "$HK" triage "$f" --json -o "${f%.hprof}.facts.json" --label "farm=$(dirname "$f")"; done
fi

# the facts carry the version the dump holds (BuildConfig) and the device
bad=$(python3 - <<'PY'
import glob, json
bad = 0
for e in glob.glob("farm-*/*.expect.json"):
    rec = json.load(open(e))["facts"]["fleet"]
    f = json.load(open(e.replace(".expect.json", ".facts.json")))
    if (f["app"]["version_name"], f["app"]["version_code"], f["app"]["source"], f["origin"]["model"],
        f["origin"]["fingerprint"], f["origin"]["timestamp"], f["labels"].get("farm")) != (rec["version_name"],
        rec["version_code"], rec["version_source"], rec["model"], rec["fingerprint"], rec["timestamp_ms"],
        e.split("/")[0]):
        bad += 1
print(bad)
PY
)
eq fleet_facts_version_device "$bad" 0
"$HK" triage farm-a/d0.hprof --json -o v1.json
"$GEN" --scenario leaks -o noversion.hprof >/dev/null 2>&1
"$HK" triage noversion.hprof --json -o v2.json
eq fleet_facts_no_version "$(jq -c '.app | [.version_name, .version_code, .source]' v2.json)" '[null,null,null]'
eq fleet_facts_sources "$(jq -r '.app.source' farm-a/d0.facts.json farm-a/d4.facts.json | tr '\n' ' ')" "BuildConfig PackageInfo "
# a real LeakCanary sample app dump: an ApplicationInfo of its package without version fields
# (that Android has none): the package from the process, the version null
real=$REALDATA/hprof/leakcanary-leak_service_binder.hprof
if [ -f "$real" ]; then
  "$HK" triage "$real" --json -o real.json
  eq fleet_facts_real_dump "$(jq -c '.app | [.package, .version_name, .version_code]' real.json)" '["com.example.leakcanary",null,null]'
else
  skip fleet_facts_real_dump "no $real"
fi

# ingest, then the report against the generator's records
"$HK" fleet-ingest fleet.db farm-*/*.facts.json --json -o ingest1.json
eq fleet_ingest_counts "$(jq -c '[.files, .ingested, .already_present, .skipped]' ingest1.json)" "[$N,$N,0,0]"
for by in version model route label:farm version,route model,route,label:farm; do
  "$HK" fleet-report fleet.db --by "$by" --json -o "report-$by.json"
  if out=$($CHECK "report-$by.json" farm-*/*.expect.json --by "$by" 2>&1); then pass "fleet_report_by_$by"
  else fail "fleet_report_by_$by" "$(echo "$out" | head -5)"; fi
done
eq fleet_regressions "$(jq -c '[.regressions[] | [.version, .change, .description]]' report-version.json)" \
  '[["2.0.0","new","NewFeature.sListener"],["2.0.0","grown","Leaks.sHolder"]]'
# a factor above the growth (2.27x) leaves only the new signature
"$HK" fleet-report fleet.db --regression-factor 3 --json -o f3.json
eq fleet_regression_factor "$(jq -c '[.regressions[].change]' f3.json)" '["new"]'

# ingesting the same facts twice changes nothing
"$HK" fleet-ingest fleet.db farm-*/*.facts.json --json -o ingest2.json
eq fleet_ingest_twice "$(jq -c '[.ingested, .already_present, .dumps_in_database]' ingest2.json)" "[0,$N,$N]"
"$HK" fleet-report fleet.db --json -o again.json
if cmp -s again.json report-version.json; then pass fleet_ingest_twice_same_report
else fail fleet_ingest_twice_same_report "the report changed after a second ingest"; fi

# files that do not parse or carry another schema: named, skipped, counted; --strict exits 1
echo '{"schema": "hprofkit-triage/1", "dump_sha' > truncated.json
echo '{"schema": "something-else/2", "dump_sha256": "00"}' > other.json
"$HK" fleet-ingest fleet.db truncated.json other.json farm-a/d0.facts.json --json -o bad.json 2>bad.err
rc=$?
eq fleet_corrupt_exit0 "$rc" 0
eq fleet_corrupt_counted "$(jq -c '[.skipped, .already_present]' bad.json)" '[2,1]'
if grep -q 'truncated.json: is not JSON' bad.err && grep -q "other.json: has schema 'something-else/2'" bad.err; then
  pass fleet_corrupt_named; else fail fleet_corrupt_named "$(cat bad.err)"; fi
"$HK" fleet-ingest fleet.db truncated.json farm-a/d0.facts.json --strict >/dev/null 2>&1
eq fleet_corrupt_strict "$?" 1
err fleet_ingest_needs_facts "missing facts" "$HK" fleet-ingest fleet.db
err fleet_report_no_db "no such database" "$HK" fleet-report nothere.db
echo hello > notdb.txt
"$HK" fleet-report notdb.txt 2>notdb.err
eq fleet_not_a_database "$?:$(cat notdb.err)" "1:hprofkit fleet-report: notdb.txt: not a fleet database (file is not a database)"
err fleet_report_bad_by "unknown grouping 'colour'" "$HK" fleet-report fleet.db --by colour
if "$HK" fleet-ingest --help | grep -q 'usage: hprofkit fleet-ingest DB FACTS\.\.\.'; then pass fleet_help_variadic
else fail fleet_help_variadic "$("$HK" fleet-ingest --help | head -1)"; fi

# an empty database: a report with nothing in it, exit 0
"$HK" fleet-ingest empty.db other.json >/dev/null 2>&1
"$HK" fleet-report empty.db --json -o empty.json
eq fleet_empty_db "$?:$(jq -c '[.dumps, (.groups | length), (.regressions | length), (.versions | length)]' empty.json)" '0:[0,0,0,0]'

# version order without versionCode: by name segment by segment, or as --versions lists them
python3 - <<'PY'
import json
f = json.load(open("v1.json"))
for i, name in enumerate(["1.10", "1.9", "1.9.1", "1.9.1-rc1"]):
    f["dump_sha256"] = "%064x" % (i + 1)
    f["app"]["version_name"], f["app"]["version_code"] = name, None
    json.dump(f, open("nocode%d.json" % i, "w"))
PY
"$HK" fleet-ingest names.db nocode*.json >/dev/null
eq fleet_version_order_names "$("$HK" fleet-report names.db --json | jq -c '[.version_order, [.versions[].version]]')" \
  '["name",["1.9","1.9.1","1.9.1-rc1","1.10"]]'
eq fleet_version_order_listed "$("$HK" fleet-report names.db --versions 1.10,1.9.1-rc1 --json | jq -c '[.version_order, [.versions[].version]]')" \
  '["--versions",["1.10","1.9.1-rc1","1.9","1.9.1"]]'

# the HTML report: self-contained, the same numbers
"$HK" fleet-report fleet.db --report fleet.html >/dev/null
p75=$(jq -r '.regressions[] | select(.change == "grown") | .retained_p75' report-version.json)
if grep -q '<h1>Fleet triage</h1>' fleet.html && grep -q 'id="regressions"' fleet.html && grep -q "title=\"$p75 bytes\"" fleet.html \
   && grep -q 'NewFeature.sListener' fleet.html && ! grep -qiE '(src|href)="(https?:)?//' fleet.html; then
  pass fleet_html_report; else fail fleet_html_report "fleet.html lacks a section or loads from the network"; fi
"$HK" fleet-report fleet.db --report /nonexistent/dir/x.html >/dev/null 2>fr.err
eq fleet_html_bad_path "$?" 2

# the variadic positional through hk.run: the list arrives under the name without "..."
cat > viarun.lua <<'LUA'
local res = hk.run("fleet-ingest", nil, { db = "viarun.db", facts = { "farm-a/d0.facts.json", "farm-b/d1.facts.json" } })
print(res.ingested .. " " .. res.dumps_in_database)
LUA
eq fleet_hk_run_variadic "$("$HK" run viarun.lua 2>&1)" "2 2"

# progress: on a terminal (script(1) gives one) a line redrawn in place; none into a file
if command -v script >/dev/null; then
  script -qc "'$HK' fleet-ingest tty.db farm-a/d0.facts.json farm-b/d1.facts.json >/dev/null" /dev/null > tty.out
  script -qc "'$HK' fleet-report tty.db >/dev/null" /dev/null >> tty.out
  if grep -q 'fleet-ingest: facts files 2/2' tty.out && grep -q 'fleet-report: dumps 2/2' tty.out; then pass fleet_progress_tty
  else fail fleet_progress_tty "$(head -c 200 tty.out | od -c | head -3)"; fi
else
  skip fleet_progress_tty "no script(1)"
fi
"$HK" fleet-ingest notty.db farm-a/d0.facts.json >/dev/null 2>notty.err
eq fleet_no_progress_off_tty "$(wc -c < notty.err)" 0

# hk.sqlite_open: parameters of each type, NULL, an SQL error as a failure (exit 1), a closed db
cat > sqlite.lua <<'LUA'
local db = hk.sqlite_open(":memory:")
db:exec("CREATE TABLE t(a, b, c)")
local n = db:run("INSERT INTO t VALUES (?, ?, ?)", 1, 2.5, hk.null) + db:run("INSERT INTO t VALUES (?, ?, ?)", "x", true, nil)
local out = { n }
for _, r in ipairs(db:rows("SELECT a, b, typeof(c) AS tc, c FROM t ORDER BY rowid")) do
  out[#out + 1] = tostring(r.a) .. "/" .. tostring(r.b) .. "/" .. r.tc .. "/" .. tostring(r.c)
end
local ok, err = pcall(db.rows, db, "SELECT nope FROM t")
out[#out + 1] = tostring(ok) .. ":" .. err
db:close()
out[#out + 1] = tostring((pcall(db.exec, db, "SELECT 1")))
print(table.concat(out, " "))
LUA
eq fleet_sqlite_binding "$("$HK" run sqlite.lua 2>&1)" "2 1/2.5/null/nil x/1/null/nil false:sqlite: no such column: nope false"
echo 'hk.sqlite_open("/nonexistent/dir/x.db")' > sqlite_bad.lua
err fleet_sqlite_bad_path "unable to open database file" "$HK" run sqlite_bad.lua
