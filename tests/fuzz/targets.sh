# The fuzz targets that have no test file of their own to build them (sourced by
# tests/t_fuzz_*.sh and bench/fuzz_campaign.sh; SRC and BUILD set): fuzz_build NAME OUT builds
# one with clang (libFuzzer, ASan, UBSan; ninja in BUILD/fuzz/, where targets share objects),
# fuzz_seed NAME DIR writes its seeds.
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

# fuzz_parts NAME: the target's sources (a harness of tests/fuzz/ first), then after "--" what
# it links; each source is compiled once into BUILD/fuzz/ and shared by every target naming it
fuzz_parts() {
  local S=$SRC B=$BUILD
  local util="$S/core/util/hk_buf.c $S/core/util/hk_mem.c $S/core/util/hk_file.c" map="$S/core/map/map_parse.c $S/core/map/map_frames.c"
  local pb="$B/trace.pb-c.c $B/heap_graph.pb-c.c $B/process_tree.pb-c.c $B/profile.pb-c.c"
  local trace="$S/core/trace/trace_packets.c $S/core/trace/trace_read.c $S/core/trace/trace_graph.c $S/core/trace/trace_hprof.c"
  case $1 in
    hprof | hprof-structured)
      echo "$S/tests/fuzz/fuzz_hprof.c" "$([ "$1" == hprof-structured ] && echo "$S/tests/fuzz/hprof_mutator.c")" \
        "$S"/core/util/hk_{buf,idmap,mem,file,jobs,report,sha}.c $map \
        "$S"/core/hprof/hprof_{file,index,heap,objtab,class,object,origin,facts,map,stack,ext,sha}.c \
        "$S"/core/hprof/hprof_layout{,_class,_count,_detect}.c $trace "$S/core/open/open.c" \
        "$S"/core/graph/graph_{refs,referrers,reach,native,dom,domtree,top,path,path_local,class_retained,codes,heap_retained}.c \
        "$S/core/bitmap/bitmap_list.c" $pb "$B/hprof_dump.pb-c.c" -- -lz -lzstd -lprotobuf-c -lcrypto -lpthread ;;
    map) echo "$S/tests/fuzz/fuzz_map.c" $map $util -- ;;
    native)
      echo "$S/tests/fuzz/fuzz_native.c" "$S"/core/native/native_{read,names}.c "$S/core/trace/trace_packets.c" $map \
        $util "$S/core/util/hk_idmap.c" $pb -- -lz -lzstd -lprotobuf-c ;;
    deaths) echo "$S/tests/fuzz/fuzz_deaths.c" "$S"/plugins/deaths/dl_*.c -- ;;
    trace) echo "$S/tests/fuzz/fuzz_trace.c" $trace $util "$S/core/util/hk_idmap.c" $pb "$B/hprof_dump.pb-c.c" \
      -- -lz -lzstd -lprotobuf-c ;;
    meminfo)
      echo "$S/tests/fuzz/fuzz_meminfo.c" \
        "$S"/plugins/meminfo/{meminfo_parse,meminfo_check,meminfo_json,meminfo_text,mi_buf,smaps_parse}.c -- ;;
    lua-api | facts)
      # every source of hprofkit but main.c, as the build compiles them (compile_commands.json)
      echo "$S/tests/fuzz/fuzz_lua.c" $(jq -r '.[] | select(.output | test("^(hprofkit|core/lib[^/]*\\.a)\\.p/")) | .file' \
        "$B/compile_commands.json" | grep -v '/cli/main\.c$' | sed "s|^\.\./|$S/|; s|^[^/]|$B/&|") \
        -- -llua5.4 -lz -lzstd -lprotobuf-c -lpng16 -lsqlite3 -lmicrohttpd -lcrypto -linih -ldl -lm -lpthread ;;
    *) return 2 ;;
  esac
}

# fuzz_ninja: BUILD/fuzz/build.ninja for every target: one object per source (the hprofkit
# sources of the Lua targets apart: instrumented as the build compiles them, with its defines)
fuzz_ninja() {
  local S=$SRC B=$BUILD name src obj kind
  local inc="-I$S/core -I$S/sdk -I$B"
  local luainc="-D_FILE_OFFSET_BITS=64 -I$B -I$S -I$S/core -I$S/sdk -I$B/core -I/usr/include/lua5.4 -I/usr/include/libpng16"
  echo "# written by tests/fuzz/targets.sh (fuzz_build): the libFuzzer targets, clang, ASan and UBSan"
  echo "cflags = $FUZZ_CFLAGS"
  echo "rule cc"
  echo "  command = clang \$cflags \$inc -MD -MF \$out.d -c \$in -o \$out"
  echo "  deps = gcc"
  echo "  depfile = \$out.d"
  echo "rule link"
  echo "  command = clang \$cflags \$in \$libs -o \$out"
  declare -A seen
  for name in hprof hprof-structured map native deaths trace meminfo lua-api facts; do
    local objs=() parts libs=""
    [ "${name%-*}" == lua ] || [ "$name" == facts ] && { [ -f "$B/compile_commands.json" ] || continue; }
    parts=$(fuzz_parts "$name")
    for src in ${parts%%--*}; do
      kind=obj; [ "$name" == lua-api ] || [ "$name" == facts ] && [[ "$src" != */tests/fuzz/* ]] && kind=lua
      obj="$kind/$(echo "${src#"$S"/}" | sed "s|^$B/|build/|; s|/|_|g").o"
      objs+=("$obj")
      [ -n "${seen[$obj]:-}" ] && continue
      seen[$obj]=1
      echo "build $obj: cc $src"
      case $kind/$name/$src in   # a plugin's sources and harness see its folder and the SDK only
        lua/*) echo "  inc = $luainc"; echo "  cflags = ${FUZZ_CFLAGS/fuzzer,/fuzzer-no-link,}" ;;
        obj/deaths/* | obj/meminfo/*) echo "  inc = -I$S/plugins/$name -I$S/sdk" ;;
        obj/lua-api/* | obj/facts/*) echo "  inc = $inc -I/usr/include/lua5.4" ;;
        *) echo "  inc = $inc" ;;
      esac
    done
    echo "build fuzz_$name: link ${objs[*]}"
    echo "  libs = ${parts#*--}"
  done
}

# fuzz_build NAME OUT: builds the target NAME (ninja in BUILD/fuzz, one test file at a time: the
# files run side by side and share its objects) and copies it to OUT
fuzz_build() {
  local name=$1 out=$2 dir="$BUILD/fuzz"
  fuzz_parts "$name" >/dev/null || { echo "fuzz_build: no target $name" >&2; return 2; }
  mkdir -p "$dir"
  (
    flock 9
    fuzz_ninja >"$dir/build.ninja.new" && { cmp -s "$dir/build.ninja.new" "$dir/build.ninja" || mv "$dir/build.ninja.new" "$dir/build.ninja"; } \
      && ninja -C "$dir" --quiet "fuzz_$name" >&2
  ) 9<"$dir" && cp "$dir/fuzz_$name" "$out"
}

# fuzz_test_build TEST NAME OUT: fuzz_build in a test file (tests/lib.sh's pass and fail): one
# line TEST-build, passed or failed with the compiler's first lines; false when it did not build
fuzz_test_build() {
  if fuzz_build "$2" "$3" 2>"$T/build-$2.err"; then pass "$1-build"
  else fail "$1-build" "$(head -c 600 "$T/build-$2.err")"; return 1; fi
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
