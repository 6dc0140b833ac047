# Heap diff: instance matching, per-class deltas, growing collections, errors.
. "$SRC/tests/lib.sh"

# ---- the ahat pair: DumpedStuff holds added, removed, modified and unchanged objects ----
A="$REALDATA/hprof/aosp-art-ahat-test-dump.hprof"
B="$REALDATA/hprof/aosp-art-ahat-test-dump-base.hprof"
MAP="$REALDATA/hprof/aosp-art-ahat-test-dump.map"
if [ -f "$A" ] && [ -f "$B" ] && [ -f "$MAP" ]; then
  # names from the map: DumpedStuff keeps its name; its fields addedObject, unchangedObject,
  # removedObject, modifiedObject and ModifiedObject's value/modifiedRefField/unmodifiedRefField
  field() { awk -v c="$1" -v f="$2" '$0 ~ "^" c " -> " {on=1; next} /^[^ #]/ {on=0} on && $2 == f {print $4; exit}' "$MAP"; }
  fa=$(field DumpedStuff addedObject); fu=$(field DumpedStuff unchangedObject)
  fr=$(field DumpedStuff removedObject); fm=$(field DumpedStuff modifiedObject)
  mv=$(field 'DumpedStuff\$ModifiedObject' value); mr=$(field 'DumpedStuff\$ModifiedObject' modifiedRefField)
  mu=$(field 'DumpedStuff\$ModifiedObject' unmodifiedRefField)
  eq ahat-map-names "$fa $fu $fr $fm $mv $mr $mu" "E F G H a b c"
  cat > ahat.lua <<LUA
