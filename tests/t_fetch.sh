# hprofkit fetch-bitmaps and the JDWP GC before `hprofkit dump`, end to end: a real
# JVM (tests/java/JdwpApp.java, dressed as an Android app by tests/java/fetch/FetchApp.java so its
# HotSpot dump names its process and SDK), the real adb server, the test device daemon
# (tests/adbd/) relaying jdwp:PID to the JVM's JDWP agent, and the jdwp plugin loaded by $HK.
. "$SRC/tests/lib.sh"
. "$SRC/tests/lib_device.sh"

CMP="$BUILD/tests/bitmap/bm_pngcmp"
PSO="$BUILD/plugins/jdwp/jdwp.so"
needs fetch adb javac java jcmd jq "$ADBD" "$CMP" "$PSO" "$HK" || exit 0
if ! "$HK" queries 2>/dev/null | grep -q '^ *fetch-bitmaps '; then
  fail fetch_query "hprofkit has no fetch-bitmaps query"; exit 0
fi

echo 'print(type(hk.fetch_bitmaps))' >"$T/wired.lua"
if [ "$("$HK" run "$T/wired.lua" 2>&1)" != function ]; then
  fail fetch_wiring "hk.fetch_bitmaps is missing: core/cli/cli.c must call hkl_open_plugin_modules() after loading the plugins"
  exit 0
fi

adb_env
export HK_DUMP_POLL_MS=300

