#!/usr/bin/env bash
# Perfetto traces: heap graphs and embedded HPROF open like any dump.  Perfetto's own
# heap-graph test traces (../shared/reference/perfetto/tests, encoded here with protoc) must give
# the objects, sizes, references, roots and reachability its expected outputs list.
source "$SRC/tests/lib.sh"
PF="$SRC/../shared/reference/perfetto"
OBJ="$SRC/tests/perfetto/objects.lua"
# objs [GLOBAL OPTION]... TRACE: one line per object, see objects.lua
objs() { local a=("$@"); local dump=${a[-1]}; unset 'a[-1]'; "$HK" "${a[@]}" run "$OBJ" "$dump" 2>&1; }
# enc NAME < textproto: the binary trace a device writes, in $T/NAME.pftrace
enc() { (cd "$PF" && protoc --proto_path=. --encode=perfetto.protos.Trace \
  protos/perfetto/trace/trace.proto protos/third_party/android/art/heap_graph.proto) > "$T/$1.pftrace"; }

if ! command -v protoc >/dev/null || [ ! -d "$PF/tests" ]; then
  skip perfetto_traces "needs protoc (protobuf-compiler) and $PF"
else
  for f in "$PF"/tests/heap_graph*.textproto; do enc "$(basename "$f" .textproto)" < "$f"; done

  # heap_graph.textproto: tests_heap_graph.py's object table (self_size, reachable, heap, root
  # type) and heap_graph_reference.out (foo and a.b -> Foo 0x2, setToNULL null, a.a -> 0x1);
  # the zygote Parcel is reachable as a VM-internal root, as Perfetto counts it
  eq heapgraph_objects "$(objs "$T/heap_graph.pftrace" | cut -d' ' -f1-8)" \
"0x1 FactoryProducerDelegateImplActor 64 96 0 strong JAVA_FRAME foo=\"0x2\",setToNULL=\"0x0\",b=\"0x2\"
0x2 Foo 32 32 0 strong - -
0x3 Foo 128 128 0 unreachable - -
0x4 a 1024 1024 0 unreachable - a=\"0x1\"
0x5 a[] 256 256 0 strong JAVA_FRAME -
0x7 android.os.Parcel 256 256 0 strong VM_INTERNAL -"
  eq heapgraph_heaps "$("$HK" object "$T/heap_graph.pftrace" 0x7 --json | jq -r .heap) $("$HK" object "$T/heap_graph.pftrace" 0x1 --json | jq -r .heap)" "zygote app"
  # the class object of a[] (java.lang.Class<a[]>, 256 bytes, unreachable) is a[]'s class
  eq heapgraph_class_object "$("$HK" object "$T/heap_graph.pftrace" 0x6 --json | jq -r '[.kind, .shallow_bytes] | join(" ")')" "class 256"
  eq heapgraph_reachability "$("$HK" reachability "$T/heap_graph.pftrace" --json | jq -r '.[] | select(.reachability == "strong") | "\(.count) \(.shallow_bytes)"')" "4 608"
  # the legacy encoding (field ids per object, no heap types) gives the same objects
  eq heapgraph_legacy "$(objs "$T/heap_graph_legacy.pftrace" | cut -d' ' -f1-8)" \
"0x1 FactoryProducerDelegateImplActor 64 96 0 strong JAVA_FRAME foo=\"0x2\",setToNULL=\"0x0\",b=\"0x2\"
0x2 Foo 32 32 0 strong - -
0x3 Foo 128 128 0 unreachable - -
0x4 a 1024 1024 0 unreachable - a=\"0x1\"
0x5 a[] 256 256 0 strong JAVA_FRAME -"
  # branching: the focused flamegraph's cumulative sizes are the retained sizes here
  eq heapgraph_retained "$(objs "$T/heap_graph_branching.pftrace" | cut -d' ' -f1-4 | head -3)" \
