# Every built-in query x every renderer (table, json, csv): exit 0, JSON and CSV parse, no
# "table: 0x", no traceback.  Device queries run against the test device daemon through the
# real adb server; the ones that need a live app are listed as excluded with the reason.
. "$SRC/tests/lib.sh"
. "$SRC/tests/lib_device.sh"
"$GEN" --scenario demo -o demo.hprof --expect demo.json >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
export HOME="$T/home"
mkdir -p pngs
leaked=$(jq -r .labels.leaked_activity demo.json)

# an RFC 4180 reader, independent of the renderer: every record has the header's field count
cat > csvcheck.lua <<'LUA'
local s = hk.read_file(arg.dump)
local i, n, records, fields = 1, #s, 0, nil
while i <= n do
  local count = 0
  repeat
    count = count + 1
    if s:sub(i, i) == '"' then
      i = i + 1
      while true do
        local q = s:find('"', i, true)
        if not q then error("unterminated quote") end
        if s:sub(q + 1, q + 1) == '"' then i = q + 2 else i = q + 1 break end
      end
    else
      while i <= n and not s:sub(i, i):match('[,\r\n]') do i = i + 1 end
    end
    local c = s:sub(i, i)
    i = i + 1
  until c ~= ","
  if s:sub(i - 1, i - 1) == "\r" and s:sub(i, i) == "\n" then i = i + 1 end
  records = records + 1
  fields = fields or count
  if count ~= fields then error("record " .. records .. " has " .. count .. " fields, the header " .. fields) end
end
print(records)
LUA

# check NAME ARGS...: the query in every renderer
check() {
  local name=$1; shift
  local bad=""
  for f in table json csv; do
    timeout 60 "$HK" "$@" --format $f > "out.$f" 2> "err.$f"; local rc=$?
    [ $rc -eq 0 ] || bad+=" $f:exit $rc $(head -c 200 err.$f)"
    grep -q "table: 0x" "out.$f" && bad+=" $f:table: 0x"
    grep -q "stack traceback" "err.$f" && bad+=" $f:traceback"
  done
  jq -e . out.json > /dev/null 2>&1 || bad+=" json:does not parse"
  "$HK" run csvcheck.lua out.csv > csv.n 2> csv.err || bad+=" csv:$(head -c 200 csv.err)"
  [ -z "$bad" ] && pass "renders-$name" || fail "renders-$name" "$bad"
}

check info info demo.hprof
check histogram histogram demo.hprof
check object-instance object demo.hprof "$leaked"
check object-class object demo.hprof "$(jq -r '.[0].id' <("$HK" top demo.hprof -n 1 --json))"
check object-array object demo.hprof "$("$HK" path demo.hprof "$leaked" --json | jq -r '.[2].object')"
check top top demo.hprof
check path path demo.hprof "$leaked"
check dominators dominators demo.hprof "$leaked"
check leaks leaks demo.hprof
check reachability reachability demo.hprof
check referrers referrers demo.hprof "$leaked"
check instances instances demo.hprof java.lang.String
check class class demo.hprof java.lang.String
check dominated dominated demo.hprof
# the fleet: two dumps' facts ingested (again on the json and csv runs: nothing new), then reported
for i in 0 8; do
  "$GEN" --scenario fleet --index $i -o fleet$i.hprof >/dev/null 2>&1
  "$HK" triage fleet$i.hprof --json -o fleet$i.json
done
check fleet-ingest fleet-ingest fleet.db fleet0.json fleet8.json
check fleet-report fleet-report fleet.db
check bitmaps bitmaps demo.hprof
check duplicate-bitmaps duplicate-bitmaps demo.hprof
check duplicate-strings duplicate-strings demo.hprof
check duplicate-arrays duplicate-arrays demo.hprof
check triage triage demo.hprof
check diff diff demo.hprof demo.hprof
check bitmaps-from-dir bitmaps-from-dir demo.hprof --dir pngs
check plugins plugins
check meminfo meminfo "$SRC/tests/meminfo/modern_android14_d.txt"
check smaps smaps "$SRC/tests/meminfo/smaps_hand.txt"
check convert convert demo.hprof --to perfetto-heapgraph --trace demo.pftrace
# native heap profiles: Perfetto's own heap-profile test trace
PF="$SRC/../shared/reference/perfetto"
if command -v protoc >/dev/null && [ -d "$PF/tests" ]; then
  (cd "$PF" && protoc --proto_path=. --encode=perfetto.protos.Trace protos/perfetto/trace/trace.proto) \
    < "$PF/tests/heap_profile_window_frees.textproto" > np.pftrace
  check native native np.pftrace
  check native-diff native-diff np.pftrace@1 np.pftrace@last
else
  skip renders-native "needs protoc and $PF"
