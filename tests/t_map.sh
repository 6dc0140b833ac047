# R8/ProGuard mapping files: names deobfuscated everywhere, fields per class, arrays, inner
# classes, allocation stacks with inlined frames, bad lines, map pick-up, a map that does not fit.
. "$SRC/tests/lib.sh"
"$GEN" --scenario obfuscated -o obf.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
"$GEN" --scenario demo -o demo.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }

# the R8 map of the generated release heap (map format 2.2, as R8 8.x writes it)
cat > r8.map <<'MAP'
# compiler: R8
# compiler_version: 8.10.9
# min_api: 24
# {"id":"com.android.tools.r8.mapping","version":"2.2"}
# pg_map_id: 1234abcd
# pg_map_hash: SHA-256 1234abcd
com.example.app.Repository -> a:
# {"id":"sourceFile","fileName":"Repository.java"}
    java.lang.Object mCache -> a
    int mSize -> b
    com.example.app.UserCache sInstance -> c
      # {"id":"com.android.tools.r8.residualsignature","signature":"Lb;"}
    1:4:void <init>():10:13 -> <init>
com.example.app.Repository$Entry -> a$a:
# {"id":"sourceFile","fileName":"Repository.java"}
    java.lang.String key -> a
com.example.app.UserCache -> b:
# {"id":"sourceFile","fileName":"UserCache.java"}
    java.util.Map mUsers -> a
    int mHits -> b
    1:4:void com.example.app.Util.newCache():20:23 -> a
    1:4:com.example.app.UserCache create():41 -> a
    5:9:void clear():50:54 -> a
com.example.app.Outer$Inner -> c:
# {"id":"sourceFile","fileName":"Outer.java"}
    com.example.app.MainActivity this$0 -> a
    1:3:void <init>(com.example.app.MainActivity):7:9 -> <init>
com.example.app.Util -> d:
# {"id":"sourceFile","fileName":"Util.java"}
# {"id":"com.android.tools.r8.synthesized"}
com.example.app.MainActivity -> com.example.app.MainActivity:
# {"id":"sourceFile","fileName":"MainActivity.java"}
    com.example.app.UserCache cache -> a
    com.example.app.UserCache[] caches -> b
    com.example.app.Outer$Inner[][] grid -> c
    10:20:void onCreate(android.os.Bundle):100:110 -> onCreate
MAP
id_of() { jq -r --arg n "$1" '.labels[$n]' obf.json; }
"$GEN" --scenario obfuscated -o obf2.hprof --expect obf.json >/dev/null 2>&1

# classes, inner classes and arrays by source name in every command's output
"$HK" histogram obf.hprof --map r8.map --json > h.json 2>h.err
for c in com.example.app.UserCache com.example.app.Outer\$Inner com.example.app.Repository\$Entry \
         com.example.app.UserCache[] com.example.app.Outer\$Inner[][] com.example.app.MainActivity; do
  [ "$(jq --arg c "$c" '[.[] | select(.class == $c)] | length' h.json)" = 1 ] || { fail "class-$c" "not in $(jq -c '[.[].class]' h.json)"; continue; }
  pass "class-$c"
done
eq no-obfuscated-left "$(jq -r '.[].class' h.json | grep -cE '^(a|b|c|a\$a)(\[\])*$')" 0
eq clean-map-no-warning "$(cat h.err)" ""
"$HK" --map r8.map histogram obf.hprof --format csv > h.csv 2>/dev/null
grep -q '^"\?com.example.app.UserCache\[\]"\?,' h.csv && pass map-before-command-csv || fail map-before-command-csv "$(head -5 h.csv)"
eq map-with-plugins-first "$("$HK" --map r8.map --plugins "$SRC/plugins.ini" histogram obf.hprof --json 2>/dev/null | jq '[.[] | select(.class == "com.example.app.UserCache")] | length')" 1
"$HK" histogram obf.hprof --map=r8.map > h.txt 2>/dev/null
grep -q 'com.example.app.Outer\$Inner\[\]\[\]' h.txt && pass map-equals-table || fail map-equals-table "$(cat h.txt)"

