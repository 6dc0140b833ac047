hk.query{
  name = "histogram",
  help = "Instances, shallow and retained bytes per class, biggest first.  Instances count under\n" ..
         "their exact class, arrays under their array type (byte[], java.lang.Object[]).  A class's\n" ..
         "retained bytes sum its instances whose immediate dominator is not of the same class.",
  args = { heap = "", n = 0 },
  aliases = { n = "n" },
  options_help = "  --heap NAME   only objects of that heap (Android: app, image, zygote)\n" ..
                 "  -n N          only the N biggest classes (0: all)",
  columns = { "class", "count", "shallow_bytes", "retained_bytes" },
  run = function(dump, args)
    local rows = dump:histogram(args.heap)
    if dump.class_retained then
      -- the heap graph adds retained bytes per class when it is built
      local retained = dump:class_retained()
      for _, row in ipairs(rows) do row.retained_bytes = retained[row.class] or 0 end
    end
    if args.n > 0 then
      for i = #rows, args.n + 1, -1 do rows[i] = nil end
    end
    return rows
  end,
}
