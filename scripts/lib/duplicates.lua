-- require "duplicates": what duplicate-strings and duplicate-arrays share.  The grouping
-- (hashing every value) is done in C by dump:duplicates(); here each group gets a holder.
local M = {}

-- row.holder, row.holder_class: an object that references obj (null when none does)
function M.holder_of(row, obj)
  local refs = obj:referrers()
  local h = refs[1]
  row.holder = h and h.id or hk.null
  row.holder_class = h and h.label or hk.null
end

M.common = "bytes: one copy (shallow sizes, as histogram counts them); wasted_bytes = (count - 1) x\n" ..
           "bytes: what keeping one copy would save.  Every object in the dump counts (garbage\n" ..
           "too).  id: the member with the lowest id; holder: an object that references it."

return M
