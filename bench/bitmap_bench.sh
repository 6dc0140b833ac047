#!/usr/bin/env bash
# Bitmap benchmark: decode, hash and export every bitmap of a dump holding N
# ARGB_8888 bitmaps of W x H (genhprof --scenario bitmaps-many).  Reports MB/s of pixels
# (straight RGBA8888 bytes, w*h*4 per bitmap) and peak RSS, for hashing only and for
# hashing + PNG export.  Usage: bench/bitmap_bench.sh [N] [W] [H]   (BUILD=dir to pick a build)
set -eu
cd "$(dirname "$0")/.."
n=${1:-300} w=${2:-1080} h=${3:-1920}
build=${BUILD:-build-release}
if [ ! -d "$build" ]; then meson setup "$build" --buildtype=release >/dev/null; fi
ninja -C "$build" >/dev/null
HK=$build/hprofkit
work=${BENCH_DIR:-/tmp/hprofkit-bitmap-bench}
mkdir -p "$work"
echo "machine: $(nproc) cores, load $(cut -d" " -f1-3 /proc/loadavg), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB; date: $(date -u +%F)"
dump=$work/many-$n-${w}x$h.hprof
[ -s "$dump" ] || "$build/fixtures/genhprof" --scenario bitmaps-many --objects "$n" --width "$w" --height "$h" -o "$dump" >/dev/null
cat "$dump" > /dev/null   # page cache
pixels=$((n * w * h * 4))
echo "dump: $(stat -L -c %s "$dump") bytes, $n bitmaps of ${w}x$h, $((pixels / 1000000)) MB of pixels"
run() {  # label args...
  local label=$1; shift
  rm -rf "$work/export"
  /usr/bin/time -f "%e %M %U %S" -o "$work/time.txt" "$HK" bitmaps "$dump" --json "$@" > "$work/out.json"
  read -r secs kb usr sys < "$work/time.txt"
  local got
  got=$(jq '.summary.with_image' "$work/out.json")
  [ "$got" -eq "$n" ] || { echo "FAIL: $got of $n bitmaps have an image"; exit 1; }
  # CPU time (user + sys) beside wall time: on a loaded machine it is the steadier figure
  awk -v l="$label" -v s="$secs" -v c="$(awk -v u="$usr" -v y="$sys" 'BEGIN { print u + y }')" \
      -v p="$pixels" -v r="$kb" 'BEGIN {
    printf "%-32s %7.2f s wall %7.2f s cpu  %6.0f MB/s of pixels (%6.0f per cpu-s)  peak RSS %5.0f MB\n",
           l, s, c, p/1e6/s, p/1e6/c, r/1024 }'
}
run "decode + SHA-256"
run "decode + SHA-256 + PNG export" --export "$work/export"
echo "exported: $(ls "$work/export" | wc -l) PNGs, $(du -sm "$work/export" | cut -f1) MB"