CLS="$T/classes"
if ! compile_java "$CLS" "$SRC/tests/java/JdwpApp.java" "$SRC/tests/java/android/graphics/Bitmap.java" \
     "$SRC"/tests/java/fetch/*.java; then
  fail fetch_javac "$(head -c 300 "$T/javac.err")"; exit 0
fi

# The jdwp plugin, as plugins.ini loads it.
INI="$T/plugins.ini"
printf '[jdwp]\npath = %s\n' "$PSO" >"$INI"
hk() { timeout 120 "$HK" --plugins "$INI" "$@"; }

# start_app NAME PROCESS MODE... : sets APP_DIR, APP_PORT, APP_PID (JAVA_OPTS for the JVM).
start_app() {
  local name=$1 proc=$2; shift 2
  JAVA_OPTS="${JAVA_OPTS:-} -Dhk.process=$proc" start_jvm_app "$name" FetchApp "$@"
}

# same_pixels DIR REFDIR: every reference image has a fetched PNG with the same pixels; prints
# what differs.
same_pixels() {
  local bad="" n=0 ref b
  for ref in "$2"/ref/*.ref; do
    b=$(basename "$ref" .ref); n=$((n + 1))
    "$CMP" "$1/$b.png" "$ref" >"$T/cmp.out" 2>&1 || bad="$bad $b: $(head -c 100 "$T/cmp.out")"
  done
  [ "$n" -gt 0 ] || bad="no reference images"
  echo "$bad"
}

# ---- the device: a daemon whose ps lists the app and whose jdwp:PID reaches its agent ----
CFG="$T/cfg"
mkdir -p "$CFG/root/data/local/tmp"
set_sdk() {
  cat >"$CFG/props" <<EOF
ro.product.model=Pixel Test
ro.build.version.sdk=$1
ro.debuggable=1
ro.build.type=userdebug
EOF
}
set_sdk 29
: >"$CFG/jdwp"
{ echo "PID NAME"; echo "1 init"; } >"$CFG/ps"
printf 'android\n' >"$CFG/packages"
# device_add PID NAME PORT: the process is listed, debuggable, and the one am dumpheap dumps.
device_add() {
  echo "$1 $2" >>"$CFG/ps"
  echo "$2" >>"$CFG/packages"
  echo "$1 $3" >>"$CFG/jdwp"
  echo "$1" >"$CFG/jvm_pid"
}
echo ok >"$CFG/dumpheap"
echo "TOTAL 1000" >"$CFG/meminfo"
start_daemon adbd
SERIAL=$DAEMON_SERIAL
start_adb_server || { fail fetch_adb "adb start-server failed"; exit 0; }
adb_connect "$SERIAL"
adb_wait "$SERIAL" device

json() { jq -r "$1" "$2" 2>/dev/null; }

# ---- through adb: the dump's own process, looked up on the device ----
if start_app basic com.example.jdwpapp basic; then
  device_add "$APP_PID" com.example.jdwpapp "$APP_PORT"
  D="$T/basic.hprof"
  jcmd "$APP_PID" GC.heap_dump "$D" >/dev/null 2>&1
  eq fetch_dump_origin "$(hk info "$D" --json | jq -r '[.process, .sdk] | join(" ")')" "com.example.jdwpapp 29"
  : >"$CFG/log"
  hk fetch-bitmaps "$D" -s "$SERIAL" --json >"$T/f1.json" 2>"$T/f1.err"
  rc=$?
  eq fetch_adb_exit "$rc" 0
  eq fetch_adb_summary "$(json '[.source,.fetched,.skipped,.failed,.stopped_by_budget]|join(" ")' "$T/f1.json")" \
    "jdwp 4 3 0 false"
  eq fetch_adb_bytes "$(json .bytes "$T/f1.json")" "$(cat "$D".bitmaps/*.png 2>/dev/null | wc -c)"
  bad=$(same_pixels "$D.bitmaps" "$APP_DIR")
  if [ -z "$bad" ] && [ "$(ls "$D.bitmaps" | wc -l)" = 4 ]; then pass fetch_adb_pixels_match
  else fail fetch_adb_pixels_match "$bad; files: $(ls "$D.bitmaps" 2>&1 | tr '\n' ' ')"; fi
  # it really went through the device: jdwp:PID opened, the app nudged with dumpsys meminfo
  if grep -q "OPEN jdwp:$APP_PID" "$CFG/log"; then pass fetch_adb_via_jdwp_relay; else fail fetch_adb_via_jdwp_relay "$(cat "$CFG/log")"; fi
  [ ! -e "$D.bitmaps/0x7a004000.png" ] && pass fetch_adb_recycled_skipped || fail fetch_adb_recycled_skipped "recycled bitmap written"
  eq fetch_adb_no_temp_files "$(ls -A "$D.bitmaps" | grep -vc '^0x[0-9a-f]*\.png$')" 0
  if running "$APP_DIR"; then pass fetch_adb_app_running; else fail fetch_adb_app_running "heartbeat stopped"; fi

  # --pid, explicitly, into a dump that names no process of its own
  cp "$D" "$T/bypid.hprof"
  hk fetch-bitmaps "$T/bypid.hprof" -s "$SERIAL" --pid "$APP_PID" --json >"$T/f2.json" 2>"$T/f2.err"
  eq fetch_adb_pid "$? $(json .fetched "$T/f2.json") $(ls "$T/bypid.hprof.bitmaps" 2>/dev/null | wc -l)" "0 4 4"

  # the direct path: --jdwp HOST:PORT, no device
  cp "$D" "$T/direct.hprof"
  hk fetch-bitmaps "$T/direct.hprof" --jdwp "127.0.0.1:$APP_PORT" --json >"$T/f3.json" 2>"$T/f3.err"
  rc=$?
  bad=$(same_pixels "$T/direct.hprof.bitmaps" "$APP_DIR")
  if [ "$rc" = 0 ] && [ "$(json .fetched "$T/f3.json")" = 4 ] && [ -z "$bad" ]; then pass fetch_direct_pixels_match
  else fail fetch_direct_pixels_match "rc=$rc $(head -c 200 "$T/f3.json" "$T/f3.err") $bad"; fi
  if running "$APP_DIR"; then pass fetch_direct_app_running; else fail fetch_direct_app_running "heartbeat stopped"; fi

  # the byte budget: room for the largest image only; what was fetched is kept
  big=$(stat -c %s "$D.bitmaps/0x7a002000.png")
  cp "$D" "$T/budget.hprof"
  hk fetch-bitmaps "$T/budget.hprof" -s "$SERIAL" --budget-bytes $((big + 1)) --json >"$T/f4.json" 2>"$T/f4.err"
  eq fetch_byte_budget "$? $(json '[.fetched,.stopped_by_budget]|join(" ")' "$T/f4.json") $(ls "$T/budget.hprof.bitmaps" | tr '\n' ' ')" \
    "0 1 true 0x7a002000.png "
  if "$CMP" "$T/budget.hprof.bitmaps/0x7a002000.png" "$APP_DIR/ref/0x7a002000.ref" >/dev/null 2>&1; then
    pass fetch_byte_budget_keeps_image; else fail fetch_byte_budget_keeps_image "kept image differs"; fi
  if running "$APP_DIR"; then pass fetch_budget_app_running; else fail fetch_budget_app_running "heartbeat stopped"; fi

  # the table output: one summary record
  hk fetch-bitmaps "$T/bypid.hprof" -s "$SERIAL" --pid "$APP_PID" >"$T/f5.out" 2>"$T/f5.err"
  if grep -qE '^fetched: +4$' "$T/f5.out" && grep -qE '^stopped_by_budget: +false$' "$T/f5.out"; then pass fetch_table_summary
  else fail fetch_table_summary "$(head -c 300 "$T/f5.out" "$T/f5.err")"; fi

  # errors that say what to do
  "$GEN" --scenario bitmaps-api29 -o "$T/gone.hprof" >/dev/null 2>&1
  err fetch_not_running "com.example.bitmaps is not running on $SERIAL" hk fetch-bitmaps "$T/gone.hprof" -s "$SERIAL"
  printf '[jdwp]\nenabled = no\n' >"$T/nojdwp.ini"
  err fetch_no_plugin "no live bitmap fetcher is loaded" timeout 60 "$HK" --plugins "$T/nojdwp.ini" fetch-bitmaps "$D" -s "$SERIAL"
  err fetch_pid_and_jdwp "give --pid or --jdwp, not both" hk fetch-bitmaps "$D" --pid 1 --jdwp 127.0.0.1:1
  err fetch_not_debuggable "cannot open jdwp:4242 .*debuggable" hk fetch-bitmaps "$T/bypid.hprof" -s "$SERIAL" --pid 4242
else
  fail fetch_app_start "basic app did not start"
fi
  if grep -q "OPEN shell,v2,raw:dumpsys meminfo $APP_PID" "$CFG/log"; then pass fetch_adb_nudge; else fail fetch_adb_nudge "no dumpsys meminfo $APP_PID in the daemon log"; fi

# ---- the app dies mid-fetch: an error, and the images already written are kept ----
if JAVA_OPTS=-Djdwpapp.compressDelayMs=150 start_app many com.example.many many 30 64 64; then
  "$GEN" --scenario bitmaps-api29 -o "$T/many.hprof" >/dev/null 2>&1
  hk fetch-bitmaps "$T/many.hprof" --jdwp "127.0.0.1:$APP_PORT" >"$T/k.out" 2>"$T/k.err" &
  fpid=$!
  for _ in $(seq 100); do [ "$(ls "$T/many.hprof.bitmaps" 2>/dev/null | grep -c '\.png$')" -ge 2 ] && break; sleep 0.05; done
  kill -9 "$APP_PID"; wait "$APP_PID" 2>/dev/null
  wait "$fpid"; rc=$?
  kept=$(ls "$T/many.hprof.bitmaps" 2>/dev/null | grep -c '^0x[0-9a-f]*\.png$'); bad=""
  for f in "$T"/many.hprof.bitmaps/*; do
    b=$(basename "$f" .png); "$CMP" "$f" "$APP_DIR/ref/$b.ref" >/dev/null 2>&1 || bad="$bad $b"
  done
  if [ "$rc" = 1 ] && grep -qE "fetch-bitmaps: (error: )?jdwp: connection to the app lost" "$T/k.err" &&
     [ "$kept" -ge 2 ] && [ "$kept" -lt 30 ] && [ -z "$bad" ]; then pass fetch_app_killed_keeps_images
  else fail fetch_app_killed_keeps_images "rc=$rc kept=$kept bad=[$bad] $(head -c 300 "$T/k.err")"; fi
fi

# ---- the pointer join: `hprofkit bitmaps` shows the fetched images; a reused pointer is a mismatch ----
if ! "$HK" queries 2>/dev/null | grep -q '^ *bitmaps '; then
  skip fetch_bitmaps_join "hprofkit has no bitmaps query yet"
elif start_app reuse com.example.reuse basic; then
  device_add "$APP_PID" com.example.reuse "$APP_PORT"
  D="$T/reuse.hprof"
  jcmd "$APP_PID" GC.heap_dump "$D" >/dev/null 2>&1
  # before the reuse: every drawable bitmap gets the app's own pixels through the sidecar
  cp "$D" "$T/join.hprof"
  hk fetch-bitmaps "$T/join.hprof" -s "$SERIAL" >/dev/null 2>"$T/j1.err"
  hk bitmaps "$T/join.hprof" --json >"$T/j1.json" 2>"$T/j1.err"
  bad=""
  for ref in "$APP_DIR"/ref/*.ref; do
    ptr=$(basename "$ref" .ref)
    want=$(tail -c +$(( $(head -1 "$ref" | wc -c) + 1 )) "$ref" | sha256sum | cut -d' ' -f1)
    got=$(jq -r --arg p "$ptr" '.bitmaps[] | select(.native_ptr == $p) | "\(.source) \(.pixels_sha256)"' "$T/j1.json")
    [ "$got" = "sidecar $want" ] || bad="$bad $ptr: got '$got'"
  done
  if [ -z "$bad" ] && [ "$(json '.summary | [.with_image, .mismatched] | join(" ")' "$T/j1.json")" = "4 0" ]; then
    pass fetch_bitmaps_join; else fail fetch_bitmaps_join "$bad $(json .summary "$T/j1.json" | tr -d '\n ')"; fi
  # the app swaps 0x7a002000 for a 33x44 bitmap at the same pointer after the dump was taken
  touch "$APP_DIR/reuse-now"
  for _ in $(seq 100); do [ -e "$APP_DIR/reused" ] && break; sleep 0.1; done
  hk fetch-bitmaps "$D" -s "$SERIAL" --json >"$T/j2.json" 2>"$T/j2.err"
  eq fetch_reuse_fetched "$(json .fetched "$T/j2.json") $(head -1 "$APP_DIR/ref/0x7a002000.ref")" "4 33 44"
  hk bitmaps "$D" --json >"$T/j3.json" 2>"$T/j3.err"
  eq fetch_reuse_mismatch \
    "$(jq -r '[.summary.with_image, .summary.mismatched, (.bitmaps[] | select(.native_ptr == "0x7a002000") | (.source // "none"), .mismatches, .width, .height)] | map(tostring) | join(" ")' "$T/j3.json" 2>&1)" \
    "3 1 none 1 200 100"
  if running "$APP_DIR"; then pass fetch_reuse_app_running; else fail fetch_reuse_app_running "heartbeat stopped"; fi
fi

# ---- API 26: `hprofkit dump` runs the GC through JDWP (no am dumpheap -g there) ----
set_sdk 26
if JAVA_OPTS="-XX:+UseSerialGC -Xms256m -Xmx256m" start_app garbage com.example.gcapp garbage; then
  device_add "$APP_PID" com.example.gcapp "$APP_PORT"
  garbage() { hk histogram "$1" --json 2>/dev/null | jq -r '.[] | select(.class == "JdwpGarbage") | .count'; }
  : >"$CFG/log"
  hk dump -s "$SERIAL" com.example.gcapp --hprof "$T/nogc.hprof" --no-gc --json >"$T/g1.json" 2>"$T/g1.err"
  eq fetch_nogc_dump "$? $(json '.[0].gc' "$T/g1.json")" "0 false"
  if grep -q "OPEN jdwp:" "$CFG/log"; then fail fetch_nogc_no_attach "--no-gc attached a debugger"; else pass fetch_nogc_no_attach; fi
  : >"$CFG/log"
  hk dump -s "$SERIAL" com.example.gcapp --hprof "$T/gc.hprof" --json >"$T/g2.json" 2>"$T/g2.err"
  eq fetch_gc_dump "$? $(json '.[0].gc' "$T/g2.json")" "0 true"
  if grep -q "OPEN jdwp:$APP_PID" "$CFG/log" && grep -qE "am dumpheap com.example.gcapp " "$CFG/log"; then
    pass fetch_gc_via_jdwp; else fail fetch_gc_via_jdwp "$(grep -E 'jdwp|dumpheap' "$CFG/log")"; fi
  before=$(garbage "$T/nogc.hprof"); after=$(garbage "$T/gc.hprof")
  if [ "${before:-0}" -ge 200000 ] && [ -n "$after" ] && [ "$after" -lt 100 ]; then pass fetch_gc_less_garbage
  else fail fetch_gc_less_garbage "JdwpGarbage without GC: '$before', with the JDWP GC: '$after'"; fi
  if running "$APP_DIR"; then pass fetch_gc_app_running; else fail fetch_gc_app_running "heartbeat stopped"; fi
  # a GC that fails is reported, and the dump is still taken
  sed -i "s/^$APP_PID .*/$APP_PID 1/" "$CFG/jdwp"
  hk dump -s "$SERIAL" com.example.gcapp --hprof "$T/gcfail.hprof" --json >"$T/g3.json" 2>"$T/g3.err"
  rc=$?
  if [ "$rc" = 0 ] && [ "$(json '.[0].gc' "$T/g3.json")" = false ] && [ -s "$T/gcfail.hprof" ] &&
     grep -q "GC through JDWP failed" "$T/g3.err"; then pass fetch_gc_failure_still_dumps
  else fail fetch_gc_failure_still_dumps "rc=$rc $(head -c 300 "$T/g3.err")"; fi
  kill -9 "$APP_PID" 2>/dev/null; wait "$APP_PID" 2>/dev/null
