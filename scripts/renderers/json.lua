-- JSON: an array of row objects, or one object for a record (lib/text/json.lua).
local json = require "text.json"

hk.renderer{
  name = "json",
  help = "JSON: an array of objects (or one object), ids as hex strings, null for absent",
  render = function(rows, out, meta)
    -- flat rows get every declared column, null when absent
    if meta.columns and meta.shape ~= "record" then
      for _, row in ipairs(rows) do
        for _, c in ipairs(meta.columns) do if row[c] == nil then row[c] = hk.null end end
      end
    elseif meta.columns and meta.shape == "record" then
      for _, c in ipairs(meta.columns) do if rows[c] == nil then rows[c] = hk.null end end
    end
    out:write(json.encode(rows, meta.columns), "\n")
  end,
}
