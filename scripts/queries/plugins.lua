-- hprofkit plugins: every plugin the plugins.ini files name, whether it loaded (and why not),
-- and everything it registered: functions (callable as hk.<plugin>.<name> from Lua), bitmap
-- sources and live fetchers.
local function names(list)
  local out = {}
  for i, x in ipairs(list) do out[i] = x.name end
  return table.concat(out, ", ")
end

hk.query {
  name = "plugins",
  help = "List plugins: version, status (ok, error with the reason, disabled), and the functions, "
      .. "bitmap sources and fetchers each one registered",
  needs_dump = false,
  args = {},
  columns = { "name", "version", "status", "functions", "bitmap_sources", "fetchers", "summary",
              "path", "ini", "error" },
  run = function(_, args)
    local rows = {}
    for _, p in ipairs(hk.plugins()) do
      rows[#rows + 1] = {
        name = p.name, version = p.version, status = p.status,
        functions = names(p.functions), bitmap_sources = names(p.bitmap_sources),
        fetchers = names(p.fetchers), summary = p.summary, path = p.path, ini = p.ini, error = p.error,
      }
    end
    return rows
  end,
}
