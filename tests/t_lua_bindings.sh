# How the Lua bindings are put together: every binding file has one opener, hkl_open_NAME, and
# lua_modules.c's tables name each one (an opener left out of them is a binding that silently
# disappears); the table helpers live once, in lua_host.h; hk.json_decode reads and rejects JSON
# as documented.
. "$SRC/tests/lib.sh"

# The openers the binding files define, and the ones lua_modules.c opens.
defined=$(cd "$SRC" && grep -ohE '^void hkl_open_[a-z_]+\(' core/*/*.c | sed 's/^void //; s/($//' |
  grep -vx 'hkl_open_modules\|hkl_open_plugin_modules' | sort -u)
listed=$(sed -n '/openers\[\]/,/};/p' "$SRC/core/lua/lua_modules.c" | grep -oE 'hkl_open_[a-z_]+' | sort -u)
missing=$(comm -23 <(echo "$defined") <(echo "$listed") | tr '\n' ' ')
if [ -z "$defined" ]; then fail openers-listed "no hkl_open_* found under core/"
elif [ -n "$missing" ]; then fail openers-listed "not in lua_modules.c's tables: $missing"
else pass openers-listed; fi

# Old-style entry points (hk_NAME_lua_open, hk_NAME_lua_register) are gone.
old=$(cd "$SRC" && grep -rlE '\bhk_[a-z]+_lua_(open|register)\b|\bhkl_[a-z]+_open\(' core tests/adbd 2>/dev/null | tr '\n' ' ')
eq openers-one-pattern "$old" ""

# No binding file writes its own copy of the table helpers.
copies=$(cd "$SRC" && grep -lE '^static .*\b(set_(str|int|num|bool|str_or_null)|push_null)\(lua_State' core/*/*.c |
  tr '\n' ' ')
eq table-helpers-once "$copies" ""

cat > json.lua <<'LUA'
local function show(v)
  if v == hk.null then return "null" end
  if type(v) ~= "table" then return type(v) .. ":" .. tostring(v) end
  local keys = {}
  for k in pairs(v) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local out = {}
  for _, k in ipairs(keys) do out[#out + 1] = tostring(k) .. "=" .. show(v[k]) end
  return (getmetatable(v) == hk.object_mt and "O" or "A") .. "{" .. table.concat(out, ",") .. "}"
end
local cases = {
  '{}', '[]', ' [ true , false , null ] ', '{"a":1,"b":[1.5,{"c":null}],"d":"x\\u00e9"}', '-1.5e3',
  '[1,2,', '{"a" 1}', '{"a":1,}', '[1 2]', '{1:2}', 'tru', '"abc', '[1]x', '',
  string.rep("[", 200) .. string.rep("]", 200), string.rep("[", 201) .. string.rep("]", 201),
}
for i, c in ipairs(cases) do
  local ok, v = pcall(hk.json_decode, c)
  local s = ok and show(v) or tostring(v)
  print(i, #s > 80 and s:sub(1, 12) or s)
end
LUA
"$HK" run json.lua > json.out 2> json.err || { fail json-decode "run failed: $(head -c 300 json.err)"; exit 0; }
want=$(cat <<'EOF'
1	O{}
2	A{}
3	A{1=boolean:true,2=boolean:false,3=null}
4	O{a=number:1,b=A{1=number:1.5,2=O{c=null}},d=string:xé}
5	number:-1500.0
6	invalid JSON at byte 5: unexpected end
7	invalid JSON at byte 5: ':' expected
8	invalid JSON at byte 7: object key expected
9	invalid JSON at byte 3: ',' or ']' expected
10	invalid JSON at byte 1: object key expected
11	invalid JSON at byte 0: value expected
12	invalid JSON at byte 4: unterminated string
13	invalid JSON at byte 3: trailing characters
14	invalid JSON at byte 0: unexpected end
15	A{1=A{1=A{1=
16	invalid JSON at byte 200: nested too deeply
EOF
)
eq json-decode "$(cat json.out)" "$want"

# A long string that fails inside nested values, at every depth: the decoder's string buffer
# (a to-be-closed box past 1 KB) closed while unwinding used to leave Lua's stack top dangling
# at some depths ("error in error handling", or a crash in the facts fuzz target)
cat > json_unwind.lua <<'LUA'
local s, n = string.rep("x", 2000), 0
for rep = 1, 3 do
  for d = 1, 190 do
    for _, t in ipairs { string.rep("[", d) .. '{"k":"' .. s .. '\\uZZ', string.rep('{"a":', d) .. '"' .. s .. '\\uZZ',
                         string.rep("[", d) .. '"' .. s .. '\\' } do
      local ok, e = pcall(hk.json_decode, t)
      if not ok and tostring(e):find("invalid JSON", 1, true) then n = n + 1 end
    end
  end
end
print(n)
LUA
eq json-decode-unwind "$("$HK" run json_unwind.lua 2>&1)" "1710"
