-- CSV (RFC 4180): one table that parses as CSV.  Rows: a header line, then one line per row.
-- A record (one table of keys): key,value lines.  A nested value (a list, a record) goes into
-- its cell as JSON text on one line.
local field = require("text.csv").field
hk.csv_field = field -- one CSV cell (RFC 4180 quoting), for scripts that write CSV themselves

-- Declared order first, then every other key sorted: nothing is left out.
local function keys_in_order(declared, present)
  local keys, seen = {}, {}
  for _, k in ipairs(declared or {}) do
    if not seen[k] then keys[#keys + 1] = k; seen[k] = true end
  end
  local rest = {}
  for k in pairs(present) do if not seen[k] then rest[#rest + 1] = k; seen[k] = true end end
  table.sort(rest)
  for _, k in ipairs(rest) do keys[#keys + 1] = k end
  return keys
end

local function is_record(rows, meta)
  if meta.shape == "record" then return true end
  local k = next(rows)
  return k ~= nil and type(k) == "string"
end

hk.renderer{
  name = "csv",
  help = "comma-separated values with a header line (nested values as JSON text)",
  render = function(rows, out, meta)
    -- a record may offer a flat view of itself for CSV (leaks: one row per trace)
    if meta.shape == "record" and type(meta.csv_rows) == "table" then
      rows, meta = meta.csv_rows, { columns = meta.csv_columns }
    end
    if is_record(rows, meta) then
      out:write("key,value\r\n")
      local present = {}
      for k in pairs(rows) do present[tostring(k)] = true end
      for _, k in ipairs(keys_in_order(meta.columns, present)) do
        out:write(field(k), ",", field(rows[k]), "\r\n")
      end
      return
    end
    local present = {}
    for _, row in ipairs(rows) do
      if type(row) == "table" then for k in pairs(row) do present[tostring(k)] = true end end
    end
    local cols = keys_in_order(meta.columns, present)
    local line = {}
    for i, c in ipairs(cols) do line[i] = field(c) end
    out:write(table.concat(line, ","), "\r\n")
    for _, row in ipairs(rows) do
      if type(row) ~= "table" then row = { [cols[1] or "value"] = row } end
      for i, c in ipairs(cols) do line[i] = field(row[c]) end
      out:write(table.concat(line, ","), "\r\n")
    end
  end,
}