else
  fail fetch_gc_app_start "garbage app did not start"
fi

# ---- API 35: a second dump with -b png (no -g) gives the images; it is deleted after ----
set_sdk 35
if "$GEN" --scenario bitmaps-api35 -o "$T/a35src.hprof" >/dev/null 2>"$T/gen.err"; then
  cp "$T/a35src.hprof" "$T/a35.hprof"
  echo "4343 com.example.bitmaps" >>"$CFG/ps"
  echo "com.example.bitmaps" >>"$CFG/packages"
  echo "$T/a35src.hprof" >"$CFG/bitmap_dump"
  : >"$CFG/log"
  hk fetch-bitmaps "$T/a35.hprof" -s "$SERIAL" --json >"$T/a1.json" 2>"$T/a1.err"
  eq fetch_api35_summary "$? $(json '[.source,.fetched,.failed,.stopped_by_budget]|join(" ")' "$T/a1.json")" "0 dumpdata 5 0 false"
  if grep -qE "am dumpheap -b png com.example.bitmaps /data/local/tmp/" "$CFG/log" && ! grep -q "dumpheap -g" "$CFG/log"; then
    pass fetch_api35_no_gc; else fail fetch_api35_no_gc "$(grep dumpheap "$CFG/log")"; fi
  # the sidecar holds exactly dumpData's images, under their pointers
  cat >"$T/same.lua" <<'LUA'
