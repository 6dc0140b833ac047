# Device transport: the real adb server (Debian's adb) on a private port, connected to
# scripted test device daemons (tests/adbd/adbd.c); hprofkit's C API is driven through
# tests/adbd/adbtool.c.  A real JVM (tests/java/DevHeapApp.java) is the process that gets dumped
# (the daemon's `am dumpheap` runs `jcmd PID GC.heap_dump`) and whose JDWP port jdwp:PID reaches.
. "$SRC/tests/lib.sh"
. "$SRC/tests/lib_device.sh"

TOOL="$BUILD/core/device/adbtool"
needs device adb javac java jcmd "$ADBD" "$TOOL" || exit 0

adb_env
export HK_DUMP_POLL_MS=500

# ---- the test JVM ----
compile_java "$T/jcls" "$SRC/tests/java/DevHeapApp.java" ||
  { fail device "javac failed: $(head -c 300 "$T/javac.err")"; exit 0; }
JDWP_PORT=$(free_port)
jdwp_java "$JDWP_PORT" "$T/jvm.out" -cp "$T/jcls" DevHeapApp 1234
JVM=$JVM_PID
for _ in $(seq 100); do grep -q ready "$T/jvm.out" && break; sleep 0.1; done
grep -q ready "$T/jvm.out" || { fail device "test JVM did not start: $(head -c 300 "$T/jvm.out")"; exit 0; }

# ---- the device's script ----
CFG="$T/cfg"
mkdir -p "$CFG/root/data/local/tmp"
cat >"$CFG/props" <<EOF
ro.product.model=Pixel Test
ro.product.name=hk_test
ro.product.device=hkdev
ro.build.version.sdk=35
ro.debuggable=0
ro.build.type=userdebug
EOF
cat >"$CFG/ps" <<EOF
PID NAME
1 init
812 media.extractor
$JVM com.example.app
900 system_server
950 com.android.systemui
951 com.android.systemui:remote
EOF
printf 'android\ncom.example.app\ncom.android.systemui\n' >"$CFG/packages"
echo "$JVM" >"$CFG/jvm_pid"
echo "$JVM $JDWP_PORT" >"$CFG/jdwp"
echo ok >"$CFG/dumpheap"

start_daemon good
start_daemon auth --mode auth
start_daemon silent --mode silent
start_daemon nov2 --no-shell-v2
GOOD=127.0.0.1:$(cat "$T/good.port")
AUTH=127.0.0.1:$(cat "$T/auth.port")
SILENT=127.0.0.1:$(cat "$T/silent.port")
NOV2=127.0.0.1:$(cat "$T/nov2.port")

# ---- the real adb server on a private port ----
start_adb_server || { fail device "adb start-server failed"; exit 0; }
adb_connect "$GOOD"
adb_connect "$AUTH"
adb_connect "$NOV2"
# a device that never answers CNXN: adb connect waits ~10 s for it, the listing says offline at once
timeout 15 adb -P "$APORT" connect "$SILENT" >/dev/null 2>&1 &
adb_wait "$SILENT" offline

