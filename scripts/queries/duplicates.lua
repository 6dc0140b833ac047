-- Duplicate values, as MAT ("group by value"), ahat and Android Studio list them: Strings with
-- the same text and primitive arrays with the same contents.  The grouping (hashing every
-- value) is done in C by dump:duplicates(); here each group gets its example and a holder.
local function holder_of(row, obj)
  local refs = obj:referrers()
  local h = refs[1]
  row.holder = h and h.id or hk.null
  row.holder_class = h and h.label or hk.null
end

local function cut(text, max)
  local length = utf8.len(text) or #text
  if length > max then text = text:sub(1, (utf8.offset(text, max + 1) or max + 1) - 1) end
  return text, length
end

local function array_preview(arr, max)
  local parts = {}
  for i = 0, math.min(arr.length, max) - 1 do parts[#parts + 1] = tostring(arr:at(i)) end
  if arr.length > max then parts[#parts + 1] = "..." end
  return table.concat(parts, " ")
end

local common = "bytes: one copy (shallow sizes, as histogram counts them); wasted_bytes = (count - 1) x\n" ..
               "bytes: what keeping one copy would save.  Every object in the dump counts (garbage\n" ..
               "too).  id: the member with the lowest id; holder: an object that references it."

hk.query{
  name = "duplicate-strings",
  help = "Groups of java.lang.String objects with the same text, most wasted bytes first.\n" ..
         common .. "\nvalue: the text, cut at 200 characters (length: the whole text's).",
  args = { n = 20 },
  aliases = { n = "n" },
  options_help = "  -n N          how many groups (default 20, 0: all)",
  columns = { "count", "bytes", "wasted_bytes", "length", "value", "id", "holder", "holder_class" },
  run = function(dump, args)
    local rows = {}
    for i, g in ipairs(dump:duplicates("strings", args.n)) do
      local text, length = cut(g.object.value or "", 200)
      rows[i] = { count = g.count, bytes = g.bytes, wasted_bytes = g.wasted_bytes, length = length,
                  value = text, id = g.object.id }
      holder_of(rows[i], g.object)
    end
    return rows, { empty = "(no two Strings have the same text)" }
  end,
}

hk.query{
  name = "duplicate-arrays",
  help = "Groups of primitive arrays (byte[], int[], char[], ...) with the same type, length and\n" ..
         "contents, most wasted bytes first.  Arrays that hold a String's text count under\n" ..
         "duplicate-strings instead.  " .. common .. "\nvalue: the first 16 elements.",
  args = { n = 20 },
  aliases = { n = "n" },
  options_help = "  -n N          how many groups (default 20, 0: all)",
  columns = { "class", "length", "count", "bytes", "wasted_bytes", "value", "id", "holder", "holder_class" },
  run = function(dump, args)
    local rows = {}
    for i, g in ipairs(dump:duplicates("arrays", args.n)) do
      local arr = g.object
      rows[i] = { class = arr.class_name, length = arr.length, count = g.count, bytes = g.bytes,
                  wasted_bytes = g.wasted_bytes, value = array_preview(arr, 16), id = arr.id }
      holder_of(rows[i], arr)
    end
    return rows, { empty = "(no two primitive arrays have the same contents)" }
  end,
}
