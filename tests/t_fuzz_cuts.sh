# Inputs big enough for the threaded index's cuts: the structure-aware HPROF mutator
# (tests/fuzz/hprof_mutator.c) grows a heap dump segment past the 256 KiB a part needs, either
# with copies of its own sub-records (the cut guessed inside the segment is right) or with them
# wrapped in a byte array first (the guess inside the array is wrong and the part after it is
# walked again).  A short run that grows every input shows both are reached (the index's own
# counts, dump:index_stats()), that -j 1 and -j 3 give the same histogram on every grown input,
# and then fuzzes from the grown inputs.
. "$SRC/tests/lib.sh"
needs fuzz-cuts clang || exit 0
. "$SRC/tests/fuzz/targets.sh"
fuzz_test_build fuzz-cuts hprof-structured ./fuzz_hs || exit 0
mkdir -p seeds grown
"$GEN" --scenario demo -o seeds/demo.hprof >/dev/null
"$GEN" --scenario demo --id-size 8 -o seeds/demo8.hprof >/dev/null
"$GEN" --scenario graph -o seeds/graph.hprof >/dev/null
# every mutation a growth (HK_FUZZ_GROW=1), one a run, the size limit at once
HK_FUZZ_GROW=1 ./fuzz_hs -runs=40 -seed=36 -mutate_depth=1 -len_control=0 -max_len=1048576 -rss_limit_mb=2048 \
  grown seeds > grow.log 2>&1 || { fail fuzz-cuts-grow "$(grep -m3 -E 'ERROR|SUMMARY|runtime error' grow.log | tr '\n' ' ')"; exit 0; }
printf 'local s = hk.open(arg.dump):index_stats()\nprint(s.walk_parts, s.walk_rewalked)\n' > stats.lua
big=0 cut=0 rewalked=0 differ=""
for f in grown/*; do
  [ "$(stat -c %s "$f")" -gt $((256 << 10)) ] || continue
  read -r parts again < <("$HK" -j 3 run stats.lua "$f" 2>/dev/null) || continue
  big=$((big + 1))
  [ "${parts:-0}" -ge 2 ] && cut=$((cut + 1))
  [ "${again:-0}" -ge 1 ] && rewalked=$((rewalked + 1))
  "$HK" -j 1 histogram "$f" --json > j1.json 2>/dev/null
  "$HK" -j 3 histogram "$f" --json > j3.json 2>/dev/null
  cmp -s j1.json j3.json || differ="$differ $(basename "$f")"
done
if [ "$cut" -gt 0 ] && [ "$rewalked" -gt 0 ]; then
  pass "fuzz-cuts-reached ($big inputs past 256 KiB: $cut walked in parts, $rewalked with a part walked again)"
else fail fuzz-cuts-reached "$big inputs past 256 KiB, $cut walked in parts, $rewalked walked again"; fi
if [ -z "$differ" ] && [ "$big" -gt 0 ]; then pass "fuzz-cuts-jobs-agree ($big inputs, -j 1 and -j 3)"
else fail fuzz-cuts-jobs-agree "histograms differ between -j 1 and -j 3:$differ"; fi
# then the mutator's every move from the grown inputs, a size limit that keeps them
secs=${HK_FUZZ_SECONDS:-10}
./fuzz_hs -max_total_time="$secs" -max_len=1048576 -rss_limit_mb=2048 -print_final_stats=1 grown > fuzz.log 2>&1
if [ $? -eq 0 ]; then pass "fuzz-cuts-${secs}s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' fuzz.log | grep -o '[0-9]*$') runs)"
else
  fail fuzz-cuts "libFuzzer found a crash: $(grep -m3 -E 'ERROR|SUMMARY|runtime error' fuzz.log | tr '\n' ' ')"
  cp crash-* "$SRC/tests/fuzz/corpus/" 2>/dev/null   # kept as seeds: commit them with the fix
fi
