# The fuzz targets that have no test file of their own to build them (sourced by
# tests/t_fuzz_*.sh and bench/fuzz_campaign.sh; SRC and BUILD set): fuzz_build NAME OUT builds
# one with clang (libFuzzer, ASan, UBSan), fuzz_seed NAME DIR writes its seeds.
#   hprof    reader, index, map, bitmaps and the whole heap graph (fuzz_hprof.c; tests/t_fuzz.sh)
#   hprof-structured  the same with a mutator that keeps the records' framing (hprof_mutator.c)
#   map      the R8/ProGuard mapping-file parser (fuzz_map.c)
#   native   the heapprofd profile reader (fuzz_native.c; tests/t_fuzz_native.sh)
#   deaths   the deaths plugin's logcat and exit-info parsers (fuzz_deaths.c; t_fuzz_deaths.sh)
#   trace    the Perfetto trace reader alone (fuzz_trace.c)
#   meminfo  the meminfo and smaps parsers (fuzz_meminfo.c)
#   lua-api  the Lua API driven by a fuzzed sequence of calls (fuzz_lua.c + drive_api.lua)
#   facts    facts JSON into fleet-ingest and fleet-report (fuzz_lua.c + drive_facts.lua)
FUZZ_CFLAGS="-std=gnu11 -D_GNU_SOURCE -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined"

