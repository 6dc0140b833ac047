local sort_keys = {
  retained_bytes = function(o) return o:retained_size() end,
  shallow_bytes = function(o) return o.shallow_size end,
}

hk.query{
  name = "instances",
  help = "The instances of a class, largest retained size first (--sort shallow_bytes or id),\n" ..
         "with their heap, sizes and reachability; --heap NAME keeps one heap's, --subclasses\n" ..
         "adds the subclasses' instances, --text S keeps Strings whose text contains S.  Paged\n" ..
         "with --offset and -n.",
  positional = { "dump", "class" },
  args = { heap = "", sort = "retained_bytes", n = 100, offset = 0, subclasses = false, text = "" },
  aliases = { n = "n" },
  options_help = "  -n N          how many instances (default 100)\n" ..
                 "  --offset K    skip the first K (after sorting)",
  columns = { "id", "class", "heap", "shallow_bytes", "retained_bytes", "reachability", "value" },
  run = function(dump, args)
    local cls = dump:class(args.class)
    if not cls then hk.usage_error("no class named " .. args.class .. " in this dump") end
    local key = sort_keys[args.sort]
    if not key and args.sort ~= "id" then
      hk.usage_error("--sort takes retained_bytes, shallow_bytes or id, not " .. args.sort)
    end
    local list = {}
    for obj in cls:instances(args.subclasses) do
      if (args.heap == "" or obj.heap == args.heap) and
         (args.text == "" or (obj.value and obj.value:find(args.text, 1, true))) then
        list[#list + 1] = obj
      end
    end
    if key then
      local k = {}
      for i, o in ipairs(list) do k[o] = key(o) end
      table.sort(list, function(a, b) if k[a] ~= k[b] then return k[a] > k[b] end return a.id < b.id end)
    end
    local rows = {}
    for i = args.offset + 1, math.min(#list, args.offset + args.n) do
      local o = list[i]
      rows[#rows + 1] = {
        id = o.id, class = o.label, heap = o.heap or hk.null, shallow_bytes = o.shallow_size,
        retained_bytes = o:retained_size(), reachability = o.reachability, value = o.value or hk.null,
      }
    end
    return rows, { total = #list }
  end,
}
