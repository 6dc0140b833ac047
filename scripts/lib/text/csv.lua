-- require "text.csv": one CSV cell (RFC 4180 quoting); a nested value (a list, a record) as
-- JSON text on one line.  The csv renderer's cells, and hk.csv_field for users' scripts.
local json = require "text.json"
local M = {}

local function text(v)
  if v == nil or v == hk.null then return "" end
  if type(v) == "table" then return json.encode(v, nil, true) end
  return tostring(v)
end

function M.field(v)
  local s = text(v)
  if s:find('[,"\r\n]') then s = '"' .. s:gsub('"', '""') .. '"' end
  return s
end

return M