# fields: the same short name means a different field in each class; superclass fields by theirs
cache=$(id_of cache)
"$HK" object obf.hprof "$cache" --map r8.map --json > o.json 2>/dev/null
eq fields-per-class "$(jq -c '[.fields[] | .name]' o.json)" '["mUsers","mHits","mCache","mSize","shadow$_klass_","shadow$_monitor_"]'
eq field-values "$(jq -c '[.fields[] | select(.type == "int") | .value]' o.json)" '[7,42,0]'
eq field-ref-class "$(jq -r '.fields[0].class' o.json)" 'com.example.app.Repository$Entry'
eq kept-class-fields "$("$HK" object obf.hprof "$(id_of activity)" --map r8.map --json 2>/dev/null | jq -c '[.fields[] | .name][0:3]')" '["cache","caches","grid"]'

# allocation stacks: R8's inlined frames expanded, lines mapped, source files from the metadata
eq stack-inlined "$(jq -c '[.allocation_stack[] | [.class, .method, .file, .line, .inlined]]' o.json)" \
  '[["com.example.app.Util","newCache","Util.java",22,true],["com.example.app.UserCache","create","UserCache.java",41,false],["com.example.app.MainActivity","onCreate","MainActivity.java",102,false]]'
eq stack-line-range "$("$HK" object obf.hprof "$(id_of inner)" --map r8.map --json 2>/dev/null | jq -c '.allocation_stack[0] | [.class, .method, .line]')" \
  '["com.example.app.Outer$Inner","<init>",8]'
eq stack-without-map "$("$HK" object obf.hprof "$cache" --no-map --json 2>/dev/null | jq -c '[.allocation_stack[] | [.class, .method, .line]]')" \
  '[["b","a",3],["com.example.app.MainActivity","onCreate",12]]'
eq no-stack-is-null "$("$HK" object obf.hprof "$(id_of entry)" --map r8.map --json 2>/dev/null | jq -c .allocation_stack)" null

# path and dominators name classes and fields by source names
"$HK" path obf.hprof "$cache" --map r8.map --json > p.json 2>/dev/null
eq path-names "$(jq -c '[.[] | [.class, .reference.type, .reference.name]]' p.json)" '[["class com.example.app.Repository","root","STICKY_CLASS"],["com.example.app.UserCache","static","sInstance"]]'

# Lua: source names, the dump's names, lookup by either
cat > lua.lua <<'LUA'
local d = hk.open(arg.dump, { map = arg.mapfile })
local by_src, by_obf = d:class("com.example.app.UserCache"), d:class("b")
local o = by_src:instances()()
local st = d:class("com.example.app.Repository")
print(by_src == by_obf, by_src.obfuscated_name, o:field("mHits"), o:field("b"), o:field("mSize"),
      st:static("sInstance") == o, st:static("c") == o, d.map ~= nil, o:is_instance_of("com.example.app.Repository"))
local f = o:fields()
print(f[1].name, f[1].obfuscated_name, f[5].obfuscated_name, o:is_instance_of("a"), st:statics()[1].obfuscated_name)
local plain = hk.open(arg.dump, { map = false })
print(plain:class("b").name, plain.map)
LUA
eq lua-names "$("$HK" run lua.lua obf.hprof --mapfile r8.map 2>&1 | tr '\t\n' ' ')" "true b 7 7 42 true true true true mUsers a nil true c b nil "
eq info-names-map "$("$HK" info obf.hprof --map r8.map --json 2>/dev/null | jq -r .map)" r8.map

# ProGuard's older format: no header, no original lines (a line keeps its number)
cat > pg.map <<'MAP'
com.example.app.Repository -> a:
    java.lang.Object mCache -> a
    int mSize -> b
com.example.app.UserCache -> b:
    java.util.Map mUsers -> a
    int mHits -> b
    1:4:com.example.app.UserCache create() -> a
    void clear() -> b
com.example.app.MainActivity -> com.example.app.MainActivity:
    void onCreate(android.os.Bundle) -> onCreate
MAP
"$HK" object obf.hprof "$cache" --map pg.map --json > pg.json 2>pg.err
eq proguard-fields "$(jq -c '[.fields[] | .name][0:4]' pg.json)" '["mUsers","mHits","mCache","mSize"]'
eq proguard-stack "$(jq -c '[.allocation_stack[] | [.class, .method, .line]]' pg.json)" \
  '[["com.example.app.UserCache","create",3],["com.example.app.MainActivity","onCreate",12]]'

