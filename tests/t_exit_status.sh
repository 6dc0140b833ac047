# The README's exit-status table, held for every command: 1 when the data or the device failed,
# 2 when the request is wrong, one line on stderr naming what failed.  Every query that reads a
# dump is found in the registry and tried three ways; the others have their own cases below, and
# a query with no case here fails the test (a new command must say how it fails).
. "$SRC/tests/lib.sh"
echo "not a heap dump" > notdump.txt
"$GEN" --scenario demo -o demo.hprof >/dev/null 2>&1 || { fail exit-fixture "genhprof --scenario demo failed"; exit 0; }

# status NAME WANT CMD...: the exit status is WANT and stderr is one line
status() {
  local n=$1 want=$2; shift 2
  "$@" >"$T/st.out" 2>"$T/st.err"; local rc=$?
  local lines; lines=$(grep -vc '^hprofkit[^:]*: note: ' "$T/st.err")
  if [ "$rc" = "$want" ] && [ "$lines" -le 1 ]; then pass "$n"
  else fail "$n" "exit $rc (want $want), $lines lines: $(head -c 300 "$T/st.err")"; fi
}

# the queries, and the positional arguments each takes after the dump
"$HK" run - > queries.tsv <<'LUA'
for name, q in pairs(hk.queries()) do
  local pos = q.positional or (q.needs_dump ~= false and { "dump" } or {})
  print(name, q.needs_dump == false and "nodump" or "dump", table.concat(pos, " "))
end
LUA
[ -s queries.tsv ] || { fail exit-queries "the query list is empty"; exit 0; }

# reads a dump: a missing file, a file that is not a dump, an unknown option
extra_for() {
  case $1 in dominators|object|path|referrers) echo 0x1 ;; instances|class) echo java.lang.String ;; esac
}
while IFS=$'\t' read -r q kind _; do
  [ "$kind" = dump ] || continue
  # shellcheck disable=SC2046
  status "exit-$q-missing-dump" 2 "$HK" "$q" /nonexistent.hprof $(extra_for "$q")
  # shellcheck disable=SC2046
  status "exit-$q-not-a-dump" 1 "$HK" "$q" notdump.txt $(extra_for "$q")
  # shellcheck disable=SC2046
  status "exit-$q-unknown-option" 2 "$HK" "$q" demo.hprof $(extra_for "$q") --no-such-option
done < queries.tsv

# options and names a dump command checks
status exit-histogram-unknown-heap 2 "$HK" histogram demo.hprof --heap nosuch
status exit-histogram-bad-number 2 "$HK" histogram demo.hprof -n abc
status exit-object-no-such-id 2 "$HK" object demo.hprof 0x1
status exit-object-bad-id 2 "$HK" object demo.hprof 0xzz
status exit-info-bad-format 2 "$HK" info demo.hprof --format xml
status exit-leaks-unknown-gate 2 "$HK" leaks demo.hprof --fail-on nosuch
status exit-map-missing 2 "$HK" info demo.hprof --map /nonexistent.map
status exit-convert-no-to 2 "$HK" convert demo.hprof
grep -q 'convert: convert' "$T/st.err" && fail exit-convert-one-prefix "$(cat "$T/st.err")" || pass exit-convert-one-prefix
status exit-triage-baseline-missing 2 "$HK" triage demo.hprof --baseline /nonexistent.hprof
status exit-triage-baseline-not-a-dump 1 "$HK" triage demo.hprof --baseline notdump.txt
status exit-triage-meminfo-missing 2 "$HK" triage demo.hprof --meminfo /nonexistent.txt
status exit-triage-meminfo-not-meminfo 1 "$HK" triage demo.hprof --meminfo notdump.txt
grep -q 'plugin meminfo' "$T/st.err" && fail exit-triage-meminfo-wording "$(cat "$T/st.err")" || pass exit-triage-meminfo-wording
status exit-triage-native-missing 2 "$HK" triage demo.hprof --native /nonexistent.pftrace
status exit-triage-native-not-a-trace 1 "$HK" triage demo.hprof --native notdump.txt
status exit-triage-samples-without-report 2 "$HK" triage demo.hprof --samples s.csv
status exit-triage-samples-missing 2 "$HK" triage demo.hprof --samples /nonexistent.csv --report r.html
status exit-triage-gate 3 "$HK" triage demo.hprof --fail-on leaks -o /dev/null
status exit-diff-base-missing 2 "$HK" diff /nonexistent.hprof demo.hprof
status exit-diff-base-not-a-dump 1 "$HK" diff notdump.txt demo.hprof
status exit-diff-dump-not-a-dump 1 "$HK" diff demo.hprof notdump.txt
status exit-diff-base-map-missing 2 "$HK" diff demo.hprof demo.hprof --base-map /nonexistent.map

