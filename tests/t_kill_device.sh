# The device writers under kill: SIGKILL, SIGINT and SIGTERM at seeded random
# moments of `dump --hprof FILE` (through the real adb server and the test device daemon) and of
# `fetch-bitmaps` (over JDWP to a real JVM) leave the old file or the whole new one, never a part,
# no temporary file on the host; on the device, the next dump removes what a stopped one left, and
# the app is never left suspended.  HK_KILLS sets the kills per writer.
. "$SRC/tests/lib.sh"
. "$SRC/tests/lib_device.sh"

CMP="$BUILD/tests/bitmap/bm_pngcmp"
PSO="$BUILD/plugins/jdwp/jdwp.so"
needs kill_device adb javac java "$ADBD" "$CMP" "$PSO" || exit 0
kills=${HK_KILLS:-9}
RANDOM=3636   # the same moments every run
adb_env
export HK_DUMP_POLL_MS=100
INI="$T/plugins.ini"
printf '[jdwp]\npath = %s\n' "$PSO" >"$INI"

# signal I: KILL, INT and TERM in turn
signal() { case $(($1 % 3)) in 0) echo KILL ;; 1) echo INT ;; *) echo TERM ;; esac; }
# killed_at MS SIG CMD...: runs the program CMD (not a function: the signal must reach it) in the background, sends the next signal after MS; prints "SIG@MS:RC"
killed_at() {
  local ms=$1 sig=$2; shift 2
  "$@" >/dev/null 2>>"$T/killed.err" &
  local pid=$!
  sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
  kill -s "$sig" $pid 2>/dev/null
  { wait $pid; } 2>/dev/null
  echo "$sig@${ms}ms:$?"
}
landed() { grep -oE ':(137|130|143)( |$)' <<<"$1" | wc -l; }
now_ms() { date +%s%3N; }

# ---- dump --hprof: the daemon's am dumpheap copies a prepared 20 MB dump ----
CFG="$T/cfg"
mkdir -p "$CFG/root/data/local/tmp"
printf 'ro.product.model=Pixel Test\nro.build.version.sdk=34\nro.debuggable=1\nro.build.type=userdebug\n' >"$CFG/props"
printf 'PID NAME\n1 init\n4321 com.example.app\n' >"$CFG/ps"
printf 'android\ncom.example.app\n' >"$CFG/packages"
echo ok >"$CFG/dumpheap"
"$GEN" --scenario chain --objects 400000 -o "$T/src.hprof" >/dev/null 2>&1 || { fail kill_dump_gen "genhprof"; exit 0; }
echo "$T/src.hprof" >"$CFG/dump_file"
start_daemon adbd
start_adb_server || { fail kill_dump_adb "adb start-server failed"; exit 0; }
adb_connect "$DAEMON_SERIAL"
adb_wait "$DAEMON_SERIAL" device || { fail kill_dump_adb "the daemon is not listed as a device"; exit 0; }
dump_cmd=("$HK" dump -s "$DAEMON_SERIAL" com.example.app --no-gc --hprof)
dump() { timeout 60 "${dump_cmd[@]}" "$1"; }
leftovers() { ls "$CFG/root/data/local/tmp" | grep -c '^hprofkit-'; }

mkdir -p "$T/d"
t0=$(now_ms)
dump "$T/d/whole.hprof" >/dev/null 2>"$T/dump.err"
run_ms=$(( $(now_ms) - t0 ))
if ! cmp -s "$T/d/whole.hprof" "$T/src.hprof"; then
  fail kill_dump_reference "a full dump is not the device's file: $(head -c 300 "$T/dump.err")"
