# docs/lua-api.md is the API: every member the core registers has an entry there, and every
# member it names exists.
. "$SRC/tests/lib.sh"
export HOME="$T/home"
unset HPROFKIT_SCRIPTS
cat > coverage.lua <<'LUA'
local doc = hk.read_file(arg.doc):gsub("```.-```", "")   -- code blocks: not entries
local plugin_ns = {}
for _, p in ipairs(hk.plugins()) do plugin_ns[p.name] = true end

-- what is registered
local have = {}
for k in pairs(hk) do if not plugin_ns[k] then have["hk." .. k] = true end end
local reg = debug.getregistry()
local types = { ["hk.Dump"] = { "dump", "Dump" }, ["hk.Class"] = { "cls", "Class" },
                ["hk.Object"] = { "obj", "Object" }, ["hk.device"] = { "dev", "Device" } }
for mtname, names in pairs(types) do
  local mt = assert(reg[mtname], mtname .. " is not registered")
  for k in pairs(mt.methods or {}) do have[names[1] .. ":" .. k] = true end
  for k in pairs(mt.props or {}) do have[names[1] .. "." .. k] = true end
  for k in pairs(mt) do
    if k:sub(1, 2) == "__" and k ~= "__index" and k ~= "__name" then have[names[2] .. "." .. k] = true end
  end
end
-- a device's properties are answered by its __index function (core/lua/lua_device.c), not a table
for _, k in ipairs{ "serial", "model", "sdk", "debuggable", "shell_v2" } do have["dev." .. k] = true end
for k in pairs(reg["hk.Writer"].__index) do have["out:" .. k] = true end

-- what the page names, in `code`
local named = {}
for span in doc:gmatch("`([^`]+)`") do
  for obj, sep, name in span:gmatch("%f[%w_]([%a_]+)([%.:])([%l_][%w_]*)") do
    if obj == "arr" then obj = "obj" end
    local known = { hk = 1, dump = 1, cls = 1, obj = 1, dev = 1, out = 1, Dump = 1, Class = 1, Object = 1, Device = 1 }
    if known[obj] and not (obj == "hk" and plugin_ns[name]) then named[obj .. sep .. name] = true end
  end
end

local bad = {}
for k in pairs(have) do if not named[k] then bad[#bad + 1] = "undocumented: " .. k end end
for k in pairs(named) do if not have[k] then bad[#bad + 1] = "documented but missing: " .. k end end
table.sort(bad)
local n = 0
for _ in pairs(have) do n = n + 1 end
print(#bad == 0 and ("ok " .. n) or table.concat(bad, "\n"))
LUA
out=$("$HK" run coverage.lua --doc "$SRC/docs/lua-api.md" 2>&1)
if [[ "$out" == ok* ]]; then pass "lua-api-doc-covers-every-member (${out#ok } members)"; else fail lua-api-doc-coverage "$(tr '\n' ';' <<<"$out")"; fi
# the check itself: a member that is not registered is caught
sed 's/`hk.warn(msg)`/`hk.warn(msg)`, `hk.no_such_thing()`/' "$SRC/docs/lua-api.md" > bad.md
"$HK" run coverage.lua --doc bad.md | grep -q "documented but missing: hk.no_such_thing" && pass doc-coverage-catches-extra || fail doc-coverage-catches-extra "not caught"
grep -v '`obj:referrers()`' "$SRC/docs/lua-api.md" > bad2.md
"$HK" run coverage.lua --doc bad2.md | grep -q "undocumented: obj:referrers" && pass doc-coverage-catches-missing || fail doc-coverage-catches-missing "not caught"
