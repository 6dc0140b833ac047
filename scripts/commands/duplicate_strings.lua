-- Duplicate Strings, as MAT ("group by value"), ahat and Android Studio list them: Strings with
-- the same text.  The grouping (hashing every value) is done in C by dump:duplicates(); here
-- each group gets its example and a holder.
local D = require "duplicates"

local function cut(text, max)
  local length = utf8.len(text) or #text
  if length > max then text = text:sub(1, (utf8.offset(text, max + 1) or max + 1) - 1) end
  return text, length
end

hk.query{
  name = "duplicate-strings",
  help = "Groups of java.lang.String objects with the same text, most wasted bytes first.\n" ..
         D.common .. "\nvalue: the text, cut at 200 characters (length: the whole text's).",
  args = { n = 20, baseline = "" },
  aliases = { n = "n" },
  limit = "n",
  options_help = "  -n N          how many groups (default 20, 0: all)\n" ..
                 "  --baseline DUMP  beside an earlier dump: each figure X also as base_X and delta_X, each\n" ..
                 "                   row NEW / REMOVED / GREW / SHRANK / SAME (what serve --baseline shows)",
  columns = { "count", "bytes", "wasted_bytes", "length", "value", "id", "holder", "holder_class" },
  run = function(dump, args)
    if args.baseline ~= "" then return hk.beside_baseline("duplicate-strings", dump, args) end
    local rows = {}
    for i, g in ipairs(dump:duplicates("strings", args.n)) do
      local text, length = cut(g.object.value or "", 200)
      rows[i] = { count = g.count, bytes = g.bytes, wasted_bytes = g.wasted_bytes, length = length,
                  value = text, id = g.object.id }
      D.holder_of(rows[i], g.object)
    end
    return rows, { empty = "(no two Strings have the same text)" }
  end,
}