# ---- devices ----
timeout 60 "$TOOL" devices >"$T/devices.out" 2>"$T/devices.err"
line() { grep "^$1	" "$T/devices.out"; }
eq device_list_online "$(line "$GOOD" | cut -f2-6)" "device	Pixel Test	35	1	"
eq device_list_unauthorized "$(line "$AUTH" | cut -f2,6)" "unauthorized	accept the USB debugging dialog on the device"
eq device_list_offline "$(line "$SILENT" | cut -f2,4)" "offline	0"
if line "$SILENT" | grep -q "reconnect the cable"; then pass device_offline_hint; else fail device_offline_hint "$(line "$SILENT")"; fi
# only online devices are asked anything: no shell was opened on the others
if [ "$(grep -c . "$T/devices.out")" = 4 ]; then pass device_list_count; else fail device_list_count "$(cat "$T/devices.out" "$T/devices.err")"; fi
err device_unauthorized_refused "unauthorized: accept the USB debugging dialog" timeout 30 "$TOOL" processes -s "$AUTH"
err device_offline_refused "offline: reconnect the cable" timeout 30 "$TOOL" processes -s "$SILENT"
err device_several_need_serial "devices online .*choose one with -s" timeout 30 "$TOOL" processes
err device_unknown_serial "device nosuch:1 not found" timeout 30 "$TOOL" processes -s nosuch:1
v=$(timeout 10 "$TOOL" version 2>&1)
if [[ "$v" =~ ^[0-9]+$ ]] && [ "$v" -gt 30 ]; then pass device_server_version; else fail device_server_version "$v"; fi
eq device_adb_server_socket "$(ADB_SERVER_SOCKET=tcp:127.0.0.1:$APORT ANDROID_ADB_SERVER_PORT= timeout 30 "$TOOL" devices | grep -c "^$GOOD	device")" 1

# ---- processes ----
timeout 30 "$TOOL" processes -s "$GOOD" >"$T/ps.out" 2>&1
eq device_processes_apps_first "$(cut -f2,3 "$T/ps.out" | tr '\t\n' ':,')" \
  "com.android.systemui:1,com.android.systemui:remote:1,com.example.app:1,init:0,media.extractor:0,system_server:0,"
eq device_processes_pid "$(grep -P '\tcom.example.app\t' "$T/ps.out" | cut -f1)" "$JVM"
# old toolbox ps (API < 26): no -A, more columns; the parser follows the header
sed -i 's/ro.build.version.sdk=35/ro.build.version.sdk=23/' "$CFG/props"
cp "$CFG/ps" "$CFG/ps.new"
{ echo "USER PID PPID VSIZE RSS WCHAN PC NAME"; echo "root 1 0 1 1 0 0 S init"; echo "u0_a1 $JVM 1 1 1 0 0 S com.example.app"; } >"$CFG/ps"
eq device_processes_old_ps "$(timeout 30 "$TOOL" processes -s "$GOOD" 2>&1 | tr '\t\n' ':,')" "$JVM:com.example.app:1,1:init:0,"
grep -q "OPEN shell,v2,raw:ps$" "$CFG/log" && pass device_processes_old_ps_cmd || fail device_processes_old_ps_cmd "no plain ps for API 23"
mv "$CFG/ps.new" "$CFG/ps"
sed -i 's/ro.build.version.sdk=23/ro.build.version.sdk=35/' "$CFG/props"

# ---- shell ----
timeout 30 "$TOOL" shell -s "$GOOD" "exit 3" >/dev/null 2>"$T/sh.err"; eq device_shell_v2_exit_code "$?" 3
eq device_shell_output "$(timeout 30 "$TOOL" shell -s "$GOOD" "echo hi there" 2>/dev/null)" "hi there"
timeout 30 "$TOOL" shell -s "$NOV2" "exit 3" >/dev/null 2>"$T/sh.err"
eq device_shell_legacy_no_exit_code "$(cat "$T/sh.err")" "exit: -1"

# ---- pull ----
head -c 300000 /dev/urandom >"$CFG/root/data/local/tmp/blob"
ok device_pull timeout 30 "$TOOL" pull -s "$GOOD" /data/local/tmp/blob "$T/blob"
cmp -s "$CFG/root/data/local/tmp/blob" "$T/blob" && pass device_pull_same || fail device_pull_same "content differs"
err device_pull_missing "pulling /data/local/tmp/nope|does not exist" timeout 30 "$TOOL" pull -s "$GOOD" /data/local/tmp/nope "$T/nope"
[ ! -e "$T/nope" ] && pass device_pull_missing_no_file || fail device_pull_missing_no_file "left $T/nope"
rm -f "$CFG/root/data/local/tmp/blob"