"0x1 RootNode 100 700
0x2 LeftChild0 200 600
0x3 LeftChild1 400 400"
  # native sizes: the Bitmap's registry says 123456; the BinderProxy's Cleaner has run (next = itself)
  eq heapgraph_native "$(objs "$T/heap_graph_native_size.pftrace" | awk '$7 == "JAVA_FRAME" {print $2, $5}')" \
"android.graphics.Bitmap 123456
android.os.BinderProxy 0"
  eq heapgraph_superclass "$("$HK" run /dev/stdin "$T/heap_graph_superclass.pftrace" <<<'local d = hk.open(arg.dump); local c = d:class("MyChildClass"); print(c.super.name, c.super.super.name)')" \
    "MySuperClass	java.lang.Object"
  eq heapgraph_huge_size "$(objs "$T/heap_graph_huge_size.pftrace" | awk '{print $3}' | sort -u | tr '\n' ' ')" "1000000000 36 "
  # two types named "a" from two locations stay two classes (test_heap_graph_two_locations)
  eq heapgraph_two_locations "$(objs "$T/heap_graph_two_locations.pftrace" | cut -d' ' -f1-7)" \
"0x1 FactoryProducerDelegateImplActor 64 96 0 strong JAVA_FRAME
0x2 a 32 32 0 strong -
0x3 a 128 128 0 unreachable -
0x4 a 256 256 0 unreachable -
0x5 a[] 256 256 0 strong JAVA_FRAME"
  eq heapgraph_two_classes_a "$("$HK" histogram "$T/heap_graph_two_locations.pftrace" --json | jq '[.[] | select(.class == "a")] | length')" 2
  # interleaved sequences: two processes, the first opened by default, --trace-pid / --trace-process pick
  eq interleaved_default "$(objs "$T/heap_graph_interleaved.pftrace" | cut -d' ' -f1-6)" \
"0x1 FactoryProducerDelegateImplActor 64 96 0 strong
0x2 Foo 32 32 0 strong
0x3 Foo 128 128 0 unreachable
0x4 a 256 256 0 unreachable"
  eq interleaved_pid "$(objs --trace-pid 3 "$T/heap_graph_interleaved.pftrace" | cut -d' ' -f1-6)" "0x1 FactoryProducerDelegateImplActor 64 64 0 strong"
  eq interleaved_process "$("$HK" --trace-process system_server info "$T/heap_graph_interleaved.pftrace" --json | jq -r '.process, .objects')" "system_server
7"
  eq info_lists_processes "$("$HK" info "$T/heap_graph_interleaved.pftrace" --json | jq -r '[.source[] | select(.key == "trace dump")] | length')" 2
  err pick_matches_none "no dump in the trace matches" "$HK" --trace-pid 99 info "$T/heap_graph_interleaved.pftrace"
  # several heap graphs of one process in time (java_heap_dump -c): numbered in `info`, the last opened
  # by default, --trace-dump N|last|TS picks one; a native profile beside them is listed
  "$GEN" --scenario graph -o "$T/g2.hprof" >/dev/null 2>&1
  "$HK" convert "$T/g2.hprof" --to perfetto-heapgraph --trace "$T/g2.pftrace" >/dev/null 2>&1
  "$GEN" --scenario demo -o "$T/g1.hprof" >/dev/null 2>&1
  "$HK" convert "$T/g1.hprof" --to perfetto-heapgraph --trace "$T/g1.pftrace" >/dev/null 2>&1
  (cd "$PF" && protoc --proto_path=. --encode=perfetto.protos.Trace protos/perfetto/trace/trace.proto) \
    < "$PF/tests/heap_profile_dump_max.textproto" > "$T/np.pftrace"
  cat "$T/g1.pftrace" "$T/g2.pftrace" "$T/np.pftrace" > "$T/two.pftrace"
  n1=$("$HK" info "$T/g1.hprof" --json | jq .objects); n2=$("$HK" info "$T/g2.hprof" --json | jq .objects)
  eq trace_dump_default_last "$("$HK" info "$T/two.pftrace" --json | jq .objects)" "$n2"
  eq trace_dump_first "$("$HK" --trace-dump 1 info "$T/two.pftrace" --json | jq .objects)" "$n1"
  eq trace_dump_last "$("$HK" info "$T/two.pftrace" --trace-dump last --json | jq .objects)" "$n2"
  eq trace_dump_listed "$("$HK" info "$T/two.pftrace" --json | jq -r '[.source[] | select(.key == "trace dump") | .value | sub(" at ts [0-9]*"; "") | sub(",.*\\[opened\\]"; " opened") | sub(",.*"; "")] | join("|")')" \
    "pid 1 (com.example.demo): heap graph #1 of 2|pid 1 (com.example.demo): heap graph #2 of 2 opened|pid 2 (system_server): native heap profile (heap unknown)"
  err trace_dump_none "matches --trace-pid/--trace-process/--trace-dump" "$HK" --trace-dump 3 info "$T/two.pftrace"
  err trace_dump_bad "--trace-dump takes a number from 1" "$HK" --trace-dump 0 info "$T/two.pftrace"
  err profile_only_points_to_native "it holds a native heap profile: see .hprofkit native." "$HK" info "$T/np.pftrace"
  err trace_pid_not_number "needs a process id" "$HK" --trace-pid x info "$T/heap_graph_interleaved.pftrace"

  # runtime_internal_object_id is a reference (tests_heap_graph.py: test_heap_graph_runtime_internal_)
  enc runtime <<'EOT'
