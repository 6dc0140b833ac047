-- fleet-ingest: the reduce step's first half.  Each triage facts file (hprofkit triage DUMP
-- --json) becomes one row per dump and one per leak signature in a SQLite file; a dump already
-- there (same dump_sha256) is left as it is.  Files that do not parse or carry another schema
-- are named on stderr and skipped; --strict makes that exit 1.
local here = debug.getinfo(1, "S").source:match("^@(.*/)") or "./"
local fleetdb = dofile(here .. "../fleet/fleet_db.lua")

local function present(v) return v ~= nil and v ~= hk.null end
local function val(v) if present(v) then return v end end

-- The facts of one file, or nil and why not.
local function read_facts(path)
  local ok, text = pcall(hk.read_file, path)
  if not ok then return nil, "cannot be read" end
  local okj, facts = pcall(hk.json_decode, text)
  if not okj or type(facts) ~= "table" then return nil, "is not JSON" end
  if facts.schema ~= fleetdb.FACTS_SCHEMA then
    return nil, "has schema " .. (type(facts.schema) == "string" and "'" .. facts.schema .. "'" or "(none)") ..
                ", not " .. fleetdb.FACTS_SCHEMA
  end
  if type(facts.dump_sha256) ~= "string" or not facts.dump_sha256:match("^%x+$") then
    return nil, "has no dump_sha256"
  end
  return facts
end

local function java_heap(totals)
  if type(totals) ~= "table" then return nil end
  for _, h in ipairs(totals.heaps or {}) do
    if h.heap == "app" then return h.shallow_bytes end
  end
  return val(totals.shallow_bytes)
end

local function wasted(t) return type(t) == "table" and val(t.wasted_bytes) or nil end

local function store(db, f)
  local o, app = f.origin or {}, type(f.app) == "table" and f.app or {}
  local added = db:run("INSERT OR IGNORE INTO dumps VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    f.dump_sha256, val(app.package), val(app.version_name), val(app.version_code), val(o.process),
    val(o.manufacturer), val(o.model), val(o.fingerprint), val(o.sdk), val(o.timestamp),
    java_heap(f.totals), type(f.bitmaps) == "table" and val(f.bitmaps.bytes) or nil,
    wasted(f.bitmaps), wasted(f.duplicate_strings), wasted(f.duplicate_arrays))
  if added == 0 then return false end
  for k, v in pairs(type(f.labels) == "table" and f.labels or {}) do
    db:run("INSERT OR REPLACE INTO labels VALUES (?,?,?)", f.dump_sha256, tostring(k), tostring(v))
  end
  local leaks = type(f.leaks) == "table" and f.leaks.leaks or {}
  for _, l in ipairs(type(leaks) == "table" and leaks or {}) do
    if type(l) ~= "table" or type(l.signature) ~= "string" then goto next end   -- nothing to group by
    local trace = type(l.traces) == "table" and l.traces[1] or nil
    -- one dump may list a signature twice only if a future leaks splits it: sum them
    local changed = db:run("UPDATE leaks SET count = count + ?, retained_bytes = retained_bytes + ? " ..
                           "WHERE sha256 = ? AND signature = ?",
                           val(l.count) or 1, val(l.retained_bytes) or 0, f.dump_sha256, l.signature)
    if changed == 0 then
      db:run("INSERT INTO leaks VALUES (?,?,?,?,?,?,?)", f.dump_sha256, l.signature, l.kind,
             val(l.description), val(l.count) or 1, val(l.retained_bytes) or 0,
             trace and hk.json_encode(trace, nil, true) or nil)
    end
    ::next::
  end
  return true
end

hk.query{
  name = "fleet-ingest",
  help = "Store triage facts files (hprofkit triage DUMP --json -o F.json) in a SQLite database,\n" ..
         "one row per dump keyed by its dump_sha256: ingesting the same facts again changes nothing.\n" ..
         "A file that does not parse or has another schema is named on stderr and skipped\n" ..
         "(exit 0; with --strict exit 1).  Then: hprofkit fleet-report DB.",
  needs_dump = false,
  positional = { "db", "facts..." },
  args = { strict = false },
  options_help = "  --strict          exit 1 when a file was skipped",
  shape = "record",
  columns = { "database", "files", "ingested", "already_present", "skipped", "dumps_in_database" },
  run = function(_, args)
    local db = fleetdb.open(args.db)
    local files = args.facts or {}
    local progress = fleetdb.progress("fleet-ingest")
    local res = { database = args.db, files = #files, ingested = 0, already_present = 0, skipped = 0 }
    db:exec("BEGIN")
    for i, path in ipairs(files) do
      progress.step("facts files", i, #files)
      local facts, why = read_facts(path)
      if not facts then
        res.skipped = res.skipped + 1
        progress.done()
        io.stderr:write("hprofkit fleet-ingest: skipped ", path, ": ", why, "\n")
      elseif store(db, facts) then
        res.ingested = res.ingested + 1
      else
        res.already_present = res.already_present + 1
      end
      if i % 1000 == 0 then db:exec("COMMIT; BEGIN") end
    end
    db:exec("COMMIT")
    progress.done()
    res.dumps_in_database = db:rows("SELECT count(*) AS n FROM dumps")[1].n
    db:close()
    return res, { exit_code = (args.strict and res.skipped > 0) and 1 or 0 }
  end,
}