local base, dump = hk.open(arg.base, { map = false }), hk.open(arg.dump, { map = false })
local df = dump:diff(base)
local function stuff(d) for o in d:class("DumpedStuff"):instances() do return o end end
local sd, sb = stuff(dump), stuff(base)
local function changed(o)
  local t = {}
  for _, c in ipairs(df:changes(o)) do t[#t + 1] = c.field .. "=" .. tostring(c.base) .. ">" .. tostring(c.dump) end
  table.sort(t)
  return table.concat(t, ",")
end
print("stuff", df:status(sd), df:counterpart(sd).id == sb.id)
print("added", df:status(sd:field("$fa")), sb:field("$fa") == nil)
print("removed", df:status(sb:field("$fr")), sd:field("$fr") == nil)
print("modified", df:status(sd:field("$fm")), df:counterpart(sd:field("$fm")).id == sb:field("$fm").id, changed(sd:field("$fm")))
print("unchanged", df:status(sd:field("$fu")), df:counterpart(sd:field("$fu")).id == sb:field("$fu").id, changed(sd:field("$fu")))
print("path", df:path(sd:field("$fa")))
print("id", sd:field("$fm").id)
LUA
  "$HK" run ahat.lua --base "$B" --dump "$A" > ahat.out 2> ahat.err || fail ahat-run "$(head -c 300 ahat.err)"
  eq ahat-stuff-same "$(grep ^stuff ahat.out)" "$(printf 'stuff\tsame\ttrue')"
  eq ahat-added "$(grep ^added ahat.out)" "$(printf 'added\tadded\ttrue')"
  eq ahat-removed "$(grep ^removed ahat.out)" "$(printf 'removed\tremoved\ttrue')"
  eq ahat-modified "$(grep ^modified ahat.out)" "$(printf 'modified\tsame\ttrue\t%s=5>8,%s=A1>A2' "$mv" "$mr")"
  eq ahat-unchanged "$(grep ^unchanged ahat.out)" "$(printf 'unchanged\tsame\ttrue\t')"
  eq ahat-added-path "$(grep ^path ahat.out)" "$(printf 'path\tMain.%s > DumpedStuff.%s' "$(field Main stuff)" "$fa")"
  # per-class deltas are the difference of the two histograms, for every class
  "$HK" diff "$B" "$A" --no-map -n 0 --no-bitmaps --json > ahat-diff.json 2> ahat-diff.err || fail ahat-diff-cli "$(head -c 300 ahat-diff.err)"
  "$HK" histogram "$B" --no-map --json > hb.json
  "$HK" histogram "$A" --no-map --json > hd.json
  jq -n --slurpfile b hb.json --slurpfile d hd.json --slurpfile x ahat-diff.json '
    def sums(h): reduce h[] as $r ({}; .[$r.class] |= {c: ((.c // 0) + $r.count), s: ((.s // 0) + $r.shallow_bytes), r: ((.r // 0) + $r.retained_bytes)});
    (sums($b[0])) as $B | (sums($d[0])) as $D |
    ([$B, $D | keys[]] | unique) as $names |
    [ $names[] as $n | {class: $n, c: (($D[$n].c // 0) - ($B[$n].c // 0)), s: (($D[$n].s // 0) - ($B[$n].s // 0)), r: (($D[$n].r // 0) - ($B[$n].r // 0))} ] as $want |
    [ $x[0].classes[] | {class, c: .count_delta, s: .shallow_delta, r: .retained_delta} ] as $got |
    { want: ($want | sort_by(.class)), got: ($got | sort_by(.class)) } | (.want == .got), (.want | length)' > cmp.out
  eq ahat-class-deltas-equal-histograms "$(head -1 cmp.out)" true
  [ "$(sed -n 2p cmp.out)" -gt 100 ] && pass ahat-class-deltas-count || fail ahat-class-deltas-count "$(sed -n 2p cmp.out) classes"
  "$HK" diff "$B" "$A" --no-map --no-bitmaps -n 1 --object "$(grep ^id ahat.out | cut -f2)" --json > obj.json 2>&1
  eq ahat-object-option "$(jq -r '.object | "\(.status) \([.changes[].field] | sort | join(","))"' obj.json)" "same $mv,$mr"
  # deobfuscated on both sides (--map for DUMP, --base-map for BASE)
  "$HK" diff "$B" "$A" --map "$MAP" --base-map "$MAP" --no-bitmaps --json -n 0 > mapped.json
  eq ahat-base-map "$(jq -r '[.added_by_class[] | select(.class == "DumpedStuff$AddedObject") | .objects] | add' mapped.json)" 1
  # another dialect of the same program: a desktop JVM's dump of it diffs without error
  RI="$REALDATA/hprof/hotspot-ahat-RI.hprof"
  [ -f "$RI" ] && ok diff-across-dialects "$HK" diff "$RI" "$A" --no-bitmaps -n 3
else
  skip ahat-pair "the ahat dumps or map are absent under $REALDATA/hprof"
fi

# ---- generated pairs: a list that grows by N, across id sizes; churn only ----
"$GEN" --scenario demo --grow 0 -o g0.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
"$GEN" --scenario demo --grow 500 --seed 3 --id-size 8 -o g500.hprof --expect g500.json >/dev/null 2>&1
"$GEN" --scenario demo --grow 0 --seed 7 -o churn.hprof >/dev/null 2>&1
"$HK" diff g0.hprof g500.hprof --json > grow.json 2> grow.err || fail gen-diff "$(head -c 300 grow.err)"
eq gen-grower-delta "$(jq '.growers[0].count_delta' grow.json)" 500
eq gen-grower-path "$(jq -r '.growers[0].path' grow.json)" com.example.demo.Carousel.pages
eq gen-grower-class "$(jq -r '.growers[0].class + " of " + .growers[0].element_class' grow.json)" "java.util.ArrayList of com.example.demo.Page"
eq gen-grower-id "$(jq -r '.growers[0].id_dump' grow.json)" "$(jq -r .labels.carousel_pages g500.json)"
eq gen-grower-only-one "$(jq '.growers | length' grow.json)" 1
eq gen-added-by-path "$(jq -r '.added_by_path[0] | "\(.entries) \(.class) \(.path)"' grow.json)" \
  "500 com.example.demo.Page com.example.demo.Carousel.pages > java.util.ArrayList.elementData > java.lang.Object[][*]"
eq gen-no-removed-pages "$(jq '[.removed_by_class[] | select(.class == "com.example.demo.Page")] | length' grow.json)" 0
"$HK" diff g0.hprof churn.hprof --json > churn.json 2>&1
eq gen-churn-no-grower "$(jq '.growers | length' churn.json)" 0
# the same dump against itself: everything a root reaches is matched (the two unreachable
# objects are not: nothing leads to them), nothing grew
"$GEN" --scenario demo -o d.hprof --expect d.json >/dev/null 2>&1
"$HK" diff d.hprof d.hprof --json > self.json
u=$(jq .facts.unreachable_objects d.json)
eq gen-self "$(jq -r '[.summary.added_objects, .summary.removed_objects, (.growers | length)] | map(tostring) | join(",")' self.json)" "$u,$u,0"

# ---- one side after the other (df:side_done): BASE's dominators freed before DUMP's, the
# per-object records shrunk once read.  What the Diff kept of BASE's retained sizes is held to a
# second open of BASE (its own graph); everything the Diff answers after is held to a second
# Diff of the same pair that freed nothing; BASE's graph asked again after the drop computes the
# same figures.
cat > sides.lua <<'LUA'
local base, dump, fresh = hk.open(arg.base), hk.open(arg.dump), hk.open(arg.base)
local df, df2 = dump:diff(base, { base_first = true }), dump:diff(fresh)
local before = base:class_retained()
df:side_done("base")
-- DUMP's instance lists, filled from the match's notes now, against a second open's (from records)
local other = hk.open(arg.dump)
local function ids_of(d)
  local t = {}
  for _, c in ipairs(d:classes()) do for o in c:instances() do t[#t + 1] = o.id end end
  return table.concat(t, ",")
end
print("lists", ids_of(dump) == ids_of(other), #ids_of(other) > 1000)
local rows, bad, n = df:growers{ min_growth = 1, min_bytes = 1 }, 0, 0
local rows2 = df2:growers{ min_growth = 1, min_bytes = 1 }
for i, g in ipairs(rows) do
  n = n + 1
  if g.base_retained ~= fresh:object(g.base.id):retained_size() or g.base_retained ~= rows2[i].base_retained
    or g.dump_retained ~= rows2[i].dump_retained or g.path ~= rows2[i].path then bad = bad + 1 end
end
print("growers", n, #rows2, bad)
df:side_done("dump", true)
local t, t2 = df:totals(), df2:totals()
local same = true
for k, v in pairs(t2) do same = same and t[k] == v end
print("totals", same)
local function rows_of(d, side)
  local out = {}
  for _, r in ipairs(d:by_path(side)) do out[#out + 1] = table.concat({ r.path, r.class, r.entries, r.objects, r.bytes }, "|") end
  for _, r in ipairs(d:by_class(side)) do out[#out + 1] = table.concat({ r.class, r.objects, r.bytes }, "|") end
  return table.concat(out, "\n")
end
print("rows", rows_of(df, "added") == rows_of(df2, "added") and rows_of(df, "removed") == rows_of(df2, "removed"),
  #rows_of(df, "added") > 0 and #rows_of(df, "removed") > 0)
-- every object's status and path, on both sides (BASE's objects through the second open)
local differ, k = 0, 0
for o in dump:objects() do
  k = k + 1
  if k % 7 == 0 and (df:status(o) ~= df2:status(o) or df:path(o) ~= df2:path(o)) then differ = differ + 1 end
end
for o in base:objects() do
  k = k + 1
  local f = fresh:object(o.id)
  if k % 7 == 0 and (df:status(o) ~= df2:status(f) or df:path(o) ~= df2:path(f)) then differ = differ + 1 end
end
print("objects", differ, k > 1000)
print("growers-after", (pcall(df.growers, df)))
local again = base:class_retained()
differ = 0
for c, v in pairs(before) do if again[c] ~= v then differ = differ + 1 end end
local top, top2 = base:top_retained(5), fresh:top_retained(5)
for i = 1, 5 do if top[i].id ~= top2[i].id or top[i]:retained_size() ~= top2[i]:retained_size() then differ = differ + 1 end end
print("again", differ)
LUA
"$HK" run sides.lua --base g0.hprof --dump g500.hprof > sides.out 2> sides.err || fail side-done-run "$(head -c 300 sides.err)"
eq side-done-growers "$(awk '$1 == "growers" {print ($2 > 0 && $2 == $3) ? "rows" : $2 "/" $3, $4}' sides.out)" "rows 0"
eq side-done-totals "$(grep ^totals sides.out | cut -f2)" true
eq side-done-instance-lists "$(grep ^lists sides.out | cut -f2-)" "$(printf 'true\ttrue')"
eq side-done-rows "$(grep ^rows sides.out | cut -f2-)" "$(printf 'true\ttrue')"
eq side-done-objects "$(grep ^objects sides.out | cut -f2-)" "$(printf '0\ttrue')"
eq side-done-no-growers-after "$(grep ^growers-after sides.out | cut -f2)" false
eq side-done-base-again "$(grep ^again sides.out | cut -f2)" 0

# ---- the diff command's order: both sides' tallies and the growers' candidates taken before
# any dominators, the pairs forgotten (a bit an object); held to a Diff that freed nothing ----
cat > early.lua <<'LUA'
local base, dump, fresh = hk.open(arg.base), hk.open(arg.dump), hk.open(arg.base)
local df, df2 = dump:diff(base, { base_first = true }), dump:diff(fresh)
df:side_done("base", true, "forget")
df:side_done("dump", true, "forget growers")
base:class_retained()
df:side_done("base")
local function flat(rows, keys)
  local out = {}
  for _, r in ipairs(rows) do
    local v = {}
    for _, k in ipairs(keys) do v[#v + 1] = tostring(r[k]) end
    out[#out + 1] = table.concat(v, "|")
  end
  return table.concat(out, "\n")
end
local gk = { "path", "base_count", "dump_count", "base_retained", "dump_retained", "element_class" }
local g, g2 = df:growers{ min_growth = 1, min_bytes = 1 }, df2:growers{ min_growth = 1, min_bytes = 1 }
print("growers", #g > 0 and flat(g, gk) == flat(g2, gk))
df:side_done("dump", true, "forget")
local t, t2, same = df:totals(), df2:totals(), true
for k, v in pairs(t2) do same = same and t[k] == v end
print("totals", same)
local pk = { "path", "class", "entries", "objects", "bytes" }
print("rows", flat(df:by_path("added"), pk) == flat(df2:by_path("added"), pk)
  and flat(df:by_path("removed"), pk) == flat(df2:by_path("removed"), pk))
local differ, k = 0, 0
for o in dump:objects() do
  k = k + 1
  if k % 7 == 0 and df:status(o) ~= df2:status(o) then differ = differ + 1 end
end
for o in base:objects() do
  k = k + 1
  local f = fresh:object(o.id)
  if k % 7 == 0 and df:status(o) ~= df2:status(f) then differ = differ + 1 end
end
print("status", differ, k > 1000)
local first
for o in base:objects() do first = o; break end
print("path-after", (pcall(df.path, df, first)))
LUA
"$HK" run early.lua --base g0.hprof --dump g500.hprof > early.out 2> early.err || fail early-run "$(head -c 300 early.err)"
eq early-growers "$(grep ^growers early.out | cut -f2)" true
eq early-totals "$(grep ^totals early.out | cut -f2)" true
eq early-rows "$(grep ^rows early.out | cut -f2)" true
eq early-status "$(grep ^status early.out | cut -f2-)" "$(printf '0\ttrue')"
eq early-no-path-after "$(grep ^path-after early.out | cut -f2)" false

# ---- by path: which entry an unmatched object several entries reach counts under ----
# tests/graph/diff_entries_check.lua recomputes every by_path row of both sides from the object
# API (entries, their order, what each claims) and also tallies the old rule (nearest entry,
# breadth first): "nearest-differs yes" on a side says the pair really has shared objects,
# so a return to the old rule would fail the rows check.
entry_rule() {
  local name=$1; shift
  "$HK" run "$SRC/tests/graph/diff_entries_check.lua" "$@" > "$name.out" 2>&1
  eq "$name-rows" "$(grep -c '^ok ' "$name.out") $(grep -m1 -v '^ok \|^nearest-differs ' "$name.out")" "2 "
  eq "$name-shared" "$(grep -c '^nearest-differs .* yes' "$name.out" | sed 's/^[1-9].*/some/')" some
}
"$GEN" --scenario chain --objects 10 -o rule-base.hprof >/dev/null 2>&1
"$GEN" --scenario leaks -o rule-leaks.hprof >/dev/null 2>&1
entry_rule by-path-first-entry-gen --base rule-base.hprof --dump g0.hprof
entry_rule by-path-first-entry-gen-leaks --base g0.hprof --dump rule-leaks.hprof
# a chain of 100,000 matched links and 10,000 more in DUMP: path ids past the 16 bits an object
# keeps them in (HKD_PID_BIG), kept aside by object, first hashed then in a table by object;
# one child per trie node (the node holds it).  The rows, the paths (df:path climbs the chain
# itself) and the sums are recomputed from the object API.
"$GEN" --scenario leaks --objects 100000 -o chain-base.hprof >/dev/null 2>&1
"$GEN" --scenario leaks --objects 110000 -o chain-dump.hprof >/dev/null 2>&1
"$HK" run "$SRC/tests/graph/diff_entries_check.lua" --base chain-base.hprof --dump chain-dump.hprof > chain-rule.out 2>&1
eq by-path-deep-chain "$(grep -c '^ok ' chain-rule.out) $(grep -m1 -v '^ok \|^nearest-differs ' chain-rule.out)" "2 "
HAHA="$REALDATA/hprof/haha-sun_jdk5_64bit.hprof" RI="$REALDATA/hprof/hotspot-ahat-RI.hprof"
if [ -f "$HAHA" ] && [ -f "$RI" ]; then
  entry_rule by-path-first-entry-real --base "$HAHA" --dump "$RI"
else
  skip by-path-first-entry-real "haha-sun_jdk5_64bit.hprof or hotspot-ahat-RI.hprof is absent under $REALDATA/hprof"
fi

# ---- a live HotSpot app dumped twice ----
if command -v javac >/dev/null && command -v java >/dev/null && command -v jcmd >/dev/null; then
  if javac -nowarn -d jcls "$SRC/tests/java/GrowApp.java" 2> javac.err; then
    for mode in grow churn; do
      mkdir -p "$mode"
      java -Xmx64m -cp jcls GrowApp "$mode" "$mode" 1000 > "$mode/app.out" 2>&1 &
      jp=$!
      for i in $(seq 300); do [ -s "$mode/pid" ] && break; sleep 0.1; done
      timeout 60 jcmd "$jp" GC.heap_dump "$T/$mode/1.hprof" > /dev/null 2>&1
      touch "$mode/go"
      for i in $(seq 300); do [ -s "$mode/done" ] && break; sleep 0.1; done
      timeout 60 jcmd "$jp" GC.heap_dump "$T/$mode/2.hprof" > /dev/null 2>&1
      kill "$jp" 2>/dev/null; wait "$jp" 2>/dev/null
    done
    if [ -s grow/2.hprof ] && [ -s churn/2.hprof ]; then
      "$HK" diff grow/1.hprof grow/2.hprof --json --no-bitmaps > hs-grow.json 2> hs.err || fail hotspot-diff "$(head -c 300 hs.err)"
      eq hotspot-grower "$(jq -r '.growers[0] | "\(.count_delta) \(.class) \(.element_class) \(.path)"' hs-grow.json)" \
        '1000 java.util.ArrayList GrowApp$Page GrowApp$Carousel.pages'
      "$HK" diff churn/1.hprof churn/2.hprof --json --no-bitmaps > hs-churn.json 2>&1
      eq hotspot-churn-no-grower "$(jq '.growers | length' hs-churn.json)" 0
      # two processes of the same app: the churn run before its step against the grow run after
      "$HK" diff churn/1.hprof grow/2.hprof --json --no-bitmaps > hs-two.json 2>&1
      eq hotspot-two-processes "$(jq -r '.growers[0] | "\(.count_delta) \(.path)"' hs-two.json)" '1000 GrowApp$Carousel.pages'
    else
      fail hotspot-dumps "jcmd GC.heap_dump wrote nothing"
    fi
  else
    fail hotspot-javac "$(head -c 300 javac.err)"
  fi
else
  skip hotspot-diff "no JDK (javac, java, jcmd) installed"
fi

# ---- refusals: one line; a file that is not a dump exits 1 as in every command (README,
# "Exit statuses") ----
echo "not a heap dump" > bad.hprof
"$HK" diff g0.hprof bad.hprof > bad.out 2> bad.err; rc=$?
eq refuse-not-a-dump-status "$rc" 1
eq refuse-not-a-dump-one-line "$(wc -l < bad.err)" 1
"$HK" diff missing.hprof g0.hprof > /dev/null 2> missing.err; eq refuse-missing-file "$?" 2
"$HK" diff g0.hprof > /dev/null 2>&1; eq refuse-one-dump "$?" 2

# ---- leak signatures new in DUMP and gone since BASE (the leaks query's groups) ----
"$GEN" --scenario chain --objects 10 -o sig-base.hprof >/dev/null 2>&1
"$GEN" --scenario demo -o sig-dump.hprof >/dev/null 2>&1
want=$("$HK" leaks sig-dump.hprof --json | jq -c '[.leaks[].signature]')
"$HK" diff sig-base.hprof sig-dump.hprof --json > sig.json
eq diff-leak-signature-new "$(jq -c '[.leak_signatures.new[].signature]' sig.json)/$(jq '.leak_signatures.gone | length' sig.json)" "$want/0"
"$HK" diff sig-dump.hprof sig-base.hprof --json > sig2.json
eq diff-leak-signature-gone "$(jq -c '[.leak_signatures.gone[].signature]' sig2.json)/$(jq '.leak_signatures.new | length' sig2.json)" "$want/0"
eq diff-no-leaks "$("$HK" diff sig-base.hprof sig-dump.hprof --no-leaks --json | jq -c .leak_signatures)" null