packet { trusted_packet_sequence_id: 999 timestamp: 10
  [com.android.art.tracing.ArtHeapGraphTracePacket.heap_graph] { pid: 2
    types { id: 3 class_name: "java.lang.Object" }
    types { id: 4 class_name: "java.lang.DexCache" superclass_id: 3 }
    roots { root_type: ROOT_JAVA_FRAME object_ids: 5 }
    objects { id: 5 type_id: 4 runtime_internal_object_id: 6 self_size: 64 }
    objects { id: 6 type_id: 3 self_size: 32 }
    continued: false index: 0 } }
EOT
  eq heapgraph_runtime_internal "$(objs "$T/runtime.pftrace" | cut -d' ' -f1-8)" \
"0x5 java.lang.DexCache 64 96 0 strong JAVA_FRAME runtimeInternalObjects=\"0x6\"
0x6 java.lang.Object 32 32 0 strong - -"
  # recorded values become fields (test_heap_graph_bitmap_fields); Strings' text stays absent
  enc values <<'EOT'
packet { trusted_packet_sequence_id: 999 timestamp: 10
  [com.android.art.tracing.ArtHeapGraphTracePacket.heap_graph] { pid: 2
    types { id: 1 class_name: "android.graphics.Bitmap" }
    types { id: 2 class_name: "java.lang.String" object_size: 16 kind: KIND_STRING }
    types { id: 3 class_name: "java.lang.ref.WeakReference" reference_field_id: 1 kind: KIND_WEAK_REFERENCE }
    types { id: 4 class_name: "byte[]" object_size: 12 kind: KIND_ARRAY }
    field_names { iid: 1 str: "java.lang.Object java.lang.ref.Reference.referent" }
    roots { root_type: ROOT_JNI_GLOBAL object_ids: 3 object_ids: 2 }
    objects { id: 1 type_id: 1 self_size: 64 bitmap_id_field: 123 bitmap_source_id_field: 456 bitmap_width_field: 100 bitmap_height_field: 200 }
    objects { id: 2 type_id: 2 self_size: 22 }
    objects { id: 3 type_id: 3 self_size: 24 reference_object_id: 1 }
    objects { id: 4 type_id: 4 self_size: 112 }
    types { id: 5 class_name: "android.content.pm.ApplicationInfo" object_size: 40 }
    objects { id: 5 type_id: 5 application_info_long_version_code_field: 4200 }
    continued: false index: 0 } }
