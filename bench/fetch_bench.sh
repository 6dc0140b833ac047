#!/usr/bin/env bash
# Live bitmap fetch benchmark: fixed cost (attach to the first image written) and cost
# per image, against a real JVM running tests/java/JdwpApp.java `many N W H` (the app compresses
# each bitmap with javax.imageio, standing in for Bitmap.compress).
#   direct: the JDWP client over TCP to the JVM's agent (plugins/jdwp/jdwp_cli), with its own
#           timings: fixed = start to first image; per image = (total - fixed) / (fetched - 1)
#   adb:    `hprofkit fetch-bitmaps DUMP -s SERIAL` end to end through the real adb server and the
#           test device daemon's jdwp:PID relay (dump index, process lookup, nudge included);
#           per image = (wall(N) - wall(1 bitmap)) / (N - 1)
# Usage: bench/fetch_bench.sh        (BUILD=dir to pick a build; default build-release)
set -eu
cd "$(dirname "$0")/.."
SRC=$PWD
build=${BUILD:-build-release}
if [ ! -d "$build" ]; then meson setup "$build" --buildtype=release >/dev/null; fi
ninja -C "$build" >/dev/null
build=$(cd "$build" && pwd)
HK=$build/hprofkit CLI=$build/plugins/jdwp/jdwp_cli ADBD=$build/core/device/hk-adbd
work=$(mktemp -d /tmp/hprofkit-fetch-bench.XXXXXX)
PIDS=() APORT=""
cleanup() {
  [ -n "$APORT" ] && timeout 5 adb -P "$APORT" kill-server >/dev/null 2>&1
  for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT
echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB; $(java -version 2>&1 | head -1); date: $(date -u +%F)"

javac -d "$work/cls" "$SRC/tests/java/JdwpApp.java" "$SRC/tests/java/android/graphics/Bitmap.java" "$SRC"/tests/java/fetch/*.java
printf '[jdwp]\npath = %s/plugins/jdwp/jdwp.so\n' "$build" >"$work/plugins.ini"

# the device: hk-adbd behind the real adb server
cfg=$work/cfg
mkdir -p "$cfg/root/data/local/tmp"
printf 'ro.build.version.sdk=29\nro.debuggable=1\n' >"$cfg/props"
echo "TOTAL 1" >"$cfg/meminfo"
"$ADBD" -c "$cfg" -P "$work/adbd.port" 2>/dev/null &
PIDS+=($!)
for _ in $(seq 100); do [ -s "$work/adbd.port" ] && break; sleep 0.1; done
serial=127.0.0.1:$(cat "$work/adbd.port")
APORT=$("$ADBD" --free-port)
export ANDROID_ADB_SERVER_PORT=$APORT HOME=$work/home
mkdir -p "$HOME"
timeout 30 adb -P "$APORT" start-server >/dev/null 2>&1
timeout 10 adb -P "$APORT" connect "$serial" >/dev/null 2>&1

# app N W H: starts JdwpApp many N W H; sets app_pid, app_port, app_dump
app() {
  local dir=$work/app-$1-$2x$3
  mkdir -p "$dir"
  app_port=$("$ADBD" --free-port)
  java -Xmx2g -Dhk.process=com.example.bench \
    -agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:$app_port \
    -cp "$work/cls" FetchApp many "$@" "$dir" >"$dir.log" 2>&1 &
  app_pid=$!
  PIDS+=($app_pid)
  for _ in $(seq 600); do [ -f "$dir/ready" ] && break; sleep 0.1; done
  printf 'PID NAME\n%s com.example.bench\n' "$app_pid" >"$cfg/ps"
  echo com.example.bench >"$cfg/packages"
  echo "$app_pid $app_port" >"$cfg/jdwp"
  app_dump=$work/app-$1-$2x$3.hprof
  jcmd "$app_pid" GC.heap_dump "$app_dump" >/dev/null
}

budget=(--budget-seconds 3600 --budget-bytes 4000000000)
# wall OUT CMD...: runs CMD with stdout to OUT, prints its wall time in seconds
wall() { local out=$1 t0 t1; shift; t0=$(date +%s.%N); "$@" >"$out" 2>/dev/null; t1=$(date +%s.%N); echo "$t0 $t1" | awk '{printf "%.3f", $2 - $1}'; }

# adb end to end for one bitmap: the fixed cost through the device
app 1 64 64
w1=$(wall "$work/one.json" "$HK" --plugins "$work/plugins.ini" fetch-bitmaps "$app_dump" -s "$serial" "${budget[@]}" --json)
echo "adb, 1 bitmap of 64x64: $w1 s end to end (fixed cost through adb: dump index, ps, jdwp:PID, safe point, 1 image)"
kill -9 "$app_pid"; wait "$app_pid" 2>/dev/null || true

printf '%-22s %-11s %8s %9s %11s %11s %10s %12s\n' case path fetched MB fixed_s per_image_ms total_s MB/s_png
for c in "100 256 256" "10 1080 1920"; do
  set -- $c
  app "$1" "$2" "$3"
  # cold: the app's first compress (the stand-in's ImageIO encoder is not JIT-compiled yet);
  # warm: the same again, closer to a device where Bitmap.compress is native code
  for run in cold warm; do
  rm -rf "$work/out-direct-$1"
  "$CLI" fetch --jdwp "127.0.0.1:$app_port" --out "$work/out-direct-$1" --quiet "${budget[@]}" >"$work/d.json" 2>/dev/null
  jq -r --arg c "$1 x ${2}x$3" --arg p "direct,$run" '[$c, $p, .fetched, (.bytes/1e6), .seconds_first_image,
      ((.seconds_total - .seconds_first_image) / ((.fetched - 1) | if . < 1 then 1 else . end) * 1000),
      .seconds_total, (.bytes/1e6/.seconds_total)] | @tsv' "$work/d.json" |
    awk -F'\t' '{printf "%-22s %-11s %8d %9.1f %11.3f %11.1f %10.2f %12.1f\n", $1, $2, $3, $4, $5, $6, $7, $8}'
  done
  t=$(wall "$work/a.json" "$HK" --plugins "$work/plugins.ini" fetch-bitmaps "$app_dump" -s "$serial" "${budget[@]}" --json)
  jq -r --arg c "$1 x ${2}x$3" --arg t "$t" --arg w1 "$w1" '[$c, "adb,warm", .fetched, (.bytes/1e6), ($w1|tonumber),
      ((($t|tonumber) - ($w1|tonumber)) / ((.fetched - 1) | if . < 1 then 1 else . end) * 1000),
      ($t|tonumber), (.bytes/1e6/($t|tonumber))] | @tsv' "$work/a.json" |
    awk -F'\t' '{printf "%-22s %-11s %8d %9.1f %11.3f %11.1f %10.2f %12.1f\n", $1, $2, $3, $4, $5, $6, $7, $8}'
  kill -9 "$app_pid"; wait "$app_pid" 2>/dev/null || true
done
