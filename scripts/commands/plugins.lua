-- hprofkit plugins: every plugin the plugins.ini files name, whether it loaded (and why not),
-- and everything it registered: functions (callable as hk.<plugin>.<name> from Lua), bitmap
-- sources and live fetchers.  Bitmap sources registered from Lua (hk.bitmap_source) are
-- listed too, as a row of kind "lua" named by the script that registered them.
local function names(list)
  local out = {}
  for i, x in ipairs(list or {}) do out[i] = x.name end
  return out
end

hk.query {
  name = "plugins",
  help = "List plugins: version, status (ok, error with the reason, disabled), and the functions, "
      .. "bitmap sources and fetchers each one registered; bitmap sources written in Lua too",
  needs_dump = false,
  columns = { "name", "kind", "version", "status", "functions", "bitmap_sources", "fetchers", "summary",
              "path", "ini", "error" },
  run = function()
    local rows = {}
    for _, p in ipairs(hk.plugins()) do
      rows[#rows + 1] = {
        name = p.name, kind = "shared object", version = p.version, status = p.status,
        functions = names(p.functions), bitmap_sources = names(p.bitmap_sources),
        fetchers = names(p.fetchers), summary = p.summary, path = p.path, ini = p.ini, error = p.error,
      }
    end
    local by_script, order = {}, {}
    for _, s in ipairs(hk.bitmap_sources and hk.bitmap_sources() or {}) do
      if not by_script[s.script] then
        by_script[s.script] = {}
        order[#order + 1] = s.script
      end
      table.insert(by_script[s.script], s.name)
    end
    for _, script in ipairs(order) do
      rows[#rows + 1] = { name = script:match("([^/]+)%.lua$") or script, kind = "lua", status = "ok",
                          functions = {}, bitmap_sources = by_script[script], fetchers = {}, path = script }
    end
    return rows
  end,
}
