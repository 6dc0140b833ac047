#!/usr/bin/env bash
# profile-native: a heap profile recorded through the real adb server from the scripted device
# (tests/adbd answers `perfetto` as a device does for Perfetto's tools/heap_profile: the config
# on stdin, --background, the trace under /data/misc/perfetto-traces), pulled, cleaned up and
# read; what goes wrong on the way says so in one line with the README's exit status.
source "$SRC/tests/lib.sh"
source "$SRC/tests/lib_device.sh"
source "$SRC/tests/lib_watch.sh"
PF="$SRC/../shared/reference/perfetto"
if ! command -v protoc >/dev/null || [ ! -d "$PF/tests" ]; then skip native_record "needs protoc and $PF"; exit 0; fi
watch_device 33 || exit 0
mkdir -p "$CFG/root/data/misc/perfetto-traces"
curve "$(step 4242 100 1000)" "$(step 4242 101 1000)" "$(step 4242 102 1000)"
# Perfetto's heap_profile.textproto, as the app's (pid 4242) profile
trace_of() { sed "s/pid: 2\$/pid: $1/" "$PF/tests/heap_profile.textproto" |
  (cd "$PF" && protoc --proto_path=. --encode=perfetto.protos.Trace protos/perfetto/trace/trace.proto); }
trace_of 4242 > "$CFG/perfetto_trace"

rec() { local n=$1; shift; timeout 60 "$HK" profile-native -s "$S" "$@" >"$T/$n.out" 2>"$T/$n.err"; echo $? >"$T/$n.rc"; }
rec ok "$APP" --duration 1s --trace "$T/rec.pftrace" --json
eq record_status "$(cat "$T/ok.rc")" 0
eq record_figures "$(jq -r '"\(.pid) \(.process) \(.unreleased_bytes) \(.allocated_bytes) \(.hotspots | length)"' "$T/ok.out")" \
  "4242 $APP 1090 2100 2"
eq record_same_as_native "$(jq -c .hotspots "$T/ok.out")" "$("$HK" native "$T/rec.pftrace" -n 10 --json | jq -c .hotspots)"
cfgtext=$(cat "$CFG/perfetto_config" 2>/dev/null)
for want in 'name: "android.heapprofd"' "process_cmdline: \"$APP\"" 'sampling_interval_bytes: 4096' 'duration_ms: 1000'; do
  case "$cfgtext" in *"$want"*) pass "config_has_${want%%:*}" ;; *) fail "config_has_${want%%:*}" "no '$want' in: $cfgtext" ;; esac
done
eq record_cleans_device "$(ls -A "$CFG/root/data/misc/perfetto-traces")" ""
rec interval "$APP" --duration 0s --sampling-interval 65536 --trace "$T/rec2.pftrace"
eq record_interval "$(grep -c 'sampling_interval_bytes: 65536' "$CFG/perfetto_config")" 1

# Ctrl-C stops the recording early and keeps what was recorded
( timeout 60 "$HK" profile-native -s "$S" "$APP" --duration 30s --trace "$T/int.pftrace" --json >"$T/int.out" 2>"$T/int.err"; echo $? >"$T/int.rc" ) &
bg=$!
for _ in $(seq 50); do grep -q recording "$T/int.err" 2>/dev/null && break; sleep 0.1; done
pkill -INT -f "profile-native -s $S $APP --duration 30s" ; wait $bg
eq interrupt_status "$(cat "$T/int.rc")" 0
eq interrupt_stopped_early "$(jq -r .stopped_early "$T/int.out")" true
eq interrupt_cleans_device "$(ls -A "$CFG/root/data/misc/perfetto-traces")" ""

# what goes wrong
rec noproc com.example.none --duration 0s --trace "$T/x.pftrace"
eq no_process "$(cat "$T/noproc.rc") $(grep -c "no process 'com.example.none' runs on" "$T/noproc.err")" "2 1"
rec badint "$APP" --sampling-interval lots
eq bad_interval "$(cat "$T/badint.rc") $(grep -c -- '--sampling-interval needs a number' "$T/badint.err")" "2 1"
rec baddur "$APP" --duration soon
eq bad_duration "$(cat "$T/baddur.rc") $(grep -c "'soon' is not a duration" "$T/baddur.err")" "2 1"
trace_of 2 > "$CFG/perfetto_trace"   # heapprofd recorded nothing of the app: not profileable
rec notprof "$APP" --duration 0s --trace "$T/np.pftrace"
eq not_profileable "$(cat "$T/notprof.rc") $(grep -c 'only profileable apps' "$T/notprof.err")" "1 1"
rm -f "$CFG/perfetto_trace"           # the recording writes nothing
rec nothing "$APP" --duration 0s --trace "$T/none.pftrace"
eq no_trace "$(cat "$T/nothing.rc") $(grep -c 'could not be pulled' "$T/nothing.err") $([ -e "$T/none.pftrace" ] && echo left || echo none)" "1 1 none"
set_sdk 28
rec old "$APP" --duration 0s
eq old_device "$(cat "$T/old.rc") $(grep -c 'Android 10 (API 29).* is API 28' "$T/old.err")" "1 1"

# watch --native-profile: once the native heap has grown by --native-growth since the first
# sample (5100 KB, then 8000 KB at the third: 2900 KB more), one profile beside the dumps, logged as an event
set_sdk 33
trace_of 4242 > "$CFG/perfetto_trace"
curve "$(step 4242 100 1000)" "$(step 4242 101 1000)" "$(step 4242 102 30000)" "$(step 4242 103 30000)" "$(step 4242 104 30000)"
watch wnp --count 5 --tiers 99 --native-profile --native-growth 2000000 --native-duration 0s --json
eq watch_native_status "$(cat "$T/wnp.rc")" 0
eq watch_native_event "$(jq -r '[.[] | select(.event == "native-profile") | .detail | sub("; .*"; "")] | join("|")' "$T/wnp.out")" \
  "native heap grew 2969600 B >= --native-growth 2000000 B"
f=$(jq -r '.[] | select(.event == "native-profile") | .file' "$T/wnp.out")
eq watch_native_file "$([ -f "$f" ] && "$HK" native "$f" --json | jq .unreleased_bytes)" 1090
eq watch_native_beside_dumps "$(dirname "$f")" "$T/wnp"
watch wnp2 --count 2 --native-profile
eq watch_native_needs_threshold "$(cat "$T/wnp2.rc") $(grep -c 'needs --native-limit BYTES or --native-growth BYTES' "$T/wnp2.err")" "2 1"
