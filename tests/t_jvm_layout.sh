# HotSpot dumps sized as the JVM lays out its objects, held to the JVM itself: five JVMs of the
# machine's JDK (17 on Debian 12, 21 on Debian 13: their injected and @Contended fields differ)
# (default flags, -XX:-UseCompressedOops, -XX:-UseCompressedClassPointers, both off, and
# -XX:ObjectAlignmentInBytes=16) each give
# `jcmd GC.class_histogram` and, right after, `jcmd GC.heap_dump` of a heap that allocates
# nothing between the two; every class whose instance count agrees must have the JVM's bytes
# exactly (tests/jvm/histo_check.py).  Then --jvm-layout in combination: the CLI, Lua, object,
# triage; and ART dumps keep their own sizes.
. "$SRC/tests/lib.sh"
command -v javac >/dev/null && command -v jcmd >/dev/null || { skip jvm-layout "no JDK (javac, jcmd)"; exit 0; }
command -v python3 >/dev/null || { skip jvm-layout "no python3"; exit 0; }
cd "$T" || exit 1
CHECK="$SRC/tests/jvm/histo_check.py"
javac -d classes "$SRC/tests/java/JvmLayout.java" 2>javac.err || { fail jvm-layout-javac "$(head -c 300 javac.err)"; exit 0; }

# take NAME FLAGS...: NAME.histo (the JVM's histogram) and NAME.hprof (the dump after it)
take() {
  local name=$1; shift
  rm -f "$name.pid"
  java -Xmx64m "$@" -cp classes JvmLayout "$name.pid" 300 >/dev/null 2>&1 &
  local jpid=$!
  for _ in $(seq 200); do [ -s "$name.pid" ] && break; sleep 0.1; done
  jcmd "$jpid" GC.class_histogram > "$name.histo" 2>&1
  jcmd "$jpid" GC.heap_dump "$T/$name.hprof" >/dev/null 2>&1
  kill "$jpid" 2>/dev/null; wait "$jpid" 2>/dev/null
  [ -s "$name.hprof" ] || { fail "jvm-$name-dump" "jcmd wrote no dump: $(head -c 300 "$name.histo")"; return 1; }
}

# check NAME [OPTIONS...]: the dump's histogram against the JVM's; the summary line in $T/NAME.check
check() {
  local name=$1; shift
  "$HK" histogram "$name.hprof" -n 0 --json "$@" > "$name.json" 2>"$name.err" || { echo "hprofkit failed: $(head -c 300 "$name.err")"; return 1; }
  python3 "$CHECK" "$name.histo" "$name.json" > "$name.check"
}

