-- fleet-ingest: the reduce step's first half.  Each triage facts file (hprofkit triage DUMP
-- --json) becomes one row per dump and one per leak signature in a SQLite file; a dump already
-- there (same dump_sha256) is left as it is.  Files that do not parse, carry another schema or
-- (with --app) another app are named on stderr and skipped; with --dumps LIST every dump of the
-- map's list without its facts file (a failed job, an unreachable host) is named as failed;
-- --strict makes either exit 1.  Facts of hprofkit-triage/1 and /2 are read (/1 has no route).
local fleetdb = require "fleet.db"
local json = require "text.json"

local function present(v) return v ~= nil and v ~= hk.null end
local function val(v) if present(v) then return v end end

local function app_name(facts)
  local app = type(facts.app) == "table" and facts.app or {}
  return type(app.package) == "string" and app.package or fleetdb.NO_APP
end

-- The facts of one file, or nil and why not.
local function read_facts(path, only_app)
  local ok, text = pcall(hk.read_file, path)
  if not ok then return nil, "cannot be read" end
  if text == "" then return nil, "is empty" end
  local okj, facts = pcall(hk.json_decode, text)
  if not okj then   -- a file cut short says where: "invalid JSON at byte 42: unterminated string"
    return nil, "is not JSON (" .. tostring(facts):gsub("^.-invalid JSON", "invalid JSON") .. ")"
  end
  if type(facts) ~= "table" then return nil, "is not a JSON object" end
  if not fleetdb.FACTS_SCHEMAS[facts.schema] then
    return nil, "has schema " .. (type(facts.schema) == "string" and "'" .. facts.schema .. "'" or "(none)") ..
                ", not hprofkit-triage/1 or /2"
  end
  if type(facts.dump_sha256) ~= "string" or not facts.dump_sha256:match("^%x+$") then
    return nil, "has no dump_sha256"
  end
  if only_app and app_name(facts) ~= only_app then
    return nil, "is of app " .. app_name(facts) .. ", not " .. only_app
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

-- '' when the facts say no Activity was in front, nil when they do not say (/1 facts)
local function route_of(f)
  if type(f.route) ~= "table" then return nil end
  return type(f.route.activity) == "string" and f.route.activity or ""
end

local function store(db, f)
  local o, app = f.origin or {}, type(f.app) == "table" and f.app or {}
  local added = db:run("INSERT OR IGNORE INTO dumps VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
    f.dump_sha256, val(app.package), val(app.version_name), val(app.version_code), val(o.process),
    val(o.manufacturer), val(o.model), val(o.fingerprint), val(o.sdk), val(o.timestamp),
    java_heap(f.totals), type(f.bitmaps) == "table" and val(f.bitmaps.bytes) or nil,
    wasted(f.bitmaps), wasted(f.duplicate_strings), wasted(f.duplicate_arrays), route_of(f))
  if added == 0 then   -- already there; /2 facts of a dump first ingested from /1 add its route
    if route_of(f) then
      db:run("UPDATE dumps SET route = ? WHERE sha256 = ? AND route IS NULL", route_of(f), f.dump_sha256)
    end
    return false
  end
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
             trace and json.encode(trace, nil, true) or nil)
    end
    ::next::
  end
  return true
end

local function read_option_file(option, path)
  local ok, text = pcall(hk.read_file, path)
  if not ok then hk.usage_error(option .. ": " .. tostring(text)) end
  return text
end

-- GNU parallel's --joblog files: for each argument of a job's command, the job's host, exit
-- status and signal (a later line, a retry, replaces an earlier one).
local function read_joblogs(paths)
  local jobs = {}
  for _, path in ipairs(paths) do
    for line in read_option_file("--joblog", path):gmatch("[^\n]+") do
      local host, exit, signal, command = line:match("^%d+\t([^\t]*)\t[^\t]*\t[^\t]*\t[^\t]*\t[^\t]*\t(%-?%d+)\t(%d+)\t(.*)$")
      if host then
        for word in command:gmatch("%S+") do
          jobs[word] = { host = host, exit = tonumber(exit), signal = tonumber(signal) }
        end
      end
    end
  end
  return jobs
