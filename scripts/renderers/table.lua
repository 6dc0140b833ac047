-- Aligned text columns for people; a record (one table of keys) as "key: value" lines with
-- nested records indented and nested lists of rows as sub-tables.  Sizes (columns and keys
-- named *bytes) in binary units (KiB, MiB, GiB) unless --bytes.  On a terminal the columns
-- are fitted to its width (meta.width); otherwise nothing is ever cut.

local function is_size(key) return type(key) == "string" and key:sub(-5) == "bytes" end

local function human(n)
  if n < 0 then return "-" .. human(-n) end
  if n < 1024 then return string.format("%d B", n) end
  local units = { "KiB", "MiB", "GiB", "TiB", "PiB" }
  local v, u = n / 1024, 1
  while v >= 1024 and u < #units do v, u = v / 1024, u + 1 end
  return string.format("%.1f %s", v, units[u])
end

local function is_list(t)
  if getmetatable(t) == hk.object_mt then return false end
  local n = #t
  if n == 0 then return next(t) == nil end
  for k in pairs(t) do
    if math.type(k) ~= "integer" or k < 1 or k > n then return false end
  end
  return true
end

local inline

local function sorted_keys(t)
  local keys = {}
  for k in pairs(t) do keys[#keys + 1] = tostring(k) end
  table.sort(keys)
  return keys
end

-- A value on one line: lists as "a, b", records as "{k: v, ...}".
local iso8601 = require("text.time").iso8601
hk.iso8601 = iso8601

local function scalar(v, key, meta)
  if v == nil or v == hk.null then return "-" end
  if key == "timestamp" and math.type(v) == "integer" and v >= 0 then return iso8601(v) end
  if type(v) == "table" then return inline(v, true, meta) end
  if math.type(v) == "integer" and is_size(key) and not meta.raw_bytes then return human(v) end
  if math.type(v) == "float" then return string.format("%.2f", v) end
  return tostring(v)
end

inline = function(t, top, meta)
  if is_list(t) then
    if #t == 0 then return "-" end
    local parts = {}
    for i, x in ipairs(t) do parts[i] = type(x) == "table" and inline(x, false, meta) or scalar(x, nil, meta) end
    return top and table.concat(parts, ", ") or "[" .. table.concat(parts, ", ") .. "]"
  end
  local keys = sorted_keys(t)
  -- a path step's reference {type, name} (see docs/lua-api.md) reads as "static sInstance"
  if #keys == 2 and keys[1] == "name" and keys[2] == "type" then return t.type .. " " .. tostring(t.name) end
  local parts = {}
  for _, k in ipairs(keys) do
    local v = t[k]
    parts[#parts + 1] = k .. ": " .. (type(v) == "table" and inline(v, false, meta) or scalar(v, k, meta))
  end
  return "{" .. table.concat(parts, ", ") .. "}"
end

local function columns_of(rows, meta)
  if meta.columns then return meta.columns end
  local seen, cols = {}, {}
  for _, row in ipairs(rows) do
    if type(row) == "table" then
      for k in pairs(row) do
        if not seen[k] then seen[k] = true; cols[#cols + 1] = tostring(k) end
      end
    end
  end
  table.sort(cols)
  return cols
end

local function is_number_col(rows, c)
  for _, row in ipairs(rows) do
    local v
    if type(row) == "table" then v = row[c] end
    if v ~= nil and v ~= hk.null and type(v) ~= "number" then return false end
  end
  return true
end

local function len(s) return utf8.len(s) or #s end

-- Cut s to n characters, the last one an ellipsis.
local function cut(s, n)
  if len(s) <= n then return s end
  if n <= 1 then return "…" end
  return s:sub(1, (utf8.offset(s, n) or n + 1) - 1) .. "…"
end

-- Narrows the widest text columns until the line fits max_width (no column under 16); numbers
-- and ids (keep[i]) are never cut.  When that is not enough, the last columns are left out
-- rather than overflowing the terminal; returns how many columns are shown.
local function fit(width, keep, max_width)
  local shown = #width
  local function total()
    local t = 2 * (shown - 1)
    for i = 1, shown do t = t + width[i] end
    return t
  end
  while total() > max_width do
    local widest
    for i = 1, shown do
      local w = width[i]
      if not keep[i] and w > 16 and (not widest or w > width[widest]) then widest = i end
    end
    if widest then
      width[widest] = width[widest] - 1   -- one at a time: the wide columns shrink together
    elseif shown > 1 then
      shown = shown - 1
    else
      break
    end
  end
  return shown
end

local function render_rows(rows, out, meta)
  local cols = columns_of(rows, meta)
  if #rows == 0 then
    out:write(meta.empty or "(no rows)", "\n")
    return
  end
  local width, numeric = {}, {}
  local shown = #cols
  for i, c in ipairs(cols) do
    width[i] = len(c)
    numeric[i] = is_number_col(rows, c)
  end
  local cells = {}
  for r, row in ipairs(rows) do
    cells[r] = {}
    for i, c in ipairs(cols) do
      local v
      if type(row) == "table" then v = row[c] elseif i == 1 then v = row end
      local s = scalar(v, c, meta)
      cells[r][i] = s
      if len(s) > width[i] then width[i] = len(s) end
    end
  end
  if (meta.width or 0) > 0 then
    local keep = {}
    for i, c in ipairs(cols) do
      keep[i] = numeric[i] or c == "id" or c == "object" or c == "native_ptr" or c:sub(-3) == "_id"
    end
    shown = fit(width, keep, meta.width)
  end
  local function line(values)
    local parts = {}
    for i = 1, shown do
      local s = cut(values[i], width[i])
      local pad = string.rep(" ", width[i] - len(s))
      parts[i] = numeric[i] and (pad .. s) or (i == shown and s or s .. pad)
    end
    out:write(table.concat(parts, "  "), "\n")
  end
  line(cols)
  for r = 1, #rows do line(cells[r]) end
  if shown < #cols then
    local hidden = {}
    for i = shown + 1, #cols do hidden[#hidden + 1] = cols[i] end
    out:write(cut("(not shown, the terminal is too narrow: " .. table.concat(hidden, ", ") ..
      "; --json or a pipe shows every column)", meta.width), "\n")
  end
end

local function keys_of(rec, declared)
  local keys, seen = {}, {}
  for _, k in ipairs(declared or {}) do
    if rec[k] ~= nil and not seen[k] then keys[#keys + 1] = k; seen[k] = true end
  end
  for _, k in ipairs(sorted_keys(rec)) do
    if not seen[k] then keys[#keys + 1] = k; seen[k] = true end
  end
  return keys
end

local function render_record(rec, out, meta, indent)
  indent = indent or ""
  local keys = keys_of(rec, meta.columns)
  local w = 0
  for _, k in ipairs(keys) do if #k > w then w = #k end end
  for _, k in ipairs(keys) do
    local v = rec[k]
    -- a query's own prose for one key of its record (triage: the leak traces as leaks prints them)
    local text = indent == "" and meta.texts and meta.texts[k]
    if text and v ~= nil and v ~= hk.null then
      out:write(k, ":\n", text(v))
    elseif type(v) == "table" and is_list(v) and type(v[1]) == "table" and not is_list(v[1]) then
      out:write(indent, k, ":\n")
      local buf = {}
      local sub = { columns = meta.subcolumns and meta.subcolumns[k], raw_bytes = meta.raw_bytes,
                    width = (meta.width or 0) > 0 and meta.width - #indent - 2 or 0 }
      render_rows(v, { write = function(_, ...) for _, s in ipairs({...}) do buf[#buf + 1] = s end end }, sub)
      for l in table.concat(buf):gmatch("[^\n]+") do out:write(indent, "  ", l, "\n") end
    elseif type(v) == "table" and not is_list(v) and next(v) ~= nil then
      out:write(indent, k, ":\n")
      render_record(v, out, { raw_bytes = meta.raw_bytes, width = meta.width }, indent .. "  ")
    else
      out:write(indent, k, ":", string.rep(" ", w - #k + 1), scalar(v, k, meta), "\n")
    end
  end
end

hk.renderer{
  name = "table",
  help = "aligned columns for people: sizes in KiB/MiB/GiB (--bytes: plain numbers)",
  render = function(rows, out, meta)
    if meta.title then out:write(meta.title, "\n") end
    -- a query may give its own prose for a terminal (leaks: LeakCanary-style traces)
    if type(meta.text) == "string" then out:write(meta.text) return end
    local k = next(rows)
    if meta.shape == "record" or type(k) == "string" then render_record(rows, out, meta)
    else render_rows(rows, out, meta) end
  end,
}
