-- The fleet database: one SQLite file the map's facts are reduced into (fleet-ingest writes it,
-- fleet-report reads it).  Returns { open = function(path) -> db, progress = function(cmd) }.
-- A dump is one row keyed by its dump_sha256, so ingesting the same facts twice changes nothing.
local M = { FACTS_SCHEMA = "hprofkit-triage/1", DB_VERSION = 1 }

local DDL = [[
CREATE TABLE IF NOT EXISTS meta(key TEXT PRIMARY KEY, value TEXT);
CREATE TABLE IF NOT EXISTS dumps(
  sha256 TEXT PRIMARY KEY, package TEXT, version_name TEXT, version_code INTEGER, process TEXT,
  manufacturer TEXT, model TEXT, fingerprint TEXT, sdk INTEGER, timestamp INTEGER,
  java_heap_bytes INTEGER, bitmap_bytes INTEGER, bitmap_waste_bytes INTEGER,
  string_waste_bytes INTEGER, array_waste_bytes INTEGER);
CREATE TABLE IF NOT EXISTS labels(sha256 TEXT, key TEXT, value TEXT, PRIMARY KEY(sha256, key));
CREATE TABLE IF NOT EXISTS leaks(
  sha256 TEXT, signature TEXT, kind TEXT, description TEXT, count INTEGER, retained_bytes INTEGER,
  example_trace TEXT, PRIMARY KEY(sha256, signature));
]]

function M.open(path)
  local db = hk.sqlite_open(path)
  local ok, err = pcall(db.exec, db, DDL)
  if not ok then   -- a file that is not SQLite (or is read-only): its data failed, exit 1 (README)
    db:close()
    error({ message = path .. ": not a fleet database (" .. tostring(err):gsub("^sqlite: ", "") .. ")", exit_code = 1 })
  end
  local v = db:rows("SELECT value FROM meta WHERE key = 'fleet_db'")[1]
  if not v then
    db:run("INSERT INTO meta VALUES ('fleet_db', ?)", tostring(M.DB_VERSION))
  elseif v.value ~= tostring(M.DB_VERSION) then
    hk.usage_error(path .. ": a fleet database of version " .. v.value .. ", this hprofkit reads " .. M.DB_VERSION)
  end
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