# ---- jdwp:PID relayed to the JVM's JDWP agent ----
eq device_jdwp_handshake "$(timeout 30 "$TOOL" jdwp -s "$GOOD" "$JVM" 2>&1)" "JDWP-Handshake"
err device_jdwp_unknown_pid "cannot open jdwp:4242 on $GOOD: .*debuggable" timeout 30 "$TOOL" jdwp -s "$GOOD" 4242

# ---- heap dumps ----
no_leftovers() { # NAME: no local partial/output file, nothing left on the device
  local left
  left=$(ls -A "$T/out" 2>/dev/null; ls -A "$CFG/root/data/local/tmp")
  if [ -z "$left" ]; then pass "$1"; else fail "$1" "left behind: $left"; fi
}
mkdir -p "$T/out"
: >"$CFG/log"
timeout 120 "$TOOL" dump -s "$GOOD" com.example.app -o "$T/ok.hprof" >"$T/dump.out" 2>"$T/dump.err"
eq device_dump_ok "$?" 0
eq device_dump_header "$(head -c 12 "$T/ok.hprof" 2>/dev/null)" "JAVA PROFILE"
eq device_dump_is_the_jvm_dump "$(stat -c %s "$T/ok.hprof" 2>/dev/null)" "$(stat -c %s "$CFG/last_dump.hprof" 2>/dev/null)"
cmp -s "$T/ok.hprof" "$CFG/last_dump.hprof" && pass device_dump_identical || fail device_dump_identical "differs from what jcmd wrote"
eq device_dump_result "$(cut -f2- "$T/dump.out")" "$(stat -c %s "$T/ok.hprof" 2>/dev/null)	1	1"
grep -qE "OPEN shell,v2,raw:am dumpheap -g -b png com.example.app /data/local/tmp/hprofkit-$JVM-[0-9]+-[0-9a-f]{8}-[0-9]+\.hprof" "$CFG/log" \
  && pass device_dump_am_command || fail device_dump_am_command "$(grep dumpheap "$CFG/log")"
grep -q "rm -f /data/local/tmp/hprofkit-" "$CFG/log" && pass device_dump_removes_remote || fail device_dump_removes_remote "no rm"
no_leftovers device_dump_ok_clean
# the dump matches the JVM's heap: DevThing is in it (and, when the CLI exists, its count)
grep -qa DevThing "$T/ok.hprof" && pass device_dump_has_class || fail device_dump_has_class "DevThing not in the dump"
if [ -x "$HK" ] && "$HK" histogram "$T/ok.hprof" >"$T/hist.out" 2>/dev/null; then
  eq device_dump_class_count "$(grep -w DevThing "$T/hist.out" | grep -oE '\b1234\b' | head -1)" 1234
else
  skip device_dump_class_count "hprofkit histogram not available yet"
fi

# a pid goes to am as a pid
: >"$CFG/log"
timeout 120 "$TOOL" dump -s "$GOOD" "$JVM" -o "$T/bypid.hprof" >/dev/null 2>"$T/dump.err"
grep -qE "am dumpheap -g -b png $JVM /data/local/tmp/hprofkit-$JVM-" "$CFG/log" && [ -s "$T/bypid.hprof" ] \
  && pass device_dump_by_pid || fail device_dump_by_pid "$(cat "$T/dump.err"; grep dumpheap "$CFG/log")"
rm -f "$T/bypid.hprof"

# the legacy shell (no shell_v2): no exit code, am's words still read
timeout 120 "$TOOL" dump -s "$NOV2" com.example.app -o "$T/nov2.hprof" >/dev/null 2>"$T/dump.err"
eq device_dump_legacy_shell "$(head -c 12 "$T/nov2.hprof" 2>/dev/null)" "JAVA PROFILE"
rm -f "$T/nov2.hprof"

