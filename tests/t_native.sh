#!/usr/bin/env bash
# Native heap profiles (heapprofd's ProfilePackets): every size, count, frame name and
# deobfuscated name that Perfetto's own trace-processor diff tests expect of its test traces
# (../shared/reference/perfetto/tests/heap_profile*.textproto with the expected rows in
# tests_heap_profiling.py and tests_heap_graph.py), read through `hprofkit native`.  Perfetto's
# row ids and timestamps are its own (its clock conversion) and are not compared.
source "$SRC/tests/lib.sh"
PF="$SRC/../shared/reference/perfetto"
if ! command -v protoc >/dev/null || [ ! -d "$PF/tests" ]; then
  skip native_profiles "needs protoc (protobuf-compiler) and $PF"; exit 0
fi
enc() { (cd "$PF" && protoc --proto_path=. --encode=perfetto.protos.Trace protos/perfetto/trace/trace.proto) \
  < "$PF/tests/$1.textproto" > "$T/$1.pftrace"; }
for f in "$PF"/tests/heap_profile*.textproto; do enc "$(basename "$f" .textproto)"; done
nat() { local t=$1; shift; "$HK" native "$T/$t.pftrace" --json "$@"; }
hot='[.hotspots[] | "\(.unreleased_bytes)/\(.alloc_count)"] | join(" ")'

# test_heap_profile_dump_max: sizes 1000 and 90, counts 6 and 1 (self_max, self_max_count)
eq dump_max "$(nat heap_profile_dump_max | jq -r "$hot")" "1000/6 90/1"
# test_heap_profile_dump_max_legacy: the same sizes; counts 0 in Perfetto (a heapprofd that does
# not record its sampling interval has no reliable peak counts): null here
eq dump_max_legacy "$(nat heap_profile_dump_max_legacy | jq -r "$hot")" "1000/null 90/null"
# test_heap_profile_intervals: one dump, retained = allocated = delta = 1090
eq intervals_one_dump "$(nat heap_profile_dump_max | jq -r '.dumps[] | "\(.unreleased_bytes) \(.allocated_since_previous_bytes) \(.unreleased_change_bytes)"')" "1090 1090 1090"
# test_heap_profile_intervals_frees: retained, allocated and delta per dump
eq intervals_frees "$(nat heap_profile_window_frees | jq -r '[.dumps[] | "\(.unreleased_bytes),\(.allocated_since_previous_bytes),\(.unreleased_change_bytes)"] | join(" ")')" \
  "1000,1000,1000 1000,1000,0 0,0,-1000"
# test_heap_profile_window: the dump's window is 15 long (start_timestamp to timestamp)
eq window "$(nat heap_profile_window | jq -r '.dumps[0].window_ns')" 15
eq window_legacy "$(nat heap_profile_dump_max | jq -r '.dumps[0].window_ns')" null
# test_heap_profile_jit: the JIT frames keep their interned names (mapping /jit-mapping, rel_pc 4096)
eq jit_frames "$(nat heap_profile_jit --by function | jq -r '[.hotspots[].function] | sort | join(" ")')" "java_frame_1 java_frame_2"
# test_heap_profile_deobfuscate (and _2, a memfd JIT mapping): a.f1 is Bar.function1 by the
# package the frame's module names (the other package's mapping says Foo.function2)
eq deobfuscate "$(nat heap_profile_deobfuscate --by function | jq -r '.hotspots[0].function')" "Bar.function1"
eq deobfuscate_memfd "$(nat heap_profile_deobfuscate_memfd --by function | jq -r '.hotspots[0].function')" "Bar.function1"
# test_heap_profile_tracker_new_stack: a call stack first seen in the second dump counts from 0
eq tracker_new_stack "$(nat heap_profile_tracker_new_stack | jq -r '[.dumps[] | "\(.allocated_since_previous_bytes)/\(.freed_bytes)"] | join(" ")')" "1/1 1/1"
# test_heap_profile_tracker_twoheaps: two heaps of one process, +1/-1 each
eq twoheaps "$(nat heap_profile_tracker_twoheaps | jq -r '.heaps | join(",")')" "libc.malloc,custom"
for h in libc.malloc custom; do
  eq "twoheaps_$h" "$(nat heap_profile_tracker_twoheaps --heap $h | jq -r '"\(.allocated_bytes) \(.freed_bytes) \(.hotspots[0].alloc_count) \(.hotspots[0].free_count)"')" "1 1 1 1"