local d = hk.open(arg.dump)
local dd = d:class("android.graphics.Bitmap"):static("dumpData")
local n, same = dd:field("count"), 0
for i = 0, n - 1 do
  local f = string.format("%s/0x%x.png", arg.dir, dd:ref("natives"):at(i))
  local ok, bytes = pcall(hk.read_file, f)
  if ok and bytes == dd:ref("buffers"):at(i):bytes() then same = same + 1 end
end
print(n .. " " .. same)
LUA
  eq fetch_api35_images "$(hk run "$T/same.lua" "$T/a35src.hprof" --dir "$T/a35.hprof.bitmaps" 2>&1) $(ls "$T/a35.hprof.bitmaps" | wc -l)" "5 5 5"
  eq fetch_api35_temp_deleted "$(ls -A "$T" | grep -c 'a35.hprof.second') $(ls -A "$CFG/root/data/local/tmp" | wc -l)" "0 0"
  # the byte budget applies to this path too
  cp "$T/a35src.hprof" "$T/a35b.hprof"
  hk fetch-bitmaps "$T/a35b.hprof" -s "$SERIAL" --budget-bytes 1 --json >"$T/a2.json" 2>"$T/a2.err"
  eq fetch_api35_budget "$(json '[.fetched,.stopped_by_budget]|join(" ")' "$T/a2.json") $(ls "$T/a35b.hprof.bitmaps" 2>/dev/null | wc -l)" "0 true 0"
  # a second dump whose every image is not a PNG (the magic overwritten): one line, exit 1,
  # nothing written, the temporary dump gone
  python3 -c 'import sys; b = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(b.replace(b"\x89PNG", b"\x89XXX"))' \
    "$T/a35src.hprof" "$T/a35bad.hprof"
  echo "$T/a35bad.hprof" >"$CFG/bitmap_dump"
  cp "$T/a35src.hprof" "$T/a35c.hprof"
  hk fetch-bitmaps "$T/a35c.hprof" -s "$SERIAL" >"$T/a3.out" 2>"$T/a3.err"
  eq fetch_api35_all_bad "$? $(wc -l <"$T/a3.err") $(grep -c 'none of the 5 images' "$T/a3.err") $(ls "$T/a35c.hprof.bitmaps" 2>/dev/null | wc -l) $(ls -A "$T" | grep -c 'a35c.hprof.second')" "1 1 1 0 0"
  rm -f "$CFG/bitmap_dump"
else
  fail fetch_api35_gen "$(head -c 200 "$T/gen.err")"
fi
