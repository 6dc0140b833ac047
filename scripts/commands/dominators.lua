hk.query{
  name = "dominators",
  help = "An object's place in the dominator tree: the chain of immediate dominators from the\n" ..
         "object up to the root (each one's removal would free the object), then the objects\n" ..
         "it immediately dominates, largest retained first.",
  positional = { "dump", "id" },
  args = { n = 10 },
  aliases = { n = "n" },
  limit = "n",
  limited = function(row) return row.relation == "dominated" end,
  options_help = "  -n N          how many dominated objects (default 10, 0: all)",
  columns = { "relation", "depth", "id", "class", "shallow_bytes", "retained_bytes", "retained_native_bytes" },
  run = function(dump, args)
    local obj = dump:object(args.id)
    if not obj then hk.usage_error("no object with id " .. args.id .. " in this dump") end
    local function row(relation, depth, o)
      return { relation = relation, depth = depth, id = o.id, class = o.label,
               shallow_bytes = o.shallow_size, retained_bytes = o:retained_size(),
               retained_native_bytes = o:retained_native() }
    end
    local chain = {}
    local o = obj
    while o do chain[#chain + 1] = o; o = o:dominator() end
    local rows = {}
    -- root first: depth 1 is the topmost dominator, under the virtual root
    for i = #chain, 1, -1 do
      rows[#rows + 1] = row(i == 1 and "object" or "dominator", #chain - i + 1, chain[i])
    end
    for _, kid in ipairs(obj:dominated(args.n)) do
      rows[#rows + 1] = row("dominated", #chain + 1, kid)
    end
    return rows
  end,
}
