-- How one holder points at the object: the field, static or array slot (the first, when several).
local function reference_to(holder, obj)
  if holder.kind == "instance" then
    for _, f in ipairs(holder:fields()) do
      if f.type == "object" and f.ref == obj.id then return { type = "field", name = f.name } end
    end
  elseif holder.kind == "class" then
    for _, s in ipairs(holder.as_class:statics()) do
      local v = s.value
      if type(v) == "userdata" and v == obj then return { type = "static", name = s.name } end
    end
    local super, loader = holder.as_class.super, holder.as_class.loader
    if super and super.object == obj then return { type = "superclass", name = "super" } end
    if loader and loader == obj then return { type = "loader", name = "loader" } end
  elseif holder.kind == "object_array" then
    for i = 0, holder.length - 1 do -- by id: a String element would read as its text
      if holder:id_at(i) == obj.id then return { type = "array", name = "[" .. i .. "]" } end
    end
  end
  return hk.null
end

hk.query{
  name = "referrers",
  help = "Who holds an object: every object that references it (strong references first, then the\n" ..
         "Reference objects whose referent it is), each with the field, static or array index\n" ..
         "that points at it, its class, sizes and reachability.  Paged with --offset and -n.",
  positional = { "dump", "id" },
  args = { n = 100, offset = 0 },
  aliases = { n = "n" },
  options_help = "  -n N          how many referrers (default 100)\n" ..
                 "  --offset K    skip the first K",
  columns = { "id", "class", "reference", "shallow_bytes", "retained_bytes", "reachability" },
  run = function(dump, args)
    local obj = dump:object(args.id)
    if not obj then hk.usage_error("no object with id " .. args.id .. " in this dump") end
    local refs, rows = obj:referrers(), {}
    for i = args.offset + 1, math.min(#refs, args.offset + args.n) do
      local r = refs[i]
      rows[#rows + 1] = {
        id = r.id, class = r.label, reference = reference_to(r, obj), shallow_bytes = r.shallow_size,
        retained_bytes = r:retained_size(), reachability = r.reachability,
      }
    end
    return rows, { total = #refs }
  end,
}
