-- The fleet database: one SQLite file the map's facts are reduced into (fleet-ingest writes it,
-- fleet-report reads it).  Returns { open = function(path) -> db, progress = function(cmd) }.
-- A dump is one row keyed by its dump_sha256, so ingesting the same facts twice changes nothing.
-- Version 2 added dumps.route (the foreground Activity; '' none, NULL not recorded) and an index
-- by package; a version 1 database is migrated when opened, in one transaction.
local M = { FACTS_SCHEMAS = { ["hprofkit-triage/1"] = 1, ["hprofkit-triage/2"] = 2 }, DB_VERSION = 2,
            NO_APP = "(unknown)" }   -- the app of facts that name no package

local DDL = [[
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS dumps(
  sha256 TEXT PRIMARY KEY, package TEXT, version_name TEXT, version_code INTEGER, process TEXT,
  manufacturer TEXT, model TEXT, fingerprint TEXT, sdk INTEGER, timestamp INTEGER,
  java_heap_bytes INTEGER, bitmap_bytes INTEGER, bitmap_waste_bytes INTEGER,
  string_waste_bytes INTEGER, array_waste_bytes INTEGER, route TEXT);
CREATE TABLE IF NOT EXISTS labels(sha256 TEXT, key TEXT, value TEXT, PRIMARY KEY(sha256, key));
CREATE TABLE IF NOT EXISTS leaks(
  sha256 TEXT, signature TEXT, kind TEXT, description TEXT, count INTEGER, retained_bytes INTEGER,
  example_trace TEXT, PRIMARY KEY(sha256, signature));
CREATE INDEX IF NOT EXISTS dumps_package ON dumps(package);
]]

-- From the version a database has to the next; each runs inside the opening transaction.
local MIGRATIONS = {
  [1] = [[
ALTER TABLE dumps ADD COLUMN route TEXT;
CREATE INDEX IF NOT EXISTS dumps_package ON dumps(package);
]],
}

local function migrate(db, path, from)
  local v = tonumber(from)
  if not v or not MIGRATIONS[v] then   -- a newer database, or one no hprofkit made
    db:close()
    hk.usage_error(path .. ": a fleet database of version " .. from .. ", this hprofkit reads " .. M.DB_VERSION)
  end
  while v < M.DB_VERSION do
    db:exec(MIGRATIONS[v])
    v = v + 1
  end
  db:run("UPDATE meta SET value = ? WHERE key = 'fleet_db'", tostring(v))
end

function M.open(path)
  local db = hk.sqlite_open(path)
  -- the tables are made (or the version read) and migrated in one transaction, so a kill leaves
  -- the database as it was; a database already current is only read (a read-only file reports)
  local ok, err = pcall(db.exec, db, "PRAGMA busy_timeout = 10000; BEGIN; " ..
                                     "CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT)")
  if not ok then   -- a file that is not SQLite, read-only, or a full disk: its data failed, exit 1 (README)
    db:close()
    local why = tostring(err):gsub("^sqlite: ", "")
    local what = "not a fleet database"
    if why:find("disk is full", 1, true) then what = "the disk is full"
    elseif why:find("readonly", 1, true) or why:find("unable to open", 1, true) then
      what = "cannot write the fleet database here"
    end
    error({ message = path .. ": " .. what .. " (" .. why .. ")", exit_code = 1 })
  end
  local v = db:rows("SELECT value FROM meta WHERE key = 'fleet_db'")[1]
  if not v then
    db:exec(DDL)
    db:run("INSERT INTO meta VALUES ('fleet_db', ?)", tostring(M.DB_VERSION))
  elseif v.value ~= tostring(M.DB_VERSION) then
    migrate(db, path, v.value)
  end
  db:exec("COMMIT")
  return db
end

-- A line on stderr redrawn in place, only on a terminal; done() clears it.
function M.progress(cmd)
  local tty = hk.isatty(2)
  local last = -1
  return {
    step = function(what, i, n)
      if not tty then return end
      local pct = n > 0 and i * 100 // n or 100
      if pct ~= last or i == n then
        last = pct
        io.stderr:write(string.format("\r\027[K%s: %s %d/%d", cmd, what, i, n))
        io.stderr:flush()
      end
    end,
    done = function() if tty then io.stderr:write("\r\027[K") io.stderr:flush() end end,
  }
end

return M
