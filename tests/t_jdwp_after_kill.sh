# fetch-bitmaps after a fetch killed while the app ran code for it, over JDWP to a real JVM.
# The thread that ran the killed fetch's call (Bitmap.compress) refuses every later debugger's
# invokes with ALREADY_INVOKING: the JDWP agent drops the call's completion with the old session.
# The next fetch skips that thread and runs on any other that runs code; when none does, it
# ends with one line naming the thread and exit status 1, never "0 fetched" and exit 0. And a
# fetch in which every bitmap failed exits 1 with the first failure.
. "$SRC/tests/lib.sh"
. "$SRC/tests/lib_device.sh"

CMP="$BUILD/tests/bitmap/bm_pngcmp"
PSO="$BUILD/plugins/jdwp/jdwp.so"
needs jdwp_after_kill javac java jq "$ADBD" "$CMP" "$PSO" || exit 0
CLS="$T/classes"
if ! compile_java "$CLS" "$SRC/tests/java/JdwpApp.java" "$SRC/tests/java/android/graphics/Bitmap.java"; then
  fail jdwp_after_kill_javac "$(head -c 300 "$T/javac.err")"; exit 0
fi
# the plugin as plugins.ini loads it; "short": a safe point wait of 2 s
INI="$T/plugins.ini" SHORT="$T/short.ini"
printf '[jdwp]\npath = %s\n' "$PSO" >"$INI"
printf '[jdwp]\npath = %s\nsafe_point_seconds = 2\n' "$PSO" >"$SHORT"
"$GEN" --scenario bitmaps-api29 -o "$T/d.hprof" >/dev/null 2>&1 || { fail jdwp_after_kill_gen genhprof; exit 0; }
side="$T/d.hprof.bitmaps"
fetch() { timeout 60 "$HK" --plugins "$1" fetch-bitmaps "$T/d.hprof" --jdwp "127.0.0.1:$APP_PORT" --json; }
# settled: the app ticks again (up to 6 s)
settled() { for _ in 1 2 3 4 5 6; do running "$APP_DIR" && return 0; done; return 1; }

# The worker thread starts 4 s after the test asks for it: the next fetch meets main first.
if ! JAVA_OPTS="-Djdwpapp.compressDelayMs=300 -Djdwpapp.compressMarker=$T/compressing -Djdwpapp.workerDelayMs=4000" \
     start_jvm_app after JdwpApp many 5 16 16; then
  fail jdwp_after_kill_app "the app did not start"; exit 0
fi

# ---- a fetch killed while the app compresses a bitmap for it ----
# the program itself in the background, not a function: the kill must reach it
"$HK" --plugins "$INI" fetch-bitmaps "$T/d.hprof" --jdwp "127.0.0.1:$APP_PORT" >/dev/null 2>"$T/killed.err" &
fpid=$!
for _ in $(seq 200); do [ -e "$T/compressing" ] && break; sleep 0.05; done
kill -9 $fpid 2>/dev/null; { wait $fpid; } 2>/dev/null
if [ ! -e "$T/compressing" ]; then fail jdwp_after_kill_setup "no compress started: $(head -c 300 "$T/killed.err")"; exit 0; fi
settled || { fail jdwp_after_kill_settled "the app does not run after the kill"; exit 0; }

# ---- only that thread runs code: one line naming it, exit 1, nothing written ----
rm -rf "$side"
t0=$(date +%s%N)
fetch "$SHORT" >"$T/stuck.json" 2>"$T/stuck.err"; rc=$?
ms=$(( ($(date +%s%N) - t0) / 1000000 ))
lines=$(wc -l <"$T/stuck.err")
if [ "$rc" = 1 ] && [ "$lines" = 1 ] &&
   grep -q 'thread "main" refuses to run code for a debugger (JDWP ALREADY_INVOKING) until the app restarts.*no other thread ran code in 2 s' "$T/stuck.err" &&
   [ -z "$(ls -A "$side" 2>/dev/null)" ]; then
  pass "jdwp_after_kill_no_thread ($ms ms)"
else fail jdwp_after_kill_no_thread "exit $rc, $lines lines, files [$(ls -A "$side" 2>/dev/null)]: $(head -c 400 "$T/stuck.err")"; fi
settled && pass jdwp_after_kill_no_thread_released || fail jdwp_after_kill_no_thread_released "the app was left suspended"

# ---- another thread runs code: the fetch runs on it, every image whole ----
touch "$APP_DIR/worker-now"
rm -rf "$side"
fetch "$INI" >"$T/ok.json" 2>"$T/ok.err"; rc=$?
bad=""
for ref in "$APP_DIR"/ref/*.ref; do
  b=$(basename "$ref" .ref)
  "$CMP" "$side/$b.png" "$ref" >/dev/null 2>&1 || bad="$bad $b"
done
got=$(jq -r '[.fetched, .failed] | join(" ")' "$T/ok.json" 2>/dev/null)
if [ "$rc" = 0 ] && [ "$got" = "5 0" ] && [ -z "$bad" ] &&
   grep -q 'thread "main" refuses to run code for a debugger (JDWP ALREADY_INVOKING.*the fetch ran on thread "worker" after' "$T/ok.err"; then
  pass "jdwp_after_kill_other_thread (on the worker $(grep -o 'after [0-9.]* s' "$T/ok.err"))"
else fail jdwp_after_kill_other_thread "exit $rc, fetched/failed [$got], bad [$bad]: $(head -c 400 "$T/ok.err")"; fi
settled && pass jdwp_after_kill_released || fail jdwp_after_kill_released "the app was left suspended"
# the GC before a dump holds a thread the same way
timeout 60 "$BUILD/plugins/jdwp/jdwp_cli" gc --jdwp "127.0.0.1:$APP_PORT" >"$T/gc.json" 2>"$T/gc.err"; rc=$?
eq jdwp_after_kill_gc "$rc $(jq -r .ok "$T/gc.json" 2>/dev/null)" "0 true"
kill -9 "$APP_PID" 2>/dev/null

# ---- every bitmap fails: exit 1 and one line with the first failure, not "0 fetched" ----
if JAVA_OPTS="-Djdwpapp.compressFails=true" start_jvm_app fails JdwpApp many 3 8 8; then
  rm -rf "$side"
  fetch "$INI" >"$T/fails.json" 2>"$T/fails.err"; rc=$?
  lines=$(wc -l <"$T/fails.err")
  if [ "$rc" = 1 ] && [ "$lines" = 1 ] &&
     grep -q 'none of the 3 bitmaps tried could be fetched; the first failure: 0x[0-9a-f]*: Bitmap.compress returned false' "$T/fails.err"; then
    pass jdwp_all_failed_exit_1
  else fail jdwp_all_failed_exit_1 "exit $rc, $lines lines: $(head -c 400 "$T/fails.err")"; fi
else fail jdwp_all_failed_app "the app did not start"; fi
