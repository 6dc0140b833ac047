-- Bitmaps with identical pixels (what Android Studio's profiler calls duplicate bitmaps).
hk.query{
  name = "duplicate-bitmaps",
  help = "Groups of bitmaps with identical pixels (same width, height and SHA-256 of their straight\n" ..
         "RGBA8888 pixels), biggest waste first.  wasted_bytes = (count - 1) x bytes: what keeping\n" ..
         "one copy would save.  Only bitmaps with an image can be compared (see `bitmaps`).",
  args = { sidecar = "" },
  gates = {
    duplicates = {
      help = "a group of duplicate bitmaps is found; duplicates:BYTES only when they waste BYTES or more",
      check = function(rows, param)
        local min = tonumber(param or 0)
        if not min then hk.usage_error("--fail-on duplicates:BYTES needs a number, got '" .. param .. "'") end
        local wasted = 0
        for _, g in ipairs(rows) do wasted = wasted + g.wasted_bytes end
        return #rows > 0 and wasted >= min,
               string.format("%d groups of identical bitmaps waste %d bytes", #rows, wasted)
      end,
    },
  },
  columns = { "width", "height", "count", "bytes", "wasted_bytes", "pixels_sha256", "ids" },
  run = function(dump, args)
    local rows, summary = dump:bitmap_scan{ sidecar = args.sidecar ~= "" and args.sidecar or nil }
    local groups, order = {}, {}
    for _, r in ipairs(rows) do
      if r.pixels_sha256 ~= hk.null and r.pixels_sha256 ~= nil then
        local key = r.width .. "x" .. r.height .. ":" .. r.pixels_sha256
        local g = groups[key]
        if not g then
          g = { width = r.width, height = r.height, pixels_sha256 = r.pixels_sha256, ids = {}, bytes = 0 }
          groups[key] = g
          order[#order + 1] = g
        end
        g.ids[#g.ids + 1] = r.id
        if r.bytes > g.bytes then g.bytes = r.bytes end
      end
    end
    local out, wasted = {}, 0
    for _, g in ipairs(order) do
      if #g.ids > 1 then
        table.sort(g.ids)
        g.count = #g.ids
        g.wasted_bytes = (g.count - 1) * g.bytes
        wasted = wasted + g.wasted_bytes
        out[#out + 1] = g
      end
    end
    table.sort(out, function(a, b)
      if a.wasted_bytes ~= b.wasted_bytes then return a.wasted_bytes > b.wasted_bytes end
      return a.ids[1] < b.ids[1]
    end)
    return out, { empty = "(no duplicate bitmaps among " .. summary.with_image .. " with pixels)",
                  summary = { groups = #out, wasted_bytes = wasted, compared = summary.with_image } }
  end,
}
