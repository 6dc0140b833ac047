-- Units a user writes on the command line, read one way by every command:
-- durations ("500ms", "2s", "1.5m", "1h", and "0") in seconds; and bytes as a person reads
-- them (binary units, one decimal).
local M = {}

-- 1090 -> "1.1 KiB", 512 -> "512 B", nil/hk.null -> "–"
function M.bytes(n)
  if n == nil or n == hk.null then return "–" end
  local units, v, i = { "B", "KiB", "MiB", "GiB", "TiB" }, n, 1
  while math.abs(v) >= 1024 and i < #units do v = v / 1024; i = i + 1 end
  return i == 1 and string.format("%d B", n) or string.format("%.1f %s", v, units[i])
end

-- who: the command and option for the message ("watch: --interval").
function M.duration(text, who)
  local n, unit = tostring(text):match("^%s*(%d+%.?%d*)%s*(%a*)%s*$")
  local scale = ({ ms = 0.001, s = 1, m = 60, h = 3600 })[unit or ""]
  if n and unit == "" and tonumber(n) == 0 then scale = 1 end
  if not n or not scale then
    hk.usage_error(string.format("%s '%s' is not a duration (say 500ms, 2s, 5m or 1h)", who, tostring(text)))
  end
  return tonumber(n) * scale
end

return M
