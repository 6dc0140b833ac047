# What a hostile script or a failing machine does to a command: a table
# that contains itself or nests without end given to hk.json_encode, a query that reaches itself
# through hk.run, a trace written onto a full or read-only disk, out of memory, Ctrl-C.
. "$SRC/tests/lib.sh"
"$GEN" --scenario demo -o demo.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
"$GEN" --scenario leaks -o leaks.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
"$GEN" --scenario big --size-mb 1 -o big.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }

# hk.json_encode: a cycle and deep nesting are errors in one line, at once; a table met twice
# (not inside itself) is written twice
cat > json.lua <<'LUA'
local t = { a = 1 }; t.self = t
local ok, e = pcall(hk.json_encode, t); print("cycle", ok, e)
local l = { 1, 2 }; l[3] = { l }
ok, e = pcall(hk.json_encode, l, nil, true); print("cycle-array", ok, e)
local deep = {}; local cur = deep
for _ = 1, 100000 do cur.x = {}; cur = cur.x end
ok, e = pcall(hk.json_encode, deep); print("deep", ok, e)
local fine = {}; cur = fine
for _ = 1, 150 do cur.x = {}; cur = cur.x end
print("150-deep", (pcall(hk.json_encode, fine)))
local shared = { 1 }
print("shared", hk.json_encode({ a = shared, b = shared }, nil, true))
print("after-error", hk.json_encode({ 1, { 2 } }, nil, true))
LUA
timeout 60 "$HK" run json.lua > json.out 2>json.err; rc=$?
eq json-encode-ends "$rc" 0
eq json-cycle "$(grep '^cycle	' json.out)" "cycle	false	hk.json_encode: a table contains itself (a cycle cannot be written as JSON)"
eq json-cycle-array "$(grep '^cycle-array' json.out | cut -f2)" "false"
eq json-deep "$(grep '^deep' json.out)" "deep	false	hk.json_encode: tables nested more than 200 deep"
eq json-150-deep-fine "$(grep '^150-deep' json.out | cut -f2)" "true"
eq json-shared-twice "$(grep '^shared' json.out | cut -f2)" '{"a":[1],"b":[1]}'
eq json-after-error "$(grep '^after-error' json.out | cut -f2)" '[1,[2]]'
# a query's rows with a cycle: one line, exit 1 (a script's error), no unbounded growth
mkdir -p scripts/commands scripts/leak_rules
cat > scripts/commands/cyclic.lua <<'LUA'
hk.query{ name = "cyclic", help = "rows that hold themselves",
  run = function(dump) local r = { n = 1 }; r.me = r; return { r } end }
LUA
HPROFKIT_SCRIPTS="$T/scripts" timeout 60 "$HK" cyclic demo.hprof --json > cyc.out 2>cyc.err; rc=$?
eq json-rows-cycle-status "$rc" 1
grep -q "a table contains itself" cyc.err && pass json-rows-cycle-says || fail json-rows-cycle-says "$(head -c 300 cyc.err)"
rm scripts/commands/cyclic.lua

# an inspector that runs leaks (which runs the inspectors...): refused, not recursion until
# memory runs out; an inspector's error is a label on its object, so leaks itself ends well
cat > scripts/leak_rules/selfish.lua <<'LUA'
hk.inspector{ class = "*", inspect = function(obj, r) hk.run("leaks", r.dump) end }
LUA
HPROFKIT_SCRIPTS="$T/scripts" timeout 120 "$HK" leaks leaks.hprof > rec.out 2>rec.err; rc=$?
eq hk-run-recursion-status "$rc" 0
grep -q "hk.run: query 'leaks' is already running" rec.out && pass hk-run-recursion-says \
  || fail hk-run-recursion-says "$(head -c 300 rec.out)"
rm scripts/leak_rules/selfish.lua
# a query that runs another is still allowed (triage runs leaks)
cat > scripts/commands/twice.lua <<'LUA'
hk.query{ name = "twice", help = "runs info twice",
  run = function(dump) hk.run("info", dump); return hk.run("info", dump) end }
LUA
HPROFKIT_SCRIPTS="$T/scripts" "$HK" twice demo.hprof --json > twice.out 2>twice.err
eq hk-run-sequential "$?:$(jq -r 'type' twice.out 2>/dev/null)" "0:object"