EOT
  eq heapgraph_bitmap_fields "$(objs "$T/values.pftrace" | head -1 | cut -d' ' -f1-8)" \
    "0x1 android.graphics.Bitmap 64 64 0 weak - mId:123,mSourceId:456,mWidth:100,mHeight:200"
  eq heapgraph_string_absent "$("$HK" object "$T/values.pftrace" 0x2 --json | jq -c '[.shallow_bytes, .value]')" '[22,null]'
  eq heapgraph_prim_array "$("$HK" object "$T/values.pftrace" 0x4 --json | jq -c '[.class, .shallow_bytes, .length]')" '["byte[]",112,100]'
  eq heapgraph_version_code "$("$HK" info "$T/values.pftrace" --json | jq -r '.source[] | select(.key == "app version code") | .value') $("$HK" object "$T/values.pftrace" 0x5 --json | jq -r '.fields[] | select(.name == "longVersionCode") | .value')" "4200 4200"
  eq heapgraph_bitmaps "$("$HK" bitmaps "$T/values.pftrace" --json | jq -c '[.bitmaps[0].width, .bitmaps[0].height]')" '[100,200]'

  # a type's kind decides its reference strength even when its name says nothing (obfuscated),
  # for its subclasses too
  enc kinds <<'EOT'
packet { trusted_packet_sequence_id: 7
  [com.android.art.tracing.ArtHeapGraphTracePacket.heap_graph] { pid: 2
    types { id: 1 class_name: "a.b" object_size: 24 reference_field_id: 1 kind: KIND_SOFT_REFERENCE }
    types { id: 2 class_name: "a.c" object_size: 28 superclass_id: 1 }
    types { id: 3 class_name: "a.d" object_size: 16 }
    field_names { iid: 1 str: "java.lang.Object java.lang.ref.Reference.referent" }
    roots { root_type: ROOT_JAVA_FRAME object_ids: 1 object_ids: 2 }
    objects { id: 1 type_id: 1 reference_object_id: 3 }
    objects { id: 2 type_id: 2 reference_object_id: 4 }
    objects { id: 3 type_id: 3 }
    objects { id: 4 type_id: 3 }
    continued: false index: 0 } }
EOT
  eq heapgraph_reference_kinds "$(objs "$T/kinds.pftrace" | cut -d' ' -f1-6)" \
"0x1 a.b 24 24 0 strong
0x2 a.c 28 28 0 strong
0x3 a.d 16 16 0 soft
0x4 a.d 16 16 0 soft"

  # the same trace gzip'd, and with its packets in zlib compressed_packets
  gzip -c "$T/heap_graph.pftrace" > "$T/hg.pftrace.gz"
  eq gzip_trace "$(objs "$T/hg.pftrace.gz" | cut -d' ' -f1-8)" "$(objs "$T/heap_graph.pftrace" | cut -d' ' -f1-8)"
  python3 - "$T/heap_graph.pftrace" "$T/hgz.perfetto-trace" <<'EOP'
import sys, zlib
def varint(n):
    out = b""
    while True:
        b = n & 0x7f; n >>= 7
        out += bytes([b | (0x80 if n else 0)])
        if not n: return out
data = open(sys.argv[1], "rb").read()
z = zlib.compress(data)
packet = b"\x92\x03" + varint(len(z)) + z        # TracePacket.compressed_packets = 50
open(sys.argv[2], "wb").write(b"\x0a" + varint(len(packet)) + packet)
EOP
  eq compressed_packets "$(objs "$T/hgz.perfetto-trace" | cut -d' ' -f1-8)" "$(objs "$T/heap_graph.pftrace" | cut -d' ' -f1-8)"

  # bad traces: one clear error or a counted warning, never a crash
  head -c 300 "$T/heap_graph.pftrace" > "$T/cut.pftrace"
  ok truncated_opens "$HK" info "$T/cut.pftrace"
  eq truncated_warns "$("$HK" info "$T/cut.pftrace" --json | jq -r '.source[] | select(.key == "warning") | .value' | grep -c 'truncated')" 1
  enc nograph <<'EOT'
