#!/usr/bin/env bash
# The plugin host: plugins.ini, loading, every way a plugin can fail (each named, the others
# still load), settings reaching the plugin, registries, and plugin functions from Lua.
. "$SRC/tests/lib.sh"
P="$BUILD/tests/plugins"
CHECK="$P/plugin_check"
if [ ! -f "$P/example.so" ] || [ ! -x "$CHECK" ]; then
  skip plugins_built "no $P/example.so or plugin_check (tests/plugins not built)"; exit 0
fi

# A foreign-architecture copy of a real plugin (ELF e_machine patched to AArch64), a random
# blob named .so, a directory of pointer-named PNGs.
cp "$P/example.so" "$T/arm64.so" && printf '\xb7\x00' | dd of="$T/arm64.so" bs=1 seek=18 conv=notrunc 2>/dev/null
head -c 4096 /dev/urandom > "$T/random.so"
mkdir -p "$T/pngs" "$T/rel"
cp "$P/example.so" "$T/rel/example_rel.so"

cat > "$T/plugins.ini" <<INI
; everything that can go wrong, and one plugin that works
[example]
path = $P/example.so
greeting = hi there
dir = $T/pngs
[noabi]
path = $P/noabi.so
[badabi]
path = $P/badabi.so
[failinit]
path = $P/failinit.so
needs = coffee
[notelf]
path = $P/notelf.so
[random]
path = $T/random.so
[arm64]
path = $T/arm64.so
[missing]
path = nowhere/missing.so
[off]
path = $P/example.so
enabled = no
INI

# Through the CLI: a broken `plugins` command is a failure, never a pass by another route.
if [ ! -x "$HK" ]; then fail plugins_command "no $HK"; exit 0; fi
"$HK" --plugins "$T/plugins.ini" plugins --json >"$T/list.json" 2>"$T/list.err"
eq plugins_command_exit "$?" 0
row() { jq -r --arg n "$1" --arg k "$2" '.[] | select(.name == $n) | .[$k] | if type == "array" then join(", ") else . end' "$T/list.json"; }

# the CLI also lists the built-in plugins.ini's plugins; count the ones from this file
eq list_is_json "$(jq -r --arg ini "$T/plugins.ini" '[.[] | select(.ini == $ini)] | length' "$T/list.json" 2>/dev/null)" 9
eq example_loads "$(row example status)/$(row example version)" "ok/1.0"
eq example_functions "$(row example functions)" \
  "example.hello, example.count, example.string, example.png_info, example.solid_png, example.late"
eq example_bitmap_source "$(row example bitmap_sources)" "example-dir"

match() { # NAME PLUGIN REGEX: the plugin has status error and its reason matches
  local st=$(row "$2" status) e=$(row "$2" error)
  if [ "$st" = error ] && grep -qE -- "$3" <<<"$e"; then pass "$1"; else fail "$1" "status '$st', error '$e'"; fi
}
match no_abi_symbol noabi "^plugin noabi \(.*noabi\.so\): not a hprofkit plugin: no hk_plugin_abi symbol$"
match wrong_abi badabi "^plugin badabi was built for ABI 2, this hprofkit speaks ABI 1: rebuild it against this sdk/hprofkit.h"
match init_fails failinit "^plugin failinit: init failed: setting \`needs\` is coffee; this plugin always fails$"
eq init_fails_rolled_back "$(row failinit functions)|$(row failinit fetchers)" "|"
match not_elf notelf "^plugin notelf .*cannot load it: .*(file too short|invalid ELF header).*another ABI/architecture"
match random_bytes random "^plugin random .*cannot load it: .*invalid ELF header"
match other_architecture arm64 "^plugin arm64 .*built for AArch64 .*this hprofkit runs on .*rebuild the plugin for this machine"
match missing_file missing "^plugin missing: no such file: nowhere/missing.so \(tried $T/nowhere/missing.so.*\); fix \`path\` in .*plugins.ini$"
eq disabled "$(row off status)/$(row off functions)" "disabled/"
n=$(grep -c '^hprofkit: warning: plugin ' "$T/list.err")
eq each_failure_warned "$n" 7