# malformed lines: one warning each with its line number, the rest of the map still used
{ echo "    int orphan -> x"; cat r8.map; echo "com.example.Broken -> :"; echo "    1:x:void foo() -> b"
  echo "this line means nothing"; echo "    int -> y"; } > bad.map
"$HK" histogram obf.hprof --map bad.map --json > bad.json 2>bad.err; rc=$?
eq bad-lines-exit "$rc" 0
n=$(wc -l < r8.map)
for ln in 1 $((n + 2)) $((n + 3)) $((n + 4)) $((n + 5)); do
  grep -q "warning: bad.map:$ln: " bad.err && pass "bad-line-$ln" || fail "bad-line-$ln" "$(cat bad.err)"
done
eq bad-lines-count "$(grep -c 'bad.map:' bad.err)" 5
eq bad-lines-rest-used "$(jq '[.[] | select(.class == "com.example.app.UserCache")] | length' bad.json)" 1

# a map saved on Windows: byte order mark, CRLF line ends
printf '\xef\xbb\xbf# compiler: R8\r\ncom.example.app.UserCache -> b:\r\n    int mHits -> b\r\n' > crlf.map
"$HK" object obf.hprof "$cache" --map crlf.map --json > crlf.json 2>crlf.err
eq crlf-map "$(jq -r '.class + " " + .fields[1].name' crlf.json):$(cat crlf.err)" "com.example.app.UserCache mHits:"

: > empty.map
"$HK" histogram obf.hprof --map empty.map > /dev/null 2>empty.err; rc=$?
eq empty-map "$rc:$(grep -c 'empty.map has no class lines' empty.err)" "0:1"

# where the map comes from: --map, HPROFKIT_MAP, DUMP.map, then STEM.map beside the dump
mkdir -p side && cp obf.hprof side/app.hprof && cp r8.map side/app.map
"$HK" histogram side/app.hprof --json > s.json 2>s.err
grep -q "note: using the map side/app.map found beside the dump" s.err && pass stem-map-note || fail stem-map-note "$(cat s.err)"
eq stem-map-used "$(jq '[.[] | select(.class == "com.example.app.UserCache")] | length' s.json)" 1
cp pg.map side/app.hprof.map
"$HK" histogram side/app.hprof --json > /dev/null 2>s2.err
grep -q "using the map side/app.hprof.map" s2.err && pass dump-map-first || fail dump-map-first "$(cat s2.err)"
"$HK" histogram side/app.hprof --no-map --json > n.json 2>n.err
eq no-map "$(jq '[.[] | select(.class == "b")] | length' n.json):$(cat n.err)" "1:"
HPROFKIT_MAP=r8.map "$HK" histogram obf.hprof --json > e.json 2>e.err
grep -q "note: using the map r8.map from HPROFKIT_MAP" e.err && pass env-map-note || fail env-map-note "$(cat e.err)"
eq env-map-used "$(jq '[.[] | select(.class == "com.example.app.UserCache")] | length' e.json)" 1
echo 'print(arg.map, hk.open(arg.dump, { map = arg.map }):class("b").name)' > runmap.lua
eq run-map-arg "$("$HK" --map r8.map run runmap.lua obf.hprof 2>&1 | tr '\t' ' ')" "r8.map com.example.app.UserCache"
eq run-env-map-arg "$(HPROFKIT_MAP=r8.map "$HK" run runmap.lua obf.hprof 2>&1 | tr '\t' ' ')" "r8.map com.example.app.UserCache"
eq options-map "$("$HK" run /dev/stdin --map r8.map <<< 'print(hk.options.map)' 2>&1)" "r8.map"
eq run-no-map-arg "$(cd side && "$HK" run ../runmap.lua app.hprof --no-map 2>&1 | tr '\t' ' ')" "false b"
err missing-map "--map nosuch.map: No such file" "$HK" histogram obf.hprof --map nosuch.map
HPROFKIT_MAP=nosuch.map "$HK" histogram obf.hprof > /dev/null 2>env.err; rc=$?
eq missing-env-map "$rc:$(grep -c 'cannot read the map: nosuch.map' env.err)" "2:1"
"$HK" histogram obf.hprof --map nosuch.map >/dev/null 2>&1; eq missing-map-exit "$?" 2
err map-needs-file "--map needs FILE" "$HK" histogram obf.hprof --map

