# Helpers for the tests of `watch` and `exits` (t_watch.sh, t_watch_deaths.sh): a scripted test
# device (tests/adbd: curve, logcat, exitinfo) behind the real adb server, and readers of the
# samples file.  Source after tests/lib.sh and tests/lib_device.sh.
APP=${APP:-com.example.app}

# watch_device SDK: the daemon as an API-SDK device, connected; S is its serial.  Fails (after
# a skip or fail line) when a tool is missing or it does not come online.
watch_device() {
  needs watch adb jq xmllint python3 "$ADBD" "$HK" || return 1
  adb_env
  export HK_DUMP_POLL_MS=100
  CFG="$T/cfg"
  mkdir -p "$CFG/root/data/local/tmp"
  set_sdk "$1"
  echo "PID NAME" >"$CFG/ps"
  echo "$APP" >"$CFG/packages"
  "$GEN" --scenario demo -o "$T/demo.hprof" >/dev/null 2>&1 || { fail watch "genhprof failed"; return 1; }
  echo "$T/demo.hprof" >"$CFG/dump_file"
  echo ok >"$CFG/dumpheap"
  start_daemon dev
  start_adb_server || { fail watch "adb start-server failed"; return 1; }
  adb_connect "$DAEMON_SERIAL"
  adb_wait "$DAEMON_SERIAL" device || { fail watch "the daemon did not come online"; return 1; }
  S=$DAEMON_SERIAL
}

# set_sdk SDK: the device's API level from now on (the daemon reads props on every command)
set_sdk() {
  cat >"$CFG/props" <<EOS
ro.product.model=Pixel Test
ro.build.version.sdk=$1
ro.debuggable=1
dalvik.vm.heapgrowthlimit=100m
dalvik.vm.heapsize=200m
EOS
}

# step PID UP ALLOC_KB [MORE]: one line of the curve (Java max is 100 MB = 102400 KB)
step() { echo "pid=$1 up=$2 alloc=$3 size=$(($3 + 4000)) native=$((5000 + $3 / 10)) pss=$(($3 + 30000)) rss=$(($3 + 60000)) ${4:-}"; }
# curve LINES...: a new curve of $APP, from its first step; no extra log lines, no exit-info
curve() {
  { echo "name=$APP"; printf '%s\n' "$@"; } >"$CFG/curve"
  rm -f "$CFG/curve.pos" "$CFG/offline_until" "$CFG/logcat" "$CFG/exitinfo" "$CFG/exitinfo_from" "$CFG/logcat_broken" "$CFG/dmesg"
}
# watch NAME ARGS...: runs watch of $APP on the daemon into $T/NAME/ (dumps there), samples NAME/s.csv
watch() {
  local n=$1; shift
  rm -rf "$T/$n"; mkdir -p "$T/$n"
  timeout 60 "$HK" watch -s "$S" "$APP" --interval 100ms --skip-startup 10s --dump-dir "$T/$n" \
    --samples "$T/$n/s.csv" "$@" >"$T/$n.out" 2>"$T/$n.err"
  echo $? >"$T/$n.rc"
}
col() { # NAME COLUMN: that column of every sample, one a line (CSV read as CSV: cells hold commas)
  python3 -c 'import csv, sys
for r in csv.DictReader(open(sys.argv[1], newline="")): print(r[sys.argv[2]])' "$T/$1/s.csv" "$2"
}
dumps() { ls "$T/$1" | grep -c '\.hprof$'; }