# Settings reach the plugin; a plugin function runs; errors name the plugin.
out=$("$CHECK" --ini "$T/plugins.ini" --call example.hello World 2>/dev/null | tail -1)
eq config_reaches_plugin "$(jq -r .greeting <<<"$out")" "hi there World"
err ghost_function_gone "no plugin function failinit.ghost" "$CHECK" --ini "$T/plugins.ini" --call failinit.ghost
err function_error_names_plugin "plugin example: example.hello: expected 1 argument" \
  "$CHECK" --ini "$T/plugins.ini" --call example.hello

# Later files merge into earlier ones: override a setting, disable a plugin.
printf '[example]\ngreeting = bonjour\n[noabi]\nenabled = no\n' > "$T/over.ini"
out=$("$CHECK" --ini "$T/plugins.ini" --ini "$T/over.ini" --call example.hello Ana 2>"$T/over.err" | tail -1)
eq later_file_overrides_setting "$(jq -r .greeting <<<"$out")" "bonjour Ana"
if grep -q "plugin noabi" "$T/over.err"; then fail later_file_disables "noabi still loaded: $(cat "$T/over.err")"; else pass later_file_disables; fi

# HPROFKIT_PLUGINS: colon-separated ini files; relative paths resolve from the ini's directory.
printf '[rel]\npath = example_rel.so\ngreeting = rel\n' > "$T/rel/rel.ini"
printf '[other]\npath = %s/example.so\n' "$P" > "$T/other.ini"
HPROFKIT_PLUGINS="$T/rel/rel.ini:$T/other.ini" "$CHECK" --env >"$T/env.json" 2>"$T/env.err"
eq env_plugins "$(jq -r '[.[] | .name + "=" + .status] | join(",")' "$T/env.json")" "rel=ok,other=ok"
HPROFKIT_PLUGINS="$T/nope.ini" "$CHECK" --env >/dev/null 2>"$T/env2.err"
if grep -q "plugins file $T/nope.ini: No such file" "$T/env2.err"; then pass env_missing_file_named; else fail env_missing_file_named "$(cat "$T/env2.err")"; fi
printf '[x]\npath = a.so\nenabled = maybe\n' > "$T/bad.ini"
"$CHECK" --ini "$T/bad.ini" >/dev/null 2>"$T/bad.err"
if grep -q "plugins file $T/bad.ini:3: \[x\] enabled = 'maybe': expected yes/no" "$T/bad.err"; then pass bad_ini_line; else fail bad_ini_line "$(cat "$T/bad.err")"; fi

# PNG helpers through the host table: encode + atomic write, then IHDR size.
out=$("$CHECK" --ini "$T/plugins.ini" --call example.solid_png "$T/pngs/0x7a001000.png" 5 3 ff000080 2>/dev/null | tail -1)
bytes=$(stat -c %s "$T/pngs/0x7a001000.png" 2>/dev/null)
eq png_written_atomically "$(jq -r .bytes <<<"$out")/$(ls "$T/pngs" | wc -l)" "$bytes/1"
out=$("$CHECK" --ini "$T/plugins.ini" --call example.png_info "$T/pngs/0x7a001000.png" 2>/dev/null | tail -1)
eq png_size "$out" '{"width":5,"height":3}'
err png_info_not_png "plugin example: example.png_info: .* is not a PNG" \
  "$CHECK" --ini "$T/plugins.ini" --call example.png_info "$T/plugins.ini"
# The bitmap source serves the PNG by native pointer.
out=$("$CHECK" --ini "$T/plugins.ini" --image example-dir 0x7a001000 "$T/got.png" 2>/dev/null | tail -1)
eq bitmap_source_by_pointer "$out" '{"kind":"png","width":5,"height":3}'
eq bitmap_source_bytes "$(cmp -s "$T/got.png" "$T/pngs/0x7a001000.png" && echo same)" same
out=$("$CHECK" --ini "$T/plugins.ini" --image example-dir 0x1234 "$T/none.png" 2>/dev/null | tail -1)
eq bitmap_source_miss "$(jq -r .note <<<"$out")" "no file 0x1234.png"

