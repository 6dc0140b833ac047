# The command line's conventions: global options anywhere, list options, --fail-on gates,
# hk.run, exit codes.
. "$SRC/tests/lib.sh"
"$GEN" --scenario demo -o demo.hprof --expect demo.json >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
export HOME="$T/home"
mkdir -p q/commands
cat > q/commands/contract.lua <<'LUA'
hk.query{
  name = "labels",
  help = "echoes its list option; a gate that trips above PARAM labels",
  needs_dump = false,
  args = { label = {} },
  shape = "record",
  gates = { many = { help = "more than PARAM labels", check = function(r, p)
    return #r.labels > tonumber(p or 0), #r.labels .. " labels" end } },
  run = function(_, args) return { labels = args.label, debug = hk.options.debug, jobs = hk.options.jobs } end,
}
hk.query{
  name = "top-classes",
  help = "the classes of top's objects, through hk.run",
  args = { n = 3 },
  run = function(dump, args)
    local out = {}
    for i, r in ipairs(hk.run("top", dump, { n = args.n })) do out[i] = { class = r.class, id = r.id } end
    return out
  end,
}
LUA
export HPROFKIT_SCRIPTS="$T/q"

# global options before or after the command name, for built-in and user queries
for where in before after; do
  if [ $where = before ]; then set -- --debug -j 3 labels --json; else set -- labels --json --debug -j 3; fi
  eq "global-options-$where-user-query" "$("$HK" "$@" | jq -c '[.debug, .jobs]')" "[true,3]"
done
cp "$SRC/plugins.ini" mine.ini
eq global-plugins-after-builtin "$("$HK" plugins --json --plugins mine.ini | jq 'map(.ini) | index("mine.ini") != null')" true
eq global-plugins-before-builtin "$("$HK" --plugins=mine.ini plugins --json | jq 'map(.ini) | index("mine.ini") != null')" true
"$HK" --help > help.txt
grep -q -- "--plugins FILE" help.txt && grep -q -- "-j, --jobs N" help.txt && grep -q -- "--debug" help.txt \
  && pass global-options-in-usage || fail global-options-in-usage "$(cat help.txt)"

# repeated list options append
eq list-option-appends "$("$HK" labels --label a=1 --label b=2 --label=c --json | jq -c .labels)" '["a=1","b=2","c"]'
eq list-option-empty "$("$HK" labels --json | jq -c .labels)" '[]'

# --fail-on: exit 3 and which gate; a record result carries gates_tripped
"$HK" labels --label a --label b --fail-on many:1 --json > g.json 2> g.err; rc=$?
eq gate-trips-exit-3 "$rc" 3
eq gate-tripped-in-record "$(jq -c .gates_tripped g.json)" '["many"]'
eq gate-tripped-line "$(cat g.err)" "hprofkit labels: gate many tripped: 2 labels"
"$HK" labels --label a --fail-on many:1 --json > g0.json 2> g0.err; rc=$?
eq gate-holds-exit-0 "$rc/$(jq -c .gates_tripped g0.json)/$(wc -c < g0.err)" "0/[]/0"
"$HK" leaks demo.hprof --fail-on leaks > l.txt 2> l.err; rc=$?
eq leaks-gate-trips "$rc" 3
grep -q "^hprofkit leaks: gate leaks tripped: 1 application leak trace$" l.err && pass leaks-gate-says-which || fail leaks-gate-says-which "$(cat l.err)"
"$HK" leaks demo.hprof --fail-on library-leaks --json > /dev/null 2> ll.err
eq library-leaks-gate-holds "$?/$(wc -c < ll.err)" "0/0"
"$HK" leaks demo.hprof --fail-on library-leaks --fail-on leaks:1000000000 > /dev/null 2>&1
eq leaks-gate-param "$?" 0
"$HK" leaks demo.hprof --fail-on library-leaks,leaks > /dev/null 2>&1
eq leaks-gate-list "$?" 3
"$GEN" --scenario chain --objects 10 -o chain.hprof >/dev/null 2>&1
"$HK" leaks chain.hprof --fail-on leaks,library-leaks > /dev/null 2>&1
eq leaks-gate-no-leaks "$?" 0
"$HK" leaks demo.hprof --fail-on nosuch > /dev/null 2> u.err
eq gate-unknown "$?/$(cat u.err)" "2/hprofkit leaks: --fail-on: unknown gate 'nosuch' (leaks offers: leaks, library-leaks)"
"$HK" top demo.hprof --fail-on leaks > /dev/null 2> n.err
eq gate-none-offered "$?/$(cat n.err)" "2/hprofkit top: --fail-on: top offers no gates"

# hk.run: one query runs another with its defaults filled in
eq hk-run "$("$HK" top-classes demo.hprof -n 2 --json | jq -c 'map(.id)')" "$("$HK" top demo.hprof -n 2 --json | jq -c 'map(.id)')"
cat > run-bad.lua <<'LUA'
local ok, e = pcall(hk.run, "top", hk.open(arg.dump), { nosuch = 1 })
print(ok, tostring(e))
LUA
eq hk-run-unknown-option "$("$HK" run run-bad.lua demo.hprof)" "false	query 'top' has no option 'nosuch'"

# exit codes: a usage error raised by a script is 2, one line
echo 'hk.usage_error("give --x")' > usage.lua
"$HK" run usage.lua > /dev/null 2> ue.err
eq usage-error-exit-2 "$?/$(cat ue.err)" "2/hprofkit run: give --x"
"$HK" run usage.lua --debug > /dev/null 2> ued.err
grep -q "stack traceback" ued.err && pass usage-error-debug-traceback || fail usage-error-debug-traceback "$(cat ued.err)"

# bad arguments: exit 2, one line on stderr that names the argument, no traceback
: > empty.png
bad() { # NAME WORD CMD...: WORD must appear in the one line
  local n=$1 word=$2; shift 2
  "$@" > bad.out 2> bad.err; local rc=$?
  local lines=$(grep -c . bad.err)
  if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -qF -- "$word" bad.err && ! grep -q "traceback" bad.err; then
    pass "bad-arg-$n"
  else
    fail "bad-arg-$n" "exit $rc, $lines lines: $(head -c 300 bad.err)"
  fi
}
bad id-letters "0xZZZ" "$HK" object demo.hprof 0xZZZ
bad id-space "' 0x1'" "$HK" object demo.hprof " 0x1"
bad id-empty-hex "'0x'" "$HK" path demo.hprof 0x
bad id-negative "'-1'" "$HK" dominators demo.hprof -- -1
bad id-no-object "0x7fffffff" "$HK" object demo.hprof 0x7fffffff
bad count-fraction "-n" "$HK" top demo.hprof -n 1.5
bad count-huge "-n" "$HK" top demo.hprof -n 1e300
bad count-negative "-n" "$HK" top demo.hprof -n -5
bad count-word "-n" "$HK" top demo.hprof -n lots
bad count-missing "-n" "$HK" top demo.hprof -n
bad number-option "--min-pixels" "$HK" bitmaps demo.hprof --min-pixels 2.5
bad export-parent "--export" "$HK" bitmaps demo.hprof --export /nonexistent/dir
bad export-file "--export" "$HK" bitmaps demo.hprof --export demo.hprof
bad sidecar "--sidecar" "$HK" bitmaps demo.hprof --sidecar /nonexistent
bad plugins-file "--plugins" "$HK" --plugins /nonexistent.ini info demo.hprof
bad plugins-file-after "--plugins" "$HK" info demo.hprof --plugins /nonexistent.ini
bad plugins-dir "--plugins" "$HK" info demo.hprof --plugins .
bad dump-missing "/nonexistent.hprof" "$HK" info /nonexistent.hprof
bad dump-directory "not a regular file" "$HK" info .
bad output-dir "-o" "$HK" info demo.hprof -o /nonexistent/dir/out.json
bad unknown-option "--nosuch" "$HK" top demo.hprof --nosuch
bad unknown-command "nosuch" "$HK" nosuch demo.hprof
bad missing-positional "missing dump" "$HK" top
bad format "nosuch" "$HK" top demo.hprof --format nosuch
bad jobs "-j" "$HK" top demo.hprof -j many
bad list-option-value "--label" "$HK" labels --label
bad gate "nosuch" "$HK" leaks demo.hprof --fail-on nosuch
bad sort-column "nosuch" "$HK" top demo.hprof --sort nosuch
bad class-on-record "--class" "$HK" info demo.hprof --class 'java.*'
bad meminfo-file "/nonexistent.txt" "$HK" meminfo /nonexistent.txt
bad smaps-file "/nonexistent.txt" "$HK" smaps /nonexistent.txt
[ ! -e /nonexistent/dir/out.json ] && pass bad-arg-no-output-file || fail bad-arg-no-output-file "written"
# a corrupt dump is the dump's failure: exit 1, one line
head -c 200 demo.hprof > cut.hprof
"$HK" info cut.hprof > /dev/null 2> cut.err
eq corrupt-dump-exit-1 "$?/$(grep -c . cut.err)" "1/1"
# a bug in a script: its traceback (script frames), in full under --debug
mkdir -p bug/commands
cat > bug/commands/bug.lua <<'LUA'
hk.query{ name = "bug", help = "fails", run = function(dump) return dump:object(nil) end }
LUA
HPROFKIT_SCRIPTS="$T/bug" "$HK" bug demo.hprof > /dev/null 2> bug.err
eq script-bug-exit-1 "$?" 1
grep -q "bug.lua:1:" bug.err && ! grep -q "\[C\]" bug.err && pass script-bug-traceback-script-frames || fail script-bug-traceback-script-frames "$(cat bug.err)"
HPROFKIT_SCRIPTS="$T/bug" "$HK" bug demo.hprof --debug > /dev/null 2> bugd.err
grep -q "\[C\]: in" bugd.err && pass script-bug-debug-full-traceback || fail script-bug-debug-full-traceback "$(cat bugd.err)"

# Lua bitmap sources: a failing one puts one line in the cell and its traceback once on stderr;
# unknown keys (the C names) are refused; `plugins` lists them
mkdir -p src/commands
cat > src/commands/failing.lua <<'LUA'
hk.bitmap_source{ name = "failing", image = function(dump, bm) error("no pixels here") end }
LUA
HPROFKIT_SCRIPTS="$T/src" "$HK" bitmaps demo.hprof --json > fs.json 2> fs.err
eq lua-source-note-one-line "$(jq -r '[.bitmaps[].reason | select(. != null) | split("\n") | length] | unique | .[]' fs.json)" 1
grep -q "no pixels here" fs.json && pass lua-source-note-says-why || fail lua-source-note-says-why "$(head -c 300 fs.json)"
eq lua-source-traceback-once "$(grep -c 'stack traceback' fs.err)" 1
eq lua-source-listed "$(HPROFKIT_SCRIPTS="$T/src" "$HK" plugins --json | jq -c '.[] | select(.kind == "lua") | [.name, .bitmap_sources]')" '["failing",["failing"]]'
mkdir -p src2/commands
echo 'hk.bitmap_source{ name = "c-names", keyed_by_pointer = true, image = function(dump, bm) end }' > src2/commands/cnames.lua
HPROFKIT_SCRIPTS="$T/src2" "$HK" plugins > /dev/null 2> cn.err
grep -q "unknown key 'keyed_by_pointer'" cn.err && pass lua-source-unknown-key || fail lua-source-unknown-key "$(cat cn.err)"
echo 'hk.bitmap_source{ name = "one-arg", image = function(bm) end }' > src2/commands/cnames.lua
HPROFKIT_SCRIPTS="$T/src2" "$HK" plugins > /dev/null 2> oa.err
grep -q "image(dump, bitmap)" oa.err && pass lua-source-image-arity || fail lua-source-image-arity "$(cat oa.err)"

# each plugin registration error and each "replaces" note is printed once
mkdir -p pngdir
printf '[one]\npath = %s\ndir = %s\n[two]\npath = %s\ndir = %s\n' "$BUILD/tests/plugins/example.so" "$T/pngdir" \
  "$BUILD/tests/plugins/example.so" "$T/pngdir" > twice.ini
"$HK" --plugins twice.ini plugins > /dev/null 2> twice.err
eq plugin-registration-error-once "$(grep -c 'already registered' twice.err)" 1
mkdir -p "$HOME/.config/hprofkit/scripts/commands"
echo 'hk.query{ name = "info", help = "mine", run = function() return {} end }' > "$HOME/.config/hprofkit/scripts/commands/info.lua"
HPROFKIT_SCRIPTS="$HOME/.config/hprofkit/scripts/:$HOME/.config/hprofkit/./scripts" "$HK" info demo.hprof > /dev/null 2> note.err
eq replaces-note-once "$(grep -c "replaces the one from" note.err)" 1
rm "$HOME/.config/hprofkit/scripts/commands/info.lua"

# the other gates: meminfo's failed checks, duplicate bitmaps
"$HK" meminfo "$SRC/tests/meminfo/broken_total.txt" --fail-on checks > /dev/null 2> mi.err
eq meminfo-gate-trips "$?/$(grep -c 'gate checks tripped: 5 failed' mi.err)" "3/1"
"$HK" meminfo "$SRC/tests/meminfo/modern_android14_d.txt" --fail-on checks --json > mi.json 2> /dev/null
eq meminfo-gate-holds "$?/$(jq -c .gates_tripped mi.json)" "0/[]"
eq meminfo-parse-failure-one-line "$("$HK" meminfo "$SRC/tests/meminfo/garbage.txt" 2>&1 >/dev/null | grep -c .)" 1
real="$REALDATA/hprof/leakcanary-leak_service_binder.hprof"
if [ -f "$real" ]; then
  "$HK" duplicate-bitmaps "$real" --fail-on duplicates --format csv > dup.csv 2> dup.err
  eq duplicates-gate-trips "$?/$(cat dup.err)" "3/hprofkit duplicate-bitmaps: gate duplicates tripped: 1 groups of identical bitmaps waste 36864 bytes"
  grep -q '"\[""0xb0f93f80"",""0xb0f9e288""\]"' dup.csv && pass duplicates-csv-ids-as-json || fail duplicates-csv-ids-as-json "$(cat dup.csv)"
  "$HK" duplicate-bitmaps "$real" --fail-on duplicates:40000 > /dev/null 2>&1
  eq duplicates-gate-param "$?" 0
else
  skip duplicates-gate "$real is absent"
fi
# info: the dump's time also in ISO 8601
"$HK" info demo.hprof --json > info.json
eq info-timestamp-iso "$(jq -r .timestamp_iso info.json)" "$(date -u -d @$(( $(jq .timestamp info.json) / 1000 )) +%Y-%m-%dT%H:%M:%S).$(printf %03d $(( $(jq .timestamp info.json) % 1000 )))Z"
# bitmaps --fail-on mismatched: a wrong-size image under a pointer trips it; the record says so
"$GEN" --scenario bitmaps-pre26 -o pre26.hprof >/dev/null 2>&1
"$HK" bitmaps pre26.hprof --export ex > /dev/null 2>&1
mkdir -p side && cp "$(ls ex/*.png | head -1)" side/0x7a3e021000.png
"$HK" bitmaps demo.hprof --sidecar side --fail-on mismatched --json > mm.json 2> mm.err
eq bitmaps-gate-trips "$?/$(jq -c .gates_tripped mm.json)/$(grep -c 'gate mismatched tripped: 1 images' mm.err)" '3/["mismatched"]/1'
"$HK" bitmaps demo.hprof --fail-on mismatched --json > mm0.json 2> /dev/null
eq bitmaps-gate-holds "$?/$(jq -c .gates_tripped mm0.json)" '0/[]'