# each failure: one clear line, no local file, nothing left on the device
dump_fails() { # NAME MODE PATTERN [ARGS]
  local n=$1 mode=$2 pat=$3; shift 3
  echo "$mode" >"$CFG/dumpheap"
  err "$n" "$pat" timeout 120 "$TOOL" dump -s "$GOOD" com.example.app -o "$T/out/x.hprof" "$@"
  no_leftovers "${n}_clean"
}
dump_fails device_dump_not_debuggable notdebuggable \
  "^adbtool: com.example.app is not debuggable: only debuggable apps \(or any app on a userdebug/eng build\) can be dumped$"
dump_fails device_dump_no_b_option nob "does not know -b .*API 35.*without --bitmaps"
dump_fails device_dump_exception exception \
  "^adbtool: am dumpheap com.example.app failed: java.lang.IllegalStateException: heap dump already in progress$"
if grep -q "at android" "$T/err.err"; then fail device_dump_exception_one_line "stack trace leaked"; else pass device_dump_exception_one_line; fi
err device_dump_no_such_process "no process nosuch on $GOOD" timeout 60 "$TOOL" dump -s "$GOOD" nosuch -o "$T/out/x.hprof"

# am returns before the file is complete (older Android): wait until the size is stable
echo slow >"$CFG/dumpheap"
rm -f "$CFG/last_dump.hprof"
timeout 120 "$TOOL" dump -s "$GOOD" com.example.app -o "$T/out/slow.hprof" >/dev/null 2>"$T/slow.err"
eq device_dump_early_return "$?" 0
cmp -s "$T/out/slow.hprof" "$CFG/last_dump.hprof" && pass device_dump_early_return_complete \
  || fail device_dump_early_return_complete "pulled $(stat -c %s "$T/out/slow.hprof" 2>/dev/null) bytes, written $(stat -c %s "$CFG/last_dump.hprof" 2>/dev/null)"
rm -f "$T/out/slow.hprof"

# API 26: no -g (no GC hook loaded: say so), no -b
echo ok >"$CFG/dumpheap"
sed -i 's/ro.build.version.sdk=35/ro.build.version.sdk=26/' "$CFG/props"
: >"$CFG/log"
timeout 120 "$TOOL" dump -s "$GOOD" com.example.app -o "$T/out/old.hprof" >"$T/old.out" 2>"$T/old.err"
eq device_dump_old_api_result "$(cut -f3,4 "$T/old.out")" "0	0"
grep -q "the dump is taken without GC" "$T/old.err" && pass device_dump_old_api_no_gc_note || fail device_dump_old_api_no_gc_note "$(cat "$T/old.err")"
grep -qE "am dumpheap com.example.app /data" "$CFG/log" && pass device_dump_old_api_command || fail device_dump_old_api_command "$(grep dumpheap "$CFG/log")"
rm -f "$T/out/old.hprof"
err device_dump_bitmaps_need_35 "need API 35" timeout 60 "$TOOL" dump -s "$GOOD" com.example.app -o "$T/out/x.hprof" --bitmaps
no_leftovers device_dump_bitmaps_need_35_clean
sed -i 's/ro.build.version.sdk=26/ro.build.version.sdk=35/' "$CFG/props"

# am says nothing wrong but writes nothing
echo nofile >"$CFG/dumpheap"
err device_dump_no_file "reported no error but wrote no file" timeout 120 "$TOOL" dump -s "$GOOD" com.example.app -o "$T/out/x.hprof"
no_leftovers device_dump_no_file_clean
echo ok >"$CFG/dumpheap"

