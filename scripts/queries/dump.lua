-- hprofkit dump [-s SERIAL] PROCESS [--hprof FILE] [--no-gc] [--bitmaps|--no-bitmaps]
-- Takes a heap dump with `am dumpheap` (GC first: -g on API 27+, through the jdwp plugin before
-- that; -b png on API 35+ unless --no-bitmaps), waits until the file stops growing, pulls it with
-- its size checked and removes it from the device.  The local file appears only when complete.
hk.query {
  name = "dump",
  help = "Take a heap dump of PROCESS (name or pid) from a device into --hprof FILE "
      .. "(default PROCESS-DATE-TIME.hprof; -o is the rendered output, as everywhere); only debuggable apps (or any app on a userdebug/eng "
      .. "build) can be dumped",
  needs_dump = false,
  positional = { "process" },
  -- gc = true gives --no-gc; bitmaps stays unset (API 35+ default) unless --bitmaps or --no-bitmaps.
  -- hprof is the dump's local path (-o FILE is the rendered output, as for every command).
  args = { serial = "", hprof = "", gc = true, bitmaps = false, no_bitmaps = false },
  aliases = { s = "serial" },
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
    return { { path = path, file_bytes = info.bytes, gc = info.gc, bitmaps = info.bitmaps } }
  end,
}
