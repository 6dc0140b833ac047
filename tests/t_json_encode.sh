# hk.json_encode (core/lua/lua_json_encode.c), what every --json output, the report's data and
# users' scripts are written with, held to Python's json module: each document Python reads back
# to the value the script meant, and where Python writes the same text (sorted keys, two-space
# indent, no floats, no control characters) byte for byte the same.  The rest of what the
# encoder decides is said here: key_order, the array/object line, numbers, escapes (bytes that
# are not UTF-8 included), metamethods.
. "$SRC/tests/lib.sh"
needs python3 python3 || exit 0

cat > enc.lua <<'LUA'
local enc, null, obj = hk.json_encode, hk.null, hk.object_mt
local out = {}
local function doc(name, text) out[#out + 1] = name .. "\t" .. text:gsub("\n", "\\n") end
-- a record like a query's, nested, with unicode and every kind of scalar but floats
local rec = { class = "com.example.Ünïcode", count = 3, ids = { "0x1", "0x2" }, none = null,
  empty_list = {}, empty_obj = setmetatable({}, obj), ok = true, no = false,
  nested = { b = { c = { 1, 2, { d = -7 } } }, a = "x" }, ["key with space"] = math.maxinteger,
  minint = math.mininteger }
doc("record-indent", enc(rec))
doc("record-compact", enc(rec, nil, true))
doc("record-compact-table", enc(rec, nil, { compact = true }))
doc("rows", enc({ rec, { class = "b", count = 0 } }, nil, true))
-- key_order: its keys first in its order (even when absent: null), the rest sorted; it applies
-- to the top table and to an array's elements, not deeper
doc("order", enc({ b = 1, a = 2, c = { z = 1, y = 2 }, d = 4 }, { "d", "missing", "b" }, true))
doc("order-rows", enc({ { b = 1, a = 2 }, { a = 3, b = 4 } }, { "b" }, true))
-- arrays: keys 1..#t exactly; a hole or another key makes an object of the keys' text
doc("holey", enc({ [1] = "a", [3] = "c" }, nil, true))
doc("mixed", enc({ "a", k = "v" }, nil, true))
doc("zero-key", enc({ [0] = "z" }, nil, true))
-- numbers: integers as they are, floats shortest of %.15g/%.17g that reads back, NaN and
-- infinities null
doc("floats", enc({ 1.5, 0.1, 1 / 3, 1e300, -0.0, 2 ^ 53, 0 / 0, math.huge, -math.huge }, nil, true))
-- strings: quotes, backslash and control characters escaped, other bytes as they are
doc("escapes", enc({ 'q"b\\s\n\r\t\1\31\127 é' }, nil, true))
-- a byte that is not UTF-8 (a raw byte[] read as text, a cut sequence) becomes U+FFFD: the
-- output stays UTF-8, as every JSON writer of the project keeps it
doc("not-utf8", enc({ "a\255b", "\195", "é\128" }, nil, true))
-- other values as their tostring; tables read through __index and __pairs as Lua's own loops do
doc("function", (enc({ print }, nil, true):gsub("0x%x+", "ADDR")))
doc("index-mt", enc(setmetatable({ name = "n" }, { __index = function(_, k) if k == "row" then return "R" end end }), { "row", "name" }, true))
local data = { x = 1, y = 2 } -- a proxy: its keys from __pairs, its values from __index
doc("pairs-mt", enc(setmetatable({ _ = true }, { __index = data, __pairs = function() return next, data, nil end }), nil, true))
-- a big document is the same whole as in parts
local big = {}
for i = 1, 20000 do big[i] = { i = i, s = "row " .. i, f = i / 4 } end
local whole, parts = enc(big, nil, true), {}
for i = 1, #big do parts[i] = enc(big[i], nil, true) end
doc("big-same", tostring(whole == "[" .. table.concat(parts, ",") .. "]"))
print(table.concat(out, "\n"))
LUA
timeout 60 "$HK" run enc.lua > enc.out 2> enc.err; rc=$?
eq encode-runs "$rc" 0
cat > check.py <<'PY'
import json, math, sys
docs = dict(l.rstrip("\n").split("\t", 1) for l in open(sys.argv[1]))
def text(n): return docs[n].replace("\\n", "\n") if n.startswith("record-indent") else docs[n]
def say(name, ok, why=""): print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + why))
rec = {"class": "com.example.Ünïcode", "count": 3, "ids": ["0x1", "0x2"], "none": None,
       "empty_list": [], "empty_obj": {}, "ok": True, "no": False,
       "nested": {"b": {"c": [1, 2, {"d": -7}]}, "a": "x"}, "key with space": 2**63 - 1, "minint": -2**63}
for n, want_text in [("record-indent", json.dumps(rec, indent=2, sort_keys=True, ensure_ascii=False)),
                     ("record-compact", json.dumps(rec, separators=(",", ":"), sort_keys=True, ensure_ascii=False)),
                     ("record-compact-table", json.dumps(rec, separators=(",", ":"), sort_keys=True, ensure_ascii=False))]:
    t = text(n)
    say(n + "-reads", json.loads(t) == rec, t[:200])
    say(n + "-bytes-as-python", t == want_text, t[:200] + " vs " + want_text[:200])
rows = json.loads(docs["rows"])
say("rows", rows == [rec, {"class": "b", "count": 0}], docs["rows"][:200])
say("order", docs["order"] == '{"d":4,"missing":null,"b":1,"a":2,"c":{"y":2,"z":1}}', docs["order"])
say("order-rows", docs["order-rows"] == '[{"b":1,"a":2},{"b":4,"a":3}]', docs["order-rows"])
say("holey", json.loads(docs["holey"]) == {"1": "a", "3": "c"}, docs["holey"])
say("mixed", json.loads(docs["mixed"]) == {"1": "a", "k": "v"}, docs["mixed"])
say("zero-key", json.loads(docs["zero-key"]) == {"0": "z"}, docs["zero-key"])
f = json.loads(docs["floats"])
want = [1.5, 0.1, 1 / 3, 1e300, -0.0, 2.0**53, None, None, None]
say("floats-read-back", f == want, docs["floats"])
say("floats-shortest", docs["floats"].startswith('[1.5,0.1,0.33333333333333331,1e+300,-0,9007199254740992,null'), docs["floats"])
say("escapes-read-back", json.loads(docs["escapes"]) == ['q"b\\s\n\r\t\x01\x1f\x7f é'], docs["escapes"])
say("escapes-text", docs["escapes"] == '["q\\"b\\\\s\\n\\r\\t\\u0001\\u001f\\u007f é"]', docs["escapes"])
say("function-as-text", docs["function"] in ('["builtin: ADDR"]', '["function: builtin: ADDR"]', '["function: ADDR"]'), docs["function"])
say("index-mt", docs["index-mt"] == '{"row":"R","name":"n"}', docs["index-mt"])
say("pairs-mt", docs["pairs-mt"] == '{"x":1,"y":2}', docs["pairs-mt"])
say("not-utf8", docs["not-utf8"] == '["a\\ufffdb","\\ufffd","é\\ufffd"]', docs["not-utf8"])
say("big-same", docs["big-same"] == "true", docs["big-same"])
PY
python3 check.py enc.out
