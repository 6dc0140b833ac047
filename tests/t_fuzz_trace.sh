# A libFuzzer run of the Perfetto trace reader alone (tests/fuzz/fuzz_trace.c: packets, zlib and
# zstd blocks, heap graphs and embedded dumps to HPROF, every process pick) and of the meminfo
# and smaps parsers (fuzz_meminfo.c), seeded by tests/fuzz/targets.sh, the inputs that once
# crashed them (tests/fuzz/corpus-NAME/) and the corpus bench/fuzz_campaign.sh keeps
# (tests/fuzz/campaign/NAME/).  HK_FUZZ_TRACE_SECONDS sets the time (5 s each here).  Then the
# inputs that once crashed the facts target (the fleet ingest), once each.
. "$SRC/tests/lib.sh"
needs fuzz-trace clang || exit 0
. "$SRC/tests/fuzz/targets.sh"
secs=${HK_FUZZ_TRACE_SECONDS:-5}
for name in trace meminfo; do
  fuzz_test_build "fuzz-$name" $name ./fuzz_$name || continue
  fuzz_seed $name corpus-$name
  cp "$SRC"/tests/fuzz/corpus-$name/* "$SRC"/tests/fuzz/campaign/$name/* corpus-$name/ 2>/dev/null   # + the campaign's
  ./fuzz_$name -max_total_time=$secs -max_len=65536 -rss_limit_mb=2048 -print_final_stats=1 corpus-$name >fuzz-$name.log 2>&1
  if [ $? -eq 0 ]; then
    pass "fuzz-$name-${secs}s ($(grep -o 'stat::number_of_executed_units: *[0-9]*' fuzz-$name.log | grep -o '[0-9]*$') runs)"
  else
    fail "fuzz-$name" "libFuzzer found a crash: $(grep -m3 -E 'ERROR|SUMMARY|runtime error' fuzz-$name.log | tr '\n' ' ')"
    mkdir -p "$SRC/tests/fuzz/corpus-$name"
    cp crash-* "$SRC/tests/fuzz/corpus-$name/" 2>/dev/null   # kept as seeds: commit them with the fix
  fi
done

# the inputs that once crashed the fleet ingest's target (facts JSON), run once each
if [ -n "$(ls "$SRC"/tests/fuzz/corpus-facts 2>/dev/null)" ] && fuzz_test_build fuzz-facts facts ./fuzz_facts; then
  "$GEN" --scenario leaks -o api.hprof >/dev/null 2>&1
  env $(fuzz_env facts) HK_FUZZ_DUMP="$T/api.hprof" HK_FUZZ_TMP="$T" ./fuzz_facts -runs=0 -close_fd_mask=1 \
    "$SRC"/tests/fuzz/corpus-facts >fuzz-facts.log 2>&1
  if [ $? -eq 0 ]; then pass "fuzz-facts-regressions ($(ls "$SRC"/tests/fuzz/corpus-facts | wc -l) inputs)"
  else fail fuzz-facts-regressions "$(grep -m3 -E 'ERROR|SUMMARY|runtime error' fuzz-facts.log | tr '\n' ' ')"; fi
fi
