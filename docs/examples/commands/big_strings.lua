-- An example query (docs/lua-api.md): Strings longer than --min characters.
hk.query{
  name = "big-strings",
  help = "Strings longer than --min characters",
  args = { min = 1000 },
  aliases = { m = "min" },
  columns = { "id", "length", "text" },
  run = function(dump, args)
    local rows = {}
    for s in dump:class("java.lang.String"):instances() do
      local v = s.value
      if v and utf8.len(v) and utf8.len(v) >= args.min then
        rows[#rows + 1] = { id = s.id, length = utf8.len(v), text = v:sub(1, 40) }
      end
    end
    table.sort(rows, function(a, b) return a.length > b.length or (a.length == b.length and a.id < b.id) end)
    return rows
  end,
}