fi
# exit-info saved from a device (the one-line form an app logs)
LC="$SRC/../shared/reference/logcat/exitinfo-tostring-termux-api700.txt"
if [ -f "$LC" ]; then check exits exits "$LC"; else skip renders-exits "needs $LC"; fi
# record-shaped output in CSV keeps its nested values (as JSON text), nothing is dropped
"$HK" object demo.hprof "$leaked" --format csv > obj.csv
grep -q '^fields,"\[{' obj.csv && pass csv-record-nested-as-json || fail csv-record-nested-as-json "$(head -c 300 obj.csv)"
"$HK" bitmaps demo.hprof --format csv > bm.csv
eq csv-record-rows "$(cut -d, -f1 bm.csv | tr -d '\r' | tr '\n' ' ')" "key bitmaps summary "

# device queries against the test device daemon (no JVM: devices, processes)
if [ -x "$ADBD" ] && command -v adb > /dev/null; then
  adb_env
  CFG="$T/cfg"
  mkdir -p "$CFG"
  printf 'ro.product.model=Pixel Test\nro.build.version.sdk=34\nro.debuggable=1\n' > "$CFG/props"
  printf 'PID NAME\n1 init\n4242 com.example.app\n' > "$CFG/ps"
  printf 'android\ncom.example.app\n' > "$CFG/packages"
  start_daemon dev
  if start_adb_server && adb_connect "$DAEMON_SERIAL" && adb_wait "$DAEMON_SERIAL" device; then
    check devices devices
    check processes processes -s "$DAEMON_SERIAL"
  else
    fail renders-device "the adb server did not connect to the test daemon"
  fi
else
  skip renders-device "adb or hk-adbd missing"
fi
# excluded: dump and fetch-bitmaps need a live app behind the device (a JVM with JDWP);
# t_device.sh and t_fetch.sh run them and read their JSON.
skip renders-dump "needs a JVM behind the test device (t_device.sh covers it)"
skip renders-fetch-bitmaps "needs a live app over JDWP (t_fetch.sh covers it)"
skip renders-watch "needs the test daemon's scripted memory curve (t_watch.sh covers it)"
skip renders-profile-native "needs the scripted device's perfetto (t_native_record.sh covers it)"

# every built-in query is in this table (new ones must be added)
covered="info histogram object top path dominators leaks reachability bitmaps duplicate-bitmaps
bitmaps-from-dir plugins meminfo smaps devices processes dump fetch-bitmaps watch convert fleet-ingest fleet-report triage duplicate-strings duplicate-arrays diff
native native-diff profile-native exits referrers instances class dominated"
missing=""
for q in $("$HK" queries --json | jq -r --arg src "$SRC/scripts" '.[] | select(.source | startswith($src)) | .name'); do
  grep -qw -- "$q" <<<"$covered" || missing+=" $q"
done
eq renders-every-builtin-query "$missing" ""

# tables for people: binary units, --bytes, --sort, --class; never cut when not a terminal
"$HK" top demo.hprof -n 1 > t.txt
grep -q " 24 B .* 64.1 KiB " t.txt && pass table-binary-units || fail table-binary-units "$(cat t.txt)"
"$HK" top demo.hprof -n 1 --bytes > tb.txt
grep -q "KiB\| B " tb.txt && fail table-raw-bytes "$(cat tb.txt)" || pass table-raw-bytes
eq json-stays-raw "$("$HK" top demo.hprof -n 1 --json | jq '.[0].retained_bytes | type')" '"number"'
eq sort-column "$("$HK" top demo.hprof -n 5 --sort class --json | jq -c 'map(.class) == (map(.class) | sort)')" true
eq sort-numbers-largest-first "$("$HK" histogram demo.hprof --sort count --json | jq -c 'map(.count) == (map(.count) | sort | reverse)')" true
eq class-glob "$("$HK" histogram demo.hprof --class 'java.lang.*' --json | jq -c '[.[].class | startswith("java.lang.")] | all')" true
eq class-glob-count "$("$HK" histogram demo.hprof --class 'byte\[\]' --json | jq length)" 1
long=$("$HK" bitmaps demo.hprof | awk '{ if (length($0) > m) m = length($0) } END { print m }')
[ "$long" -gt 200 ] && pass table-not-cut-when-piped || fail table-not-cut-when-piped "longest line $long"
if command -v script > /dev/null; then
  script -qc "stty cols 80; $HK bitmaps demo.hprof 2>/dev/null" /dev/null > tty.txt 2>&1
  wide=$(sed 's/\r//g' tty.txt | LC_ALL=C.UTF-8 wc -L)
  "$HK" bitmaps demo.hprof > piped.txt
  wide_piped=$(awk '{ if (length($0) > m) m = length($0) } END { print m }' piped.txt)
  [ "$wide" -le 80 ] && [ "$wide_piped" -gt 80 ] && pass table-fits-terminal \
    || fail table-fits-terminal "longest line $wide on the terminal, $wide_piped piped: $(head -3 tty.txt)"
else
  skip table-fits-terminal "no script(1)"
fi
