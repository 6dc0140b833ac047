hk.query{
  name = "top",
  help = "The objects that retain the most memory: retained size is what the garbage collector\n" ..
         "would free if the object went away (its dominator subtree, over strong references;\n" ..
         "sizes as ART records them, or as the JVM lays out a HotSpot dump's objects).  Live (strongly reachable) objects only, unless\n" ..
         "--all.  native_bytes: bytes registered with a NativeAllocationRegistry for the object\n" ..
         "itself (Android 8+ bitmap pixels); retained_native_bytes: the same over everything it retains.",
  -- --class is top's own: the glob is matched in C while the objects are ranked, so the top N
  -- of a class never turns every live object into a row first
  args = { n = 20, all = false, class = "", heap = "", baseline = "" },
  aliases = { n = "n" },
  limit = "n",
  -- --sort on these ranks in C too, keeping only the n best (never a row per live object)
  sorts = { "retained_bytes", "shallow_bytes", "native_bytes", "retained_native_bytes" },
  options_help = "  -n N          how many objects (default 20, 0: all)\n" ..
                 "  --all         also objects that are not strongly reachable (garbage, weakly held)\n" ..
                 "  --class GLOB  only objects whose class matches (a class object's is `class NAME`)\n" ..
                 "  --heap NAME   only objects in that heap (app, zygote, image; all: every heap); their\n" ..
                 "                retained bytes stay the whole dump's\n" ..
                 "  --baseline DUMP  beside an earlier dump: each figure X also as base_X and delta_X, each\n" ..
                 "                   row NEW / REMOVED / GREW / SHRANK / SAME (what serve --baseline shows)",
  columns = { "id", "class", "reachability", "shallow_bytes", "retained_bytes", "native_bytes", "retained_native_bytes" },
  run = function(dump, args)
    if args.baseline ~= "" then return hk.beside_baseline("top", dump, args) end
    local rows = {}
    -- n = 0: every object (the CLI asks for that when --sort names a column top does not rank by)
    local n = args.n > 0 and args.n or dump:info().objects
    for i, obj in ipairs(dump:top_retained(n, args.all, args.class, args.heap, args.sort)) do
      rows[i] = {
        id = obj.id, class = obj.label, reachability = obj.reachability, shallow_bytes = obj.shallow_size,
        retained_bytes = obj:retained_size(), native_bytes = obj.native_size,
        retained_native_bytes = obj:retained_native(),
      }
    end
    return rows
  end,
}
