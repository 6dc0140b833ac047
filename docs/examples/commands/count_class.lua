-- An example query: count the instances of one class (exact class) by iterating in Lua.
hk.query{
  name = "count-class",
  help = "Instances of --class counted by iterating from Lua",
  args = { class = "java.lang.String", subclasses = false },
  columns = { "class", "count", "shallow_bytes" },
  run = function(dump, args)
    local cls = dump:class(args.class)
    if not cls then error("no class " .. args.class .. " in this dump", 0) end
    local n, bytes = 0, 0
    for obj in cls:instances(args.subclasses) do
      n = n + 1
      bytes = bytes + obj.shallow_size
    end
    return { { class = args.class, count = n, shallow_bytes = bytes } }
  end,
}