# Heap access through the host table, on a generated dump.
if [ -x "$GEN" ] && "$GEN" --scenario bitmaps-many --objects 7 -o "$T/bm.hprof" >/dev/null 2>&1; then
  out=$("$CHECK" --ini "$T/plugins.ini" --call example.count "$T/bm.hprof" android.graphics.Bitmap 2>"$T/count.err" | tail -1)
  eq heap_instances "$(jq -r '.instances' <<<"$out" 2>/dev/null)" 7
  eq heap_sdk "$(jq -r '.sdk' <<<"$out" 2>/dev/null)" 23
  out=$("$CHECK" --ini "$T/plugins.ini" --call example.count "$T/bm.hprof" java.lang.Object 2>/dev/null | tail -1)
  ok heap_with_subclasses jq -e '.instances < .with_subclasses' <<<"$out"
  err heap_no_class "plugin example: example.count: no class no.Such" \
    "$CHECK" --ini "$T/plugins.ini" --call example.count "$T/bm.hprof" no.Such
else
  skip heap_instances "no genhprof or scenario bitmaps-many"
fi

# From Lua, through the CLI: hk.example.* and hk.plugins().
cat > "$T/use.lua" <<'LUA'
local r = hk.example.hello("Lua")
print(r.greeting)
for _, p in ipairs(hk.plugins()) do
  if p.name == "example" then print(p.status, #p.functions, p.bitmap_sources[1].name) end
end
local ok, e = pcall(hk.example.hello)
print(ok, e)
LUA
"$HK" --plugins "$T/plugins.ini" run "$T/use.lua" >"$T/use.out" 2>"$T/use.err"
eq lua_function "$(sed -n 1p "$T/use.out")" "hi there Lua"
eq lua_plugins "$(sed -n 2p "$T/use.out")" "$(printf 'ok\t6\texample-dir')"
if sed -n 3p "$T/use.out" | grep -q "^false.*plugin example: example.hello: expected 1 argument"; then
  pass lua_error_names_plugin; else fail lua_error_names_plugin "$(cat "$T/use.out" "$T/use.err")"; fi
if [ -f "$T/bm.hprof" ]; then
  cat > "$T/str.lua" <<LUA
local d = hk.open("$T/bm.hprof")
local n = 0
for o in d:class("java.lang.String"):instances() do
local r = hk.example.string("$T/bm.hprof", o.id)
if r.value ~= o.value then error("mismatch at " .. o.id .. ": " .. tostring(r.value) .. " vs " .. tostring(o.value)) end
n = n + 1
if n == 20 then break end
end
print(n > 0 and "same" or "no strings")
LUA
  "$HK" --plugins "$T/plugins.ini" run "$T/str.lua" >"$T/str.out" 2>"$T/str.err"
  eq string_value_matches_lua "$(cat "$T/str.out")" same
fi
# docs/plugins.md's complete example compiles as written and works
awk '/^`wordcount.c`/{f=1;next} f&&/^```c/{g=1;next} g&&/^```/{exit} g' "$SRC/docs/plugins.md" > "$T/wordcount.c"
if cc -Wall -Wextra -Werror -Wno-unused-parameter -shared -fPIC -fvisibility=hidden -I "$SRC/sdk" \
     -o "$T/wordcount.so" "$T/wordcount.c" 2>"$T/wc.err"; then
  printf '[wordcount]\npath = wordcount.so\nlabel = words\n' > "$T/wc.ini"
  echo 'print(hk.wordcount.count("a heap dump of words").words)' > "$T/wc.lua"
  eq docs_example "$("$HK" --plugins "$T/wc.ini" run "$T/wc.lua" 2>"$T/wc.run.err")" 5
else
  fail docs_example "does not compile: $(head -c 300 "$T/wc.err")"
fi
# the built-in plugins.ini still loads (no --plugins): the command works and exits 0
ok builtin_plugins_list "$HK" plugins

# ---- the one registry ----
# A name is unique per kind: a second plugin's bitmap source of the same name is refused,
# naming both owners; its functions (prefixed by its own name) still register.
printf '[one]\npath = %s\ndir = %s\n[two]\npath = %s\ndir = %s\n' "$P/example.so" "$T/pngs" "$P/example.so" "$T/pngs" > "$T/twice.ini"
"$HK" --plugins "$T/twice.ini" plugins --json > "$T/twice.json" 2> "$T/twice.err"
if grep -q "bitmap source 'example-dir' from plugin two (.*example.so): already registered by plugin one (.*example.so)" "$T/twice.err"; then
  pass duplicate_source_names_both; else fail duplicate_source_names_both "$(cat "$T/twice.err")"; fi
eq duplicate_source_said_once "$(grep -c "already registered" "$T/twice.err"):$(grep -c "plugin two: bitmap source" "$T/twice.err")" "1:0"
eq duplicate_source_kept_first "$(jq -r '[.[] | select(.name == "one" or .name == "two") | .bitmap_sources | length] | join(",")' "$T/twice.json")" "1,0"
eq duplicate_functions_apart "$(jq -r '.[] | select(.name == "two") | .functions | length' "$T/twice.json")" 6
# The same for scripts: two scripts of one directory registering one query name.
mkdir -p "$T/dup/commands"
echo 'hk.query{ name = "twin", help = "first", run = function() return {} end }' > "$T/dup/commands/a.lua"
echo 'hk.query{ name = "twin", help = "second", run = function() return {} end }' > "$T/dup/commands/b.lua"
HPROFKIT_SCRIPTS="$T/dup" "$HK" plugins > /dev/null 2> "$T/dup.err"
if grep -q "query 'twin' from script $T/dup/commands/b.lua: already registered by script $T/dup/commands/a.lua" "$T/dup.err"; then
  pass duplicate_query_names_both; else fail duplicate_query_names_both "$(cat "$T/dup.err")"; fi
# ... while a later directory (a user's) still replaces a built-in query, with a note.
mkdir -p "$T/mine/commands"
echo 'hk.query{ name = "plugins", help = "mine", needs_dump = false, run = function() return {{ mine = "yes" }} end }' > "$T/mine/commands/p.lua"
out=$(HPROFKIT_SCRIPTS="$T/mine" "$HK" plugins --json 2> "$T/mine.err")
eq user_query_replaces_builtin "$(jq -r '.[0].mine' <<<"$out")" yes
if grep -q "note: query 'plugins' from $T/mine/commands/p.lua replaces the one from .*scripts/commands/plugins.lua" "$T/mine.err"; then
  pass user_query_replace_noted; else fail user_query_replace_noted "$(cat "$T/mine.err")"; fi

# Registration is open only while a plugin's init runs or a script loads.
echo 'print(hk.example.late().refused, hk.example.too_late == nil)' > "$T/late.lua"
eq late_plugin_registration_refused "$("$HK" --plugins "$T/plugins.ini" run "$T/late.lua" 2>"$T/latec.err")" "$(printf 'true\ttrue')"
if grep -q "warning: plugin example: function 'example.too_late': registration is closed" "$T/latec.err"; then
  pass late_plugin_registration_reported; else fail late_plugin_registration_reported "$(cat "$T/latec.err")"; fi
mkdir -p "$T/late/commands"
cat > "$T/late/commands/late.lua" <<'LUA'
hk.query{ name = "late", needs_dump = false, run = function()
  hk.renderer{ name = "later", render = function() end }
end }
LUA
HPROFKIT_SCRIPTS="$T/late" "$HK" late > /dev/null 2> "$T/late.err"
st=$?
if [ $st -ne 0 ] && grep -q "renderer 'later': registration is closed" "$T/late.err"; then
  pass late_script_registration_refused; else fail late_script_registration_refused "exit $st: $(cat "$T/late.err")"; fi

# Settings as booleans: on/off in any case; a bad value fails the plugin, naming key and plugin.
printf '[mbuffer]\nguess_reconfigured = On\n' > "$T/on.ini"
printf '[mbuffer]\nguess_reconfigured = perhaps\n' > "$T/junk.ini"
eq config_bool_on "$("$HK" --plugins "$T/on.ini" plugins --json 2>/dev/null | jq -r '.[] | select(.name == "mbuffer") | .status')" ok
"$HK" --plugins "$T/junk.ini" plugins --json > "$T/junk.json" 2>/dev/null
case "$(jq -r '.[] | select(.name == "mbuffer") | .status + ": " + .error' "$T/junk.json")" in
  "error: plugin mbuffer: init failed: plugin mbuffer: setting guess_reconfigured = 'perhaps' in $T/junk.ini: expected yes/no"*)
    pass config_bool_rejects_junk;;
  *) fail config_bool_rejects_junk "$(jq -c '.[] | select(.name == "mbuffer")' "$T/junk.json")";;
