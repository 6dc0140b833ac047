# The reader and index: real dumps, generated Android-dialect dumps, malformed input.
. "$SRC/tests/lib.sh"
RD="$REALDATA/hprof"
MKBAD="$BUILD/tests/mkbad"

# ---- the object table's sort: in order, long runs with short ones among them, no order ----
if [ -x "$BUILD/tests/objtab_check" ]; then
  "$BUILD/tests/objtab_check" || fail objtab-check-exit "objtab_check ended with status $?"
else
  fail objtab-check-built "$BUILD/tests/objtab_check not built"
fi

# ---- real dumps from other projects ----
if [ -d "$RD" ]; then
  art="$RD/aosp-art-ahat-test-dump.hprof"
  "$HK" info "$art" --json > art.json 2>art.err || fail art-info "$(cat art.err)"
  eq art-objects "$(jq .objects art.json)" 25919
  eq art-classes "$(jq .classes art.json)" 1126
  eq art-instances "$(jq .instances art.json)" 22094
  eq art-object-arrays "$(jq .object_arrays art.json)" 650
  eq art-primitive-arrays "$(jq .primitive_arrays art.json)" 2049
  eq art-format "$(jq -r .format art.json)" "JAVA PROFILE 1.0.3"
  eq art-heaps "$(jq -c .heaps art.json)" '["app"]'
  eq art-no-origin "$(jq -c '[.sdk,.fingerprint,.process]' art.json)" '[null,null,null]'
  "$HK" histogram "$art" --heap app --json > art-hist.json 2>art-hist.err || fail art-hist "$(cat art-hist.err)"
  # every object is in the app heap, so the histogram's rows add up to info's object count; ahat's
  # export of this dump (../shared/peer/ahat) has the same 25919 objects and 1272 byte[] of 1216939 bytes
  eq art-hist-count "$(jq '[.[].count] | add' art-hist.json)" 25919
  eq art-hist-byte-arrays "$(jq -c '.[] | select(.class == "byte[]") | [.count, .shallow_bytes]' art-hist.json)" '[1272,1216939]'
  eq art-largest "$("$HK" run "$SRC/tests/lua/largest.lua" "$art")" "$(printf '1000012\tbyte[]')"

  lc="$RD/leakcanary-leak_service_binder.hprof"
  "$HK" info "$lc" --json > lc.json 2>lc.err || fail lc-info "$(cat lc.err)"
  eq lc-sdk "$(jq .sdk lc.json)" 19
  eq lc-process "$(jq -r .process lc.json)" "com.example.leakcanary:leakyprocess"
  eq lc-fingerprint "$(jq -r .fingerprint lc.json)" "generic_x86/sdk_x86/generic_x86:4.4.4/KK/1743154:eng/test-keys"
  eq lc-heaps "$(jq -c .heaps lc.json)" '["zygote","app"]'
  eq lc-keyed-weak-ref "$("$HK" run "$SRC/tests/lua/keyed_ref.lua" "$lc")" "b3abfae6-2c53-42e1-b8c1-96b0558dbeae"

  ri="$RD/hotspot-ahat-RI.hprof"
  "$HK" info "$ri" --json > ri.json 2>ri.err && pass ri-parses || fail ri-parses "$(cat ri.err)"
  eq ri-format "$(jq -r .format ri.json)" "JAVA PROFILE 1.0.2"
  old="$RD/haha-sun_jdk5_64bit.hprof"
  "$HK" info "$old" --json > old.json 2>old.err && pass jdk5-parses || fail jdk5-parses "$(cat old.err)"
  eq jdk5-id-size "$(jq .id_size old.json)" 8
  eq jdk5-format "$(jq -r .format old.json)" "JAVA PROFILE 1.0.1"
  for f in "$art" "$lc" "$ri" "$old"; do
    eq "object-table-sorted-$(basename "$f" .hprof)" "$("$HK" run "$SRC/tests/lua/sorted.lua" "$f" 2>&1 | grep -v ': note: using the map ')" "$("$HK" info "$f" --json 2>/dev/null | jq .objects)"
  done
  base="$RD/aosp-art-ahat-test-dump-base.hprof"
  ok art-base-parses "$HK" info "$base"
else
  skip realdata "$RD is absent (a fresh clone has no ../shared)"
fi

