# Device commands under fault injection: the test device daemon (tests/adbd/adbd_fault.c) drops
# the connection, stalls, answers garbage or a short answer (a short file for a pull) at each
# step of `dump` and `fetch-bitmaps`.  Each run ends with the README's exit status (1: the
# device failed; 0 where the step is only cleanup) and one line on stderr, no file or temporary
# file on the host unless the dump is whole, and nothing of it left on the device once the next
# dump has run.
. "$SRC/tests/lib.sh"
. "$SRC/tests/lib_device.sh"

PSO="$BUILD/plugins/jdwp/jdwp.so"
needs device_faults adb "$ADBD" "$PSO" || exit 0
adb_env
export HK_DUMP_POLL_MS=100 HK_ADB_TIMEOUT=1 HK_DUMP_TIMEOUT=2

CFG="$T/cfg"
mkdir -p "$CFG/root/data/local/tmp"
printf 'ro.product.model=Pixel Test\nro.build.version.sdk=29\nro.debuggable=1\nro.build.type=userdebug\n' >"$CFG/props"
printf 'PID NAME\n1 init\n4321 com.example.app\n' >"$CFG/ps"
printf 'android\ncom.example.app\n' >"$CFG/packages"
echo "4321 1" >"$CFG/jdwp"
echo ok >"$CFG/dumpheap"
"$GEN" --scenario chain --objects 20000 -o "$T/src.hprof" >/dev/null 2>&1 || { fail device_faults_gen genhprof; exit 0; }
echo "$T/src.hprof" >"$CFG/dump_file"
start_daemon adbd
SERIAL=$DAEMON_SERIAL
start_adb_server || { fail device_faults_adb "adb start-server failed"; exit 0; }
adb_connect "$SERIAL"
adb_wait "$SERIAL" device || { fail device_faults_adb "the daemon is not listed as a device"; exit 0; }

# back: the device listed again after a drop
back() { adb_connect "$SERIAL"; adb_wait "$SERIAL" device; }
# judge NAME RC ERRFILE OUTFILE WANT: WANT is "fail" (exit 1, one line, no output file) or
# "whole" (exit 0 and the output equals the device's file); either way no temporary file
judge() {
  local name=$1 rc=$2 errf=$3 out=$4 want=$5 extra
  extra=$(ls -A "$(dirname "$out")" | grep -v '^whole\.hprof$' | grep -vx "$(basename "$out")")
  local lines; lines=$(grep -vc '^hprofkit: note: removed ' "$errf")
  if [ -n "$extra" ]; then fail "$name" "left on the host: $extra"
  elif LC_ALL=C grep -q '[^[:print:][:space:]]' "$errf"; then fail "$name" "a byte that is not text on stderr: $(head -c 200 "$errf")"
  elif [ "$want" = fail ] && [ "$rc" = 1 ] && [ "$lines" = 1 ] && [ ! -e "$out" ]; then pass "$name: $(tail -c 150 "$errf")"
  elif [ "$want" = whole ] && [ "$rc" = 0 ] && cmp -s "$out" "$T/src.hprof"; then pass "$name"
  else fail "$name" "exit $rc, $lines lines, output $( [ -e "$out" ] && stat -c %s "$out" || echo none): $(head -c 300 "$errf")"; fi
}

mkdir -p "$T/h"
for step in getprop "ps -A" "pm list" "ls /data" "am dumpheap" "stat -c" "sync:" "rm -f"; do
  for action in drop stall garbage short; do
    echo "$step $action" >"$CFG/fault"
    rm -f "$T/h/out.hprof"
    timeout 60 "$HK" dump -s "$SERIAL" com.example.app --no-gc --hprof "$T/h/out.hprof" >/dev/null 2>"$T/e"
    rc=$?
    : >"$CFG/fault"
    want=fail
    # the sweep of earlier leftovers (ls) and the removal after a good pull (rm) are cleanup:
    # the dump goes on, but not on a device gone before the dump began
    case "$step/$action" in "ls /data/drop") ;; "ls /data/"* | "rm -f/"*) want=whole ;; esac
    cat "$T/e" >> "$T/all.err"
    judge "dump-${step%% *}-$action" "$rc" "$T/e" "$T/h/out.hprof" $want
    if [ "$action" = drop ]; then back; fi
  done
done
# what the faulty runs left on the device: gone after the next dump
sleep 0.5
timeout 60 "$HK" dump -s "$SERIAL" com.example.app --no-gc --hprof "$T/h/whole.hprof" >/dev/null 2>"$T/e"
left=$(ls "$CFG/root/data/local/tmp" | grep -c '^hprofkit-')
if [ "$left" = 0 ] && cmp -s "$T/h/whole.hprof" "$T/src.hprof"; then pass "dump-faults-device-clean ($(cat "$T/all.err" "$T/e" | grep -c 'note: removed ') files of failed dumps removed by the next)"
else fail dump-faults-device-clean "$left files: $(ls "$CFG/root/data/local/tmp") :: $(head -c 200 "$T/e")"; fi

# fetch-bitmaps through adb: the device's steps, then the JDWP stream itself (jdwp:PID)
INI="$T/plugins.ini"
printf '[jdwp]\npath = %s\n' "$PSO" >"$INI"
"$GEN" --scenario bitmaps-api29 -o "$T/bm.hprof" >/dev/null 2>&1
for step in getprop "jdwp:"; do
  for action in drop stall garbage; do
    echo "$step $action" >"$CFG/fault"
    rm -rf "$T/bm.hprof.bitmaps"
    timeout 60 "$HK" --plugins "$INI" fetch-bitmaps "$T/bm.hprof" -s "$SERIAL" --pid 4321 >/dev/null 2>"$T/e"
    rc=$?
    : >"$CFG/fault"
    name="fetch-${step%%[ :]*}-$action" lines=$(wc -l <"$T/e")
    files=$(ls -A "$T/bm.hprof.bitmaps" 2>/dev/null)
    # the JDWP handshake says what came back: noise is no debugger agent, silence no answer
    case "$step/$action" in
      jdwp:/garbage) says='answered ".+" instead of the JDWP handshake: that is not a Java debugger agent' ;;
      jdwp:/stall) says="the app's JDWP port did not answer in 10 s" ;;
      *) says='' ;;
    esac
    if [ "$rc" = 1 ] && [ "$lines" = 1 ] && [ -z "$files" ] && grep -qE -- "$says" "$T/e"; then pass "$name: $(tail -c 120 "$T/e")"
    else fail "$name" "exit $rc, $lines lines, files [$files]: $(head -c 300 "$T/e")"; fi
    if [ "$action" = drop ]; then back; fi
  done
done
