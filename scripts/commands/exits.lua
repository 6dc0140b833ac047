-- hprofkit exits [-s SERIAL] PACKAGE | FILE: an app's recent deaths, newest first, from
-- `dumpsys activity exit-info PACKAGE` (Android 11, API 30+) or from a saved file (a bug
-- report, a saved dumpsys, an app's log of ApplicationExitInfo.toString()).  The parsing is the
-- deaths plugin's (hk.deaths.exit_info); the rows are hk.death_record.exit_row's.

local DR = require "watch.death_record"

local function is_file(path)
  local f = io.open(path, "rb")
  if not f then return false end
  local ok = f:read(0) ~= nil or f:seek("end") == 0
  f:close()
  return ok
end

local SUBCOLUMNS = {
  exits = { "time", "pid", "process", "reason", "subreason", "status", "importance", "pss", "rss", "description",
            "cause" },
  summary = { "text" },
}

local function summary(rows)
  local count, order = {}, {}
  for _, r in ipairs(rows) do
    local k = r.reason ~= hk.null and r.reason or "(no reason)"
    if not count[k] then count[k] = 0; order[#order + 1] = k end
    count[k] = count[k] + 1
  end
  table.sort(order, function(a, b) if count[a] ~= count[b] then return count[a] > count[b] end return a < b end)
  local out = {}
  for _, k in ipairs(order) do
    out[#out + 1] = { reason = k, count = count[k], of = #rows,
      text = string.format("%s %d of %d", k, count[k], #rows) }
  end
  return out
end

local function from_device(args, package)
  if not package:match("^[%w%._]+$") then
    hk.usage_error("'" .. package .. "' is neither a file nor a package name (letters, digits, . _)")
  end
  local dev = hk.device(args.serial ~= "" and args.serial or nil)
  if (dev.sdk or 0) < 30 then
    error(string.format("exit-info needs Android 11 (API 30); %s is API %d: `hprofkit watch` reads "
      .. "its deaths from logcat instead", dev.serial, dev.sdk or 0), 0)
  end
  local text = dev:shell("dumpsys activity exit-info " .. package)
  return text, dev.serial .. " (API " .. dev.sdk .. ")"
end

hk.query{
  name = "exits",
  help = "An app's recent deaths, newest first, from `dumpsys activity exit-info PACKAGE` (API 30+)\n"
      .. "or a saved FILE (dumpsys text, a bug report, ApplicationExitInfo lines an app logged):\n"
      .. "time, pid, process, reason and subreason by name, status, importance, PSS and RSS (the\n"
      .. "last values sampled before death), description; a count per reason.  SIGNALED with status 9 reads\n"
      .. "\"killed (SIGKILL; cause not attributed by this device)\".",
  needs_dump = false,
  positional = { "target" },
  args = { serial = "" },
  options_help = "  -s SERIAL: the device (PACKAGE only); TARGET: a file that exists is read as a file",
  aliases = { s = "serial" },
  shape = "record",
  columns = { "source", "exits", "summary" },
  run = function(_, args)
    local target = args.target
    if not target or target == "" then hk.usage_error("which PACKAGE (on a device) or FILE?") end
    if not hk.deaths then error("the deaths plugin is not loaded: see `hprofkit plugins` and plugins.ini", 0) end
    local text, source
    if is_file(target) then text, source = hk.read_file(target), target
    else text, source = from_device(args, target) end
    local rows = {}
    for _, r in ipairs(hk.deaths.exit_info(text)) do
      if is_file(target) or r.package == nil or r.package == target
        or tostring(r.process or ""):match("^[^:]+") == target then
        rows[#rows + 1] = DR.exit_row(r)
      end
    end
    return { source = source, exits = rows, summary = summary(rows) }, { subcolumns = SUBCOLUMNS }
  end,
}
