# JDWP client against a real JVM: the JDK's JDWP agent over TCP, a test app whose
# android.graphics.Bitmap has Android's field names and a compress() that writes real PNGs.
. "$SRC/tests/lib.sh"
. "$SRC/tests/lib_device.sh"

CLI="$BUILD/plugins/jdwp/jdwp_cli"
CMP="$BUILD/tests/bitmap/bm_pngcmp"
if ! command -v java >/dev/null || ! command -v javac >/dev/null; then
  skip jdwp "no JDK (java, javac) installed"; exit 0
fi
if [ ! -x "$CLI" ] || [ ! -x "$CMP" ] || [ ! -x "$ADBD" ]; then
  fail jdwp_build "missing $CLI, $CMP or $ADBD"; exit 0
fi

CLS="$T/classes"
if ! compile_java "$CLS" "$SRC/tests/java/JdwpApp.java" "$SRC/tests/java/android/graphics/Bitmap.java"; then
  fail jdwp_javac "$(head -c 300 "$T/javac.err")"; exit 0
fi

# start_app NAME MODE... : starts the app on a fresh port; sets APP_DIR, APP_PORT, APP_PID.
start_app() { start_jvm_app "$1" JdwpApp "${@:2}"; }

json() { jq -r "$1" "$2" 2>/dev/null; }

