-- CSV (RFC 4180): a header line, then one line per row.
local function field(v)
  if v == nil or v == hk.null then return "" end
  local s = tostring(v)
  if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

hk.renderer{
  name = "csv",
  help = "comma-separated values with a header line",
  render = function(rows, out, meta)
    -- a record may offer a flat view of itself for CSV (leaks: one row per trace)
    if meta.shape == "record" and type(meta.csv_rows) == "table" then
      rows, meta = meta.csv_rows, { columns = meta.csv_columns }
    end
    if meta.shape == "record" then
      out:write("key,value\n")
      local keys = meta.columns or {}
      if #keys == 0 then for k in pairs(rows) do keys[#keys + 1] = k end table.sort(keys) end
      for _, k in ipairs(keys) do
        if type(rows[k]) ~= "table" then out:write(field(k), ",", field(rows[k]), "\n") end
      end
      return
    end
    local cols = meta.columns
    if not cols then
      local seen = {}
      cols = {}
      for _, row in ipairs(rows) do
        for k in pairs(row) do if not seen[k] then seen[k] = true; cols[#cols + 1] = k end end
      end
      table.sort(cols)
    end
    local line = {}
    for i, c in ipairs(cols) do line[i] = field(c) end
    out:write(table.concat(line, ","), "\r\n")
    for _, row in ipairs(rows) do
      for i, c in ipairs(cols) do line[i] = field(row[c]) end
      out:write(table.concat(line, ","), "\r\n")
    end
  end,
}
