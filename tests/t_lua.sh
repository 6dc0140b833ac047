# The Lua host: user queries and renderers, args, overrides, errors, renderers.
. "$SRC/tests/lib.sh"
"$GEN" --scenario demo -o demo.hprof --expect demo.json >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
export HPROFKIT_SCRIPTS="$SRC/docs/examples"
export HOME="$T/home"

# a user query and renderer: exactly what they produce
"$HK" big-strings demo.hprof --min 5 --format markdown > md.txt 2>md.err || fail user-query-renderer "$(cat md.err)"
head -2 md.txt | tr '\n' '#' > md.head
eq user-renderer-header "$(cat md.head)" "| id | length | text |#| --- | --- | --- |#"
n_md=$(($(wc -l < md.txt) - 2))
n_json=$("$HK" big-strings demo.hprof --min 5 --json | jq length)
eq user-query-same-rows-any-renderer "$n_md" "$n_json"
[ "$n_json" -gt 0 ] && pass user-query-finds-strings || fail user-query-finds-strings "no rows"
# --KEY VALUE reaches args, typed; aliases
n_min1=$("$HK" big-strings demo.hprof -m 1 --json | jq length)
n_min1000=$("$HK" big-strings demo.hprof --min 1000 --json | jq length)
[ "$n_min1" -gt "$n_min1000" ] && pass args-reach-query || fail args-reach-query "$n_min1 vs $n_min1000"
err number-arg-checked "needs a number" "$HK" big-strings demo.hprof --min lots
err unknown-option "unknown option '--nosuch'" "$HK" big-strings demo.hprof --nosuch 1
# counting from Lua matches the histogram, for every class of the dump
"$HK" histogram demo.hprof --json > hist.json
bad=0
for c in $(jq -r '.[] | select(.class != "java.lang.Class") | .class' hist.json); do
  want=$(jq --arg c "$c" '.[] | select(.class == $c) | .count' hist.json)
  wantb=$(jq --arg c "$c" '.[] | select(.class == $c) | .shallow_bytes' hist.json)
  got=$("$HK" count-class demo.hprof --class "$c" --json | jq -c '.[0] | [.count, .shallow_bytes]')
  [ "$got" == "[$want,$wantb]" ] || { bad=$((bad + 1)); echo "$c: $got vs [$want,$wantb]" >&2; }