# ---- Lua bindings ----
cat >"$T/t.lua" <<'EOF'
local serial = arg[1]
local devs = hk.devices()
local seen = {}
for _, d in ipairs(devs) do seen[d.serial] = d end
assert(seen[serial].state == "device" and seen[serial].sdk == 35 and seen[serial].debuggable == true, "devices")
assert(seen[arg[2]].state == "unauthorized" and seen[arg[2]].hint:find("dialog"), "unauthorized hint")
local d = hk.device(serial)
assert(d.sdk == 35 and d.serial == serial, "device fields")
local out, code = d:shell("echo lua")
assert(out == "lua\n" and code == 0, "shell")
local ps = d:processes()
assert(ps[1].app == true and ps[#ps].app == false, "apps first")
local path, info = d:dump_heap("com.example.app", { output = arg[3] })
assert(path == arg[3] and info.bytes > 0 and info.gc == true, "dump_heap")
local okk, e = pcall(function() return hk.device(arg[2]) end)
assert(not okk and e:find("unauthorized"), "error raised: " .. tostring(e))
print("lua ok")
EOF
eq device_lua "$(timeout 120 "$TOOL" lua "$T/t.lua" "$GOOD" "$AUTH" "$T/lua.hprof" 2>&1)" "lua ok"
rm -f "$T/lua.hprof" "$T"/out/*

# the query scripts, against a stand-in for the host's hk.query
cat >"$T/q.lua" <<'EOF'
local Q = {}
hk.query = function(q) Q[q.name] = q end
for _, f in ipairs({ "devices", "processes", "dump" }) do dofile(arg[1] .. "/scripts/commands/" .. f .. ".lua") end
local rows = Q.devices.run(nil, {})
local n = 0
for _, r in ipairs(rows) do n = n + 1 end
rows = Q.processes.run(nil, { serial = arg[2] })
assert(rows[1].app == true, "processes rows")
rows = Q.dump.run(nil, { serial = arg[2], process = "com.example.app", hprof = arg[3] })
assert(#rows == 1 and rows[1].path == arg[3] and rows[1].file_bytes > 0, "dump row")
print("queries ok " .. n)
EOF
eq device_lua_queries "$(timeout 120 "$TOOL" lua "$T/q.lua" "$SRC" "$GOOD" "$T/q.hprof" 2>&1)" "queries ok 4"
rm -f "$T/q.hprof"

# ---- the CLI (hprofkit devices / processes / dump), once the host runs the query scripts ----
if [ -x "$HK" ] && "$HK" queries 2>/dev/null | grep -q '^ *dump '; then
  timeout 60 "$HK" devices --json >"$T/cli.json" 2>"$T/cli.err"
  eq device_cli_devices "$(jq -r --arg s "$AUTH" '.[] | select(.serial == $s) | .state' "$T/cli.json" 2>&1)" unauthorized
  eq device_cli_devices_sdk "$(jq -r --arg s "$GOOD" '.[] | select(.serial == $s) | .sdk' "$T/cli.json" 2>&1)" 35
  timeout 60 "$HK" processes -s "$GOOD" --json >"$T/cli.json" 2>"$T/cli.err"
  eq device_cli_processes "$(jq -r '.[0].app, (.[] | select(.name == "media.extractor") | .app)' "$T/cli.json" 2>&1 | tr '\n' ' ')" "true false "
  mkdir -p "$T/cli" && rm -f "$T"/cli/*
  (cd "$T/cli" && timeout 120 "$HK" dump -s "$GOOD" com.example.app --json >"$T/cli.json" 2>"$T/cli.err")
  f=$(jq -r '.[0].path' "$T/cli.json" 2>/dev/null)
  if [[ "$f" == com.example.app-*.hprof ]] && [ "$(head -c 12 "$T/cli/$f" 2>/dev/null)" = "JAVA PROFILE" ] \
    && [ "$(jq -r '.[0].file_bytes' "$T/cli.json")" = "$(stat -c %s "$T/cli/$f")" ]; then pass device_cli_dump
  else fail device_cli_dump "$(cat "$T/cli.json" "$T/cli.err" | head -c 400)"; fi
  # --perfetto: the same dump in a Perfetto trace (embedded HPROF) beside it
  timeout 120 "$HK" dump -s "$GOOD" com.example.app --hprof "$T/pf.hprof" --perfetto "$T/pf.pftrace" >/dev/null 2>"$T/pf.err"
  if [ -s "$T/pf.pftrace" ]; then
    eq device_cli_dump_perfetto "$("$HK" histogram "$T/pf.pftrace" --json | md5sum)" "$("$HK" histogram "$T/pf.hprof" --json | md5sum)"
    eq device_cli_dump_perfetto_process "$("$HK" info "$T/pf.pftrace" --json | jq -r '.source[] | select(.key == "trace process") | .value')" com.example.app
  else
    fail device_cli_dump_perfetto "no trace written: $(head -c 300 "$T/pf.err")"
  fi
  rm -f "$T"/cli/*
  # --hprof names the dump's file; -o stays the rendered output
  (cd "$T/cli" && timeout 120 "$HK" dump -s "$GOOD" com.example.app --hprof app.hprof -o row.json --json 2>"$T/cli.err")
  if [ "$(head -c 12 "$T/cli/app.hprof" 2>/dev/null)" = "JAVA PROFILE" ] && [ "$(jq -r '.[0].path' "$T/cli/row.json" 2>/dev/null)" = app.hprof ]; then
    pass device_cli_dump_hprof_option
  else fail device_cli_dump_hprof_option "$(ls "$T/cli"; head -c 300 "$T/cli.err")"; fi
  rm -f "$T"/cli/*
  echo notdebuggable >"$CFG/dumpheap"
  (cd "$T/cli" && err device_cli_dump_not_debuggable "com.example.app is not debuggable: only debuggable apps" \
    timeout 60 "$HK" dump -s "$GOOD" com.example.app)
  left=$(ls -A "$T/cli" "$CFG/root/data/local/tmp" | grep -v ':$' | grep .)
  eq device_cli_dump_not_debuggable_clean "$left" ""
  echo ok >"$CFG/dumpheap"
else
  skip device_cli "hprofkit has no dump query yet"
fi

# ---- the server: broken, not running (auto-start), no adb at all ----
start_daemon hangup --mode hangup
HPORT=$(cat "$T/hangup.port")
err device_server_closes_mid_reply "server closed the connection while reading the reply to host:devices" \
  env ANDROID_ADB_SERVER_PORT=$HPORT timeout 30 "$TOOL" devices
start_daemon deaf --mode silent
DPORT=$(cat "$T/deaf.port")
err device_server_read_timeout "timed out after 1 s while reading the reply to host:version" \
  env ANDROID_ADB_SERVER_PORT=$DPORT HK_ADB_TIMEOUT=1 timeout 30 "$TOOL" version

NPORT=$(free_port)
SERVERS+=($NPORT)
v=$(ANDROID_ADB_SERVER_PORT=$NPORT timeout 60 "$TOOL" version 2>&1)
if [[ "$v" =~ ^[0-9]+$ ]]; then pass device_server_autostart; else fail device_server_autostart "$v"; fi
timeout 5 adb -P "$NPORT" kill-server >/dev/null 2>&1
# found through ANDROID_HOME before PATH
mkdir -p "$T/sdk/platform-tools" && ln -sf "$(command -v adb)" "$T/sdk/platform-tools/adb"
NPORT2=$(free_port)
SERVERS+=($NPORT2)
v=$(timeout 60 env PATH=/nonexistent ANDROID_HOME="$T/sdk" ANDROID_ADB_SERVER_PORT=$NPORT2 "$TOOL" version 2>&1)
if [[ "$v" =~ ^[0-9]+$ ]]; then pass device_server_autostart_android_home; else fail device_server_autostart_android_home "$v"; fi
timeout 5 adb -P "$NPORT2" kill-server >/dev/null 2>&1
NPORT3=$(free_port)
err device_no_adb "no adb server is running on 127.0.0.1:$NPORT3 and no adb binary found .*ANDROID_HOME" \
  timeout 30 env PATH=/nonexistent HOME="$T/empty" ANDROID_ADB_SERVER_PORT=$NPORT3 "$TOOL" devices
