-- The arithmetic fleet-report rests on, kept apart so it reads (and is tested) on its own:
-- nearest-rank percentiles and the order of version names.
local M = {}

-- The p-th percentile by nearest rank of a sorted array: the smallest value with at least p% of
-- the values at or below it (P50 of 1..4 is 2, P75 is 3, P95 is 4).
function M.nearest_rank(sorted, p)
  local n = #sorted
  if n == 0 then return nil end
  local rank = math.ceil(p / 100 * n)
  if rank < 1 then rank = 1 end
  return sorted[rank]
end

-- "1.10.0" after "1.9.2": names split into runs of digits and of other characters, digit runs
-- compared as numbers, the rest as text; a name that is a prefix of the other comes first.
local function segments(name)
  local out = {}
  for digits, other in name:gmatch("(%d*)(%D*)") do
    if digits ~= "" then out[#out + 1] = tonumber(digits) end
    if other ~= "" then out[#out + 1] = other end
  end
  return out
end

function M.version_less(a, b)
  local sa, sb = segments(a), segments(b)
  for i = 1, math.max(#sa, #sb) do
    local x, y = sa[i], sb[i]
    if x == nil then return true end
    if y == nil then return false end
    if type(x) ~= type(y) then return type(x) == "number" end   -- numbers before text
    if x ~= y then return x < y end
  end
  return false
end

return M
