#!/usr/bin/env bash
# One command: install what is missing, build, and run the main job on a bundled default dump.
set -eu
cd "$(dirname "$0")"
tools/deps.sh
[ -d build-release ] || meson setup build-release --buildtype=release >/dev/null
ninja -C build-release >/dev/null
dump=build-release/default.hprof
build-release/fixtures/genhprof --scenario demo -o "$dump" >/dev/null
build-release/hprofkit info "$dump"
echo
build-release/hprofkit histogram "$dump" -n 20
