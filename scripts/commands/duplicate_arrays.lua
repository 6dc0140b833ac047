-- Duplicate primitive arrays, as MAT ("group by value"), ahat and Android Studio list them:
-- arrays with the same type, length and contents.  The grouping (hashing every value) is done
-- in C by dump:duplicates(); here each group gets its example and a holder.
local D = require "duplicates"

local function array_preview(arr, max)
  local parts = {}
  for i = 0, math.min(arr.length, max) - 1 do parts[#parts + 1] = tostring(arr:at(i)) end
  if arr.length > max then parts[#parts + 1] = "..." end
  return table.concat(parts, " ")
end

-- The arrays other reports count, left out of duplicate-arrays so that each byte counts once:
-- Bitmaps' pixel buffers (mBuffer, before API 26: duplicate-bitmaps compares their pixels) and
-- the $staticOverhead arrays Dalvik-era dumps give class objects (not values the app holds:
-- the bytes of the class's statics).  Returns the Objects and a note saying what was left out.
local function owned_elsewhere(dump)
  local skip, pixels, overhead, bytes = {}, 0, 0, 0
  local function add(obj)
    if obj and obj.kind == "primitive_array" then
      skip[#skip + 1] = obj
      bytes = bytes + obj.shallow_size
      return 1
    end
    return 0
  end
  for _, b in ipairs(dump:bitmaps()) do
    if b.buffer then pixels = pixels + add(dump:object(b.buffer)) end
  end
  for _, cls in ipairs(dump:classes()) do
    local v = cls:static("$staticOverhead")
    if type(v) == "userdata" and v ~= hk.null then overhead = overhead + add(v) end
  end
  local note = #skip > 0 and string.format("left out %d arrays (%d bytes) other reports count: %d Bitmap pixel " ..
    "buffers (duplicate-bitmaps), %d $staticOverhead arrays of class objects", #skip, bytes, pixels, overhead) or nil
  return skip, note
end

hk.query{
  name = "duplicate-arrays",
  help = "Groups of primitive arrays (byte[], int[], char[], ...) with the same type, length and\n" ..
         "contents, most wasted bytes first.  Left out, so each byte counts in one report: arrays\n" ..
         "that hold a String's text (duplicate-strings), Bitmaps' pixel buffers (duplicate-bitmaps)\n" ..
         "and the $staticOverhead arrays of Dalvik-era class objects (the bytes of a class's\n" ..
         "statics, not a value); a note on stderr counts them.  " .. D.common .. "\nvalue: the first 16 elements.",
  args = { n = 20, baseline = "" },
  aliases = { n = "n" },
  limit = "n",
  options_help = "  -n N          how many groups (default 20, 0: all)\n" ..
                 "  --baseline DUMP  beside an earlier dump: each figure X also as base_X and delta_X, each\n" ..
                 "                   row NEW / REMOVED / GREW / SHRANK / SAME (what serve --baseline shows)",
  columns = { "class", "length", "count", "bytes", "wasted_bytes", "value", "id", "holder", "holder_class" },
  run = function(dump, args)
    if args.baseline ~= "" then return hk.beside_baseline("duplicate-arrays", dump, args) end
    local rows = {}
    local skip, note = owned_elsewhere(dump)
    if note then hk.warn("duplicate-arrays: note: " .. note) end
    for i, g in ipairs(dump:duplicates("arrays", args.n, skip)) do
      local arr = g.object
      rows[i] = { class = arr.class_name, length = arr.length, count = g.count, bytes = g.bytes,
                  wasted_bytes = g.wasted_bytes, value = array_preview(arr, 16), id = arr.id }
      D.holder_of(rows[i], arr)
    end
    return rows, { empty = "(no two primitive arrays have the same contents)" }
  end,
}