done
# ModuleSymbols (heap_profile.textproto): f2 and f3 at their pcs are symbolized, f1 is not
eq symbolized "$(nat heap_profile_dump_max | jq -r '.hotspots[0].frames | join(" < ")')" "symbolized f3 < symbolized f2 < f1"
# a frame with no name: its module and relative pc
eq unnamed_frame "$(nat heap_profile_tracker_twoheaps | jq -r '.hotspots[0].frames[0]')" "?+0x123"
eq data_local_tmp "$(nat heap_profile_data_local_tmp --frames 1 | jq -r '[.hotspots[] | "\(.top_frames)=\(.unreleased_bytes)"] | join(" ")')" "malloc=4096"

# the dump and heap choices, and what goes wrong
eq trace_dump_first "$("$HK" --trace-dump 1 native "$T/heap_profile_window_frees.pftrace" --json | jq -r '.dump, .unreleased_bytes' | tr '\n' ' ')" "1 1000 "
eq trace_dump_ts "$("$HK" native "$T/heap_profile_window_frees.pftrace" --trace-dump 40 --json | jq -r .dump)" 2
err trace_dump_none "names no dump: the process has 3" "$HK" native "$T/heap_profile_window_frees.pftrace" --trace-dump 7
err no_heap "has no heap 'nope'; its heaps: libc.malloc, custom" "$HK" native "$T/heap_profile_tracker_twoheaps.pftrace" --heap nope
"$HK" native "$T/heap_profile_tracker_twoheaps.pftrace" --heap nope >/dev/null 2>&1; eq no_heap_status $? 2
err no_process "no native heap profile matches" "$HK" --trace-pid 77 native "$T/heap_profile_dump_max.pftrace"
"$GEN" --scenario demo -o "$T/demo.hprof" >/dev/null 2>&1
"$HK" convert "$T/demo.hprof" --to perfetto-heapgraph --trace "$T/graph.pftrace" >/dev/null 2>&1
err no_profile "holds no native heap profile" "$HK" native "$T/graph.pftrace"
err not_a_trace "not a Perfetto trace" "$HK" native "$T/demo.hprof"
head -c 200 "$T/heap_profile.pftrace" > "$T/cut.pftrace"
ok cut_profile_no_crash sh -c "'$HK' native '$T/cut.pftrace' >/dev/null 2>&1; [ \$? -lt 3 ]"
gzip -c "$T/heap_profile_dump_max.pftrace" > "$T/dump_max.pftrace.gz"
eq gzipped "$("$HK" native "$T/dump_max.pftrace.gz" --json | jq -r "$hot")" "1000/6 90/1"
# a gzip file that expands past the compressed-input cap (100 times and 64 MiB) is refused, as
# a .gz dump is: exit 1 and one line, not 100 MiB read; HPROFKIT_GZIP_RATIO=0 reads it
head -c 100M /dev/zero | gzip -9 > "$T/bomb.pftrace.gz"
err gzip_bomb_refused "^hprofkit native: .*bomb.pftrace.gz: the gzip stream expands past 64 MiB, over [0-9]{3,} times its [0-9]+ KiB: refused as a decompression bomb" \
  "$HK" native "$T/bomb.pftrace.gz"
eq gzip_bomb_one_line_exit_1 "$(wc -l < "$T/err.err") $("$HK" native "$T/bomb.pftrace.gz" >/dev/null 2>&1; echo $?)" "1 1"
HPROFKIT_GZIP_RATIO=0 "$HK" native "$T/bomb.pftrace.gz" >/dev/null 2>"$T/bomb0.err"
if grep -q "decompression bomb" "$T/bomb0.err" || ! [ -s "$T/bomb0.err" ]; then fail gzip_bomb_ratio_0 "$(head -c 300 "$T/bomb0.err")"
else pass gzip_bomb_ratio_0; fi

