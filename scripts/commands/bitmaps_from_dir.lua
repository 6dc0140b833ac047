-- Example of a bitmap source written in Lua: PNGs named 0x<native pointer>.png in a directory
-- given as an argument (what LeakCanary or any tool could write beside a dump).  The core
-- checks each PNG's size against its bitmap, exactly as for the built-in sources.
--
--   hprofkit bitmaps-from-dir DUMP --dir DIR [--json] [--export OUT]
--
-- The same source registered with hk.bitmap_source{} at the top level of a script of your own
-- (~/.config/hprofkit/scripts/*.lua) makes every command (bitmaps, duplicate-bitmaps,
-- dump:bitmap_image) see those images.
local function png_dir_source(dir)
  return {
    name = "dir:" .. dir,
    by_pointer = true,
    image = function(dump, bitmap)
      local f = io.open(dir .. "/" .. bitmap.native_ptr .. ".png", "rb")
      if not f then return nil end
      local bytes = f:read("a")
      f:close()
      return bytes
    end,
  }
end

hk.query{
  name = "bitmaps-from-dir",
  help = "Like `bitmaps`, with one more source: DIR/0x<native pointer>.png (an example of a\n" ..
         "bitmap source written in Lua, see scripts/commands/bitmaps_from_dir.lua).",
  args = { dir = "", export = "" },
  shape = "record",
  columns = { "bitmaps", "summary" },
  run = function(dump, args)
    if args.dir == "" then hk.usage_error("give the directory with --dir DIR") end
    local d = io.open(args.dir .. "/.")
    if not d then hk.usage_error("--dir " .. args.dir .. ": no such directory") end
    d:close()
    -- a source for this scan alone: registering one (hk.bitmap_source) is for a script as it loads
    local rows, summary = dump:bitmap_scan{ export = args.export ~= "" and args.export or nil,
                                            sources = { png_dir_source(args.dir) } }
    table.sort(rows, function(a, b) return a.bytes > b.bytes or (a.bytes == b.bytes and a.id < b.id) end)
    return { bitmaps = rows, summary = summary },
           { subcolumns = { bitmaps = { "id", "width", "height", "native_ptr", "bytes", "source", "pixels_sha256", "reason" } } }
  end,
}
