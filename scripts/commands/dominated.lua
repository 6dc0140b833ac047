hk.query{
  name = "dominated",
  help = "The dominator tree one level at a time: the objects ID immediately dominates (without an\n" ..
         "ID, those the virtual root dominates: the tops of the tree), largest retained first,\n" ..
         "with their sizes.",
  positional = { "dump", "id" },
  args = { id = "", n = 100, baseline = "" },
  aliases = { n = "n" },
  options_help = "  -n N          how many (default 100)\n" ..
                 "  --baseline DUMP  beside an earlier dump: each figure X also as base_X and delta_X, each\n" ..
                 "                   row NEW / REMOVED / GREW / SHRANK / SAME (what serve --baseline shows)",
  columns = { "id", "class", "shallow_bytes", "retained_bytes", "retained_native_bytes" },
  run = function(dump, args)
    if args.baseline ~= "" then return hk.beside_baseline("dominated", dump, args) end
    local list
    if args.id == "" then
      list = dump:dominated_by_root(args.n)
    else
      local obj = dump:object(args.id)
      if not obj then hk.usage_error("no object with id " .. args.id .. " in this dump") end
      list = obj:dominated(args.n)
    end
    local rows = {}
    for i, o in ipairs(list) do
      rows[i] = { id = o.id, class = o.label, shallow_bytes = o.shallow_size, retained_bytes = o:retained_size(),
                  retained_native_bytes = o:retained_native() }
    end
    return rows
  end,
}