# native-diff: two dumps of one trace spelled TRACE@N (window_frees: A allocates 1000, frees it
# while B allocates 1000, then B frees it; A and B are the same function f1, one fingerprint)
wf="$T/heap_profile_window_frees.pftrace"
eq diff_same "$("$HK" native-diff "$wf@1" "$wf@2" --json | jq -r '"\(.growth_bytes) \(.stacks | length)"')" "0 0"
eq diff_shrank "$("$HK" native-diff "$wf@1" "$wf@last" --json | jq -r '[.base, .dump, (.stacks[] | "\(.status)\(.growth_bytes)")] | map(sub(".*/"; "")) | join(" ")')" \
  "heap_profile_window_frees.pftrace@1 heap_profile_window_frees.pftrace@3 shrank-1000"
# two traces: the same stacks (heap_profile's allocated - freed equal dump_max's peak: no row),
# and stacks of other functions (new and gone)
eq diff_two_traces_same "$("$HK" native-diff "$T/heap_profile.pftrace" "$T/heap_profile_dump_max.pftrace" --json | jq -r '"\(.growth_bytes) \(.stacks | length)"')" "0 0"
eq diff_two_traces "$("$HK" native-diff "$wf@1" "$T/heap_profile_dump_max.pftrace" --frames 1 --json | jq -r '[.stacks[] | "\(.status):\(.top_frames):\(.growth_bytes)"] | join(" ")')" \
  "new:symbolized f3:1000 new:symbolized f2:90 gone:f1:-1000"
err diff_bad_pick "dump 9 .* names no dump" "$HK" native-diff "$wf@9" "$wf"

# triage --native: the facts' native section is what `native` reads (hotspots, totals), the
# flame tree sums to the unreleased bytes, --meminfo sets Native Heap beside it, the facts still
# validate against docs/triage-facts.schema.json, and the report draws the flame graph
"$HK" triage "$T/demo.hprof" --native "$T/heap_profile_dump_max.pftrace" --meminfo "$SRC/tests/meminfo/modern_android14_d.txt" \
  --json -o "$T/facts.json" --report "$T/report.html" 2>"$T/triage.err"
eq triage_native_status $? 0
eq triage_native_hotspots "$(jq -c '[.native.hotspots[] | [.fingerprint, .unreleased_bytes, .alloc_count]]' "$T/facts.json")" \
  "$(nat heap_profile_dump_max | jq -c '[.hotspots[] | [.fingerprint, .unreleased_bytes, .alloc_count]]')"
eq triage_native_flame "$(jq -r '.native.flame | "\(.total_bytes) \(.children[0].name) \(.children[0].children[0].total_bytes)"' "$T/facts.json")" \
  "1090 f1 1090"
eq triage_native_meminfo "$(jq -r '.native.meminfo_native_heap_kb, (.native.meminfo_sentence | test("^Native Heap is 10.2 MiB in meminfo, the profile.s unreleased allocations 1.1 KiB"))' "$T/facts.json" | tr '\n' ' ')" "10408 true "
if python3 -c 'import jsonschema' 2>/dev/null; then
  ok triage_native_schema python3 -c 'import json, sys, jsonschema
jsonschema.validate(json.load(open(sys.argv[1])), json.load(open(sys.argv[2])))' "$T/facts.json" "$SRC/docs/triage-facts.schema.json"
else
  skip triage_native_schema "python3-jsonschema is not installed"
fi
eq triage_native_report "$(grep -c '<section id="native">' "$T/report.html") $(grep -o '<rect ' "$T/report.html" | wc -l)" "1 3"
eq triage_without_native "$("$HK" triage "$T/demo.hprof" --json | jq -r .native)" null
err triage_native_not_a_trace "not a Perfetto trace" "$HK" triage "$T/demo.hprof" --native "$T/demo.hprof"
# a profile of another process than the dump's is said (stderr and the facts); the same process is not
eq triage_native_mismatch "$(jq -r .native.process_mismatch "$T/facts.json") $(grep -c 'warning: --native: the profile is of system_server' "$T/triage.err")" \
  "the profile is of system_server (pid 2), the dump of $("$HK" info "$T/demo.hprof" --json | jq -r .process): they are not one process's memory 1"
