-- fleet-report: the reduce step's second half.  From the database fleet-ingest fills, for one
-- app (its package; a database of several names them and asks for --app): per group (by default
-- app version and leak signature) how many dumps and devices hold the leak, its retained bytes
-- (P50/P75/P95 by nearest rank, max), first and last seen; the regressions between consecutive
-- versions; totals per version and, by route, per screen.  --report FILE.html renders the same.
local fleetdb = require "fleet.db"
local stats = require "fleet.stats"
local SCHEMA = "hprofkit-fleet-report/1"

local function usage(msg) hk.usage_error(msg) end

local function iso(ms)
  if not ms then return hk.null end
  return os.date("!%Y-%m-%dT%H:%M:%SZ", ms // 1000)
end

local function version_of(d)
  return d.version_name or (d.version_code and "code " .. d.version_code) or "(unknown)"
end

-- --by: a comma list of version, signature, model, route, label:KEY; rows are always per signature.
local function parse_by(spec)
  local dims = {}
  for item in spec:gmatch("[^,]+") do
    if item == "version" or item == "model" or item == "route" then dims[#dims + 1] = { name = item }
    elseif item:match("^label:.+") then dims[#dims + 1] = { name = item, label = item:sub(7) }
    elseif item ~= "signature" then
      usage("--by: unknown grouping '" .. item .. "' (version, signature, model, route, label:KEY)")
    end
  end
  return dims
end

local function dim_value(d, dim)
  if dim.name == "version" then return d.version end
  if dim.name == "model" then return d.model or "(unknown)" end
  if dim.name == "route" then return d.screen end
  return d.labels[dim.label] or "(none)"
end

-- Versions in order: by versionCode when every version has one, else as --versions lists them
-- (the others after), else by name compared segment by segment.
local function order_versions(codes, names, listed)
  local all_codes = true
  for _, v in ipairs(names) do if not codes[v] then all_codes = false end end
  local pos = {}
  for i, v in ipairs(listed) do pos[v] = i end
  table.sort(names, function(a, b)
    if all_codes and codes[a] ~= codes[b] then return codes[a] < codes[b] end
    if #listed > 0 and (pos[a] or math.huge) ~= (pos[b] or math.huge) then
      return (pos[a] or math.huge) < (pos[b] or math.huge)
    end
    return stats.version_less(a, b)
  end)
  return all_codes and "versionCode" or #listed > 0 and "--versions" or "name"
end

local function summary(values)
  table.sort(values)
  return { p50 = stats.nearest_rank(values, 50), p75 = stats.nearest_rank(values, 75),
           p95 = stats.nearest_rank(values, 95), max = values[#values] }
end

local function split_list(s)
  local out = {}
  for v in s:gmatch("[^,]+") do out[#out + 1] = v end
  return out
end

-- The route a dump's row gives: its foreground Activity, "(none)" when the facts say none was,
-- "(unknown)" when they do not say (hprofkit-triage/1 facts).
local function screen_of(d)
  if d.route == nil then return "(unknown)" end
  return d.route ~= "" and d.route or "(none)"
end

-- The one app the report is about: --app, else the database's only one; several are named.
local function pick_app(db, path, wanted)
  local apps, names = {}, {}
  for _, r in ipairs(db:rows("SELECT package, count(*) AS n FROM dumps GROUP BY package ORDER BY package")) do
    local name = r.package or fleetdb.NO_APP
    apps[name] = r
    names[#names + 1] = string.format("%s (%d dump%s)", name, r.n, r.n == 1 and "" or "s")
  end
  if wanted ~= "" and apps[wanted] then return wanted, apps[wanted].package end
  if wanted == "" and #names <= 1 then
    local only = next(apps)
    return only or hk.null, only and apps[only].package
  end
  db:close()
  usage(path .. (wanted ~= "" and " has no dumps of " .. wanted .. ";" or "") .. " holds " .. #names ..
        " app" .. (#names == 1 and "" or "s") .. ": " .. table.concat(names, ", ") ..
        (wanted == "" and "; versions compare only within one app: choose it with --app PACKAGE" or ""))
end

local function read_db(db, package, with_labels, progress)
  local dumps, order = {}, {}
  local rows = db:rows("SELECT * FROM dumps WHERE package IS ? ORDER BY sha256", package)
  for i, d in ipairs(rows) do
    progress.step("dumps", i, #rows)
    d.labels = {}
    d.version = version_of(d)
    d.screen = screen_of(d)
    d.device = (d.model or "?") .. "\0" .. (d.fingerprint or "?")
    d.app_leak_bytes = 0
    dumps[d.sha256] = d
    order[#order + 1] = d
  end
  for _, l in ipairs(with_labels and db:rows("SELECT * FROM labels") or {}) do
    if dumps[l.sha256] then dumps[l.sha256].labels[l.key] = l.value end
  end
  local leaks = {}
  for _, l in ipairs(db:rows("SELECT sha256, signature, kind, description, count, retained_bytes FROM leaks " ..
                             "ORDER BY sha256, signature")) do
    local d = dumps[l.sha256]
    if d then
      leaks[#leaks + 1] = l
      if l.kind ~= "library" then d.app_leak_bytes = d.app_leak_bytes + (l.retained_bytes or 0) end
    end
  end
  return dumps, order, leaks
end

-- Groups of leak rows under key(dump, leak); each: the dumps, devices, bytes and times.
local function group(dumps, leaks, key_of, progress)
  local groups, list = {}, {}
  for i, l in ipairs(leaks) do
    progress.step("leaks", i, #leaks)
    local d = dumps[l.sha256]
    local key = key_of(d, l)
    local g = groups[key]
    if not g then
      g = { key = key, dump = d, leak = l, bytes = {}, devices = {}, ndevices = 0, dumps = 0 }
      groups[key] = g
      list[#list + 1] = g
    end
    g.dumps = g.dumps + 1
    g.bytes[#g.bytes + 1] = l.retained_bytes
    if not g.devices[d.device] then g.devices[d.device] = true; g.ndevices = g.ndevices + 1 end
    local ts = d.timestamp
    if ts and (not g.first or ts < g.first) then g.first = ts; g.example = d.sha256 end
    if ts and (not g.last or ts > g.last) then g.last = ts end
    g.example = g.example or d.sha256
  end
  return groups, list
end

local function regressions_of(dumps, leaks, versions, factor, progress)
  local groups = group(dumps, leaks, function(d, l) return d.version .. "\0" .. l.signature end, progress)
  -- each version's signatures, once each, in one pass over the leaks
  local by_version = {}
  for _, l in ipairs(leaks) do
    local v = dumps[l.sha256].version
    local list = by_version[v]
    if not list then list = { seen = {} }; by_version[v] = list end
    if not list.seen[l.signature] then list.seen[l.signature] = true; list[#list + 1] = l end
  end
  local out = {}
  for i = 2, #versions do
    local cur, prev = versions[i], versions[i - 1]
    for _, l in ipairs(by_version[cur] or {}) do
      local g, p = groups[cur .. "\0" .. l.signature], groups[prev .. "\0" .. l.signature]
      local now = summary(g.bytes)
      if not p then
        out[#out + 1] = { version = cur, previous = prev, signature = l.signature, kind = l.kind,
                          description = l.description or hk.null, change = "new", dumps = g.dumps,
                          retained_p75 = now.p75, previous_p75 = hk.null, factor = hk.null }
      else
        local before = summary(p.bytes)
        if now.p75 > factor * before.p75 then
          out[#out + 1] = { version = cur, previous = prev, signature = l.signature, kind = l.kind,
                            description = l.description or hk.null, change = "grown", dumps = g.dumps,
                            retained_p75 = now.p75, previous_p75 = before.p75,
                            factor = math.floor(now.p75 / before.p75 * 100 + 0.5) / 100 }
        end
      end
    end
  end
  local pos = {}
  for i, v in ipairs(versions) do pos[v] = i end
  table.sort(out, function(a, b)
    if a.version ~= b.version then return pos[a.version] < pos[b.version] end
    return a.signature < b.signature
  end)
  return out
end

local function version_totals(order, versions, codes)
  local per = {}
  for _, v in ipairs(versions) do per[v] = { heap = {}, bitmaps = {}, waste = {}, devices = {}, n = 0, nd = 0 } end
  for _, d in ipairs(order) do
    local t = per[d.version]
    t.n = t.n + 1
    if not t.devices[d.device] then t.devices[d.device] = true; t.nd = t.nd + 1 end
    t.heap[#t.heap + 1] = d.java_heap_bytes or 0
    t.bitmaps[#t.bitmaps + 1] = d.bitmap_bytes or 0
    t.waste[#t.waste + 1] = (d.bitmap_waste_bytes or 0) + (d.string_waste_bytes or 0) + (d.array_waste_bytes or 0)
  end
  local rows = {}
  local function sum(a) local s = 0 for _, x in ipairs(a) do s = s + x end return s end
  for _, v in ipairs(versions) do
    local t = per[v]
    rows[#rows + 1] = {
      version = v, version_code = codes[v] or hk.null, dumps = t.n, devices = t.nd,
      java_heap_bytes = sum(t.heap), java_heap_p50 = summary(t.heap).p50,
      bitmap_bytes = sum(t.bitmaps), bitmap_p50 = summary(t.bitmaps).p50,
      duplicate_waste_bytes = sum(t.waste), duplicate_waste_p50 = summary(t.waste).p50,
    }
  end
  return rows
end

-- The key of a dump's combination of the --by values, and the order of rows by those values
-- (versions in version order, the rest by text).
local function dims_key_of(dims)
  return function(d)
    local parts = {}
    for i, dim in ipairs(dims) do parts[i] = dim_value(d, dim) end
    return table.concat(parts, "\0")
  end
end

local function dims_order(dims, vpos)
  return function(a, b)
    for _, dim in ipairs(dims) do
      local x, y = a[dim.name], b[dim.name]
      if x ~= y then
        if dim.name == "version" then return vpos[x] < vpos[y] end
        return x < y
      end
    end
    return nil   -- equal in every dimension
  end
end

-- Per route (the screen at dump time), crossed with the other --by values, as the APM of the
-- seed article aggregates: dumps, devices, and P50/P75/P95 of the Java heap and of the bytes the
-- dump's application leaks retain, per dump.
local function route_totals(order, dims, key_of, less)
  local per, rows = {}, {}
  for _, d in ipairs(order) do
    local k = key_of(d)
    local t = per[k]
    if not t then
      t = { heap = {}, retained = {}, devices = {}, nd = 0, row = {} }
      for _, dim in ipairs(dims) do t.row[dim.name] = dim_value(d, dim) end
      per[k] = t
      rows[#rows + 1] = t.row
    end
    if not t.devices[d.device] then t.devices[d.device] = true; t.nd = t.nd + 1 end
    t.heap[#t.heap + 1] = d.java_heap_bytes or 0
    t.retained[#t.retained + 1] = d.app_leak_bytes
  end
  for _, t in pairs(per) do
    local h, l = summary(t.heap), summary(t.retained)
    local r = t.row
    r.dumps, r.devices = #t.heap, t.nd
    r.java_heap_p50, r.java_heap_p75, r.java_heap_p95 = h.p50, h.p75, h.p95
    r.retained_p50, r.retained_p75, r.retained_p95 = l.p50, l.p75, l.p95
  end
  table.sort(rows, function(a, b) return less(a, b) or false end)
  return rows
end

local ROUTE_COLUMNS = { "dumps", "devices", "java_heap_p50", "java_heap_p75", "java_heap_p95",
                        "retained_p50", "retained_p75", "retained_p95" }

local GROUP_COLUMNS = { "signature", "kind", "description", "dumps", "of_dumps", "devices",
                        "retained_p50", "retained_p75", "retained_p95", "retained_max",
                        "first_seen", "last_seen" }

local report_writer = nil
local function write_report(path, result)
  report_writer = report_writer or require "report.fleet_html"
  local ok, err = pcall(hk.write_file, path, report_writer.write(result))
  if not ok then usage("--report: " .. tostring(err)) end
end

hk.query{
  name = "fleet-report",
  help = "Leaks across a fleet of dumps, from a database fleet-ingest filled: per group (by default\n" ..
         "app version and leak signature) the dumps and distinct devices (model + fingerprint) that\n" ..
         "hold the leak, its retained bytes (P50/P75/P95 by nearest rank, max), first and last seen,\n" ..
         "an example trace; regressions (a signature new in a version, or its P75 grown by more than\n" ..
         "--regression-factor against the previous version); totals per version.  One app at a\n" ..
         "time: a database holding several names them and asks for --app PACKAGE.  --by route: per\n" ..
         "screen (the foreground Activity at dump time), P50/P75/P95 of the Java heap and of the\n" ..
         "bytes application leaks retain.",
  needs_dump = false,
  positional = { "db" },
  args = { by = "version,signature", report = "", regression_factor = 1.5, versions = "", app = "" },
  options_help = "  --app PACKAGE     the app to report on (needed when the database holds several)\n" ..
                 "  --by LIST         group by version, signature, model, route, label:KEY (comma list;\n" ..
                 "                    rows are always per signature)\n" ..
                 "  --report FILE     write the same as one HTML page\n" ..
                 "  --regression-factor F  P75 growth that counts as a regression (default 1.5)\n" ..
                 "  --versions V1,V2,...   version order when the dumps hold no versionCode",
  shape = "record",
  columns = { "schema", "app", "by", "version_order", "dumps", "devices", "versions", "routes", "regressions",
              "groups" },
  run = function(_, args)
    if not (args.regression_factor > 0) then usage("--regression-factor must be above 0") end
    local dims = parse_by(args.by)
    local ok = io.open(args.db, "rb")
    if not ok then usage(args.db .. ": no such database (fleet-ingest makes one)") end
    ok:close()
    local db = fleetdb.open(args.db)
    local progress = fleetdb.progress("fleet-report")
    local app, package = pick_app(db, args.db, args.app)
    local with_labels = false
    for _, dim in ipairs(dims) do with_labels = with_labels or dim.label ~= nil end
    local dumps, order, leaks = read_db(db, package, with_labels, progress)
    -- versions and their codes
    local codes, names, devices, ndevices = {}, {}, {}, 0
    for _, d in ipairs(order) do
      if codes[d.version] == nil then names[#names + 1] = d.version; codes[d.version] = false end
      if d.version_code and (not codes[d.version] or d.version_code > codes[d.version]) then
        codes[d.version] = d.version_code
      end
      if not devices[d.device] then devices[d.device] = true; ndevices = ndevices + 1 end
    end
    for v, c in pairs(codes) do if not c then codes[v] = nil end end
    local version_order = order_versions(codes, names, split_list(args.versions))
    local vpos = {}
    for i, v in ipairs(names) do vpos[v] = i end
    -- the dumps behind each combination of the --by values (a leak's rate is dumps / of_dumps)
    local dims_key, dims_less = dims_key_of(dims), dims_order(dims, vpos)
    local of = {}
    for _, d in ipairs(order) do local k = dims_key(d); of[k] = (of[k] or 0) + 1 end
    local _, list = group(dumps, leaks, function(d, l) return dims_key(d) .. "\0" .. l.signature end, progress)
    local rows = {}
    for i, g in ipairs(list) do
      progress.step("groups", i, #list)
      local s = summary(g.bytes)
      local row = { signature = g.leak.signature, kind = g.leak.kind, description = g.leak.description or hk.null,
                    dumps = g.dumps, of_dumps = of[dims_key(g.dump)], devices = g.ndevices,
                    retained_p50 = s.p50, retained_p75 = s.p75, retained_p95 = s.p95, retained_max = s.max,
                    first_seen = iso(g.first), last_seen = iso(g.last) }
      for _, dim in ipairs(dims) do row[dim.name] = dim_value(g.dump, dim) end
      local t = db:rows("SELECT example_trace FROM leaks WHERE sha256 = ? AND signature = ?", g.example, g.leak.signature)[1]
      row.example_trace = t and t.example_trace and hk.json_decode(t.example_trace) or hk.null
      row.example_dump = g.example
      rows[#rows + 1] = row
    end
    table.sort(rows, function(a, b)
      local less = dims_less(a, b)
      if less ~= nil then return less end
      if a.dumps ~= b.dumps then return a.dumps > b.dumps end
      return a.signature < b.signature
    end)
    local columns, route_columns = {}, {}
    for _, dim in ipairs(dims) do columns[#columns + 1] = dim.name; route_columns[#route_columns + 1] = dim.name end
    for _, c in ipairs(GROUP_COLUMNS) do columns[#columns + 1] = c end
    for _, c in ipairs(ROUTE_COLUMNS) do route_columns[#route_columns + 1] = c end
    local by, by_route = {}, false
    for _, dim in ipairs(dims) do by[#by + 1] = dim.name; by_route = by_route or dim.name == "route" end
    by[#by + 1] = "signature"
    local result = {
      schema = SCHEMA, app = app, by = by, version_order = version_order, dumps = #order, devices = ndevices,
      versions = version_totals(order, names, codes),
      routes = by_route and route_totals(order, dims, dims_key, dims_less) or hk.null,
      regressions = regressions_of(dumps, leaks, names, args.regression_factor, progress),
      groups = rows,
    }
    db:close()
    progress.done()
    if args.report ~= "" then write_report(args.report, result) end
    return result, {
      subcolumns = {
        versions = { "version", "version_code", "dumps", "devices", "java_heap_p50", "bitmap_p50",
                     "duplicate_waste_p50" },
        routes = route_columns,
        regressions = { "version", "previous", "change", "signature", "dumps", "retained_p75", "previous_p75", "factor" },
        groups = columns,
      },
    }
  end,
}
