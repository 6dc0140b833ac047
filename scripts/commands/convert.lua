-- hprofkit convert DUMP --to perfetto-heapgraph|perfetto-embedded --trace FILE
-- A dump as a Perfetto trace: the heap graph ART's android.java_hprof data source would write
-- (references and sizes only), or the HPROF itself in hprofkit.HprofDump chunks with the
-- bitmaps' PNGs (proto/hprof_dump.proto).  The file appears only when complete.
hk.query {
  name = "convert",
  help = "Write DUMP as a Perfetto trace: --to perfetto-heapgraph (references and sizes only) or "
      .. "perfetto-embedded (the HPROF in HprofDump chunks, bitmaps as HprofBitmap PNGs); --trace FILE",
  -- the trace is a file of its own (--trace); -o is the rendered summary, as for every command
  args = { to = "", trace = "", pid = 0, process = "", chunk_kb = 0 },
  options_help = "  --to KIND         perfetto-heapgraph or perfetto-embedded\n" ..
                 "  --trace FILE      the trace (written atomically)\n" ..
                 "  --pid N           the pid the trace names (default 1)\n" ..
                 "  --process NAME    the process name it gives (default: the dump's own)\n" ..
                 "  --chunk-kb N      embedded HPROF chunk size (default 4096)",
  columns = { "path", "to", "objects", "images" },
  run = function(dump, args)
    local kinds = { ["perfetto-heapgraph"] = "heapgraph", ["perfetto-embedded"] = "embedded" }
    local to = kinds[args.to]
    if not to then hk.usage_error("--to perfetto-heapgraph or --to perfetto-embedded") end
    local path = args.trace
    if path == "" then hk.usage_error("--trace FILE: where the trace goes") end
    local info = dump:info()
    local images = to == "embedded" and dump:bitmap_pngs() or {}
    dump:write_perfetto {
      to = to, path = path, pid = args.pid > 0 and math.tointeger(args.pid) or nil,
      process = args.process ~= "" and args.process or (info.process ~= hk.null and info.process or nil),
      chunk_bytes = args.chunk_kb > 0 and math.tointeger(args.chunk_kb * 1024) or nil,
      images = images,
    }
    return { { path = path, to = args.to, objects = info.objects, images = #images } }
  end,
}
