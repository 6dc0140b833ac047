-- require "text.json": Lua values as JSON text (the json renderer's, hk.json_encode for users'
-- scripts).  Ids stay hex strings, absent values (hk.null) are null.
local M = {}
local encode
-- the hot paths read these as locals, not through the global hk table on every value
local null, object_mt = hk.null, hk.object_mt
local tostring, mtype, pairs, ipairs, concat, sort = tostring, math.type, pairs, ipairs, table.concat, table.sort

-- the escapes, one table and one function for every string (a closure and a table made per
-- string were most of the report's encoding time); most strings need none, and skip the gsub
local ESCAPES = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
local function escape(c) return ESCAPES[c] or string.format("\\u%04x", c:byte()) end

local function encode_string(s)
  if not s:find('[%c"\\]') then return '"' .. s .. '"' end
  return '"' .. s:gsub('[%c"\\]', escape) .. '"'
end

local function is_array(t)
  if getmetatable(t) == object_mt then return false end
  if next(t) == nil then return true end
  local n = #t
  if n == 0 then return false end
  for k in pairs(t) do
    if mtype(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

local function keys_of(t, order)
  if not order then -- the common case: the keys' text, sorted
    local keys = {}
    for k in pairs(t) do keys[#keys + 1] = tostring(k) end
    sort(keys)
    return keys
  end
  local keys, seen = {}, {}
  for _, k in ipairs(order or {}) do keys[#keys + 1] = k; seen[k] = true end
  local rest = {}
  for k in pairs(t) do if not seen[k] then rest[#rest + 1] = tostring(k) end end
  sort(rest)
  for _, k in ipairs(rest) do keys[#keys + 1] = k end
  return keys
end

-- The tables being written, from the outermost: a table met again inside itself would
-- never end (the text grows without bound), and nesting as deep as hk.json_decode refuses
-- is refused here too.
local MAX_DEPTH = 200
local open_tables, depth = {}, 0

local function enter(v)
  if open_tables[v] then
    error("hk.json_encode: a table contains itself (a cycle cannot be written as JSON)", 0)
  end
  if depth >= MAX_DEPTH then
    error("hk.json_encode: tables nested more than " .. MAX_DEPTH .. " deep", 0)
  end
  open_tables[v] = true
  depth = depth + 1
end

local function leave(v)
  open_tables[v] = nil
  depth = depth - 1
end

local encode_table

-- indent == nil: compact, on one line (JSON lines)
encode = function(v, order, indent)
  local t = type(v)
  if t == "string" then return encode_string(v) -- the most common, first
  elseif v == nil or v == null then return "null"
  elseif t == "boolean" then return tostring(v)
  elseif t == "number" then
    if mtype(v) == "integer" then return tostring(v) end
    if v ~= v or v == math.huge or v == -math.huge then return "null" end
    local short = string.format("%.15g", v) -- the shortest text that reads back as the same number
    if tonumber(short) == v then return short end
    return string.format("%.17g", v)
  elseif t == "table" then
    enter(v)
    local text = encode_table(v, order, indent)
    leave(v)
    return text
  else
    return encode_string(tostring(v))
  end
end

-- indent nil: all on one line (a CSV cell)
encode_table = function(v, order, indent)
  local inner = indent and indent .. "  "
  local open, sep, close = "", ",", ""
  if indent then open, sep, close = "\n" .. inner, ",\n" .. inner, "\n" .. indent end
  if is_array(v) then
    if #v == 0 then return "[]" end
    local parts = {}
    for i, x in ipairs(v) do parts[i] = encode(x, order, inner) end
    return "[" .. open .. concat(parts, sep) .. close .. "]"
  end
  local parts = {}
  for _, k in ipairs(keys_of(v, order)) do
    parts[#parts + 1] = encode_string(k) .. (indent and ": " or ":") .. encode(v[k], nil, inner)
  end
  if #parts == 0 then return "{}" end
  return "{" .. open .. concat(parts, sep) .. close .. "}"
end

-- an error thrown part way leaves tables marked open: start each top-level call afresh
local function encode_top(v, order, indent)
  open_tables, depth = {}, 0
  return encode(v, order, indent)
end

-- encode(value[, key_order[, compact]]): indented, or on one line when compact (compact may
-- also be given as {compact = true})
function M.encode(v, order, compact)
  if type(compact) == "table" then compact = compact.compact end
  return encode_top(v, order, not compact and "" or nil)
end

return M
