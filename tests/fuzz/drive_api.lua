-- fuzz_lua's driver for the Lua API: each input byte picks a call on a dump opened from
-- HK_FUZZ_DUMP (or on what earlier calls returned: objects, classes, iterators), including
-- calls after dump:close() and errors raised inside iterators.  Every error is caught.
local path = os.getenv("HK_FUZZ_DUMP") or error("set HK_FUZZ_DUMP to a small dump")

local function pick(list, b) if #list == 0 then return nil end return list[b % #list + 1] end

-- A value for hk.json_encode from the input's bytes at pos: numbers of every kind (NaN, the
-- infinities, -0.0, integers at the ends), strings of raw bytes (control characters, invalid
-- UTF-8), booleans, hk.null, a function, and tables with integer, float, boolean and string keys,
-- marked with hk.object_mt, read through __index or __pairs, or holding themselves.
local SPECIAL = { 0 / 0, math.huge, -math.huge, -0.0, 2 ^ 63, math.mininteger, math.maxinteger }
local function build(bytes, pos, depth)
  local b = bytes:byte(pos) or 0
  pos = pos + 1
  local kind = b % 12
  if depth > 5 or kind == 0 then return b * 7919 - 500000, pos
  elseif kind == 1 then return b / 7, pos
  elseif kind == 2 then return SPECIAL[b % #SPECIAL + 1], pos
  elseif kind == 3 then return bytes:sub(pos, pos + b % 9 - 1), pos + b % 9
  elseif kind == 4 then return b % 2 == 0, pos
  elseif kind == 5 then return hk.null, pos
  elseif kind == 6 then return print, pos
  end
  local t = {}
  for i = 1, b % 7 do
    local kb = bytes:byte(pos) or 0
    pos = pos + 1
    local key = ({ i, string.char(97 + kb % 26), kb / 2 + 0.5, kb % 2 == 0 })[kb % 4 + 1]
    local v
    v, pos = build(bytes, pos, depth + 1)
    t[key] = v
  end
  if kind == 8 then setmetatable(t, hk.object_mt)
  elseif kind == 9 then setmetatable(t, { __index = function(_, k) return type(k) == "string" and #k or nil end })
  elseif kind == 10 then
    local src = { x = 1, y = { 2 } }
    setmetatable(t, { __pairs = function() return next, src, nil end, __index = src })
  elseif kind == 11 and depth > 0 then t.self = t
  end
  return t, pos
end

-- What hk.json_encode writes is JSON (hk.json_decode reads it back) or an error: anything else
-- ends the run, which libFuzzer reports.
local function encode_check(bytes, b)
  local v = build(bytes, b % #bytes + 1, 0)
  local ok, text = pcall(hk.json_encode, v, b % 3 == 0 and { "a", "b", "zz" } or nil, b % 2 == 0)
  if ok and not pcall(hk.json_decode, text) then
    io.stderr:write("drive_api: hk.json_encode wrote what hk.json_decode cannot read: ", text:sub(1, 200), "\n")
    os.exit(3)
  end
end

function fuzz_one(bytes)
  local d = hk.open(path)
  local objs, classes, ids = {}, {}, {}
  for i = 1, math.min(#bytes, 64) do ids[#ids + 1] = d:object(bytes:byte(i) * 8 + 0x12c00000) end
  for _, c in ipairs(d:classes()) do classes[#classes + 1] = c; if #classes > 64 then break end end
  local function obj(b) return pick(objs, b) end
  local ops = {
    function(b) local o = d:object(b * 4096 + b) if o then objs[#objs + 1] = o end end,
    function(b) local c = pick(classes, b) if c then for o in c:instances() do objs[#objs + 1] = o break end end end,
    function(b) local o = obj(b) if o then for _, f in ipairs(o:fields()) do local _ = f.value end end end,
    function(b) local o = obj(b) if o then local _ = o:retained_size() end end,
    function(b) local o = obj(b) if o then local _ = d:path_to_root(o) end end,
    function(b) local o = obj(b) if o and o.kind ~= "instance" and o.length then local _ = o:at(b - 3) end end,
    function(b) local o = obj(b) if o then local _ = o:referrers() end end,
    function(b) local o = obj(b) if o then local _ = o:dominated(b % 5) end end,
    function(b) local _ = d:top_retained(b % 7, b % 2 == 0) end,
    function(b) local c = pick(classes, b) if c then local _ = c:statics() end end,
    function(b) local c = pick(classes, b) if c then local _ = d:class(c.name) end end,
    function(b) for o in d:objects() do if b % 3 == 0 then error("inside an iterator") end objs[#objs + 1] = o break end end,
    function(b) local _ = d:histogram(b % 2 == 0 and "app" or nil) end,
    function(b) local _ = d:reachability() end,
    function(b) local o = obj(b) if o then local _ = o:holding_roots(b % 4) end end,
    function(b) local _ = hk.json_encode(d:info(), nil, b % 2 == 0) end,
    function(b) local o = obj(b) if o then local _ = o:field(string.char(b % 26 + 97)) end end,
    function(b) local _ = d:object(string.format("0x%x", b * 65537)) end,
    function(b) local _ = d:bitmaps() end,
    function(b) if b % 8 == 0 then d:close() end end,
    function(b) encode_check(bytes, b) end,
    -- the hash on its own thread, read or left running when the dump closes
    function(b) d:sha256_start() if b % 2 == 0 then local _ = d:sha256() end end,
    function(b) local _ = d:duplicates(b % 2 == 0 and "strings" or "arrays", b % 5) end,
  }
  for i = 1, #bytes - 1, 2 do
    local op = ops[bytes:byte(i) % #ops + 1]
    pcall(op, bytes:byte(i + 1))
  end
  d:close()
  -- after close, every handle must refuse, not crash
  for _, o in ipairs(objs) do pcall(function() return o.class_name, o:retained_size() end) end
  for _, c in ipairs(classes) do pcall(function() return c.name, c:statics() end) end
end
