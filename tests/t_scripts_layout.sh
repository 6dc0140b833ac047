# A scripts folder's layout (docs/lua-api.md, "Where scripts come from"): commands/ (with topic
# subfolders), renderers/ and leak_rules/ run at start, lib/ is for require; a file that
# registers nothing is not run at start, so a one-off script kept there, even a broken one,
# changes no command; the old flat layout still loads, with one note per folder.
. "$SRC/tests/lib.sh"
"$GEN" --scenario demo -o demo.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
export HOME="$T/home"
unset XDG_CONFIG_HOME HPROFKIT_SCRIPTS
"$HK" info demo.hprof > plain.out 2> plain.err
MARK="$T/ran"

# ---- the new layout: a command in a topic subfolder using its folder's lib/, a renderer ----
mkdir -p new/commands/strings new/lib/mine new/renderers new/leak_rules
cat > new/lib/mine/count.lua <<'LUA'
local M = {}
function M.instances(dump, name) return dump:class(name).instance_count end
return M
LUA
cat > new/commands/strings/count_strings.lua <<'LUA'
local count = require "mine.count"
local units = require "units" -- a built-in module: the built-in lib/ is on the path too
hk.query{ name = "count-strings", help = "Strings in the dump",
  run = function(dump) return { { strings = count.instances(dump, "java.lang.String"), kib = units.bytes(2048) } } end }
LUA
cat > new/renderers/bare.lua <<'LUA'
hk.renderer{ name = "bare", help = "values only",
  render = function(rows, out) for _, r in ipairs(rows) do out:write(r.strings, " ", r.kib, "\n") end end }
LUA
cat > new/leak_rules/sessions.lua <<'LUA'
hk.leak_finder{ name = "my-sessions", help = "none", find = function(dump, report) end }
LUA
want=$(jq -r '.[] | select(.class == "java.lang.String") | .count' <("$HK" histogram demo.hprof --json -n 0))
HPROFKIT_SCRIPTS="$T/new" "$HK" count-strings demo.hprof --format bare > new.out 2> new.err
eq new-layout-command "$(cat new.out)" "$want 2.0 KiB"
eq new-layout-no-note "$(cat new.err)" ""
eq new-layout-leak-rule "$(HPROFKIT_SCRIPTS="$T/new" "$HK" run - <<<'print(hk.leak_finders()["my-sessions"] ~= nil)')" "true"
eq new-layout-defined-in "$(HPROFKIT_SCRIPTS="$T/new" "$HK" count-strings --help | sed -n 's/^defined in //p')" \
  "$T/new/commands/strings/count_strings.lua"
eq builtin-defined-in "$("$HK" top --help | sed -n 's/^defined in //p')" "$SRC/scripts/commands/top.lua"
eq run-script-requires-builtin "$("$HK" run - <<<'print(require("units").bytes(1536))')" "1.5 KiB"

# ---- files that register nothing are not run: one-offs, broken ones, a helper beside commands ----
mkdir -p quiet/commands quiet/lib
cat > quiet/oneoff.lua <<LUA
io.open("$MARK.top", "w"):close()
print("one-off output")
local d = hk.open("missing.hprof")
LUA
echo 'this is not lua (' > quiet/broken.lua
cat > quiet/commands/helper.lua <<LUA
-- a helper that names hk.query{} only in this comment and in a string: not a registration
local s = "hk.query{"
local l = [==[ hk.renderer{ ]] ]==] --[[ hk.leak_finder{
  hk.inspector{ ]] local e = 'it\'s hk.watcher{'
io.open("$MARK.helper", "w"):close()
local t = { hk = { query = 1 } }; local q = t.hk.query
error("must not run")
LUA
echo 'error("a lib/ module runs only when required")' > quiet/lib/never.lua
HPROFKIT_SCRIPTS="$T/quiet" "$HK" info demo.hprof > quiet.out 2> quiet.err
eq quiet-stdout-unchanged "$(cmp -s quiet.out plain.out && echo same)" same
eq quiet-stderr-unchanged "$(cat quiet.err)" "$(cat plain.err)"
eq quiet-files-not-run "$(ls "$T" | grep -c '^ran\.')" 0
# the same file with a registration in its code is run: the scan reads code, not comments
printf 'hk . query { name = "spaced", needs_dump = false, run = function() return {{ ok = 1 }} end }\n' \
  > quiet/commands/spaced.lua
eq spaced-registration-runs "$(HPROFKIT_SCRIPTS="$T/quiet" "$HK" spaced --json | jq -c .)" '[{"ok":1}]'
# a broken file that does register is named on stderr, and the other commands still run
echo 'hk.query{ name = "half", (' > quiet/commands/half.lua
HPROFKIT_SCRIPTS="$T/quiet" "$HK" info demo.hprof > half.out 2> half.err
eq broken-registering-named "$(grep -c "error in script $T/quiet/commands/half.lua" half.err)" 1
eq broken-registering-others-run "$(cmp -s half.out plain.out && echo same)" same

# ---- the old flat layout: top-level files and queries/, recipes/, leaks/ still load, one note ----
mkdir -p flat/queries flat/leaks
echo 'hk.query{ name = "flat-top", needs_dump = false, run = function() return {{ where = "top" }} end }' > flat/mine.lua
echo 'hk.query{ name = "flat-q", needs_dump = false, run = function() return {{ where = "queries" }} end }' \
  > flat/queries/q.lua
echo 'hk.inspector{ class = "com.example.Nothing", inspect = function(obj, r) end }' > flat/leaks/i.lua
echo 'print("flat one-off")' > flat/oneoff.lua
HPROFKIT_SCRIPTS="$T/flat" "$HK" flat-top --json > flat1.out 2> flat1.err
eq flat-top-loads "$(jq -r '.[0].where' flat1.out)" top
eq flat-queries-loads "$(HPROFKIT_SCRIPTS="$T/flat" "$HK" flat-q --json 2>/dev/null | jq -r '.[0].where')" queries
eq flat-note-once "$(grep -c "note: $T/flat holds scripts in the old layout" flat1.err)" 1
eq flat-note-alone "$(wc -l < flat1.err)" 1
eq flat-oneoff-not-run "$(grep -c 'flat one-off' flat1.out)" 0
# the same folder named twice is loaded once: still one note
HPROFKIT_SCRIPTS="$T/flat:$T/flat/" "$HK" flat-top > /dev/null 2> flat2.err
eq flat-note-once-twice-named "$(grep -c 'old layout' flat2.err)" 1
# the user config folder follows the same rules
mkdir -p "$HOME/.config/hprofkit/scripts/commands"
cp flat/mine.lua "$HOME/.config/hprofkit/scripts/"
cp new/commands/strings/count_strings.lua "$HOME/.config/hprofkit/scripts/commands/"
cp -r new/lib "$HOME/.config/hprofkit/scripts/"
"$HK" count-strings demo.hprof --json > cfg.out 2> cfg.err
eq config-new-layout "$(jq -r '.[0].strings' cfg.out)" "$want"
eq config-flat-note "$(grep -c "note: $HOME/.config/hprofkit/scripts holds scripts in the old layout" cfg.err)" 1
rm "$HOME/.config/hprofkit/scripts/mine.lua"
"$HK" count-strings demo.hprof > /dev/null 2> cfg2.err
eq config-moved-no-note "$(cat cfg2.err)" ""