# a map that does not fit: said once, and the command still answers
"$HK" histogram demo.hprof --map r8.map --json > m.json 2>m.err; rc=$?
eq misfit-exit "$rc" 0
eq misfit-said-once "$(grep -c 'does not fit' m.err)" 1
sed 's/^# pg_map_id: .*/# pg_map_id: 99999999/' r8.map > other.map
"$HK" info obf.hprof --map other.map > /dev/null 2>id.err
grep -q "pg_map_id 99999999 but the app in obf.hprof carries go/retraceme 1234abcd" id.err && pass map-id-mismatch || fail map-id-mismatch "$(cat id.err)"

# a 50 MB map loads in well under a second (the figure is in bench/RESULTS.md)
# (bench/map_load.sh measures it; here only that a large map works)

# the real thing: ART's own test dump, obfuscated by R8 8.10, with its map
D="$REALDATA/hprof/aosp-art-ahat-test-dump.hprof"; M="$REALDATA/hprof/aosp-art-ahat-test-dump.map"
if [ ! -f "$D" ] || [ ! -f "$M" ]; then
  skip ahat-dump "../shared/realdata absent"
  exit 0
fi
"$HK" info "$D" --map "$M" > /dev/null 2>ok.err
eq ahat-map-fits "$(cat ok.err)" ""
cat > dumped.lua <<'LUA'
local d = hk.open(arg.dump, { map = arg.mapfile })
local s = d:class("DumpedStuff"):instances()()
local m = s:ref("modifiedObject")
print(s:field("basicString"), s:field("nonAscii"), s:field("d"), m.class_name, m:field("value"),
      m:field("modifiedRefField"), s:ref("bigArray").length, s:ref("objectAllocatedAtKnownSite").allocation_stack[1].method)
LUA
eq ahat-dumpedstuff-lua "$("$HK" run dumped.lua "$D" --mapfile "$M" 2>&1)" \
  "$(printf 'hello, world\tSigma (\xc6\xa9) is not ASCII\thello, world\tDumpedStuff$ModifiedObject\t8\tA2\t1000000\tallocateObjectAtKnownSite')"
# the object command's field names are the map's (its own class's and its superclass's; the
# one static, on the class object)
obj=$("$HK" run /dev/stdin "$D" --mapfile "$M" 2>/dev/null <<'LUA'
print(hk.open(arg.dump, { map = arg.mapfile }):class("DumpedStuff"):instances()().id)
LUA
)
"$HK" object "$D" "$obj" --map "$M" --json 2>/dev/null | jq -r '.fields[].name' | sort > got.txt
awk '/^[^ #]/ { cls = $1 } /^    [^ 0-9#][^(]* -> / && (cls == "DumpedStuff" || cls == "SuperDumpedStuff") { print $2 }' "$M" > want.txt
cls=$("$HK" run /dev/stdin "$D" --mapfile "$M" 2>/dev/null <<'LUA'
print(hk.open(arg.dump, { map = arg.mapfile }):class("DumpedStuff").object.id)
LUA
)
"$HK" object "$D" "$cls" --map "$M" --json 2>/dev/null | jq -r '.statics[].name | select(startswith("$") | not)' >> got.txt
printf 'shadow$_klass_\nshadow$_monitor_\n' >> want.txt
sort -o got.txt got.txt
sort -o want.txt want.txt
eq ahat-object-fields-match-map "$(diff got.txt want.txt | head -5)" ""
eq ahat-object-field-count "$(wc -l < got.txt)" 53
# the allocation site ahat shows, read through the map's line ranges
"$HK" object "$D" "$(jq -r '.fields[] | select(.name == "objectAllocatedAtKnownSubSite") | .value' <("$HK" object "$D" "$obj" --json 2>/dev/null))" --json 2>/dev/null > site.json
eq ahat-allocation-site "$(jq -c '[.allocation_stack[] | "\(.class).\(.method)(\(.file):\(.line))"]' site.json)" \
  '["DumpedStuff.allocateObjectAtKnownSubSite(DumpedStuff.java:38)","DumpedStuff.allocateObjectAtKnownSite(DumpedStuff.java:31)","DumpedStuff.<init>(DumpedStuff.java:46)","Main.main(Main.java:44)"]'