esac
printf '[example]\npath = %s\npriority = high\n' "$P/example.so" > "$T/prio-junk.ini"
"$HK" --plugins "$T/prio-junk.ini" plugins --json 2>/dev/null > "$T/prio-junk.json"
case "$(jq -r '.[] | select(.name == "example") | .error' "$T/prio-junk.json")" in
  *"setting priority = 'high' in $T/prio-junk.ini: expected a finite number") pass config_number_rejects_junk;;
  *) fail config_number_rejects_junk "$(jq -c '.[] | select(.name == "example")' "$T/prio-junk.json")";;
esac
# infinity parses as a double but is no setting a plugin can use
printf '[example]\npath = %s\npriority = inf\n' "$P/example.so" > "$T/prio-inf.ini"
"$HK" --plugins "$T/prio-inf.ini" plugins --json 2>/dev/null > "$T/prio-inf.json"
case "$(jq -r '.[] | select(.name == "example") | .error' "$T/prio-inf.json")" in
  *"setting priority = 'inf' in $T/prio-inf.ini: expected a finite number") pass config_number_rejects_inf;;
  *) fail config_number_rejects_inf "$(jq -c '.[] | select(.name == "example")' "$T/prio-inf.json")";;
esac
# a section name becomes hk.NAME: a dot in it would split the name
printf '[a.b]\npath = %s\n' "$P/example.so" > "$T/dotted.ini"
"$HK" --plugins "$T/dotted.ini" plugins --json > "$T/dotted.json" 2> "$T/dotted.err"
if grep -q "dotted.ini:2: \[a\.b\]: a plugin's name is letters, digits" "$T/dotted.err" && [ "$(jq '[.[] | select(.name == "a.b")] | length' "$T/dotted.json")" = 0 ]; then
  pass dotted_section_refused; else fail dotted_section_refused "$(cat "$T/dotted.err")"; fi
