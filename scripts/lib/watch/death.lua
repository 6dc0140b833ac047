-- require("watch.death").death(ctx, dev, pid, last) -> the death record (watch.death_record) of a watched
-- pid that disappeared: the kill, death and crash records of the log read since the sample
-- before it (ctx.log_records: the last two reads), the kernel log (logcat -b kernel, else dmesg)
-- when the log holds no kill record (the kernel's low memory killer writes only there), and on
-- API 30+ the pid's
-- exit-info record (d.exit_info_pending when it has none yet: watch asks again).  ctx.log is the
-- hk.logcat_reader; last is the pid's last sample.  .exit_info(ctx, dev, pid) -> the pid's
-- exit-info record or nil.

local DR = require "watch.death_record"
local M = {}

local function has_kill(records, pid)
  for _, r in ipairs(records) do
    if tonumber(r.pid) == pid and (r.kind:match("kill") or r.kind:match("crash") or r.kind:match("anr")) then
      return true
    end
  end
  return false
end

local function parse_lines(lines)
  local t = {}
  for i, l in ipairs(lines) do t[i] = l.text end
  return hk.deaths.logcat(table.concat(t, "\n"))
end

-- dmesg, where logcat has no kernel buffer (before API 23, or not enabled): the whole ring, so
-- only the last kernel kill of the pid counts (an older one is of a process that had the pid
-- before).  Often refused to the shell user (dmesg_restrict): then it says why.
local function dmesg(dev, records, sources, pid)
  local text = dev:shell("dmesg 2>&1; echo hk-logcat-exit=$?")
  local code
  text = text:gsub("hk%-logcat%-exit=(%d+)\r?\n?", function(c) code = tonumber(c); return "" end)
  if code ~= 0 then
    local first = text:match("[^\r\n]*%S[^\r\n]*") or "(no output)"
    sources[#sources + 1] = "dmesg: " .. (code and ("exit status " .. code .. ": ") or "") .. first
    return
  end
  local last
  for _, r in ipairs(hk.deaths.logcat(text)) do
    if r.kind == "kernel_lmk_kill" and tonumber(r.pid) == pid then last = r end
  end
  local n = select(2, text:gsub("\n", ""))
  sources[#sources + 1] = string.format("dmesg (%d lines%s)", n, last and "" or ", no kill of the pid")
  if last then records[#records + 1] = last end
end

local function kernel(ctx, dev, records, sources, pid)
  if has_kill(records, pid) or not ctx.log or ctx.log_error then return end
  local lines, why = ctx.log:read_buffer("kernel")
  if not lines then
    sources[#sources + 1] = "kernel log: " .. why
    return dmesg(dev, records, sources, pid)
  end
  sources[#sources + 1] = string.format("kernel log (%d lines)", #lines)
  for _, r in ipairs(parse_lines(lines)) do records[#records + 1] = r end
end

-- the pid's exit-info record (API 30+), or nil
function M.exit_info(ctx, dev, pid)
  local text = dev:shell("dumpsys activity exit-info " .. ctx.name:match("^[^:]+"))
  for _, r in ipairs(hk.deaths.exit_info(text)) do
    if tonumber(r.pid) == pid then return r end
  end
end

local function exit_info(ctx, dev, pid, sources)
  if (dev.sdk or 0) < 30 then
    sources[#sources + 1] = "exit-info: none before Android 11 (API " .. tostring(dev.sdk) .. ")"
    return nil
  end
  local ok, r = pcall(M.exit_info, ctx, dev, pid)
  if not ok then
    sources[#sources + 1] = "exit-info: " .. tostring(r):gsub("\n.*", "")
  elseif r then
    sources[#sources + 1] = "exit-info (its record)"
  else
    sources[#sources + 1] = "exit-info: no record for pid " .. pid .. " yet (asked again for 10 s)"
  end
  return ok and r or nil, ok and not r
end

function M.death(ctx, dev, pid, last)
  local sources, records = {}, {}
  if not hk.deaths then
    sources[#sources + 1] = "nothing: the deaths plugin is not loaded (see `hprofkit plugins`)"
  elseif ctx.log_error then
    sources[#sources + 1] = "logcat: not readable (" .. ctx.log_error .. ")"
  else
    for _, read in ipairs(ctx.log_records or {}) do
      for _, r in ipairs(read) do records[#records + 1] = r end
    end
    sources[#sources + 1] = string.format("logcat %s (%d lines over the last two samples)",
      table.concat(ctx.log.buffers, ","), ctx.log_lines or 0)
  end
  if hk.deaths and dev then
    local ok, err = pcall(kernel, ctx, dev, records, sources, pid)
    if not ok then sources[#sources + 1] = "kernel log: " .. tostring(err):gsub("\n.*", "") end
  end
  local e, pending
  if hk.deaths and dev then e, pending = exit_info(ctx, dev, pid, sources) end
  local d = DR.build{ pid = pid, process = ctx.name, records = records, exit_info = e or nil,
    sources = sources, last = last, time = os.date("!%Y-%m-%dT%H:%M:%SZ") }
  d.exit_info_pending = pending or nil
  return d
end

return M