packet { process_tree { processes { pid: 2 cmdline: "system_server" } } }
packet { timestamp: 5 for_testing { } }
EOT
  err no_heap_graph "without a Java heap graph or an embedded heap dump" "$HK" info "$T/nograph.pftrace"
  enc undefined_type <<'EOT'
packet { trusted_packet_sequence_id: 1 [com.android.art.tracing.ArtHeapGraphTracePacket.heap_graph] { pid: 2
  roots { root_type: ROOT_JAVA_FRAME object_ids: 1 }
  objects { id: 1 type_id: 7 self_size: 10 } continued: false index: 0 } }
packet { timestamp: 5 for_testing { } }
EOT
  eq undefined_type "$(objs "$T/undefined_type.pftrace" | cut -d' ' -f1-4)" "0x1 <undefined-type-7> 10 10"
  # a reference past 32 bits after 32-bit ones: the reference list widens, the dump gets 8-byte ids
  enc wide_ids <<'EOT'
packet { trusted_packet_sequence_id: 1 [com.android.art.tracing.ArtHeapGraphTracePacket.heap_graph] { pid: 2
  roots { root_type: ROOT_JAVA_FRAME object_ids: 1 }
  field_names { iid: 1 str: "Node.next" }
  types { id: 7 class_name: "Node" object_size: 16 reference_field_id: 1 }
  objects { id: 1 type_id: 7 reference_object_id: 2 }
  objects { id: 2 type_id: 7 reference_object_id: 0x100000000 }
  objects { id: 0x100000000 type_id: 7 reference_object_id: 0 } continued: false index: 0 } }
EOT
  eq wide_ids "$(objs "$T/wide_ids.pftrace" | cut -d' ' -f1-6,8 | tr '\n' '|')" \
    "0x1 Node 16 48 0 strong next=\"0x2\"|0x2 Node 16 32 0 strong next=\"0x100000000\"|0x100000000 Node 16 16 0 strong next=\"0x0\"|"
  eq undefined_type_counted "$("$HK" info "$T/undefined_type.pftrace" --json | jq -r '.source[] | select(.key == "trace warnings" or .key == "trace packets") | .value' | tr '\n' '|')" \
    "2 (1 of other kinds, ignored; 0 compressed blocks)|1|"
  # zstd_compressed_packets (as Perfetto writes with compression_type ZSTD) are read like zlib's;
  # a block that is not a whole zstd frame is a counted warning
  if command -v zstd >/dev/null; then
    zstd -q -c "$T/heap_graph.pftrace" > "$T/hg.zst"
    python3 -c 'import sys
def v(n):
    b = b""
    while True:
        b += bytes([(n & 0x7f) | (0x80 if n > 0x7f else 0)]); n >>= 7
        if not n: return b
z = open(sys.argv[1], "rb").read()
inner = v(133 << 3 | 2) + v(len(z)) + z
sys.stdout.buffer.write(b"\x0a" + v(len(inner)) + inner)' "$T/hg.zst" > "$T/zstd_whole.pftrace"
    eq zstd_packets_read "$(objs "$T/zstd_whole.pftrace" | cut -d' ' -f1-8)" "$(objs "$T/heap_graph.pftrace" | cut -d' ' -f1-8)"
    eq zstd_blocks_counted "$("$HK" info "$T/zstd_whole.pftrace" --json | jq -r '.source[] | select(.key == "trace packets") | .value' | grep -o '[0-9]* compressed')" "1 compressed"
  else
    skip zstd_packets_read "needs the zstd command (package zstd)"
  fi
  { cat "$T/heap_graph.pftrace"; printf '\x0a\x05\xaa\x08\x02\x28\xb5'; } > "$T/zstd.pftrace"
  eq zstd_cut_warned "$("$HK" info "$T/zstd.pftrace" --json | jq -r '.source[] | select(.key == "warning") | .value' | grep -c 'not a whole zstd frame')" 1
  # an embedded dump that is not an HPROF: the HPROF reader's error, saying where the bytes came from
  printf '\x0a\x0f\x92\x38\x0c\x08\x02\x12\x04junk\x18\x00\x20\x01' > "$T/junk.pftrace"
  err embedded_not_hprof "not an HPROF heap dump.*in the dump the trace embeds" "$HK" info "$T/junk.pftrace"
  printf '\x0a\x05\xff\xff\xff\xff\xff' > "$T/garbage.pftrace"
  ok garbage_trace_no_crash sh -c "'$HK' info '$T/garbage.pftrace'; [ \$? -lt 3 ]"