for run in default:compressed: noOops:12/8:-XX:-UseCompressedOops noClassPointers:16/4:-XX:-UseCompressedClassPointers \
  plain:plain:-XX:-UseCompressedOops,-XX:-UseCompressedClassPointers align16:12/4/16:-XX:ObjectAlignmentInBytes=16; do
  IFS=: read -r name want flags <<< "$run"
  take "$name" ${flags//,/ } || continue
  eq "jvm-$name-info-layout" "$("$HK" info "$name.hprof" --json | jq -r .layout)" "$want"
  if check "$name" && read -r _ agree _ same _ differ < <(tail -1 "$name.check") && [ "$differ" = 0 ] && [ "$agree" -ge 200 ]; then
    pass "jvm-$name-histogram ($agree classes whose count agrees with the JVM's: bytes equal for all $same)"
  else
    fail "jvm-$name-histogram" "$(tr '\n' ';' < "$name.check" | head -c 600)"
  fi
done

if [ -s default.hprof ] && [ -s noOops.hprof ]; then
  # the check can fail: another layout's sizes are not the JVM's
  check default --jvm-layout plain
  read -r _ _ _ _ _ differ < <(tail -1 default.check)
  [ "${differ:-0}" -gt 100 ] && pass "jvm-wrong-layout-differs ($differ classes)" || fail jvm-wrong-layout-differs "$(tail -1 default.check)"
  # an explicit choice the dump agrees with, before or after the command
  check noOops --jvm-layout 12/8
  eq jvm-explicit-layout "$(tail -1 noOops.check | awk '{print $6}')" 0
  eq jvm-explicit-layout-info "$("$HK" --jvm-layout 12/8 info noOops.hprof --json | jq -c '[.layout, .header_bytes, .reference_bytes, .alignment_bytes]')" '["12/8",12,8,8]'
  # one object: JvmLayout$Mixed's shallow size is the JVM's bytes per instance
  mixed=$(awk '$4 == "JvmLayout$Mixed" { print $3 / $2 }' default.histo)
  cat > first.lua <<'LUA'
local d = hk.open(arg.dump, arg.layout and {jvm_layout = arg.layout} or nil)
for o in d:class("JvmLayout$Mixed"):instances() do print(o.id) break end
LUA
  id=$("$HK" run first.lua default.hprof)
  eq jvm-object-shallow "$("$HK" object default.hprof "$id" --json | jq .shallow_bytes)" "$mixed"
  # the JDK whose injected and @Contended fields the model counts is the dump's own: the JVM's
  # java.specification.version
  spec=$(java -XshowSettings:properties -version 2>&1 | awk '$1 == "java.specification.version" { print $3 }')
  echo 'print(hk.open(arg.dump).jvm_layout.jdk)' > jdk.lua
  eq jvm-layout-jdk "$("$HK" run jdk.lua default.hprof)" "${spec:-?}"
  # the dump's own convention: Mixed's fields are 1+8+2+8+4+2+1+8+4 bytes (references as 8-byte ids)
  eq jvm-layout-dump "$("$HK" histogram default.hprof --jvm-layout dump --json --class 'JvmLayout$Mixed' | jq '.[0].shallow_bytes')" $((300 * 38))
  # Lua: hk.open's option wins over the global one; dump.jvm_layout says what was chosen.  Mixed
  # in 16/8 by HotSpot's packing: long l@16, double d@24, int i@32, float f@36, short s@40,
  # char c@42, byte b@44, boolean z@45, the reference r@48: 56 bytes, what the JVM with both
  # compressions off says (plain.histo)
  [ -s plain.histo ] && eq jvm-plain-mixed "$(awk '$4 == "JvmLayout$Mixed" { print $3 / $2 }' plain.histo)" 56
  cat > layout.lua <<'LUA'
local d = hk.open(arg.dump, {jvm_layout = "plain"})
local l = d.jvm_layout
local o
for x in d:class("JvmLayout$Mixed"):instances() do o = x break end
print(l.name, l.chosen, l.header_bytes, l.reference_bytes, o.shallow_size, hk.options.jvm_layout)
LUA
  eq jvm-lua-open-option "$("$HK" run layout.lua default.hprof --jvm-layout compact)" "plain	option	16	8	56	compact"
  err jvm-lua-bad-option "not a layout" "$HK" run first.lua default.hprof --layout 13/4
  # triage: the facts say the layout, and the option reaches it
  eq jvm-triage-layout "$("$HK" triage default.hprof --json | jq -r .origin.layout)" compressed
  eq jvm-triage-layout-option "$("$HK" triage default.hprof --json --jvm-layout dump | jq -r .origin.layout)" dump
  # diff: each dump sized by its own layout; Mixed's shallow growth is what the two JVMs' own
  # histograms say (300 instances at 48 and at 56 bytes)
  if [ -s plain.hprof ]; then
    want=$(awk '$4 == "JvmLayout$Mixed" { v[++n] = $3 } END { print v[1] - v[2] }' plain.histo default.histo)
    eq jvm-diff-shallow "$("$HK" diff default.hprof plain.hprof --json --no-leaks -n 0 | jq '.classes[] | select(.class == "JvmLayout$Mixed") | .shallow_delta')" "$want"
  fi
  # a HotSpot dump written as a Perfetto heap graph carries the JVM's sizes as its own
  if "$HK" convert default.hprof --to perfetto-heapgraph --trace default.pftrace >/dev/null 2>conv.err; then
    "$HK" histogram default.pftrace -n 0 --json > trace.json 2>/dev/null
    python3 "$CHECK" default.histo trace.json > trace.check
    eq jvm-trace-keeps-sizes "$(tail -1 trace.check | awk '{print $6, ($2 >= 200)}')" "0 1"
  else
    fail jvm-trace-keeps-sizes "$(head -c 300 conv.err)"
  fi
  # top: retained sizes follow the layout (the list's shallow bytes are the JVM's)
  top_mixed=$("$HK" top default.hprof --all -n 100000 --json --class 'JvmLayout$Mixed' | jq -c '[.[].shallow_bytes] | unique')
  eq jvm-top-shallow "$top_mixed" "[$mixed]"
fi

err jvm-layout-bad-value "--jvm-layout: '13/4' is not a layout" "$HK" info "$T/default.hprof" --jvm-layout 13/4
"$HK" info "$T/default.hprof" --jvm-layout 13/4 >/dev/null 2>&1; eq jvm-layout-bad-value-exit $? 2
err jvm-layout-bad-tail "'12/8x' is not a layout" "$HK" info "$T/default.hprof" --jvm-layout 12/8x
eq jvm-layout-jdk22-name "$("$HK" info "$T/default.hprof" --jvm-layout plain-jdk22 --json | jq -r .layout)" plain-jdk22

# ART dumps keep the sizes ART records, whatever the option
art="$REALDATA/hprof/aosp-art-ahat-test-dump.hprof"
if [ -f "$art" ]; then
  eq jvm-art-untouched "$("$HK" histogram "$art" -n 0 --json --jvm-layout plain | jq -c 'map([.class,.shallow_bytes])' | sha1sum)" \
    "$("$HK" histogram "$art" -n 0 --json | jq -c 'map([.class,.shallow_bytes])' | sha1sum)"
  eq jvm-art-info "$("$HK" info "$art" --json | jq -r .layout)" dump
else
  skip jvm-art-untouched "$art is absent"
fi