if [ -x "$GEN" ] && "$GEN" --scenario bitmaps-pre26 -o "$T/pre26.hprof" --expect "$T/pre26.exp" >/dev/null 2>&1; then
  id=$(jq -r '.facts.bitmaps[] | select(.label == "reconfigured32") | .id' "$T/pre26.exp")
  "$HK" --plugins "$T/on.ini" bitmaps "$T/pre26.hprof" --json > "$T/on.json" 2>/dev/null
  eq config_bool_on_takes_effect "$(jq -r --arg id "$id" '.bitmaps[] | select(.id == $id) | .source' "$T/on.json")" mbuffer
  printf '[mbuffer]\nguess_reconfigured = OFF\n' > "$T/off.ini"
  "$HK" --plugins "$T/off.ini" bitmaps "$T/pre26.hprof" --json > "$T/off.json" 2>/dev/null
  eq config_bool_off_takes_effect "$(jq -r --arg id "$id" '.bitmaps[] | select(.id == $id) | .source' "$T/off.json")" null
fi

# Bitmap sources are asked by priority: the example's pointer-named PNGs beat dumpdata only
# when its priority is higher (the core orders by number, not by name).
if [ -x "$GEN" ] && "$GEN" --scenario bitmaps-api35 -o "$T/api35.hprof" >/dev/null 2>&1; then
  "$HK" bitmaps "$T/api35.hprof" --json --export "$T/ex35" > "$T/api35.json" 2>/dev/null
  mkdir -p "$T/byptr"
  jq -r '.bitmaps[] | select(.source == "dumpdata") | "\(.id) \(.native_ptr)"' "$T/api35.json" |
    while read -r id ptr; do cp "$T/ex35/$id.png" "$T/byptr/$ptr.png"; done
  n=$(ls "$T/byptr" | wc -l)
  for p in 0 250; do
    printf '[example]\npath = %s\ndir = %s\npriority = %s\n' "$P/example.so" "$T/byptr" $p > "$T/prio$p.ini"
    "$HK" --plugins "$T/prio$p.ini" bitmaps "$T/api35.hprof" --json > "$T/prio$p.json" 2>/dev/null
  done
  src() { jq -r '[.bitmaps[] | select(.source != null) | .source] | unique | join(",")' "$1"; }
  ok priority_fixture test "$n" -gt 0
  eq priority_default_after_dumpdata "$(src "$T/prio0.json")" dumpdata
  eq priority_higher_wins "$(src "$T/prio250.json")" example-dir
  eq priority_listed "$(jq -r '.[] | select(.name == "example") | .bitmap_sources[0]' <("$HK" --plugins "$T/prio250.ini" plugins --json 2>/dev/null))" example-dir
