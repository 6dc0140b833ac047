-- hprofkit fetch-bitmaps DUMP [-s SERIAL] [--pid PID | --jdwp HOST:PORT] [--budget-seconds S]
--                          [--budget-bytes B] [--json]
-- Gets the pixels a dump lacks from the live process it came from, into DUMP.bitmaps/0x<ptr>.png
-- (the sidecar `hprofkit bitmaps` reads, keyed by native pointer and checked against each
-- Bitmap's size, so an image whose pointer was reused shows up as a mismatch, never as a wrong
-- picture).
--   API 26-34 (or --jdwp): a live fetcher plugin (jdwp) attaches as a debugger and has the app
--     compress each Bitmap to PNG.
--   API 35+: a second dump of the same process with `-b png` and without GC (a GC could free
--     bitmaps the first dump still shows); its Bitmap.dumpData images go to the sidecar and the
--     second dump is deleted.
local PNG_MAGIC = "\137PNG\r\n\26\n"

local function nonempty(s)
  if s == nil or s == "" or s == hk.null then return nil end
  return s
end

-- The pid of the dump's process on the device; the name when it is not running.
local function find_pid(dev, process)
  for _, p in ipairs(dev:processes()) do
    if p.name == process then return p.pid end
  end
  return nil
end

-- API 35+: images from a second `-b png` dump's Bitmap.dumpData.
local function fetch_dumpdata(dev, process, out_dir, dump_path, budget_bytes)
  local t0 = os.time()
  local tmp = string.format("%s.second-%d-%d.hprof", dump_path, os.time(), math.random(1, 1e9))
  local r = { source = "dumpdata", fetched = 0, skipped = 0, failed = 0, stopped_by_budget = false, bytes = 0 }
  local ok, e = pcall(function()
    dev:dump_heap(process, { gc = false, bitmaps = true, output = tmp })
    local d2 = hk.open(tmp)
    local ok2, e2 = pcall(function()
      local cls = d2:class("android.graphics.Bitmap")
      local dd = cls and cls:static("dumpData")
      if type(dd) ~= "userdata" then
        error("the second dump (taken with -b png) has no Bitmap.dumpData: the device did not put pixels in it")
      end
      local count = dd:field("count") or 0
      local natives, buffers = dd:ref("natives"), dd:ref("buffers")
      if count > 0 and (not natives or not buffers) then
        error("the second dump's Bitmap.dumpData has count " .. count .. " but no natives/buffers arrays")
      end
      for i = 0, count - 1 do
        local ptr, buf = natives:at(i), buffers:at(i)
        local png = type(buf) == "userdata" and buf:bytes() or nil
        if not ptr or ptr == 0 or not png or #png == 0 then
          r.skipped = r.skipped + 1
        elseif png:sub(1, 8) ~= PNG_MAGIC then
          r.failed = r.failed + 1
        elseif budget_bytes > 0 and r.bytes + #png > budget_bytes then
          r.stopped_by_budget = true
          break
        else
          hk.fetch_write(out_dir, string.format("0x%x.png", ptr), png)
          r.fetched = r.fetched + 1
          r.bytes = r.bytes + #png
        end
      end
    end)
    d2:close()
    if not ok2 then error(e2, 0) end
  end)
  os.remove(tmp)
  if not ok then error(e, 0) end
  -- as the live fetch does: nothing fetched of what was tried is a failure, not an empty success
  if r.fetched == 0 and r.failed > 0 then
    error(string.format("none of the %d images in the second dump's Bitmap.dumpData is a PNG: "
      .. "nothing fetched (the device wrote something else; take the dump again)", r.failed), 0)
  end
  r.seconds = os.time() - t0
  return r
end

hk.query {
  name = "fetch-bitmaps",
  help = "Fetch the pixels of DUMP's bitmaps from the live process into DUMP.bitmaps/0x<ptr>.png.\n"
      .. "API 26-34: the jdwp plugin attaches as a debugger (the app must be debuggable, with no other\n"
      .. "debugger attached) and has the app compress each Bitmap, largest first, within the budgets;\n"
      .. "it fails when none of the bitmaps it tried came back.\n"
      .. "API 35+: a second dump with -b png (no GC) gives the images, then is deleted; it fails\n"
      .. "when none of its images is a PNG.\n"
      .. "The process is the dump's own (looked up by name on the device) unless --pid or --jdwp.\n"
      .. "Then `hprofkit bitmaps DUMP` shows them (a reused pointer counts as a mismatch).",
  args = { serial = "", pid = 0, jdwp = "", budget_seconds = 0, budget_bytes = 0, fetcher = "" },
  aliases = { s = "serial" },
  options_help = "  -s SERIAL            the device (default: the only one)\n"
      .. "  --pid PID            the process on the device (default: the dump's process)\n"
      .. "  --jdwp HOST:PORT     a JVM's JDWP agent reached directly, no device\n"
      .. "  --budget-seconds S   stop after S seconds (default: plugins.ini [jdwp] budget_seconds, 60)\n"
      .. "  --budget-bytes B     stop before B bytes of PNG (default: budget_bytes, 64 MiB)",
  shape = "record",
  columns = { "source", "fetched", "skipped", "failed", "stopped_by_budget", "bytes", "seconds", "out_dir" },
  run = function(dump, args)
    local dump_path = dump.path
    local out_dir = dump_path .. ".bitmaps"
    local info = dump:info()
    local serial, jdwp = nonempty(args.serial), nonempty(args.jdwp)
    local pid = math.tointeger(args.pid) or 0
    if pid < 0 then error("--pid must be a process id") end
    if jdwp and pid > 0 then error("give --pid or --jdwp, not both") end

    local row
    if jdwp then
      local r, e = hk.fetch_bitmaps { jdwp = jdwp, out_dir = out_dir, fetcher = nonempty(args.fetcher),
        budget_seconds = args.budget_seconds, budget_bytes = args.budget_bytes }
      if not r then error(e, 0) end
      row = r
    else
      local dev = hk.device(serial)
      local process = nonempty(info.process)
      if pid == 0 then
        if not process then
          error("the dump does not say which process it came from (no ActivityThread in it): "
            .. "give --pid PID (see `hprofkit processes`) or --jdwp HOST:PORT", 0)
        end
        pid = find_pid(dev, process)
        if not pid then
          error(string.format("%s is not running on %s: its bitmaps are gone with it (take a new dump "
            .. "and fetch right after), or give --pid PID", process, dev.serial), 0)
        end
      end
      local sdk = math.tointeger(info.sdk) or dev.sdk or 0
      if sdk <= 0 then sdk = dev.sdk or 0 end
      if sdk >= 35 then
        row = fetch_dumpdata(dev, process or tostring(pid), out_dir, dump_path,
          math.tointeger(args.budget_bytes) or 0)
      else
        local r, e = hk.fetch_bitmaps { serial = dev.serial, pid = pid, out_dir = out_dir,
          fetcher = nonempty(args.fetcher), budget_seconds = args.budget_seconds,
          budget_bytes = args.budget_bytes }
        if not r then error(e, 0) end
        row = r
      end
    end
    row.source = row.source or row.fetcher
    row.fetcher = nil
    row.out_dir = out_dir
    return row
  end,
}