fuzz_build() {
  local name=$1 out=$2
  case $name in
    hprof | hprof-structured)
      local extra=""; [ "$name" == hprof-structured ] && extra="$SRC/tests/fuzz/hprof_mutator.c"
      clang $FUZZ_CFLAGS -I "$SRC/core" -I "$SRC/sdk" -I "$BUILD" "$SRC/tests/fuzz/fuzz_hprof.c" $extra \
        "$SRC"/core/util/hk_{buf,idmap,mem,file,jobs,report}.c "$SRC"/core/map/map_{parse,frames}.c \
        "$SRC"/core/hprof/hprof_{file,index,heap,objtab,class,object,origin,facts,map,stack,ext}.c \
        "$SRC"/core/hprof/hprof_layout{,_class,_count,_detect}.c "$SRC"/core/trace/trace_{packets,read,graph,hprof}.c \
        "$SRC/core/open/open.c" \
        "$SRC"/core/graph/graph_{refs,referrers,reach,native,dom,domtree,top,path,path_local,class_retained,heap_retained}.c \
        "$SRC/core/bitmap/bitmap_list.c" "$BUILD"/{trace,heap_graph,process_tree,profile,hprof_dump}.pb-c.c \
        -lz -lzstd -lprotobuf-c -lpthread -o "$out" ;;
    map)
      clang $FUZZ_CFLAGS -I "$SRC/core" -I "$SRC/sdk" -I "$BUILD" "$SRC/tests/fuzz/fuzz_map.c" \
        "$SRC"/core/map/map_{parse,frames}.c "$SRC"/core/util/hk_{buf,mem,file}.c -o "$out" ;;
    native)
      clang $FUZZ_CFLAGS -I "$SRC/core" -I "$SRC/sdk" -I "$BUILD" "$SRC/tests/fuzz/fuzz_native.c" \
        "$SRC"/core/native/native_{read,names}.c "$SRC/core/trace/trace_packets.c" "$SRC"/core/map/map_{parse,frames}.c \
        "$SRC"/core/util/hk_{buf,idmap,mem,file}.c "$BUILD"/{trace,heap_graph,process_tree,profile}.pb-c.c \
        -lz -lzstd -lprotobuf-c -o "$out" ;;
    deaths)
      clang $FUZZ_CFLAGS -I "$SRC/plugins/deaths" -I "$SRC/sdk" "$SRC/tests/fuzz/fuzz_deaths.c" "$SRC"/plugins/deaths/dl_*.c -o "$out" ;;
    trace)
      clang $FUZZ_CFLAGS -I "$SRC/core" -I "$SRC/sdk" -I "$BUILD" "$SRC/tests/fuzz/fuzz_trace.c" \
        "$SRC"/core/trace/trace_{packets,read,graph,hprof}.c "$SRC"/core/util/hk_{buf,idmap,mem,file}.c \
        "$BUILD"/{trace,heap_graph,process_tree,profile,hprof_dump}.pb-c.c -lz -lzstd -lprotobuf-c -o "$out" ;;
    meminfo)
      clang $FUZZ_CFLAGS -I "$SRC/plugins/meminfo" -I "$SRC/sdk" "$SRC/tests/fuzz/fuzz_meminfo.c" \
        "$SRC"/plugins/meminfo/{meminfo_parse,meminfo_check,meminfo_json,meminfo_text,mi_buf,smaps_parse}.c -o "$out" ;;
    lua-api | facts)
      # every source of hprofkit but main.c, as the build compiles them, instrumented for libFuzzer
      local objs="$out.objs" f
      mkdir -p "$objs"
      for f in $(jq -r '.[] | select(.output | test("^(hprofkit|core/lib[^/]*\\.a)\\.p/")) | .file' \
                   "$BUILD/compile_commands.json" | grep -v '/cli/main\.c$'); do
        ( cd "$BUILD" && clang ${FUZZ_CFLAGS/fuzzer,/fuzzer-no-link,} -D_FILE_OFFSET_BITS=64 -I. -I.. -I../core -I../sdk -Icore \
            -I/usr/include/lua5.4 -I/usr/include/libpng16 -c "$f" -o "$objs/o$(echo "$f" | tr / _).o" ) || return 1
      done
      clang $FUZZ_CFLAGS -I "$SRC/core" -I "$SRC/sdk" -I "$BUILD" -I/usr/include/lua5.4 "$SRC/tests/fuzz/fuzz_lua.c" \
        "$objs"/*.o -llua5.4 -lz -lzstd -lprotobuf-c -lpng16 -lsqlite3 -lmicrohttpd -lcrypto -linih -ldl -lm -lpthread \
        -o "$out" ;;
    *) echo "fuzz_build: no target $name" >&2; return 2 ;;
  esac
}

# the environment a target runs in (the Lua ones: their driver and the scripts)
fuzz_env() {
  case $1 in
    lua-api) echo "HK_FUZZ_DRIVER=$SRC/tests/fuzz/drive_api.lua HPROFKIT_SCRIPTS=$SRC/scripts" ;;
    facts) echo "HK_FUZZ_DRIVER=$SRC/tests/fuzz/drive_facts.lua HPROFKIT_SCRIPTS=$SRC/scripts" ;;
  esac
}

fuzz_seed() {
  local name=$1 dir=$2 PF="$SRC/../shared/reference/perfetto"
  mkdir -p "$dir"
  case $name in
    hprof | hprof-structured)   # the test's own seeds are richer (t_fuzz.sh); these start a campaign
      cp "$SRC"/tests/fuzz/corpus/*.hprof "$SRC"/tests/fuzz/corpus/*.pftrace "$dir"/ 2>/dev/null
      for sc in demo graph bitmaps-pre26 bitmaps-api35 leaks; do
        "$GEN" --scenario $sc --width 4 --height 4 -o "$dir/$sc.hprof" >/dev/null 2>&1
      done
      "$GEN" --scenario chain --objects 20 --id-size 8 -o "$dir/chain8.hprof" >/dev/null 2>&1
      for k in unknown-subtag dangling-class long-record sub-overrun duplicate-id unknown-record; do
        "$BUILD/tests/mkbad" $k "$dir/$k.hprof"
      done ;;
    map)
      printf 'a.B -> a:\n    int x -> a\n    1:3:void f():5:7 -> b\n    1:3:void c.D.g():9 -> b\n' > "$dir/small.map"
      cp "$SRC"/../shared/realdata/hprof/*.map "$dir"/ 2>/dev/null ;;
    native) fuzz_seed trace "$dir"; cp "$SRC"/tests/fuzz/corpus-native/* "$dir"/ 2>/dev/null ;;
    deaths)
      cp "$SRC"/tests/fuzz/corpus-deaths/* "$dir"/ 2>/dev/null
      cp "$SRC"/../shared/reference/logcat/*.log "$SRC"/../shared/reference/logcat/*.txt "$dir"/ 2>/dev/null ;;
    trace)
      if command -v protoc >/dev/null && [ -d "$PF/tests" ]; then
        for f in "$PF"/tests/heap_graph*.textproto "$PF"/tests/heap_profile*.textproto; do
          (cd "$PF" && protoc --proto_path=. --encode=perfetto.protos.Trace protos/perfetto/trace/trace.proto \
            protos/third_party/android/art/heap_graph.proto) < "$f" > "$dir/$(basename "$f" .textproto).pftrace" 2>/dev/null
        done
      fi
      "$GEN" --scenario graph -o "$dir/g.hprof" >/dev/null 2>&1 && \
        "$HK" convert "$dir/g.hprof" --to perfetto-heapgraph --trace "$dir/graph.pftrace" >/dev/null 2>&1
      "$GEN" --scenario bitmaps-api35 --width 2 --height 2 -o "$dir/b.hprof" >/dev/null 2>&1 && \
        "$HK" convert "$dir/b.hprof" --to perfetto-embedded --chunk-kb 4 --trace "$dir/embedded.pftrace" >/dev/null 2>&1
      rm -f "$dir"/*.hprof ;;
    meminfo)
      cp "$SRC"/tests/meminfo/*.txt "$dir"/ 2>/dev/null
      cp "$SRC"/../shared/realdata/meminfo/*.txt "$dir"/ 2>/dev/null ;;
    lua-api)
      # call sequences: every op once, then pairs
      python3 -c "
import sys
open(sys.argv[1] + '/each', 'wb').write(bytes(b for i in range(20) for b in (i, 7 * i + 1)))
open(sys.argv[1] + '/close-first', 'wb').write(bytes([19, 0, 0, 1, 1, 1, 2, 2, 11, 3]))" "$dir" ;;
    facts)
      "$GEN" --scenario leaks -o "$dir/l.hprof" >/dev/null 2>&1 && "$HK" triage "$dir/l.hprof" --json -o "$dir/facts.json" >/dev/null 2>&1
      rm -f "$dir"/*.hprof
      echo '{"schema":"hprofkit-triage/2","app":{"package":"a"},"origin":{},"leaks":[]}' > "$dir/tiny.json" ;;
  esac
}
