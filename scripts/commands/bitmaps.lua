-- Every android.graphics.Bitmap, biggest first, with where its pixels came from.
local columns = { "id", "width", "height", "native_ptr", "recycled", "drawable", "bytes", "estimated",
                  "source", "reason", "pixels_sha256" }

local function sort_rows(rows)
  table.sort(rows, function(a, b)
    if a.bytes ~= b.bytes then return a.bytes > b.bytes end
    local pa, pb = a.width * a.height, b.width * b.height
    if pa ~= pb then return pa > pb end
    return a.id < b.id
  end)
end

hk.query{
  name = "bitmaps",
  help = "Every android.graphics.Bitmap, biggest first: size, native pointer, the bytes it costs\n" ..
         "(mBuffer before API 26; native bytes after, from the NativeAllocationRegistry reached\n" ..
         "through its Cleaner, else width*height*4 marked estimated), where its pixels came from\n" ..
         "(dumpdata, mbuffer, sidecar DUMP.bitmaps/0x<ptr>.png, a Lua source) and a SHA-256 of\n" ..
         "them as straight RGBA8888.  Images found under a pointer are accepted only when their\n" ..
         "PNG size equals the bitmap's; rejections are counted as mismatched.",
  args = { export = "", min_pixels = 0, sidecar = "", baseline = "" },
  options_help = "  --export DIR      write <id>.png for every bitmap with an image (atomically)\n" ..
                 "  --min-pixels N    only bitmaps with at least N pixels\n" ..
                 "  --sidecar DIR     look for 0x<ptr>.png in DIR instead of DUMP.bitmaps/\n" ..
                 "  --baseline DUMP  beside an earlier dump: each figure X also as base_X and delta_X, each\n" ..
                 "                   row NEW / REMOVED / GREW / SHRANK / SAME (what serve --baseline shows)",
  shape = "record",
  columns = { "bitmaps", "summary" },
  gates = {
    mismatched = {
      help = "an image found under a bitmap's pointer has another size (a reused pointer, a stale sidecar)",
      check = function(r)
        local n = r.summary.mismatched
        return n > 0, n .. " images rejected: their size is not their bitmap's"
      end,
    },
  },
  run = function(dump, args)
    if args.baseline ~= "" then return hk.beside_baseline("bitmaps", dump, args) end
    local rows, summary = dump:bitmap_scan{
      export = args.export ~= "" and args.export or nil,
      min_pixels = tonumber(args.min_pixels) or 0,
      sidecar = args.sidecar ~= "" and args.sidecar or nil,
    }
    sort_rows(rows)
    for _, r in ipairs(rows) do
      for _, c in ipairs(columns) do if r[c] == nil then r[c] = hk.null end end
    end
    return { bitmaps = rows, summary = summary },
           { subcolumns = { bitmaps = { "id", "width", "height", "native_ptr", "bytes", "source", "note", "pixels_sha256", "reason" } } }
  end,
}
