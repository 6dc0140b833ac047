-- hprofkit meminfo FILE [--json]          a saved `adb shell dumpsys meminfo <pid|package>`
-- hprofkit meminfo -s SERIAL PROCESS       the same, taken live from a device
-- The meminfo plugin parses and checks it.  The result is the plugin's document as a
-- record, so --json prints exactly its schema (pid, process, columns, rows, summary,
-- summary_rss, objects, sql, databases, native_allocations, checks, warnings, ...).
-- For the table view each row also answers its columns by name (a metatable, so
-- the JSON keeps only name/parent/values).
local function present(v)
  return v ~= nil and v ~= hk.null
end

-- Lets the table renderer read row[column] and an indented "row" label.
local function cells(rows)
  for _, r in ipairs(rows) do
    setmetatable(r, {
      __index = function(t, k)
        if k == "row" then
          return (present(rawget(t, "parent")) and "  " or "") .. rawget(t, "name")
        end
        local v = rawget(t, "values")
        return v and v[k] or nil
      end,
    })
  end
end

local function union_columns(rows)
  local seen, cols = {}, {}
  for _, r in ipairs(rows) do
    for k in pairs(r.values) do
      if not seen[k] then seen[k] = true; cols[#cols + 1] = k end
    end
  end
  table.sort(cols)
  return cols
end

hk.query{
  name = "meminfo",
  help = "Parse and check `adb shell dumpsys meminfo <pid|package>`: the table (sub-rows under\n" ..
         "their parent), App Summary, Objects, SQL, DATABASES, and checks of TOTAL and the App\n" ..
         "Summary against their definitions.  FILE is a saved capture; with -s SERIAL (or\n" ..
         "--device) FILE is a pid or package and the capture is taken live.",
  positional = { "file" },
  needs_dump = false,
  args = { serial = "", device = false },
  gates = {
    checks = {
      help = "a check of TOTAL or the App Summary against its definition fails",
      check = function(t)
        local failed = {}
        for _, c in ipairs(t.checks) do if not c.ok then failed[#failed + 1] = c.name end end
        return #failed > 0, #failed .. " failed: " .. table.concat(failed, ", ")
      end,
    },
  },
  aliases = { s = "serial" },
  shape = "record",
  columns = { "pid", "process", "columns", "rows", "summary", "summary_rss", "objects", "sql",
              "databases", "native_allocations", "assets", "checks", "warnings" },
  run = function(_, args)
    if not hk.meminfo then
      error("the meminfo plugin is not loaded: see `hprofkit plugins` and the [meminfo] section of plugins.ini", 0)
    end
    local t
    if args.serial ~= "" or args.device then
      t = hk.meminfo.device(args.file, args.serial)
    else
      local ok, text = pcall(hk.read_file, args.file)
      if not ok then
        hk.usage_error(tostring(text) .. " (for a live capture: hprofkit meminfo -s SERIAL PROCESS)")
      end
      local parsed
      parsed, t = pcall(hk.meminfo.parse, text)
      -- the file is the user's data, not the plugin's fault: its name, the reason, exit 1
      if not parsed then error({ message = args.file .. ": " .. (tostring(t):gsub("^plugin [%w_-]+: [%w_.]+: ", "")), exit_code = 1 }) end
    end
    cells(t.rows)
    cells(t.databases)
    cells(t.native_allocations)
    local rowcols = { "row" }
    for _, c in ipairs(t.columns) do rowcols[#rowcols + 1] = c end
    local dbcols = { "name", "group", "cache" }
    for _, c in ipairs(union_columns(t.databases)) do dbcols[#dbcols + 1] = c end
    local nacols = { "row" }
    for _, c in ipairs(union_columns(t.native_allocations)) do nacols[#nacols + 1] = c end
    local failed = 0
    for _, c in ipairs(t.checks) do
      if not c.ok then failed = failed + 1 end
    end
    return t, {
      title = string.format("pid %s [%s]: %d checks, %d failed", tostring(t.pid), tostring(t.process),
        #t.checks, failed),
      subcolumns = {
        rows = rowcols,
        databases = dbcols,
        native_allocations = nacols,
        assets = { "name", "size", "kb" },
        checks = { "name", "ok", "detail" },
      },
    }
  end,
}