fi

# ---- convert: real dumps through both kinds of trace and back ----
REAL="$REALDATA/hprof"
if [ ! -d "$REAL" ]; then
  skip perfetto_round_trips "no $REAL"
else
  for f in aosp-art-ahat-test-dump leakcanary-leak_service_binder; do
    d="$REAL/$f.hprof"
    ok "convert_heapgraph_$f" "$HK" convert "$d" --to perfetto-heapgraph --trace "$T/$f.hg.pftrace"
    ok "convert_embedded_$f" "$HK" convert "$d" --to perfetto-embedded --trace "$T/$f.em.pftrace" --chunk-kb 256
    # heap graph: the same objects, and each strongly reachable instance and array retains as much
    "$HK" run "$SRC/tests/perfetto/retained.lua" "$d" > "$T/$f.want"
    "$HK" run "$SRC/tests/perfetto/retained.lua" "$T/$f.hg.pftrace" > "$T/$f.got"
    if cmp -s "$T/$f.want" "$T/$f.got"; then pass "heapgraph_round_trip_$f ($(wc -l < "$T/$f.want") lines)"
    else fail "heapgraph_round_trip_$f" "$(diff "$T/$f.want" "$T/$f.got" | head -4 | tr '\n' ' ')"; fi
    # embedded: the dump itself comes back
    for q in histogram top leaks; do
      # --no-map: the HPROF has its R8 map beside it, the trace in $T has none
      eq "embedded_${q}_$f" "$("$HK" $q "$T/$f.em.pftrace" --no-map --json | md5sum)" "$("$HK" $q "$d" --no-map --json | md5sum)"
    done
  done
  # the leak triage works on a heap graph too; the watched key (a String's text) is absent there
  app_traces='[.leaks[] | select(.kind == "application") | .traces[] | "\(.object) \(.retained_bytes)"] | sort | join(",")'
  eq heapgraph_leaks "$("$HK" leaks "$T/leakcanary-leak_service_binder.hg.pftrace" --json | jq -r "$app_traces")" \
    "$("$HK" leaks "$REAL/leakcanary-leak_service_binder.hprof" --json | jq -r "$app_traces")"
  eq heapgraph_leaks_watched "$("$HK" leaks "$T/leakcanary-leak_service_binder.hg.pftrace" --json | jq -r "$app_traces" | grep -c '0xb0fa7cb0 378')" 1
  # a heap graph rebuilt into a scratch file (as graphs past 4 MB are) answers as the one rebuilt in
  # memory: every query's JSON equal, and nothing left in TMPDIR
  mkdir -p "$T/scratch"
  for q in histogram top reachability; do
    eq "heapgraph_spilled_$q" "$(TMPDIR="$T/scratch" HPROFKIT_SPILL_BYTES=1 "$HK" $q "$T/leakcanary-leak_service_binder.hg.pftrace" --json | sha256sum)" \
      "$("$HK" $q "$T/leakcanary-leak_service_binder.hg.pftrace" --json | sha256sum)"
  done
  eq heapgraph_spill_leaves_nothing "$(ls -A "$T/scratch")" ""
  err heapgraph_spill_unwritable "cannot create a scratch file in $T/nowhere" env TMPDIR="$T/nowhere" HPROFKIT_SPILL_BYTES=1 "$HK" info "$T/leakcanary-leak_service_binder.hg.pftrace"
  # the roots convention (README): a heap graph from a device counts every zygote and boot-image
  # object as a VM-internal root (as ART's GC and Perfetto do), an HPROF does not; a graph hprofkit
  # converted from an HPROF keeps the HPROF's roots, so both read alike.  Fields: roots,
  # zygote objects, zygote objects not rooted, bytes they retain, app bytes they dominate.
  rc_h=$("$HK" run "$SRC/tests/perfetto/roots_convention.lua" "$REAL/leakcanary-leak_service_binder.hprof")
  eq roots_converted_like_hprof "$("$HK" run "$SRC/tests/perfetto/roots_convention.lua" "$T/leakcanary-leak_service_binder.hg.pftrace")" "$rc_h"
  python3 "$SRC/tests/perfetto/drop_field.py" 897 < "$T/leakcanary-leak_service_binder.hg.pftrace" > "$T/lc_device.pftrace"
  rc_d=$("$HK" run "$SRC/tests/perfetto/roots_convention.lua" "$T/lc_device.pftrace")
  read -r hr hz hn hret happ <<<"$rc_h"; read -r dr dz dn dret dapp <<<"$rc_d"
  eq roots_device_zygote_rooted "$dz $dn $dr" "$hz 0 $((hr + hn))"
  ok roots_device_retained_differ test "$dret" -lt "$hret"
  eq embedded_source "$("$HK" info "$T/aosp-art-ahat-test-dump.em.pftrace" --json | jq -r '.source[0].value')" "Perfetto trace, embedded HPROF"
  err convert_needs_kind "--to perfetto-heapgraph or --to perfetto-embedded" "$HK" convert "$REAL/aosp-art-ahat-test-dump.hprof" --to pdf --trace "$T/x"
  err convert_needs_output "--trace FILE" "$HK" convert "$REAL/aosp-art-ahat-test-dump.hprof" --to perfetto-embedded
  # a chunk chain with a gap, and one without its last chunk: one clear error each
  python3 - "$T/aosp-art-ahat-test-dump.em.pftrace" "$T/gap.pftrace" "$T/noend.pftrace" <<'EOP'
