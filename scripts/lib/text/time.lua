-- require "text.time": a dump's time (ms since 1970) as a person reads it: ISO 8601 in UTC
-- with milliseconds, 2026-12-01T13:06:03.123Z (the table renderer, info, the report).
local M = {}

function M.iso8601(ms)
  return os.date("!%Y-%m-%dT%H:%M:%S", ms // 1000) .. string.format(".%03dZ", ms % 1000)
end

return M
