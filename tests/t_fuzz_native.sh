#!/usr/bin/env bash
# A libFuzzer run of the native-profile reader (heapprofd ProfilePackets, interned data,
# symbols, deobfuscation mappings, zlib and zstd blocks), seeded with Perfetto's heap-profile
# test traces and inputs that once crashed it (tests/fuzz/corpus-native/).  HK_FUZZ_NATIVE_SECONDS
# sets the time (15 s here; bench/ runs it longer).
. "$SRC/tests/lib.sh"
needs fuzz-native clang || exit 0
. "$SRC/tests/fuzz/targets.sh"
fuzz_test_build fuzz-native native ./fuzz_native || exit 0
mkdir -p corpus
cp "$SRC"/tests/fuzz/corpus-native/* corpus/ 2>/dev/null
PF="$SRC/../shared/reference/perfetto"
if command -v protoc >/dev/null && [ -d "$PF/tests" ]; then
  for f in "$PF"/tests/heap_profile*.textproto; do
    (cd "$PF" && protoc --proto_path=. --encode=perfetto.protos.Trace protos/perfetto/trace/trace.proto) \
      < "$f" > "corpus/$(basename "$f" .textproto).pftrace"
  done
  # the same packets in a zstd block and a zlib block
  if command -v zstd >/dev/null; then
    python3 - corpus/heap_profile.pftrace corpus <<'PY'
import sys, zlib, subprocess
def v(n):
    b = b""
    while True:
        b += bytes([(n & 0x7f) | (0x80 if n > 0x7f else 0)]); n >>= 7
        if not n: return b
raw = open(sys.argv[1], "rb").read()
for name, field, data in (("zstd", 133, subprocess.run(["zstd", "-q", "-c"], input=raw, capture_output=True).stdout),
                          ("zlib", 50, zlib.compress(raw))):
    inner = v(field << 3 | 2) + v(len(data)) + data
    open(f"{sys.argv[2]}/blocks-{name}.pftrace", "wb").write(b"\x0a" + v(len(inner)) + inner)
PY
  fi
fi
secs=${HK_FUZZ_NATIVE_SECONDS:-15}
./fuzz_native -max_total_time=$secs -max_len=8192 -rss_limit_mb=2048 -print_final_stats=1 corpus >fuzz.log 2>&1
if [ $? -eq 0 ]; then
  pass "fuzz-native-${secs}s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' fuzz.log | grep -o '[0-9]*$') runs)"
else
  fail fuzz-native "libFuzzer found a crash: $(grep -m3 -E 'ERROR|SUMMARY|runtime error' fuzz.log | tr '\n' ' ')"
  mkdir -p "$SRC/tests/fuzz/corpus-native"
  cp crash-* "$SRC/tests/fuzz/corpus-native/" 2>/dev/null   # kept as seeds: commit them with the fix
fi