# a write to /dev/full (a device is written in place, never replaced): one line, exit 1 or 2
for w in "-o /dev/full:histogram demo.hprof -o /dev/full" \
         "convert:convert demo.hprof --to perfetto-heapgraph --trace /dev/full"; do
  name=${w%%:*}; cmd=${w#*:}
  "$HK" $cmd > full.out 2>full.err; rc=$?
  lines=$(wc -l < full.err)
  if [ $rc -ge 1 ] && [ $rc -le 2 ] && [ "$lines" -eq 1 ] && grep -q "No space left on device" full.err; then
    pass "dev-full-$name"
  else fail "dev-full-$name" "status $rc, $lines lines: $(head -c 300 full.err)"; fi
  [ -c /dev/full ] && pass "dev-full-still-a-device-$name" || fail "dev-full-still-a-device-$name" "/dev/full replaced"
done

# -o /dev/stdout with stdout redirected to a file: written through, the link in /dev kept
"$HK" info demo.hprof -o /dev/stdout > redirected.txt 2> redirected.err
if [ -L /dev/stdout ]; then pass dev-stdout-kept-a-link
else fail dev-stdout-kept-a-link "/dev/stdout was replaced by a file"; rm -f /dev/stdout; ln -s /proc/self/fd/1 /dev/stdout; fi
grep -q "^format:" redirected.txt && pass dev-stdout-written || fail dev-stdout-written "$(head -c 200 redirected.err)"

# a full and a read-only disk: a 256 KiB tmpfs in a mount namespace of our own
if unshare -Urm true 2>/dev/null; then
  cat > disk.sh <<'SH'
set -u
mkdir -p "$T/small" "$T/ro"
mount -t tmpfs -o size=256k none "$T/small" && mount -t tmpfs -o size=1m none "$T/ro" || exit 99
echo old > "$T/ro/t.pftrace"; mount -o remount,ro "$T/ro"
"$HK" convert "$T/big.hprof" --to perfetto-embedded --trace "$T/small/t.pftrace" > /dev/null 2> "$T/conv-full.err"
echo "conv-full $? $(ls -A "$T/small" | wc -l)"
"$HK" convert "$T/demo.hprof" --to perfetto-heapgraph --trace "$T/ro/t.pftrace" > /dev/null 2> "$T/conv-ro.err"
echo "conv-ro $? $(cat "$T/ro/t.pftrace")"
"$HK" histogram "$T/demo.hprof" -o "$T/ro/hist.txt" > /dev/null 2> "$T/o-ro.err"
echo "o-ro $?"
# the fleet database on a full disk
dd if=/dev/zero of="$T/small/fill" bs=1k count=1000 2>/dev/null
"$HK" fleet-ingest "$T/small/fleet.db" "$T/facts.json" > /dev/null 2> "$T/fleet-full.err"
echo "fleet-full $?"
SH
  "$HK" triage demo.hprof --json -o facts.json 2>/dev/null
  T="$T" HK="$HK" unshare -Urm bash disk.sh > disk.out 2>disk.err
  if grep -q . disk.out; then
    eq convert-full-disk "$(grep conv-full disk.out)" "conv-full 1 0"
    eq convert-full-disk-one-line "$(wc -l < conv-full.err)" 1
    grep -q "No space left on device" conv-full.err && pass convert-full-disk-says || fail convert-full-disk-says "$(cat conv-full.err)"
    eq convert-read-only "$(grep conv-ro disk.out)" "conv-ro 1 old"
    eq convert-read-only-one-line "$(wc -l < conv-ro.err)" 1
    grep -q "Read-only file system" conv-ro.err && pass convert-read-only-says || fail convert-read-only-says "$(cat conv-ro.err)"
    eq o-read-only "$(grep o-ro disk.out)" "o-ro 2"
    eq fleet-full-disk "$(grep fleet-full disk.out)" "fleet-full 1"
    grep -q "disk is full" fleet-full.err && ! grep -q "not a fleet database" fleet-full.err && pass fleet-full-disk-says \
      || fail fleet-full-disk-says "$(cat fleet-full.err)"
  else skip full-disk "cannot mount a tmpfs in a user namespace: $(head -c 200 disk.err)"; fi
else skip full-disk "unshare -Urm is not allowed here (no user namespaces)"; fi