else
  outcomes="" problems=""
  for i in $(seq 1 "$kills"); do
    echo old >"$T/d/out.hprof"
    ms=$(( RANDOM % (run_ms + 1) ))
    outcomes="$outcomes $(killed_at "$ms" "$(signal "$i")" "${dump_cmd[@]}" "$T/d/out.hprof")"
    { printf 'old\n' | cmp -s - "$T/d/out.hprof"; } || cmp -s "$T/d/out.hprof" "$T/src.hprof" ||
      problems="$problems [$i: a part of $(stat -c %s "$T/d/out.hprof") bytes]"
    extra=$(ls -A "$T/d" | grep -vxE 'whole\.hprof|out\.hprof')
    [ -n "$extra" ] && problems="$problems [$i: temporary $extra]"
  done
  if [ -z "$problems" ] && [ "$(landed "$outcomes")" -gt 0 ]; then
    pass "killed-dump-x$kills ($(landed "$outcomes") while running, a full run $run_ms ms)"
  else fail killed-dump "${problems:-no kill landed while it ran:}$outcomes"; fi
  # what stopped dumps left on the device: the next dump removes it (once their am has ended)
  sleep 1
  dump "$T/d/after.hprof" >/dev/null 2>"$T/after.err"
  after=$(leftovers) removed=$(cat "$T/killed.err" "$T/after.err" | grep -c 'left by a dump that was stopped')
  if [ "$after" = 0 ] && [ "$removed" -gt 0 ] && cmp -s "$T/d/after.hprof" "$T/src.hprof"; then
    pass "killed-dump-device-clean ($removed files left by stopped dumps, each removed by the next)"
  else fail killed-dump-device-clean "$after files left: $(ls "$CFG/root/data/local/tmp") :: $(head -c 300 "$T/after.err")"; fi
  # a dump still running elsewhere keeps its file: one named by a live process of this host
  tag=$(grep -oE 'hprofkit-[0-9]+-[0-9]+-[0-9a-f]{8}-' "$CFG/log" | tail -1 | cut -d- -f4)
  if [ -n "$tag" ]; then
    sleep 300 & keep=$!; PIDS+=("$keep")
    : >"$CFG/root/data/local/tmp/hprofkit-4321-1-$tag-$keep.hprof"
    dump "$T/d/after.hprof" >/dev/null 2>&1
    [ -e "$CFG/root/data/local/tmp/hprofkit-4321-1-$tag-$keep.hprof" ] && pass killed-dump-keeps-running-dumps ||
      fail killed-dump-keeps-running-dumps "the file of a running dump was removed"
  else fail killed-dump-keeps-running-dumps "no remote name in the daemon's log"; fi
fi

# ---- fetch-bitmaps over JDWP: 30 bitmaps, each compressed slowly by the app ----
CLS="$T/classes"
if ! compile_java "$CLS" "$SRC/tests/java/JdwpApp.java" "$SRC/tests/java/android/graphics/Bitmap.java" \
     "$SRC"/tests/java/fetch/*.java; then
  fail kill_fetch_javac "$(head -c 300 "$T/javac.err")"; exit 0
fi
if ! JAVA_OPTS="-Djdwpapp.compressDelayMs=10 -Dhk.process=com.example.many" start_jvm_app many FetchApp many 30 64 64; then
  fail kill_fetch_app "the app did not start"; exit 0
fi
"$GEN" --scenario bitmaps-api29 -o "$T/many.hprof" >/dev/null 2>&1
fetch_cmd=("$HK" --plugins "$INI" fetch-bitmaps "$T/many.hprof" --jdwp "127.0.0.1:$APP_PORT")
fetch() { timeout 60 "${fetch_cmd[@]}"; }
side="$T/many.hprof.bitmaps"
t0=$(now_ms)
fetch >/dev/null 2>"$T/fetch.err"
run_ms=$(( $(now_ms) - t0 ))
nref=$(ls "$APP_DIR"/ref/*.ref | wc -l)
if [ "$(ls "$side" 2>/dev/null | wc -l)" != "$nref" ]; then
  fail kill_fetch_reference "a full fetch wrote $(ls "$side" 2>/dev/null | wc -l) of $nref images: $(head -c 300 "$T/fetch.err")"
  exit 0
fi
outcomes="" problems=""
for i in $(seq 1 "$kills"); do
  rm -rf "$side"; mkdir -p "$side"
  # half of the runs start from an older fetch: those files must stay whole
  [ $((i % 2)) = 0 ] && for ref in "$APP_DIR"/ref/*.ref; do echo old >"$side/$(basename "$ref" .ref).png"; done
  ms=$(( RANDOM % (run_ms + 1) ))
  outcomes="$outcomes $(killed_at "$ms" "$(signal "$i")" "${fetch_cmd[@]}")"
  for f in "$side"/* "$side"/.[!.]*; do
    [ -e "$f" ] || continue
    b=$(basename "$f" .png)
    { printf 'old\n' | cmp -s - "$f"; } && continue
    "$CMP" "$f" "$APP_DIR/ref/$b.ref" >/dev/null 2>&1 || problems="$problems [$i: $(basename "$f")]"
  done
  # the agent resumes the app once it sees the debugger gone
  for _ in 1 2 3 4 5 6; do running "$APP_DIR" && break; done
  running "$APP_DIR" || { problems="$problems [$i: the app was left suspended]"; break; }
done
if [ -z "$problems" ] && [ "$(landed "$outcomes")" -gt 0 ]; then
  pass "killed-fetch-x$kills ($(landed "$outcomes") while running, a full run $run_ms ms)"
else fail killed-fetch "${problems:-no kill landed while it ran:}$outcomes"; fi