done
eq lua-count-equals-histogram "$bad" 0
# with subclasses: java.lang.ref.Reference subclasses
sub=$("$HK" count-class demo.hprof --class java.lang.ref.Reference --subclasses --json | jq '.[0].count')
[ "$sub" -ge 4 ] && pass instances-with-subclasses || fail instances-with-subclasses "got $sub"
# a user's query replaces a built-in, with a note
mkdir -p "$HOME/.config/hprofkit/scripts/commands"
cat > "$HOME/.config/hprofkit/scripts/commands/info.lua" <<'LUA'
hk.query{ name = "info", help = "mine", run = function(dump) return { { mine = "yes" } } end }
LUA
"$HK" info demo.hprof --json > mine.json 2>mine.err
eq user-overrides-builtin "$(jq -r '.[0].mine' mine.json)" yes
grep -q "note: query 'info' from .*replaces the one from" mine.err && pass override-note || fail override-note "$(cat mine.err)"
rm "$HOME/.config/hprofkit/scripts/commands/info.lua"
# renderers: csv and table
"$HK" histogram demo.hprof --format csv > h.csv
eq csv-header "$(head -1 h.csv | tr -d "\r")" "class,count,shallow_bytes,retained_bytes,native_bytes"
eq csv-rows "$(($(wc -l < h.csv) - 1))" "$(jq length hist.json)"
"$HK" histogram demo.hprof > h.txt
eq table-rows "$(($(wc -l < h.txt) - 1))" "$(jq length hist.json)"
err bad-format "no renderer 'nosuch'" "$HK" histogram demo.hprof --format nosuch
# -o writes atomically; a Lua error leaves no file and prints a traceback
ok output-file "$HK" histogram demo.hprof --json -o out.json
eq output-file-content "$(jq length out.json)" "$(jq length hist.json)"
mkdir -p boom/commands
cat > boom/commands/boom.lua <<'LUA'
local function deeper(x) error("boom: " .. x) end
hk.query{ name = "boom", help = "fails", run = function(dump, args) deeper("bad thing") end }
LUA
HPROFKIT_SCRIPTS="$T/boom" "$HK" boom demo.hprof -o boom.out > /dev/null 2>boom.err; rc=$?
eq lua-error-exit "$rc" 1
grep -q "boom.lua:1: boom: bad thing" boom.err && pass lua-error-names-line || fail lua-error-names-line "$(cat boom.err)"
grep -q "stack traceback" boom.err && pass lua-error-traceback || fail lua-error-traceback "$(cat boom.err)"
[ ! -e boom.out ] && [ -z "$(ls | grep -E '^\.?boom\.out')" ] && pass lua-error-no-output-file || fail lua-error-no-output-file "$(ls -a)"
# a script (one that registers) that fails to load: named, and the rest still load
mkdir -p broken/commands && echo 'hk.query{ name = "bad", (' > broken/commands/bad.lua
HPROFKIT_SCRIPTS="$T/broken:$SRC/docs/examples" "$HK" big-strings demo.hprof --min 5 --json > /dev/null 2>broken.err && pass broken-script-others-load || fail broken-script-others-load "$(cat broken.err)"
grep -q "bad.lua" broken.err && pass broken-script-named || fail broken-script-named "$(cat broken.err)"
# hprofkit run: a one-off script with hk.open and args
cat > oneoff.lua <<'LUA'
local dump = hk.open(arg.dump)
local info = dump:info()
print(info.classes, arg.greeting)
LUA
eq run-script "$("$HK" run oneoff.lua demo.hprof --greeting hi)" "$(jq .counts.classes demo.json)	hi"
echo 'error("nope")' > fails.lua
err run-script-error "fails.lua:1: nope" "$HK" run fails.lua
# the object API: fields, refs, arrays, strings
cat > api.lua <<'LUA'
local dump = hk.open(arg.dump)
local thread = dump:class("android.app.ActivityThread")
local at = thread:static("sCurrentActivityThread")
local bound = at:field("mBoundApplication")
assert(bound.class.name == "android.app.ActivityThread$AppBindData", bound.class.name)
assert(type(bound:field("processName")) == "string")
assert(bound:ref("processName").class_name == "java.lang.String")
local arr
for o in dump:class("java.lang.Object[]"):instances() do arr = o break end
assert(arr.kind == "object_array" and arr.length >= 0)
assert(arr:at(-1) == nil and arr:at(arr.length) == nil)
assert(dump:object(thread.object.id) == thread.object)
assert(thread.object.label == "class android.app.ActivityThread", thread.object.label)
assert(bound.label == "android.app.ActivityThread$AppBindData", bound.label)
assert(dump:class(thread.id) == thread)
local n = 0
for _, f in ipairs(bound:fields()) do n = n + 1 end
assert(n >= 1)
-- cls:instances{field = name} hands each object with its value, the same as obj:field(name)
local strings = dump:class("java.lang.String")
local n, same = 0, 0
for obj, count in strings:instances{ field = "count" } do
  n = n + 1
  if count == obj:field("count") then same = same + 1 end
end
assert(n > 0 and n == same, "instances{field} disagrees: " .. same .. " of " .. n)
local subs = 0
for obj, referent in dump:class("java.lang.ref.Reference"):instances{ subclasses = true, field = "referent" } do
  subs = subs + 1
  assert(referent == nil or type(referent) == "userdata" or type(referent) == "string")
end
assert(subs >= 4, "subclasses with field: " .. subs)
-- cls:field_values(name [, subclasses]) is every instance's value in instances() order
for _, c in ipairs{ { strings, "count", false }, { strings, "value", false },
                    { dump:class("java.lang.ref.Reference"), "referent", true } } do
  local vals, count = c[1]:field_values(c[2], c[3])
  local i = 0
  for obj in c[1]:instances(c[3]) do
    i = i + 1
    assert(vals[i] == obj:field(c[2]), "field_values " .. c[2] .. " differs at " .. i)
  end
  assert(i == count and i > 0, "field_values count " .. count .. " of " .. i)
end
print("ok", bound:field("processName"))
LUA
eq object-api "$("$HK" run api.lua demo.hprof 2>api.err)" "ok	$(jq -r .origin.process demo.json)"
# a query's --help shows options as they are typed, booleans with their --no- form
"$HK" dump --help > dh.txt 2>&1
grep -q "usage: hprofkit dump PROCESS" dh.txt && pass help-positional-names || fail help-positional-names "$(head -2 dh.txt)"
grep -qE -- "--no-gc .*\(default: on\)" dh.txt && grep -q -- "--no-bitmaps" dh.txt && pass help-boolean-options || fail help-boolean-options "$(cat dh.txt)"
# queries lists everything with help
"$HK" queries > q.txt
for q in info histogram object big-strings count-class; do
  grep -q "^  $q " q.txt && pass "queries-lists-$q" || fail "queries-lists-$q" "$(head -5 q.txt)"
done
"$HK" queries --json | jq -e 'map(.name) | index("histogram") != null' >/dev/null && pass queries-json || fail queries-json "bad json"
