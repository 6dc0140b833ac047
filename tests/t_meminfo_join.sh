# triage --meminfo says where the capture and the dump disagree on what they come from: another
# package, another process of the app, an App Summary (Android 6.0+) beside an older dump.
. "$SRC/tests/lib.sh"
MI="$REALDATA/meminfo/droidmonitor_api23_android6.0_appsummary.txt"
[ -f "$MI" ] || { skip meminfo-join "$MI is absent"; exit 0; }
"$GEN" --scenario demo -o demo.hprof >/dev/null 2>&1 || { fail meminfo-join-fixture "genhprof failed"; exit 0; }
# mismatches CAPTURE DUMP: the sentences, one a line, and whether stderr warned
mismatches() {
  "$HK" triage "$2" --meminfo "$1" --json > facts.json 2> facts.err
  jq -r '.meminfo.mismatches[]' facts.json
  grep -c 'warning: --meminfo' facts.err
}
# the same app (the demo's process, API 34): nothing to say
sed 's/\[com.sample.package\]/[com.example.demo]/' "$MI" > same.txt
eq meminfo-join-same "$(mismatches same.txt demo.hprof)" 0
# another process of the same app
sed 's/\[com.sample.package\]/[com.example.demo:remote]/' "$MI" > remote.txt
eq meminfo-join-other-process "$(mismatches remote.txt demo.hprof)" "the meminfo is of process com.example.demo:remote, the dump of com.example.demo
1"
# the issue's case: an Android 6 capture of com.sample.package beside an API 19 dump of another app
D="$REALDATA/hprof/leakcanary-leak_service_binder.hprof"
if [ -f "$D" ]; then
  eq meminfo-join-other-app "$(mismatches "$MI" "$D")" "the meminfo is of package com.sample.package, the dump of com.example.leakcanary
the meminfo has an App Summary (Android 6.0, API 23, or later), the dump is from API 19
2"
fi
