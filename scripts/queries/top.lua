hk.query{
  name = "top",
  help = "The objects that retain the most memory: retained size is what the garbage collector\n" ..
         "would free if the object went away (its dominator subtree, over strong references;\n" ..
         "sizes as ART records them, or as the JVM lays out a HotSpot dump's objects).  Live (strongly reachable) objects only, unless\n" ..
         "--all.  native_bytes: bytes registered with a NativeAllocationRegistry for the object\n" ..
         "itself (Android 8+ bitmap pixels); retained_native_bytes: the same over everything it retains.",
  args = { n = 20, all = false },
  aliases = { n = "n" },
  options_help = "  -n N          how many objects (default 20)\n" ..
                 "  --all         also objects that are not strongly reachable (garbage, weakly held)",
  columns = { "id", "class", "reachability", "shallow_bytes", "retained_bytes", "native_bytes", "retained_native_bytes" },
  run = function(dump, args)
    local rows = {}
    for i, obj in ipairs(dump:top_retained(args.n, args.all)) do
      rows[i] = {
        id = obj.id, class = obj.label, reachability = obj.reachability, shallow_bytes = obj.shallow_size,
        retained_bytes = obj:retained_size(), native_bytes = obj.native_size,
        retained_native_bytes = obj:retained_native(),
      }
    end
    return rows
  end,
}