# every object's class name, against ahat reading the same map
A="$SRC/../shared/peer/ahat/ahat.jar"
if [ ! -f "$A" ] || ! command -v java >/dev/null; then
  skip ahat-class-names "java or ../shared/peer/ahat absent"
  exit 0
fi
java -Dahat.map="$M" -cp "$A" com.android.ahat.heapdump.AhatExport "$D" ahat strong edges >/dev/null 2>&1 || { fail ahat-class-names "ahat failed"; exit 0; }
tail -n +2 ahat.objects.tsv | cut -f1,3 | sort > ahat.txt
cat > labels.lua <<'LUA'
local d = hk.open(arg.dump, { map = arg.mapfile })
for o in d:objects() do print(o.id .. "\t" .. o.label) end
LUA
"$HK" run labels.lua "$D" --mapfile "$M" 2>/dev/null | sort > hk.txt
eq ahat-object-count "$(wc -l < hk.txt)" "$(wc -l < ahat.txt)"
eq ahat-every-class-name "$(diff hk.txt ahat.txt | grep -c '^[<>]')" 0
eq ahat-class-name-set "$(cut -f2 hk.txt | sort -u | md5sum)" "$(cut -f2 ahat.txt | sort -u | md5sum)"
# (the histogram counts class objects as java.lang.Class; ahat names each "class X", as above)
"$HK" histogram "$D" --map "$M" --json 2>/dev/null | jq -r '.[].class' | grep -vx java.lang.Class | sort > hist-classes.txt
cut -f2 ahat.txt | grep -v '^class ' | sort -u > ahat-classes.txt
eq ahat-histogram-classes "$(comm -23 hist-classes.txt ahat-classes.txt | head -3)" ""
eq ahat-histogram-class-count "$(wc -l < hist-classes.txt)" "$(wc -l < ahat-classes.txt)"
[ "$(cut -f2 hk.txt | grep -c '^DumpedStuff\$StackSmasher$')" -eq 20000 ] && pass ahat-mapped-not-trivial || fail ahat-mapped-not-trivial "no DumpedStuff\$StackSmasher"
# every instance's reference fields, by name, against ahat's edges (names from the same map)
cat > edges.lua <<'LUA'
local d = hk.open(arg.dump, { map = arg.mapfile })
for o in d:objects() do
  if o.kind == "instance" then
    for _, f in ipairs(o:fields()) do
      if f.type == "object" and f.ref ~= "0x0" and d:object(f.ref) then print(o.id .. "\t" .. f.ref .. "\t." .. f.name) end
    end
  end
end
LUA
"$HK" run edges.lua "$D" --mapfile "$M" 2>/dev/null | sort > hk.edges
awk -F'\t' 'NR == FNR { if ($2 == "instance") inst[$1] = 1; next }
             ($1 in inst) && substr($4, 1, 1) == "." { print $1 "\t" $2 "\t" $4 }' ahat.objects.tsv ahat.edges.tsv | sort > ahat.edges
eq ahat-field-edges-count "$(wc -l < hk.edges)" "$(wc -l < ahat.edges)"
eq ahat-field-names "$(diff hk.edges ahat.edges | grep -c '^[<>]')" 0
# every allocation stack, frame by frame, against ahat's allocation sites with the same map
if command -v javac >/dev/null && javac -nowarn -cp "$A" -d ahat-sites "$SRC/tests/java/AhatSites.java" 2>javac.err; then
  java -cp "$A:ahat-sites" com.android.ahat.heapdump.AhatSites "$D" "$M" 2>/dev/null | sort > ahat.sites
  cat > stacks.lua <<'LUA'
local d = hk.open(arg.dump, { map = arg.mapfile })
for o in d:objects() do
  local st = o.allocation_stack
  if st then
    local parts = { o.id }
    for _, f in ipairs(st) do parts[#parts + 1] = string.format("%s(%s:%d)", f.method, f.file or "null", f.line) end
    print(table.concat(parts, "\t"))
  end
end
LUA
  "$HK" run stacks.lua "$D" --mapfile "$M" 2>/dev/null | sort > hk.sites
  eq ahat-stack-count "$(wc -l < hk.sites)" "$(wc -l < ahat.sites)"
  eq ahat-stacks "$(diff hk.sites ahat.sites | grep -c '^[<>]')" 0
else
  skip ahat-stacks "javac absent or AhatSites does not compile: $(head -c 200 javac.err 2>/dev/null)"
fi