# ---- a real HotSpot heap: counts equal the JVM's own histogram ----
if command -v javac >/dev/null && command -v jcmd >/dev/null; then
  mkdir -p classes
  javac -d classes "$SRC/tests/java/HkAlloc.java" 2>javac.err
  java -Xmx256m -cp classes HkAlloc pid.txt 1234 567 89 >/dev/null 2>&1 &
  jpid=$!
  for i in $(seq 100); do [ -s pid.txt ] && break; sleep 0.1; done
  jcmd "$jpid" GC.heap_dump "$T/live.hprof" >/dev/null 2>&1
  jcmd "$jpid" GC.class_histogram > jvm-hist.txt 2>&1
  kill "$jpid" 2>/dev/null; wait "$jpid" 2>/dev/null
  if [ -s live.hprof ]; then
    "$HK" histogram live.hprof --json > hk-hist.json 2>hk.err || fail hotspot-histogram "$(cat hk.err)"
    for pair in 'HkAlloc$Alpha:HkAlloc$Alpha' 'HkAlloc$Beta:HkAlloc$Beta' 'HkAlloc$Inner:HkAlloc$Inner' '[LHkAlloc$Alpha;:HkAlloc$Alpha[]'; do
      jname=${pair%%:*}; hname=${pair#*:}
      want=$(awk -v n="$jname" '$4 == n { print $2 }' jvm-hist.txt)
      got=$(jq --arg c "$hname" '[.[] | select(.class == $c) | .count] | add // 0' hk-hist.json)
      eq "hotspot-count-$hname" "$got" "$want"
    done
    eq hotspot-alpha-count-known "$(jq '[.[] | select(.class == "HkAlloc$Alpha") | .count] | add' hk-hist.json)" 1234
    # a String's value, HotSpot layout (compact strings: Latin-1 and UTF-16 byte[])
    cat > strings.lua <<'LUA'
local dump = hk.open(arg.dump)
local found = {}
for s in dump:class("java.lang.String"):instances() do
  local v = s.value
  if v == "alpha-7" or v == "héllo wörld ✓" then found[#found + 1] = v end
end
table.sort(found)
print(table.concat(found, "|"))
LUA
    eq hotspot-string-values "$("$HK" run strings.lua live.hprof)" "alpha-7|héllo wörld ✓"
  else
    fail hotspot-dump "jcmd wrote no dump: $(cat jvm-hist.txt | head -3)"
  fi
else
  skip hotspot "no JDK (javac, jcmd)"
fi

# ---- generated Android-dialect dumps ----
if [ -x "$GEN" ]; then
  for ids in 4 8; do
    "$GEN" --scenario demo --id-size $ids -o demo$ids.hprof --expect demo$ids.json >/dev/null 2>gen.err || fail gen-demo$ids "$(cat gen.err)"
    "$HK" info demo$ids.hprof --json > info$ids.json 2>info.err || fail demo$ids-info "$(cat info.err)"
    for k in classes instances object_arrays primitive_arrays gc_roots; do
      eq "demo$ids-$k" "$(jq .$k info$ids.json)" "$(jq .counts.$k demo$ids.json)"
    done
    eq "demo$ids-id-size" "$(jq .id_size info$ids.json)" $ids
    eq "demo$ids-roots-by-kind" "$("$HK" run "$SRC/tests/lua/roots_by_type.lua" demo$ids.hprof | jq -cS .)" "$(jq -cS .roots demo$ids.json)"
    for k in sdk fingerprint manufacturer model process; do
      eq "demo$ids-origin-$k" "$(jq -c .$k info$ids.json)" "$(jq -c .origin.$k demo$ids.json)"
    done
    eq "demo$ids-heaps" "$(jq -c '.heaps|sort' info$ids.json)" "$(jq -c '.counts.heaps|sort' demo$ids.json)"
    "$HK" histogram demo$ids.hprof --json > hist$ids.json
    eq "demo$ids-class-objects" "$(jq '.[] | select(.class == "java.lang.Class") | .count' hist$ids.json)" "$(jq .counts.classes demo$ids.json)"
    eq "demo$ids-histogram" "$(jq -c 'map(select(.class != "java.lang.Class")|{class,count,shallow_bytes})|sort_by(.class)' hist$ids.json)" \
       "$(jq -c '.histogram|map({class,count,shallow_bytes})|sort_by(.class)' demo$ids.json)"
  done
  # the object table of a bigger dump (radix path) and of a HotSpot one (run-merge path)
  "$GEN" --scenario big --size-mb 8 -o big.hprof >/dev/null 2>&1
  eq object-table-sorted-generated "$("$HK" run "$SRC/tests/lua/sorted.lua" big.hprof 2>&1)" "$("$HK" info big.hprof --json | jq .objects)"
  [ -s live.hprof ] && eq object-table-sorted-hotspot "$("$HK" run "$SRC/tests/lua/sorted.lua" live.hprof 2>&1)" "$("$HK" info live.hprof --json | jq .objects)"
  gzip -c demo4.hprof > demo4.hprof.gz
  "$HK" info demo4.hprof.gz --json > gz.json 2>gz.err || fail gz-info "$(cat gz.err)"
  eq gzip-same-as-plain "$(jq -c 'del(.path,.file_bytes)' gz.json)" "$(jq -c 'del(.path,.file_bytes)' info4.json)"
  head -c 3000 demo4.hprof.gz > cut.hprof.gz
  err gzip-truncated "truncated|corrupt" "$HK" info cut.hprof.gz
  "$GEN" --scenario noorigin -o noorigin.hprof >/dev/null 2>&1
  "$HK" info noorigin.hprof --json > no.json
  eq noorigin-nulls "$(jq -c '[.sdk,.fingerprint,.manufacturer,.model,.process]' no.json)" '[null,null,null,null,null]'
  # histogram per heap adds up to the whole
  total=$(jq '[.[].count]|add' hist4.json)
  sum=0
  for h in $(jq -r '.heaps[]' info4.json); do
    n=$("$HK" histogram demo4.hprof --heap "$h" --json | jq '[.[].count]|add // 0'); sum=$((sum + n))
  done
  eq heaps-partition-objects "$sum" "$total"
  err histogram-unknown-heap "no heap named 'nosuch'" "$HK" histogram demo4.hprof --heap nosuch
  # the object command: both String layouts of ART (compressed Latin-1, UTF-16) and an instance
  for label in str_compressed str_utf16; do
    sid=$(jq -r ".labels.$label" demo4.json)
    "$HK" object demo4.hprof "$sid" --json > obj.json 2>obj.err || fail "object-$label" "$(cat obj.err)"
    eq "object-$label-class" "$(jq -r .class obj.json)" java.lang.String
    eq "object-$label-value" "$(jq -r .value obj.json)" "$(jq -r ".facts.strings.$label.text" demo4.json)"
  done
  dec=$(( $(jq -r .labels.str_compressed demo4.json) ))
  eq object-decimal-id "$("$HK" object demo4.hprof "$dec" --json | jq -r .id)" "$(jq -r .labels.str_compressed demo4.json)"
  bind=$(jq -r .labels.app_bind_data demo4.json)
  "$HK" object demo4.hprof "$bind" --json > bind.json
  eq object-field-string "$(jq -r '.fields[] | select(.name == "processName") | .string' bind.json)" "$(jq -r .origin.process demo4.json)"
  eq object-field-ref-class "$(jq -r '.fields[] | select(.name == "processName") | .class' bind.json)" java.lang.String
  arr=$(jq -r .labels.leaky_list demo4.json)
  ok object-instance-text "$HK" object demo4.hprof "$arr"
  err object-missing "no object with id" "$HK" object demo4.hprof 0x7fffffff
  # truncated anywhere: a clear error naming an offset, never a crash
  size=$(stat -c %s demo4.hprof)
  bad=0
  for cut in 10 20 31 40 100 1000 5000 $((size / 3)) $((size / 2)) $((size - 200)) $((size - 9)) $((size - 1)); do
    [ $cut -ge $size ] && continue
    head -c $cut demo4.hprof > cut.hprof
    "$HK" info cut.hprof >/dev/null 2>cut.err; rc=$?
    if [ $rc -eq 0 ] || [ $rc -ge 124 ] || ! grep -q "offset" cut.err; then bad=$((bad + 1)); echo "cut $cut rc $rc: $(cat cut.err)" >&2; fi
  done
  eq truncated-anywhere-clear-error $bad 0
else
  skip generated "no fixture generator at $GEN"
fi

# ---- malformed input ----
echo "hello, not a heap dump" > text.hprof
err not-hprof "not an HPROF heap dump" "$HK" info text.hprof
: > empty.hprof
err empty-file "empty file" "$HK" info empty.hprof
err missing-file "nosuch.hprof: No such file" "$HK" info nosuch.hprof
"$HK" info nosuch.hprof 2>/dev/null; eq missing-file-is-usage-error "$?" 2
"$HK" info text.hprof 2>/dev/null; eq corrupt-dump-exit-1 "$?" 1
for kind in unknown-subtag dangling-class dangling-super long-record sub-overrun duplicate-id bad-idsize no-end null-id; do
  "$MKBAD" $kind $kind.hprof
done
err unknown-subrecord "unknown heap sub-record tag 0x77" "$HK" info unknown-subtag.hprof
err id-points-nowhere "not in the dump" "$HK" info dangling-class.hprof
err super-points-nowhere "superclass 0x555" "$HK" info dangling-super.hprof
err record-past-end "claims 1000 bytes" "$HK" info long-record.hprof
err subrecord-overrun "runs past the end" "$HK" info sub-overrun.hprof
err duplicate-object-id "appears twice" "$HK" info duplicate-id.hprof
err bad-id-size "id size 5" "$HK" info bad-idsize.hprof
err null-object-id "id 0, which is the null reference" "$HK" info null-id.hprof
err missing-heap-dump-end "without HEAP_DUMP_END" "$HK" info no-end.hprof
"$MKBAD" unknown-record unknown-record.hprof
ok unknown-top-record-skipped "$HK" info unknown-record.hprof

# ---- the CLI ----
for q in info histogram object; do
  "$HK" $q --help > help.txt 2>&1 && grep -q "usage: hprofkit $q" help.txt && pass "help-$q" || fail "help-$q" "$(head -3 help.txt)"
done
"$HK" nosuchcommand > /dev/null 2>nc.err; eq unknown-command-exit $? 2
"$HK" histogram > /dev/null 2>mh.err; eq missing-dump-exit $? 2
grep -q "missing dump" mh.err && pass missing-dump-message || fail missing-dump-message "$(cat mh.err)"
