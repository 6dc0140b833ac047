# A libFuzzer run of the reader and index (with a map applied), and past them of the bitmaps
# and the whole heap graph (fuzz_hprof.c), seeded with generated and malformed dumps, Perfetto
# traces (the trace reader turns those into HPROF first) and inputs that once crashed it.
. "$SRC/tests/lib.sh"
needs fuzz-hprof clang || exit 0
. "$SRC/tests/fuzz/targets.sh"
fuzz_test_build fuzz hprof ./fuzz_hprof || exit 0
mkdir -p corpus
cp "$SRC"/tests/fuzz/corpus/* corpus/ 2>/dev/null   # inputs that once crashed it: regressions
if [ -x "$GEN" ]; then
  "$GEN" --scenario demo -o corpus/demo.hprof >/dev/null
  "$GEN" --scenario graph -o corpus/graph.hprof >/dev/null
  "$GEN" --scenario demo --id-size 8 -o corpus/demo8.hprof >/dev/null
  "$GEN" --scenario chain --objects 20 -o corpus/chain.hprof >/dev/null
  for sc in bitmaps-pre26 bitmaps-api29 bitmaps-api35; do "$GEN" --scenario $sc --width 4 --height 4 -o corpus/$sc.hprof >/dev/null; done
  head -c 4000 corpus/demo.hprof > corpus/cut.hprof
fi
PF="$SRC/../shared/reference/perfetto"
if command -v protoc >/dev/null && [ -d "$PF/tests" ]; then
  for f in "$PF"/tests/heap_graph*.textproto; do
    (cd "$PF" && protoc --proto_path=. --encode=perfetto.protos.Trace protos/perfetto/trace/trace.proto \
      protos/third_party/android/art/heap_graph.proto) < "$f" > "corpus/$(basename "$f" .textproto).pftrace"
  done
fi
for k in unknown-subtag dangling-class long-record sub-overrun duplicate-id unknown-record; do
  "$BUILD/tests/mkbad" $k corpus/$k.hprof
done
secs=${HK_FUZZ_SECONDS:-60}
./fuzz_hprof -max_total_time=$secs -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 corpus >fuzz.log 2>&1
rc=$?
if [ $rc -eq 0 ]; then
  pass "fuzz-hprof-${secs}s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' fuzz.log | grep -o '[0-9]*$') runs)"
else
  fail fuzz-hprof "libFuzzer found a crash: $(grep -m3 -E 'ERROR|SUMMARY|runtime error' fuzz.log | tr '\n' ' ')"
  cp crash-* "$SRC/tests/fuzz/corpus/" 2>/dev/null   # kept as seeds: commit them with the fix
fi

# the mapping-file parser, seeded with the maps tests/t_map.sh and real R8 write
if fuzz_build map ./fuzz_map 2>build-map.err; then
  pass fuzz-map-build
  mkdir -p map-corpus
  printf 'a.B -> a:\n    int x -> a\n    1:3:void f():5:7 -> b\n    1:3:void c.D.g():9 -> b\n# {"id":"sourceFile","fileName":"B.java"}\n' > map-corpus/small.map
  [ -f "$REALDATA/hprof/aosp-art-ahat-test-dump.map" ] && cp "$REALDATA/hprof/aosp-art-ahat-test-dump.map" map-corpus/
  ./fuzz_map -max_total_time=${HK_FUZZ_MAP_SECONDS:-10} -max_len=16384 -print_final_stats=1 map-corpus >fuzz-map.log 2>&1
  if [ $? -eq 0 ]; then
    pass "fuzz-map-${HK_FUZZ_MAP_SECONDS:-10}s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' fuzz-map.log | grep -o '[0-9]*$') runs)"
  else
    fail fuzz-map "libFuzzer found a crash: $(grep -m3 -E 'ERROR|SUMMARY|runtime error' fuzz-map.log | tr '\n' ' ')"
  fi
else
  fail fuzz-map-build "$(head -c 600 build-map.err)"
fi
