-- fuzz_lua's driver for the fleet ingest: each input is a facts JSON file (triage --json)
-- stored into a scratch SQLite database, then reported on: a bad file is named and skipped.
local dir = os.getenv("HK_FUZZ_TMP") or "/tmp"
local facts, db = dir .. "/fuzz-facts-" .. tostring(os.time()) .. ".json", dir .. "/fuzz-fleet.db"

function fuzz_one(bytes)
  local f = assert(io.open(facts, "wb")); f:write(bytes); f:close()
  os.remove(db)
  pcall(hk.run, "fleet-ingest", nil, { db = db, facts = { facts } })
  pcall(hk.run, "fleet-report", nil, { db = db })
  os.remove(facts)
end