# the commands that read no dump
OFF=(timeout 60 env PATH=/nonexistent ANDROID_HOME="$T/sdk" ANDROID_ADB_SERVER_PORT=9 ADB_SERVER_SOCKET=)
declare -A covered
case_of() { covered[$1]=1; }
case_of devices; status exit-devices-no-adb 1 "${OFF[@]}" "$HK" devices
case_of processes; status exit-processes-no-adb 1 "${OFF[@]}" "$HK" processes
case_of dump; status exit-dump-no-adb 1 "${OFF[@]}" "$HK" dump com.example --hprof x.hprof
status exit-dump-no-process 2 "$HK" dump
case_of watch; status exit-watch-no-process 2 "$HK" watch
status exit-watch-bad-tiers 2 "$HK" watch com.example --tiers abc
case_of meminfo; status exit-meminfo-missing 2 "$HK" meminfo /nonexistent.txt
status exit-meminfo-not-meminfo 1 "$HK" meminfo notdump.txt
grep -q 'plugin meminfo' "$T/st.err" && fail exit-meminfo-wording "$(cat "$T/st.err")" || pass exit-meminfo-wording
case_of smaps; status exit-smaps-missing 2 "$HK" smaps /nonexistent.txt
status exit-smaps-not-smaps 1 "$HK" smaps notdump.txt
case_of fleet-ingest; status exit-fleet-ingest-no-facts 2 "$HK" fleet-ingest f.db
status exit-fleet-ingest-strict 1 "$HK" fleet-ingest f.db notdump.txt --strict
case_of fleet-report; status exit-fleet-report-missing 2 "$HK" fleet-report /nonexistent.db
status exit-fleet-report-not-a-db 1 "$HK" fleet-report notdump.txt
case_of native; status exit-native-missing 2 "$HK" native /nonexistent.pftrace
status exit-native-not-a-trace 1 "$HK" native notdump.txt
status exit-native-unknown-option 2 "$HK" native notdump.txt --no-such-option
case_of native-diff; status exit-native-diff-missing 2 "$HK" native-diff /nonexistent.pftrace notdump.txt
status exit-native-diff-not-a-trace 1 "$HK" native-diff notdump.txt notdump.txt
case_of exits; status exit-exits-no-adb 1 "${OFF[@]}" "$HK" exits com.example
status exit-exits-unknown-option 2 "$HK" exits com.example --no-such-option
case_of profile-native; status exit-profile-native-no-adb 1 "${OFF[@]}" "$HK" profile-native com.example
status exit-profile-native-unknown-option 2 "$HK" profile-native com.example --no-such-option
case_of diff   # above
case_of plugins; status exit-plugins-unknown-option 2 "$HK" plugins --no-such-option
case_of bitmaps-from-dir; status exit-bitmaps-from-dir-no-dir 2 "$HK" bitmaps-from-dir demo.hprof --dir /nonexistent
status exit-unknown-command 2 "$HK" no-such-command
status exit-run-missing 2 "$HK" run /nonexistent.lua
echo 'error("boom")' > boom.lua
"$HK" run boom.lua >/dev/null 2>&1; eq exit-run-script-error "$?" 1
eq exit-run-stdin "$(echo 'print(arg.dump)' | "$HK" run - x.hprof)" x.hprof
while IFS=$'\t' read -r q kind _; do
  [ "$kind" = nodump ] || continue
  [ -n "${covered[$q]}" ] || fail "exit-$q-covered" "$q reads no dump and has no exit-status case in this test"
done < queries.tsv
