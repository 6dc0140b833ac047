-- Aligned text columns for a terminal; a record (one table of keys) as "key: value" lines.
local function cell(v)
  if v == nil or v == hk.null then return "-" end
  if type(v) == "table" then
    local parts = {}
    for i, x in ipairs(v) do parts[i] = tostring(x) end
    return table.concat(parts, ", ")
  end
  if math.type(v) == "float" then return string.format("%.2f", v) end
  return tostring(v)
end

local function columns_of(rows, meta)
  if meta.columns then return meta.columns end
  local seen, cols = {}, {}
  for _, row in ipairs(rows) do
    for k in pairs(row) do
      if not seen[k] then seen[k] = true; cols[#cols + 1] = k end
    end
  end
  table.sort(cols)
  return cols
end

local function is_number_col(rows, c)
  for _, row in ipairs(rows) do
    local v = row[c]
    if v ~= nil and v ~= hk.null and type(v) ~= "number" then return false end
  end
  return true
end

local function render_rows(rows, out, meta)
  local cols = columns_of(rows, meta)
  if #rows == 0 then
    out:write(meta.empty or "(no rows)", "\n")
    return
  end
  local width, numeric = {}, {}
  for i, c in ipairs(cols) do
    width[i] = #c
    numeric[i] = is_number_col(rows, c)
  end
  local cells = {}
  for r, row in ipairs(rows) do
    cells[r] = {}
    for i, c in ipairs(cols) do
      local s = cell(row[c])
      cells[r][i] = s
      if utf8.len(s) and utf8.len(s) > width[i] then width[i] = utf8.len(s) end
    end
  end
  local function line(values)
    local parts = {}
    for i, s in ipairs(values) do
      local pad = string.rep(" ", width[i] - (utf8.len(s) or #s))
      parts[i] = numeric[i] and (pad .. s) or (i == #values and s or s .. pad)
    end
    out:write(table.concat(parts, "  "), "\n")
  end
  line(cols)
  for r = 1, #rows do line(cells[r]) end
end

local function render_record(rec, out, meta, indent)
  indent = indent or ""
  local keys = meta.columns or {}
  if #keys == 0 then
    for k in pairs(rec) do keys[#keys + 1] = k end
    table.sort(keys)
  end
  local w = 0
  for _, k in ipairs(keys) do if #k > w then w = #k end end
  for _, k in ipairs(keys) do
    local v = rec[k]
    if type(v) == "table" and v[1] ~= nil and type(v[1]) == "table" then
      out:write(indent, k, ":\n")
      local sub = {}
      for i, row in ipairs(v) do sub[i] = row end
      local buf = {}
      render_rows(sub, { write = function(_, ...) for _, s in ipairs({...}) do buf[#buf + 1] = s end end },
        { columns = meta.subcolumns and meta.subcolumns[k] })
      for l in table.concat(buf):gmatch("[^\n]+") do out:write(indent, "  ", l, "\n") end
    elseif type(v) == "table" and next(v) ~= nil and v[1] == nil then
      out:write(indent, k, ":\n")
      render_record(v, out, {}, indent .. "  ")
    else
      out:write(indent, k, ":", string.rep(" ", w - #k + 1), cell(v), "\n")
    end
  end
end

hk.renderer{
  name = "table",
  help = "aligned columns for a terminal",
  render = function(rows, out, meta)
    if meta.title then out:write(meta.title, "\n") end
    -- a query may give its own prose for a terminal (leaks: LeakCanary-style traces)
    if type(meta.text) == "string" then out:write(meta.text) return end
    if meta.shape == "record" then render_record(rows, out, meta) else render_rows(rows, out, meta) end
  end,
}