import sys
data = open(sys.argv[1], "rb").read()
def varint(b, i):
    v = s = 0
    while True:
        x = b[i]; i += 1; v |= (x & 0x7f) << s; s += 7
        if not x & 0x80: return v, i
packets, i = [], 0
while i < len(data):
    start = i
    _, i = varint(data, i); n, i = varint(data, i); i += n
    packets.append(data[start:i])
open(sys.argv[2], "wb").write(b"".join(packets[:2] + packets[3:]))
open(sys.argv[3], "wb").write(b"".join(packets[:-1]))
EOP
  err embedded_gap "incomplete: a chunk is missing" "$HK" info "$T/gap.pftrace"
  err embedded_no_end "its last chunk \(last_chunk\) never came" "$HK" info "$T/noend.pftrace"
fi

# ---- embedded HPROF with its bitmaps' PNGs: joined by the pointer in the name, size-checked ----
if "$GEN" --scenario bitmaps-api29 -o "$T/api29.hprof" --expect "$T/api29.json" >/dev/null 2>&1; then
  python3 - "$T" <<'EOP'
import struct, sys, zlib
def png(path, w, h):
    rows = b''.join(b'\x00' + b''.join(bytes((x % 256, y % 256, 77, 255)) for x in range(w)) for y in range(h))
    def ch(t, d): return struct.pack('>I', len(d)) + t + d + struct.pack('>I', zlib.crc32(t + d) & 0xffffffff)
    open(path, 'wb').write(b'\x89PNG\r\n\x1a\n' + ch(b'IHDR', struct.pack('>IIBBBBB', w, h, 8, 6, 0, 0, 0)) +
                           ch(b'IDAT', zlib.compress(rows)) + ch(b'IEND', b''))