# ---- fetch over TCP, pixel for pixel ----
if start_app basic basic; then
  OUT="$T/out1"
  timeout 60 "$CLI" fetch --jdwp 127.0.0.1:$APP_PORT --out "$OUT" >"$T/f1.json" 2>"$T/f1.err"
  rc=$?
  eq jdwp_fetch_exit "$rc" 0
  eq jdwp_fetch_counts "$(json '[.instances,.fetched,.skipped_recycled,.skipped_empty,.skipped_null_ptr,.failed]|join(" ")' "$T/f1.json")" "7 4 1 1 1 0"
  bad=""
  for ref in "$APP_DIR"/ref/*.ref; do
    b=$(basename "$ref" .ref)
    "$CMP" "$OUT/$b.png" "$ref" >"$T/cmp.out" 2>&1 || bad="$bad $b: $(cat "$T/cmp.out")"
  done
  nref=$(ls "$APP_DIR"/ref/*.ref 2>/dev/null | wc -l)
  if [ -z "$bad" ] && [ "$nref" -eq 4 ]; then pass jdwp_pixels_match; else fail jdwp_pixels_match "refs=$nref$bad"; fi
  if [ ! -e "$OUT/0x7a004000.png" ]; then pass jdwp_recycled_skipped; else fail jdwp_recycled_skipped "recycled bitmap was written"; fi
  if [ ! -e "$OUT/0x7a005000.png" ] && [ ! -e "$OUT/0x0.png" ]; then pass jdwp_empty_and_null_skipped; else fail jdwp_empty_and_null_skipped "zero-size or null-pointer bitmap written"; fi
  eq jdwp_no_temp_files "$(ls -A "$OUT" | grep -vc '^0x[0-9a-f]*\.png$')" 0
  # The app had never compressed anything: CompressFormat came in through Class.forName.
  if [ "$(json .classes_loaded "$T/f1.json")" -ge 1 ] 2>/dev/null; then pass jdwp_forname_loads_class; else fail jdwp_forname_loads_class "classes_loaded=$(json .classes_loaded "$T/f1.json")"; fi
  # Progress: k of n, bytes, seconds left.
  if grep -q 'bitmap 4 of 4 (0x7a007000) ok, [0-9]* bytes, [0-9.]* s left' "$T/f1.err"; then pass jdwp_progress; else fail jdwp_progress "$(head -c 300 "$T/f1.err")"; fi
  if running "$APP_DIR"; then pass jdwp_running_after_fetch; else fail jdwp_running_after_fetch "heartbeat stopped"; fi

  # ---- a second fetch re-attaches (the first detached cleanly) ----
  timeout 60 "$CLI" fetch --jdwp 127.0.0.1:$APP_PORT --out "$T/out2" --quiet >"$T/f2.json" 2>"$T/f2.err"
  eq jdwp_refetch "$(json '[.ok,.fetched,.classes_loaded]|join(" ")' "$T/f2.json")" "true 4 0"

  # ---- byte budget: room for the largest image only ----
  big=$(stat -c %s "$OUT/0x7a002000.png")
  timeout 60 "$CLI" fetch --jdwp 127.0.0.1:$APP_PORT --out "$T/out3" --budget-bytes $((big + 1)) --quiet >"$T/f3.json" 2>"$T/f3.err"
  rc=$?
  # a failed fetch says why in the log (seen once under a loaded full run, not reproduced alone)
  [ "$rc" = 0 ] || echo "# jdwp_byte_budget: fetch exited $rc: $(head -c 400 "$T/f3.err" | tr '\n' ' ')"
  eq jdwp_byte_budget "$rc $(json '[.fetched,.stopped_by_budget,.stopped_by_bytes,.not_attempted]|join(" ")' "$T/f3.json") $(ls "$T/out3")" \
     "0 1 true true 3 0x7a002000.png"
  if "$CMP" "$T/out3/0x7a002000.png" "$APP_DIR/ref/0x7a002000.ref" >/dev/null 2>&1; then pass jdwp_byte_budget_keeps_image; else fail jdwp_byte_budget_keeps_image "kept image differs"; fi

  # ---- time budget ----
  timeout 60 "$CLI" fetch --jdwp 127.0.0.1:$APP_PORT --out "$T/out4" --budget-seconds 0.000001 --quiet >"$T/f4.json" 2>"$T/f4.err"
  eq jdwp_time_budget "$(json '[.ok,.stopped_by_time,.fetched < 4]|join(" ")' "$T/f4.json")" "true true true"
  if running "$APP_DIR"; then pass jdwp_running_after_budget; else fail jdwp_running_after_budget "heartbeat stopped"; fi

  # ---- the plugin: loaded by a stand-in host, its registered fetcher runs the same fetch ----
  PCHK="$BUILD/plugins/jdwp/jdwp_plugin_check"; PSO="$BUILD/plugins/jdwp/jdwp.so"
  if [ -x "$PCHK" ] && [ -f "$PSO" ]; then
    timeout 60 "$PCHK" "$PSO" fetch 127.0.0.1:$APP_PORT "$T/outp" >"$T/p1.out" 2>"$T/p1.err"
    # a crash of the stand-in host shows on its stderr alone: the runner prints ours on a failure
    [ $? = 0 ] || echo "jdwp_plugin_fetch: $(grep -m3 -E 'ERROR|#[0-9] |error:' "$T/p1.err" | tr '\n' ' ')" >&2
    eq jdwp_plugin_fetch "$(cat "$T/p1.out") $(ls -A "$T/outp" | wc -l)" \
       "fetcher=jdwp fetched=4 skipped=3 failed=0 stopped_by_budget=0 bytes=$(cat "$OUT"/*.png | wc -c) 4"
    # plugins.ini budget_bytes reaches the fetch when the request gives none.
    timeout 60 "$PCHK" "$PSO" fetch 127.0.0.1:$APP_PORT "$T/outp2" $((big + 1)) >"$T/p2.out" 2>"$T/p2.err"
    [ $? = 0 ] || echo "jdwp_plugin_config_budget: $(grep -m3 -E 'ERROR|#[0-9] |error:' "$T/p2.err" | tr '\n' ' ')" >&2
    eq jdwp_plugin_config_budget "$(cut -d' ' -f2,5 "$T/p2.out")" "fetched=1 stopped_by_budget=1"
  else
    fail jdwp_plugin_fetch "missing $PCHK or $PSO"
  fi

  # ---- a second debugger is refused with a clear error ----
  # the agent listens again a moment after the previous debugger left (the client retries too)
  for _ in $(seq 20); do exec 7<>"/dev/tcp/127.0.0.1/$APP_PORT" 2>/dev/null && break; sleep 0.1; done
  if { true >&7; } 2>/dev/null; then
    printf 'JDWP-Handshake' >&7
    read -r -t 5 -N 14 hs <&7
    err jdwp_second_debugger 'debugger (is )?(already )?attached' timeout 30 "$CLI" fetch --jdwp 127.0.0.1:$APP_PORT --out "$T/out5"
    exec 7>&-
  else
    fail jdwp_second_debugger "could not attach the first debugger"
  fi
  if running "$APP_DIR"; then pass jdwp_running_after_refusal; else fail jdwp_running_after_refusal "heartbeat stopped"; fi
else
  fail jdwp_app_start "basic app did not start: $(head -c 300 "$T/basic.log")"
fi

# ---- the handshake: what came back names the cause ----
# A fake port, one connection per case: noise (not a JDWP agent, e.g. an HTTP server), then a
# close before any byte (how ART's adbconnection turns away a second debugger).
FAKE=$(free_port)
if ! command -v python3 >/dev/null; then
  skip jdwp_handshake_noise "no python3 for the fake listener"
else
python3 -c "
import socket
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1); s.bind(('127.0.0.1',$FAKE)); s.listen(1)
print('up', flush=True)
for answer in (b'HTTP/1.0 400\\r\\n', b''):
    c,_=s.accept(); c.recv(14)
    if answer: c.sendall(answer)
    c.close()" >"$T/fake.out" 2>&1 &
PIDS+=($!)
for _ in $(seq 50); do grep -q up "$T/fake.out" 2>/dev/null && break; sleep 0.1; done
err jdwp_handshake_noise 'answered "HTTP/1.0 400\\x0d\\x0a" instead of the JDWP handshake: that is not a Java debugger agent' \
  timeout 30 "$CLI" fetch --jdwp 127.0.0.1:$FAKE --out "$T/out6"
if grep -q 'another debugger' "$T/err.err"; then fail jdwp_handshake_noise_not_debugger "noise blamed on another debugger"; else pass jdwp_handshake_noise_not_debugger; fi
err jdwp_handshake_dropped 'closed the debugger connection without a word: another debugger is attached or the process is not debuggable' \
  timeout 30 "$CLI" fetch --jdwp 127.0.0.1:$FAKE --out "$T/out6"
fi
err jdwp_nothing_listens 'connection refused' timeout 30 "$CLI" fetch --jdwp 127.0.0.1:1 --out "$T/out7"

# ---- an app that runs no code: the safe point wait ends with an explanation, app released ----
if start_app idle idle; then
  err jdwp_no_code_runs 'ran no code for 1 s; touching it makes it run something' \
    timeout 30 "$CLI" fetch --jdwp 127.0.0.1:$APP_PORT --out "$T/out8" --safe-point-ms 1000
  # Detached cleanly: a new debugger is accepted (and meets the same idle app).
  err jdwp_detached_after_timeout 'ran no code' \
    timeout 30 "$CLI" fetch --jdwp 127.0.0.1:$APP_PORT --out "$T/out8" --safe-point-ms 500
  kill -9 "$APP_PID" 2>/dev/null
fi

# ---- killing the JVM mid-fetch: an error, finished images kept intact ----
if JAVA_OPTS=-Djdwpapp.compressDelayMs=150 start_app many many 30 64 64; then
  timeout 60 "$CLI" fetch --jdwp 127.0.0.1:$APP_PORT --out "$T/out9" --quiet >"$T/f9.json" 2>"$T/f9.err" &
  fpid=$!
  for _ in $(seq 100); do [ "$(ls "$T/out9" 2>/dev/null | grep -c '\.png$')" -ge 2 ] && break; sleep 0.05; done
  kill -9 "$APP_PID"
  wait "$fpid"; rc=$?
  eq jdwp_kill_exit "$rc" 1
  if grep -q 'connection to the app lost after .* images fetched so far are kept' "$T/f9.err"; then pass jdwp_kill_error; else fail jdwp_kill_error "$(head -c 300 "$T/f9.err")"; fi
  kept=$(ls "$T/out9" | grep -c '^0x[0-9a-f]*\.png$'); bad=""
  for f in "$T"/out9/0x*.png; do
    b=$(basename "$f" .png); "$CMP" "$f" "$APP_DIR/ref/$b.ref" >/dev/null 2>&1 || bad="$bad $b"
  done
  if [ "$kept" -ge 2 ] && [ "$kept" -lt 30 ] && [ -z "$bad" ] && [ "$(json .fetched "$T/f9.json")" = "$kept" ] &&
     [ "$(json .lost_connection "$T/f9.json")" = true ]; then
    pass jdwp_kill_keeps_images
  else
    fail jdwp_kill_keeps_images "kept=$kept bad=[$bad] json=$(head -c 300 "$T/f9.json")"
  fi
  eq jdwp_kill_no_temp_files "$(ls -A "$T/out9" | grep -vc '^0x[0-9a-f]*\.png$')" 0
fi

# ---- GC through JDWP: unreachable objects are gone afterwards ----
if JAVA_OPTS="-XX:+UseSerialGC -Xms256m -Xmx256m" start_app garbage garbage; then
  count() { jcmd "$APP_PID" GC.class_histogram -all 2>/dev/null | awk '$4 == "JdwpGarbage" {print $2}'; }
  before=$(count)
  err jdwp_no_bitmap_class 'android.graphics.Bitmap was never loaded' \
    timeout 30 "$CLI" fetch --jdwp 127.0.0.1:$APP_PORT --out "$T/out10"
  timeout 60 "$CLI" gc --jdwp 127.0.0.1:$APP_PORT >"$T/gc.json" 2>"$T/gc.err"
  rc=$?
  after=$(count)
  if [ "$rc" -eq 0 ] && [ "${before:-0}" -ge 200000 ] && [ -n "$after" ] && [ "$after" -lt 100 ]; then
    pass jdwp_gc_frees_garbage
  else
    fail jdwp_gc_frees_garbage "rc=$rc before=$before after=$after $(head -c 200 "$T/gc.err")"
  fi
  if running "$APP_DIR"; then pass jdwp_running_after_gc; else fail jdwp_running_after_gc "heartbeat stopped"; fi
fi
