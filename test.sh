#!/usr/bin/env bash
# One command: install what is missing, build with ASan+UBSan, and run every test.
set -eu
cd "$(dirname "$0")"
tools/deps.sh --test
if [ ! -d build ]; then
  CC=${CC:-gcc} meson setup build -Db_sanitize=address,undefined >/dev/null
fi
ninja -C build >/dev/null
export ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1:abort_on_error=0}
export UBSAN_OPTIONS=${UBSAN_OPTIONS:-print_stacktrace=1:halt_on_error=1}
exec tests/run build "${1:-}"
