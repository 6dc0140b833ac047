-- hprofkit dump [-s SERIAL] PROCESS [--hprof FILE] [--no-gc] [--bitmaps|--no-bitmaps]
-- Takes a heap dump with `am dumpheap` (GC first: -g on API 27+, through the jdwp plugin before
-- that; -b png on API 35+ unless --no-bitmaps), waits until the file stops growing, pulls it with
-- its size checked and removes it from the device.  The local file appears only when complete.
-- --perfetto FILE also writes what the seed's android.hprof_dump data source would: a Perfetto
-- trace with the dump in HprofDump chunks and, for a -b png dump, its bitmaps as HprofBitmap PNGs.
hk.query {
  name = "dump",
  help = "Take a heap dump of PROCESS (name or pid) from a device into --hprof FILE "
      .. "(default PROCESS-DATE-TIME.hprof; -o is the rendered output, as everywhere); only debuggable apps (or any app on a userdebug/eng "
      .. "build) can be dumped; --perfetto TRACE also writes it as a Perfetto trace (the HPROF "
      .. "embedded in HprofDump chunks, its bitmaps as HprofBitmap PNGs)",
  needs_dump = false,
  positional = { "process" },
  -- gc = true gives --no-gc; bitmaps stays unset (API 35+ default) unless --bitmaps or --no-bitmaps.
  -- hprof is the dump's local path (-o FILE is the rendered output, as for every command).
  args = { serial = "", hprof = "", gc = true, bitmaps = false, no_bitmaps = false, perfetto = "" },
  aliases = { s = "serial" },
  options_help = "  -s SERIAL        the device (needed when several are online)\n" ..
                 "  --hprof FILE     where the dump goes (default PROCESS-DATE-TIME.hprof)\n" ..
                 "  --no-gc          no garbage collection before the dump\n" ..
                 "  --bitmaps        ask for the pixels (-b png; the default on API 35+)\n" ..
                 "  --no-bitmaps     do not ask for them\n" ..
                 "  --perfetto TRACE also write the dump as a Perfetto trace",
  columns = { "path", "file_bytes", "gc", "bitmaps" },
  run = function(dump, args)
    local process = args.process
    if process == nil or process == "" then process = args[1] end
    if process == nil or process == "" then
      error("dump: which process? give its name or pid (see `hprofkit processes`)")
    end
    local serial = args.serial
    if serial == "" then serial = nil end
    local bitmaps = nil -- the default: pixels on API 35+
    if args.bitmaps then bitmaps = true elseif args.no_bitmaps then bitmaps = false end
    local output = args.hprof
    if output == "" then output = nil end
    local path, info = hk.device(serial):dump_heap(process, {
      gc = args.gc ~= false, bitmaps = bitmaps, output = output,
    })
    if args.perfetto and args.perfetto ~= "" then
      local d = hk.open(path)
      d:write_perfetto { to = "embedded", path = args.perfetto, pid = math.tointeger(tonumber(process)),
                         process = not tonumber(process) and process or nil, images = d:bitmap_pngs() }
    end
    return { { path = path, file_bytes = info.bytes, gc = info.gc, bitmaps = info.bitmaps } }
  end,
}
