hk.query{
  name = "histogram",
  help = "Instances, shallow and retained bytes per class, biggest first.  Instances count under\n" ..
         "their exact class, arrays under their array type (byte[], java.lang.Object[]).  A class's\n" ..
         "retained bytes sum its instances that no other instance of the class dominates; with\n" ..
         "--heap, the bytes of that heap they retain (ahat's per-heap retained size).  native_bytes:\n" ..
         "the native sizes of its instances summed (as `top`'s native_bytes: NativeAllocationRegistry,\n" ..
         "Android 8+ bitmap pixels).",
  args = { heap = "", n = 0, baseline = "" },
  aliases = { n = "n" },
  limit = "n",
  options_help = "  --heap NAME   only objects of that heap (Android: app, image, zygote)\n" ..
                 "  -n N          only the N biggest classes (0: all)\n" ..
                 "  --baseline DUMP  beside an earlier dump: each figure X also as base_X and delta_X, each\n" ..
                 "                   row NEW / REMOVED / GREW / SHRANK / SAME (what serve --baseline shows)",
  columns = { "class", "count", "shallow_bytes", "retained_bytes", "native_bytes" },
  run = function(dump, args)
    if args.baseline ~= "" then return hk.beside_baseline("histogram", dump, args) end
    -- retained and native bytes per class come with the rows (of the heap, with --heap)
    local rows = dump:histogram(args.heap)
    if args.n > 0 then
      for i = #rows, args.n + 1, -1 do rows[i] = nil end
    end
    return rows
  end,
}
