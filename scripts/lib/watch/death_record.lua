-- require "watch.death_record" (hk.death_record): how a process died, from the records hk.deaths.logcat and
-- hk.deaths.exit_info read (plugins/deaths), for `watch` and `exits`.
--   hk.death_record.build{pid=, process=, records=, exit_info=, sources=, last=} -> the record
--   hk.death_record.summary(d)   -> one line for people
--   hk.death_record.exit_row(r)  -> an exit-info record as `exits` shows it
-- Which record wins (the first found for the pid): lmkd's kill (`Kill '…'`, `Killing '…', uid`,
-- killinfo), the kernel's low memory killer (`Killing '<comm>' (<pid>)`: matched by pid, the
-- name is a thread's), a crash (Java FATAL EXCEPTION, native Fatal signal), an ANR (the kill
-- that ends it is kept as killed_by_am), ActivityManager's kill (am_kill, `Killing
-- pid:process`), exit-info's reason, the zygote's `exited due to signal`; else "unknown",
-- naming what was read.

local DR = {}

local function present(v) return v ~= nil and v ~= hk.null and v ~= "null" and v ~= "" end

-- RunningAppProcessInfo.IMPORTANCE_*
DR.importance_names = { [100] = "foreground", [125] = "foreground service", [150] = "top sleeping",
  [200] = "visible", [230] = "perceptible", [300] = "service", [325] = "top sleeping", [350] = "can't save state",
  [400] = "cached", [1000] = "gone" }

local function importance(v)
  v = tonumber(v)
  if not v then return nil end
  local n = DR.importance_names[v]
  return n and string.format("%d (%s)", v, n) or tostring(v)
end

local function coded(code, name)
  if not present(code) then return nil end
  if present(name) then return name end
  return string.format("%s (a number hprofkit does not know)", tostring(code))
end

-- what exit-info's reason says happened
function DR.exit_cause(r)
  local reason, status = tonumber(r.reason), tonumber(r.status)
  if reason == 3 then return "low_memory", "low memory (exit-info LOW_MEMORY)" end
  if reason == 2 and status == 9 then return "signaled", "killed (SIGKILL; cause not attributed by this device)" end
  if reason == 2 then return "signaled", "killed by signal " .. tostring(r.status) end
  if reason == 1 then return "exit_self", "exited itself (status " .. tostring(r.status) .. ")" end
  if reason == 4 then return "crash", "crashed (Java exception, exit-info)" end
  if reason == 5 then return "crash", "crashed (native, exit-info)" end
  if reason == 6 then return "anr", "ANR (exit-info)" end
  if reason then
    local sub = coded(r.subreason, r.subreason_name)
    return "system_kill", "killed by the system (exit-info " .. coded(r.reason, r.reason_name)
      .. ((sub and tonumber(r.subreason) ~= 0) and (", " .. sub) or "") .. ")"
  end
  return "unknown", "unknown (exit-info has no reason)"
end

-- exit-info's PSS and RSS are the last values sampled; 0.00 means it was never sampled
local function never(text) return present(text) and tostring(text):match("^0%.00$") ~= nil end
local function sampled(text)
  if not present(text) then return hk.null end
  if never(text) then return text .. " (not sampled)" end
  return text
end

function DR.exit_row(r)
  local cls, cause = DR.exit_cause(r)
  local function v(x) if present(x) then return x end return hk.null end
  local time = r.timestamp
  if math.type(time) == "integer" and time > 1e12 then -- an app's log of getTimestamp(): ms since 1970
    time = os.date("!%Y-%m-%d %H:%M:%S", time // 1000) .. string.format(".%03d UTC", time % 1000)
  end
  return { time = v(time), pid = v(r.pid), process = v(r.process), package = v(r.package),
    reason = coded(r.reason, r.reason_name) or hk.null, reason_code = v(r.reason),
    subreason = coded(r.subreason, r.subreason_name) or hk.null, subreason_code = v(r.subreason),
    status = v(r.status), importance = importance(r.importance) or hk.null, importance_code = v(r.importance),
    pss = sampled(r.pss_text), rss = sampled(r.rss_text),
    pss_kb = never(r.pss_text) and hk.null or v(r.pss_kb), rss_kb = never(r.rss_text) and hk.null or v(r.rss_kb),
    description = v(r.description), cause = cause, cause_class = cls, layout = r.layout }
end

-- the first record of each kind that names the pid
local function by_kind(records, pid)
  local by = {}
  for _, r in ipairs(records or {}) do
    if tonumber(r.pid) == pid and not by[r.kind] then by[r.kind] = r end
  end
  return by
end

local function copy(r, keys)
  local t = {}
  for _, k in ipairs(keys) do if present(r[k]) then t[k] = r[k] end end
  return t
end

local LMKD = { "process", "uid", "oom_score_adj", "oom_adj", "adj", "rss_kb", "swap_kb", "anon_rss_kb", "dmabuf_kb",
  "to_free_kb", "reason", "pressure", "min_oom_adj", "cache_kb", "limit_kb", "free_kb", "free_vs_reserved",
  "log_time", "log_epoch" }
local KERNEL = { "comm", "oom_score_adj", "adj", "to_free_kb", "on_behalf_of", "cache_kb", "limit_kb",
  "min_oom_score_adj", "free_kb", "free_vs_reserved", "log_time", "log_epoch" }

local function killinfo_fields(r)
  local t = {}
  for k, v in pairs(r) do
    if not ({ kind = 1, layout = 1, line = 1, log_pid = 1, log_tag = 1 })[k] then t[k] = v end
  end
  return t
end

-- The cause from the log's records, in the order of the file's header.
function DR.from_log(d, by)
  if by.lmkd_kill or by.killinfo then
    d.cause_class, d.killer, d.cause = "low_memory", "lmkd", "low memory (lmkd)"
    if by.lmkd_kill then d.killer_figures = copy(by.lmkd_kill, LMKD) end
    if by.killinfo then d.killinfo = killinfo_fields(by.killinfo) end
  elseif by.kernel_lmk_kill then
    d.cause_class, d.killer, d.cause = "low_memory", "kernel", "low memory (kernel low memory killer)"
    d.killer_figures = copy(by.kernel_lmk_kill, KERNEL)
  elseif by.java_crash or by.am_crash then
    d.cause_class, d.cause = "crash", "crashed (Java FATAL EXCEPTION)"
    d.killer_figures = copy(by.java_crash or by.am_crash, { "thread", "exception", "message", "log_time" })
  elseif by.native_crash then
    local c = by.native_crash
    d.cause_class = "crash"
    d.cause = string.format("crashed (native Fatal signal %s%s)", tostring(c.signal),
      present(c.signal_name) and (" " .. c.signal_name) or "")
    d.killer_figures = copy(c, { "signal", "signal_name", "log_time" })
  elseif by.am_anr or by.am_anr_log then
    -- ActivityManager kills an app that does not respond: the ANR is the cause, the kill its end
    d.cause_class, d.cause = "anr", "ANR"
    d.killer_figures = copy(by.am_anr or by.am_anr_log, { "reason", "log_time" })
  elseif by.am_kill or by.am_killing then
    DR.am_kill(d, by)
  end
  local k = by.am_kill or by.am_killing
  if k and d.cause_class ~= "am_kill" and d.killer_figures then d.killer_figures.killed_by_am = k.reason end
end

function DR.am_kill(d, by)
  local k = by.am_kill or by.am_killing
  d.cause_class, d.killer = "am_kill", "ActivityManager"
  d.cause = "killed by ActivityManager: " .. tostring(k.reason or "?")
  d.killer_figures = copy(k, { "reason", "oom_adj", "adj", "rss_kb", "log_time", "log_epoch" })
  if by.am_kill and by.am_killing then d.killer_figures.adj = by.am_killing.adj end
end

function DR.build(t)
  local pid = tonumber(t.pid)
  local d = { pid = pid, process = t.process, time = t.time, sources = t.sources or {} }
  local by = by_kind(t.records, pid)
  DR.from_log(d, by)
  if d.cause then d.cause_from = "log" end
  local e = t.exit_info
  if e then
    d.exit_info = DR.exit_row(e)
    if not d.cause then
      d.cause_class, d.cause = DR.exit_cause(e)
      d.cause_from = "exit-info"
    end
  end
  DR.from_weak_records(d, by)
  d.records = {}
  for k in pairs(by) do d.records[#d.records + 1] = k end
  table.sort(d.records)
  if t.last then
    d.last_sample = copy(t.last, { "t", "time", "java_used_kb", "java_max_kb", "java_pct", "native_kb", "pss_kb",
      "rss_kb" })
  end
  return d
end

-- exit-info that came later: kept, and the cause taken from it when the log gave none better
function DR.add_exit_info(d, e)
  d.exit_info = DR.exit_row(e)
  d.exit_info_pending = nil
  for i, s in ipairs(d.sources) do
    if s:match("^exit%-info: no record") then d.sources[i] = "exit-info (its record, asked again)" end
  end
  if d.cause_from == "none" or d.cause_from == "zygote" then
    d.cause_class, d.cause = DR.exit_cause(e)
    d.cause_from, d.note = "exit-info", nil
  end
end

-- what is left when neither the log's kill records nor exit-info said: the zygote's notice,
-- ActivityManager's `has died`, or nothing (naming what was read)
function DR.from_weak_records(d, by)
  if not d.cause and by.zygote_signal then
    d.cause_from = "zygote"
    d.cause_class = "signaled"
    d.cause = "killed by signal " .. tostring(by.zygote_signal.signal) .. " (the zygote saw it; no kill record)"
  elseif not d.cause and by.zygote_exit then
    d.cause_from = "zygote"
    d.cause_class, d.cause = "exit_self", "exited itself (status " .. tostring(by.zygote_exit.status) .. ")"
  end
  if not d.cause then
    d.cause_from = "none"
    d.cause_class = "unknown"
    d.cause = "unknown (read: " .. table.concat(d.sources, "; ") .. ")"
    if by.am_has_died then
      d.note = "ActivityManager saw it die without killing it (`has died`) and no crash was logged; "
        .. "a kernel low memory killer writes only to the kernel log"
    end
  end
end

local function mb(kb) return kb and string.format("%.1f MB", tonumber(kb) / 1024) or "?" end

local function killer_text(d)
  local f = d.killer_figures or {}
  local parts = {}
  if d.killer == "lmkd" or d.killer == "kernel" then
    if f.reason then parts[#parts + 1] = "reason '" .. f.reason .. "'" end
    local ki = d.killinfo or {}
    if ki.kill_reason then
      parts[#parts + 1] = "kill_reason " .. ki.kill_reason .. (ki.kill_reason_name and (" " .. ki.kill_reason_name) or "")
    end
    local adj = f.oom_score_adj or f.oom_adj or f.adj or ki.oom_adj
    if adj then parts[#parts + 1] = (f.oom_score_adj and "oom_score_adj " or "adj ") .. adj end
    local rss = f.rss_kb or f.to_free_kb
    if rss then parts[#parts + 1] = "freed " .. rss .. " kB rss" .. (f.swap_kb and (", " .. f.swap_kb .. " kB swap") or "") end
    if f.cache_kb and f.limit_kb then parts[#parts + 1] = "cache " .. f.cache_kb .. " kB below limit " .. f.limit_kb .. " kB" end
  else
    local adj = f.oom_adj or f.adj
    if adj then parts[#parts + 1] = "adj " .. adj end
    if f.rss_kb then parts[#parts + 1] = "rss " .. f.rss_kb .. " kB" end
  end
  return table.concat(parts, ", ")
end

function DR.summary(d)
  local s = string.format("pid %s %s: %s", tostring(d.pid), tostring(d.process), d.cause)
  local k = killer_text(d)
  if k ~= "" then s = s .. " (" .. k .. ")" end
  local e = d.exit_info
  if e then
    s = s .. string.format("; exit-info %s%s, importance %s, pss %s, rss %s", e.reason,
      (e.subreason ~= hk.null and e.subreason_code ~= "0" and e.subreason_code ~= 0) and ("/" .. e.subreason) or "",
      tostring(e.importance), tostring(e.pss), tostring(e.rss))
  end
  if d.note then s = s .. "; " .. d.note end
  local l = d.last_sample
  if l then
    s = s .. string.format("; last sample: java %s of %s, native %s, pss %s", mb(l.java_used_kb), mb(l.java_max_kb),
      mb(l.native_kb), mb(l.pss_kb))
  end
  return s
end

return DR