png(sys.argv[1] + '/avatar.png', 96, 96); png(sys.argv[1] + '/small.png', 32, 16)
EOP
  avatar=$(jq -r '.facts.bitmaps[] | select(.label == "avatar") | .native_ptr' "$T/api29.json")
  banner=$(jq -r '.facts.bitmaps[] | select(.label == "banner") | .native_ptr' "$T/api29.json")
  aid=$(jq -r '.facts.bitmaps[] | select(.label == "avatar") | .id' "$T/api29.json")
  bid=$(jq -r '.facts.bitmaps[] | select(.label == "banner") | .id' "$T/api29.json")
  # convert takes the images the dump has (here from the sidecar directory) into the trace
  mkdir -p "$T/api29.hprof.bitmaps" "$T/elsewhere"
  cp "$T/avatar.png" "$T/api29.hprof.bitmaps/$avatar.png"
  "$HK" convert "$T/api29.hprof" --to perfetto-embedded --trace "$T/elsewhere/api29.pftrace" >/dev/null
  "$HK" bitmaps "$T/elsewhere/api29.pftrace" --json > "$T/bm.json"
  eq trace_png_joined "$(jq -r --arg id "$aid" '.bitmaps[] | select(.id == $id) | .source' "$T/bm.json")" trace
  eq trace_png_same_pixels "$(jq -r --arg id "$aid" '.bitmaps[] | select(.id == $id) | .pixels_sha256' "$T/bm.json")" \
    "$("$HK" bitmaps "$T/api29.hprof" --json | jq -r --arg id "$aid" '.bitmaps[] | select(.id == $id) | .pixels_sha256')"
  # a PNG whose size is not its Bitmap's is refused and counted, as from the sidecar
  "$HK" run /dev/stdin "$T/api29.hprof" > /dev/null <<EOL
local d = hk.open(arg.dump)
d:write_perfetto{to = "embedded", path = "$T/w.pftrace", pid = 42, process = "com.example", chunk_bytes = 1000,
  images = { {ptr = "$avatar", png = hk.read_file("$T/avatar.png")}, {ptr = "$banner", png = hk.read_file("$T/small.png")} }}
EOL
  "$HK" bitmaps "$T/w.pftrace" --json > "$T/w.json"
  eq trace_png_summary "$(jq -c '.summary | [.with_image, .mismatched, .by_source.trace]' "$T/w.json")" "[1,1,1]"
  case "$(jq -r --arg id "$bid" '.bitmaps[] | select(.id == $id) | .reason' "$T/w.json")" in
    *"is 32x16, the bitmap is 720x240"*) pass trace_png_mismatch_reason ;;
    *) fail trace_png_mismatch_reason "$(jq -r --arg id "$bid" '.bitmaps[] | select(.id == $id) | .reason' "$T/w.json")" ;;
  esac
  eq embedded_chunks "$("$HK" info "$T/w.pftrace" --json | jq -r '.source[] | select(.key == "trace dump") | .value')" \
    "pid 42 (com.example): embedded HPROF, $(stat -c %s "$T/api29.hprof") bytes in $(( ($(stat -c %s "$T/api29.hprof") + 999) / 1000 )) chunks [opened]"
  # through a heap graph the Bitmaps keep their size and native bytes; the pointer is absent
  "$HK" convert "$T/api29.hprof" --to perfetto-heapgraph --trace "$T/api29.hg.pftrace" >/dev/null
  eq heapgraph_bitmaps_kept "$("$HK" bitmaps "$T/api29.hg.pftrace" --json | jq -c '[.bitmaps[] | [.id, .width, .height, .bytes, .native_ptr]]')" \
    "$("$HK" bitmaps "$T/api29.hprof" --json | jq -c '[.bitmaps[] | [.id, .width, .height, .bytes, null]]')"
  eq embedded_histogram "$("$HK" histogram "$T/w.pftrace" --json | md5sum)" "$("$HK" histogram "$T/api29.hprof" --json | md5sum)"
else
  fail embedded_images "genhprof bitmaps-api29 failed"
fi