else
  skip priority_higher_wins "no genhprof or scenario bitmaps-api35"
fi

# Lua bitmap sources are in the registry too: `plugins` lists them, with their script.
mkdir -p "$T/lsrc/commands"
echo 'hk.bitmap_source{ name = "lua-dir", help = "mine", priority = 5, images = {} }' > "$T/lsrc/commands/src.lua"
HPROFKIT_SCRIPTS="$T/lsrc" "$HK" plugins --json > "$T/lsrc.json" 2> "$T/lsrc.err"
eq lua_source_listed "$(jq -c '.[] | select(.kind == "lua") | [.name, .bitmap_sources, .path]' "$T/lsrc.json")" \
  "[\"src\",[\"lua-dir\"],\"$T/lsrc/commands/src.lua\"]"
echo 'hk.bitmap_source{ name = "dumpdata", images = {} }' > "$T/lsrc/commands/src.lua"
HPROFKIT_SCRIPTS="$T/lsrc" "$HK" plugins > /dev/null 2> "$T/lsrc2.err"
if grep -q "bitmap source 'dumpdata' from script $T/lsrc/commands/src.lua: already registered by plugin dumpdata" "$T/lsrc2.err"; then
  pass lua_source_cannot_take_plugin_name; else fail lua_source_cannot_take_plugin_name "$(cat "$T/lsrc2.err")"; fi

# HK_PLUGIN_INIT refuses a host table older than the plugin's SDK (an older hprofkit).
eq old_host_refused "$("$CHECK" --old-host "$P/example.so")" \
  "-1 this hprofkit's host table is older than the sdk/hprofkit.h the plugin was built against: update hprofkit or rebuild the plugin against its SDK"

# An ABI 1.0 plugin (no hk_plugin_sdk_minor, a bitmap source without priority) still loads, and
# its source gets the default priority: the host does not read past the 1.0 struct.
printf '[abi10]\npath = %s\n' "$P/abi10.so" > "$T/abi10.ini"
echo 'for _, p in ipairs(hk.plugins()) do if p.name == "abi10" then print(p.status, p.bitmap_sources[1].priority) end end' > "$T/abi10.lua"
eq abi10_default_priority "$("$HK" --plugins "$T/abi10.ini" run "$T/abi10.lua" 2>&1)" "$(printf 'ok\t0')"