end

local function why_failed(job)
  if not job then return "no facts (its map job failed or did not run)" end
  local how = job.signal ~= 0 and "killed by signal " .. job.signal or "exit " .. job.exit
  if job.exit == 255 and job.signal == 0 then how = how .. ", ssh's status when it cannot reach or log in to the host" end
  return string.format("no facts (its job on %s: %s)", job.host == ":" and "this machine" or job.host, how)
end

-- The dumps of the map's list (one path a line) whose facts file (the dump's path less its
-- extension, plus .json: what `{.}.json` names) is missing: their job failed or never ran.
local function failed_dumps(list, joblogs)
  local jobs = read_joblogs(joblogs)
  local out = {}
  for dump in read_option_file("--dumps", list):gmatch("[^\r\n]+") do
    local facts = dump:gsub("%.[^./]*$", "") .. ".json"
    local f = io.open(facts, "rb")
    if f then f:close() else out[#out + 1] = { dump = dump, why = why_failed(jobs[dump]) } end
  end
  return out
end

local function ingest_all(db, files, only_app, res)
  local progress = fleetdb.progress("fleet-ingest")
  db:exec("BEGIN")
  for i, path in ipairs(files) do
    progress.step("facts files", i, #files)
    local facts, why = read_facts(path, only_app)
    if not facts then
      res.skipped = res.skipped + 1
      progress.done()
      io.stderr:write("hprofkit fleet-ingest: skipped ", path, ": ", why, "\n")
    elseif store(db, facts) then
      res.ingested = res.ingested + 1
    else
      res.already_present = res.already_present + 1
    end
    -- a file's rows are in one transaction with it: a kill loses whole files, never half of one
    if i % 1000 == 0 then db:exec("COMMIT; BEGIN") end
  end
  db:exec("COMMIT")
  progress.done()
end

hk.query{
  name = "fleet-ingest",
  help = "Store triage facts files (hprofkit triage DUMP --json -o F.json) in a SQLite database,\n" ..
         "one row per dump keyed by its dump_sha256: ingesting the same facts again changes nothing.\n" ..
         "A file that does not parse, has another schema (hprofkit-triage/1 and /2 are read) or,\n" ..
         "with --app, is of another app is named on stderr and skipped; with --dumps LIST each\n" ..
         "dump of the map's list without its facts file is named as failed (exit 0; with --strict\n" ..
         "exit 1 for either).  Then: hprofkit fleet-report DB.",
  needs_dump = false,
  positional = { "db", "facts..." },
  args = { strict = false, app = "", dumps = "", joblog = {} },
  options_help = "  --app PACKAGE     ingest only the facts of this app (the others are skipped)\n" ..
                 "  --dumps LIST      the map's list of dumps (one a line): name each one whose\n" ..
                 "                    facts file (DUMP less its extension, plus .json) is missing\n" ..
                 "  --joblog FILE     GNU parallel's --joblog of the map (repeatable): each failed\n" ..
                 "                    dump's host and exit status\n" ..
                 "  --strict          exit 1 when a file was skipped or a dump failed",
  shape = "record",
  columns = { "database", "files", "ingested", "already_present", "skipped", "failed", "failed_dumps",
              "dumps_in_database" },
  run = function(_, args)
    if #args.joblog > 0 and args.dumps == "" then hk.usage_error("--joblog needs --dumps LIST") end
    local failed = args.dumps ~= "" and failed_dumps(args.dumps, args.joblog) or {}
    local db = fleetdb.open(args.db)
    local res = { database = args.db, files = #args.facts, ingested = 0, already_present = 0, skipped = 0,
                  failed = #failed, failed_dumps = failed }
    ingest_all(db, args.facts, args.app ~= "" and args.app or nil, res)
    for _, f in ipairs(failed) do io.stderr:write("hprofkit fleet-ingest: failed ", f.dump, ": ", f.why, "\n") end
    res.dumps_in_database = db:rows("SELECT count(*) AS n FROM dumps")[1].n
    db:close()
    return res, { exit_code = (args.strict and res.skipped + res.failed > 0) and 1 or 0 }
  end,
}
