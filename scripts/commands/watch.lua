-- hprofkit watch [-s SERIAL] PROCESS [--interval 2s] [--tiers 70,85,92] [--skip-startup 10s]
--   [--dump-dir DIR] [--max-dumps 3] [--cooldown 5m] [--duration T] [--count N] [--gc] [--triage]
--   [--samples FILE] [--watcher NAME[,NAME]]
-- Watches a live app from the host, with no SDK in it: each interval one sample of the Java heap
-- against its real maximum, the native heap, PSS and RSS, and the process's uptime; the chosen
-- watchers (hk.watcher{}) decide when to take a heap dump.  The built-in `tiers` watcher logs the
-- first crossing of each tier and dumps at the top one, or on a critical memory signal in logcat.
-- When the pid goes, a death record says why (lib/watch/death.lua, death_record.lua); the log is
-- read with the command the device's API level accepts (lib/watch/logcat.lua).
-- Where each number comes from:
--   java used   dumpsys meminfo PID, row "Dalvik Heap", column "Heap Alloc" (KB)
--   java max    getprop dalvik.vm.heapgrowthlimit, or dalvik.vm.heapsize when the package asks
--               for a large heap (LARGE_HEAP in `dumpsys package`): what Runtime.maxMemory() gives
--   native      dumpsys meminfo, row "Native Heap", column "Heap Alloc"
--   pss, rss    dumpsys meminfo, TOTAL PSS and TOTAL RSS of the App Summary (TOTAL row otherwise)
--   uptime      /proc/uptime minus the start time in /proc/PID/stat (100 ticks a second)
-- The samples file (--samples, .csv or .jsonl) gets one record per sample, flushed as it comes;
-- FILE.svg is the chart (lib/watch/chart.lua), rewritten atomically.

local W = {} -- the watch's own helpers, kept in one table so the order of definitions is free

local units = require "units"
local json = require "text.json"
local csv = require "text.csv"
local chart = require "watch.chart"
local death = require "watch.death"
local DR = require "watch.death_record"
local logcat = require "watch.logcat"

-- the watch's pieces, for users' scripts (docs/lua-api.md)
hk.watch_chart, hk.watch_samples = chart.chart, chart.samples
hk.watch_death, hk.watch_exit_info = death.death, death.exit_info
hk.death_record, hk.logcat_reader = DR, logcat.reader

-- "500ms", "2s", "1.5m", "1h" (and "0") -> seconds; anything else is the user's error
function W.duration(text, what)
  return units.duration(text, "watch: --" .. what)
end

function W.tiers(text)
  local t = {}
  for p in tostring(text):gmatch("[^,]+") do
    local v = tonumber(p)
    if not v or v <= 0 or v > 100 or (#t > 0 and v <= t[#t]) then
      hk.usage_error("watch: --tiers '" .. text .. "' must be increasing percentages of the Java heap maximum, "
        .. "each in (0, 100] (like 70,85,92)")
    end
    t[#t + 1] = v
  end
  if #t == 0 then hk.usage_error("watch: --tiers needs at least one percentage (like 70,85,92)") end
  return t
end

W.tier_names = { "observe", "warn", "capture" }

function W.tier_name(tiers, i)
  if #tiers == 3 then return W.tier_names[i] end
  return i == #tiers and "capture" or ("tier " .. i)
end

-- "256m", "512M", "1g", "393216k" (dalvik.vm.* properties) -> KB
function W.size_kb(v)
  local n, u = tostring(v or ""):match("^%s*(%d+)%s*([kKmMgG]?)")
  if not n then return nil end
  local mul = ({ [""] = 1 / 1024, k = 1, m = 1024, g = 1024 * 1024 })[u:lower()]
  return math.floor(tonumber(n) * mul)
end

-- ---- the samples file ----

W.columns = { "t", "time", "state", "pid", "uptime_s", "java_used_kb", "java_max_kb", "java_pct",
              "native_kb", "pss_kb", "rss_kb", "tier", "java_max_from", "event", "cause" }

function W.samples_kind(path)
  local kind = path:match("%.(%w+)$")
  if kind ~= "csv" and kind ~= "jsonl" then
    hk.usage_error("watch: --samples '" .. path .. "': the name must end in .csv or .jsonl (that chooses the format)")
  end
  return kind
end

function W.open_samples(path)
  local kind = W.samples_kind(path)
  local f, why = io.open(path, "w")
  if not f then error("watch: --samples: cannot create " .. tostring(why), 0) end
  f:setvbuf("full")
  if kind == "csv" then
    f:write(table.concat(W.columns, ","), "\n")
    f:flush()
  end
  return { f = f, kind = kind, path = path }
end

-- One record per call, as one write and a flush: a reader never sees half a line.
function W.write_sample(out, rec)
  if not out then return end
  local line
  if out.kind == "csv" then
    local cells = {}
    for i, c in ipairs(W.columns) do cells[i] = csv.field(rec[c]) end
    line = table.concat(cells, ",")
  else
    local r = {}
    for _, c in ipairs(W.columns) do r[c] = rec[c] == nil and hk.null or rec[c] end
    line = json.encode(r, W.columns, { compact = true })
  end
  out.f:write(line, "\n")
  out.f:flush()
end

-- ---- reading the device ----

local function first_int(s) return tonumber((s or ""):match("(%d+)")) end
-- an error's first line (the rest is a traceback)
local function first_line(e) return (tostring(e):gsub("\n.*", "")) end

-- Opens the device and reads what changes only with it: the heap limits.
function W.open_device(ctx)
  local dev = hk.device(ctx.serial)
  ctx.serial = dev.serial
  ctx.growth_kb = W.size_kb((dev:shell("getprop dalvik.vm.heapgrowthlimit")))
  ctx.heapsize_kb = W.size_kb((dev:shell("getprop dalvik.vm.heapsize")))
  return dev
end

-- The heap maximum for this app: largeHeap apps get dalvik.vm.heapsize.
function W.java_max(ctx, dev)
  local pkg = ctx.name:match("^[^:]+")
  local text = dev:shell("dumpsys package " .. pkg)
  local large = text:find("LARGE_HEAP", 1, true) ~= nil
  if large and ctx.heapsize_kb then return ctx.heapsize_kb, "dalvik.vm.heapsize (largeHeap)" end
  if ctx.growth_kb then return ctx.growth_kb, "dalvik.vm.heapgrowthlimit" end
  if ctx.heapsize_kb then return ctx.heapsize_kb, "dalvik.vm.heapsize (no heapgrowthlimit)" end
  return nil, "unknown (no dalvik.vm.heapgrowthlimit or heapsize)"
end

-- logcat since the last line seen (hk.logcat_reader: the command fits the API level): lines of
-- the process, system-wide memory signals, and the kill and death records of the last two
-- reads (ctx.log_records) for a death.  A log that cannot be read is said once (ctx.log_error).
function W.read_logcat(ctx, dev, pid)
  if not ctx.log then return {} end
  ctx.log.dev = dev
  local lines, why = ctx.log:read()
  if not lines then
    ctx.log_error = why
    ctx.log_records, ctx.log_lines = {}, 0
    return {}
  end
  ctx.log_error = nil
  local text = {}
  for i, l in ipairs(lines) do
    l.mine = l.pid == pid
    text[i] = l.text
  end
  local recs = hk.deaths and hk.deaths.logcat(table.concat(text, "\n")) or {}
  ctx.log_records = { ctx.log_records and ctx.log_records[2] or {}, recs }
  ctx.log_lines = (ctx.log_last_n or 0) + #lines
  ctx.log_last_n = #lines
  return lines
end

-- Memory signals in logcat: data, so a script can add its own (hk.watch_signals).  A tag is
-- matched with its padding (`%s*:`); `dump` says whether the built-in watcher takes a dump on
-- it.  What each means (../shared/reference/logcat/FORMATS.md, section 5):
hk.watch_signals = hk.watch_signals or {
  { pattern = "am_mem_factor%s*: %[3,", scope = "system", dump = true,
    what = "memory factor CRITICAL (system-wide, logged on change: few cached processes left or memory "
      .. "pressure; running apps get TRIM_MEMORY_RUNNING_CRITICAL before API 34, no callback since)" },
  { pattern = "am_mem_factor%s*: %[[0-2],", scope = "system", dump = false,
    what = "memory factor below critical (system-wide, logged on change)" },
  { pattern = "am_low_memory%s*: ", scope = "system", dump = false,
    what = "am_low_memory: a process the system did not kill died and no cached process is left "
      .. "(names no victim; not a dump trigger)" },
  { pattern = "TRIM_MEMORY_RUNNING_CRITICAL", scope = "process", dump = true,
    what = "the app logged TRIM_MEMORY_RUNNING_CRITICAL" },
  { pattern = "onLowMemory", scope = "process", dump = true, what = "the app logged onLowMemory" },
}

local FACTOR = { [0] = "NORMAL", "MODERATE", "LOW", "CRITICAL" }

function W.signals(lines)
  local found = {}
  for _, l in ipairs(lines) do
    for _, sig in ipairs(hk.watch_signals) do
      if (sig.scope == "system" or l.mine) and l.text:find(sig.pattern) then
        local what = sig.what
        local cur, prev = l.text:match("am_mem_factor%s*: %[(%d),(%d)%]")
        if cur and FACTOR[tonumber(cur)] and sig.dump == false then
          what = string.format("memory factor %s (was %s; system-wide, logged on change)", FACTOR[tonumber(cur)],
            FACTOR[tonumber(prev)] or prev)
        end
        found[#found + 1] = { what = what, line = l.text, dump = sig.dump ~= false }
        break
      end
    end
  end
  return found
end

-- The pid of the process named ctx.name (the first, when several share the name); nil when it
-- is not running.  Devices without pidof (before Android 6) are asked with ps.
function W.pid_of(ctx, dev)
  if not ctx.no_pidof then
    local out, code = dev:shell("pidof " .. ctx.name)
    if code ~= 127 and not out:find("not found", 1, true) then return tonumber(out:match("^%s*(%d+)")) end
    ctx.no_pidof = true
  end
  for _, p in ipairs(dev:processes()) do
    if p.name == ctx.name then return p.pid end
  end
end

local function row_value(mi, row, col)
  for _, r in ipairs(mi.rows or {}) do
    if r.name == row then return r.values[col] end
  end
end

local function num(v) if v ~= nil and v ~= hk.null then return v end end

-- One sample: fills rec; returns "ok", "gone", or raises (the device failed).
function W.read_sample(ctx, dev, rec, s)
  local pid = W.pid_of(ctx, dev)
  if not pid then
    s.logcat = W.read_logcat(ctx, dev, ctx.pid)
    s.signals = W.signals(s.logcat)
    return "gone"
  end
  rec.pid = pid
  if pid ~= ctx.pid or not ctx.java_max_kb then
    ctx.java_max_kb, ctx.java_max_from = W.java_max(ctx, dev)
  end
  local up = dev:shell("cat /proc/uptime /proc/" .. pid .. "/stat")
  local boot = tonumber(up:match("^%s*(%d+%.?%d*)"))
  local after = up:match(".*%)%s+(.*)$") -- after the last ')': a name may hold ") " itself
  if boot and after then
    local f = {}
    for w in after:gmatch("%S+") do f[#f + 1] = w end
    local start = tonumber(f[20]) -- field 22: start time in clock ticks since boot
    if start then rec.uptime_s = math.floor((boot - start / 100) * 100 + 0.5) / 100 end
  end
  s.logcat = W.read_logcat(ctx, dev, pid)
  s.signals = W.signals(s.logcat)
  local text = dev:shell("dumpsys meminfo " .. pid)
  if text:find("No process found", 1, true) then return "gone" end
  local ok, mi = pcall(hk.meminfo.parse, text)
  if not ok then
    s.event = "meminfo not readable: " .. first_line(mi)
    return "error"
  end
  s.meminfo, s.meminfo_text = mi, text
  rec.java_used_kb = num(row_value(mi, "Dalvik Heap", "Heap Alloc"))
  rec.native_kb = num(row_value(mi, "Native Heap", "Heap Alloc"))
  rec.pss_kb = num(mi.summary and mi.summary.total_pss) or num(row_value(mi, "TOTAL", "Pss Total"))
  rec.rss_kb = num(mi.summary and mi.summary.total_rss) or num(row_value(mi, "TOTAL", "Rss Total"))
  rec.java_max_kb, rec.java_max_from = ctx.java_max_kb, ctx.java_max_from
  if rec.java_used_kb and rec.java_max_kb and rec.java_max_kb > 0 then
    rec.java_pct = math.floor(rec.java_used_kb * 10000 / rec.java_max_kb + 0.5) / 100
  end
  return "ok"
end

-- ---- the watcher handle (w) ----

local Watch = {}
Watch.__index = Watch

function Watch:log(what, detail, file)
  local e = { t = self.sample_t, time = os.date("!%Y-%m-%dT%H:%M:%SZ"), pid = self.ctx.pid or hk.null,
              event = what, detail = detail or "", file = file or "" }
  self.events[#self.events + 1] = e
  self.sample_events[#self.sample_events + 1] = what .. (detail and detail ~= "" and (" " .. detail) or "")
  io.stderr:write(string.format("hprofkit watch: %s  %s%s%s\n", os.date("%H:%M:%S"), what,
    e.detail ~= "" and ("  " .. e.detail) or "", e.file ~= "" and ("  -> " .. e.file) or ""))
  return e
end

function Watch:stop(reason)
  self.stopping = reason or "stopped by a watcher"
end

local function safe_name(s) return (s:gsub("[^%w%._%-]", "_")) end

local function exists(path)
  local f = io.open(path, "rb")
  if f then f:close() end
  return f ~= nil
end

function Watch:dump_base()
  local base = self.args.dump_dir .. "/" .. safe_name(self.ctx.name) .. "-" .. os.date("%Y%m%d-%H%M%S")
  local b, i = base, 1
  while exists(b .. ".hprof") do i = i + 1; b = base .. "-" .. i end
  return b
end

-- Takes a heap dump now, unless --max-dumps are taken or the last one is within --cooldown.
-- Returns the dump's path, or nil and why not.
function Watch:dump(reason)
  reason = reason or "asked by a watcher"
  if not self.ctx.pid or not self.dev then return nil, "no process to dump" end
  if self.dumps >= self.args.max_dumps then
    if not self.max_logged then
      self.max_logged = true
      self:log("no-dump", "--max-dumps " .. self.args.max_dumps .. " reached (" .. reason .. ")")
    end
    return nil, "max dumps reached"
  end
  if self.last_dump and hk.clock() - self.last_dump < self.cooldown then return nil, "cooldown" end
  self.last_dump = hk.clock()
  local base = self:dump_base()
  local path = base .. ".hprof"
  local ok, res = pcall(self.dev.dump_heap, self.dev, tostring(self.ctx.pid),
    { gc = self.args.gc, output = path, progress = false })
  if not ok then
    self.failed_dumps = (self.failed_dumps or 0) + 1
    self:log("dump-failed", reason .. ": " .. first_line(res))
    return nil, tostring(res)
  end
  self.dumps = self.dumps + 1
  self:log("dump", reason, path)
  self.dump_marks[#self.dump_marks + 1] = { t = self.sample_t, reason = reason, file = path }
  if self.sample and self.sample.meminfo_text then
    hk.write_file(base .. ".meminfo.txt", self.sample.meminfo_text)
  end
  if self.args.triage then self:triage(path, base) end
  self:chart()
  return path
end

-- --native-profile: once per process, when its native heap passes --native-limit or has grown by
-- --native-growth since its first sample, a heapprofd profile of --native-duration
-- (profile-native, through hk.run, so sampling pauses while it records) beside the dumps.
function W.native_trigger(w, rec)
  local a = w.args
  if not rec.native_kb or w.native_done[rec.pid] then return end
  local bytes = rec.native_kb * 1024
  w.native_first[rec.pid] = w.native_first[rec.pid] or bytes
  local why
  if a.native_limit > 0 and bytes >= a.native_limit then
    why = string.format("native heap %d B >= --native-limit %d B", bytes, a.native_limit)
  elseif a.native_growth > 0 and bytes - w.native_first[rec.pid] >= a.native_growth then
    why = string.format("native heap grew %d B >= --native-growth %d B", bytes - w.native_first[rec.pid], a.native_growth)
  end
  if not why then return end
  w.native_done[rec.pid] = true
  local file = w:dump_base() .. ".native.pftrace"
  local ok, r = pcall(hk.run, "profile-native", nil, { serial = w.ctx.serial or "", process = tostring(rec.pid),
    duration = a.native_duration, trace = file })
  if ok then
    w:log("native-profile", why .. string.format("; %d B unreleased in the profile", r.unreleased_bytes), file)
  else
    w.failed_dumps = (w.failed_dumps or 0) + 1
    w:log("native-profile-failed", why .. ": " .. first_line(r))
  end
end

-- --triage: the recipe named "triage" (hk.run, so a user's replacement runs too) writes its
-- facts and report beside the dump, with the meminfo text saved beside it and the samples so far.
function Watch:triage(path, base)
  local q = hk.queries()["triage"]
  if not q then return end
  local declared = q.args or {}
  local a = {}
  if declared.report ~= nil then a.report = base .. ".report.html" end
  if declared.samples ~= nil and self.samples then a.samples = self.samples.path end
  local mi = base .. ".meminfo.txt"
  if declared.meminfo ~= nil and io.open(mi) then a.meminfo = mi end
  local ok, err = pcall(function()
    local facts = hk.run("triage", hk.open(path), a)
    hk.write_file(base .. ".facts.json", json.encode(facts, q.columns) .. "\n")
  end)
  if ok then self:log("triage", "facts and report", base .. ".facts.json")
  else self:log("triage-failed", first_line(err)) end
end

function Watch:chart()
  if not self.samples then return end
  local ok, err = pcall(function()
    hk.write_file(self.samples.path .. ".svg", chart.chart(self.records, {
      title = self.ctx.name, tiers = self.tiers, dumps = self.dump_marks, deaths = self.death_marks }))
  end)
  if not ok then io.stderr:write("hprofkit watch: warning: the chart: ", tostring(err), "\n") end
  self.chart_at = hk.clock()
end

-- What a watcher's on_sample gets as w: its own state table, the settings, and the actions.
function W.handle(w, name)
  return {
    state = w.state[name], tiers = w.tiers, args = w.args, process = w.ctx.name, serial = w.ctx.serial,
    dumps = w.dumps,
    dump = function(_, reason) return w:dump(reason) end,
    stop = function(_, reason) w:stop(reason) end,
    log = function(_, what, detail) w:log(what, detail) end,
  }
end

-- ---- the built-in watcher ----

hk.watcher{
  name = "tiers",
  help = "log the first crossing of each --tiers percentage of the Java heap maximum (again after a "
      .. "restart); dump at the top tier, or on a critical memory signal in logcat",
  on_sample = function(s, w)
    if s.new_process or not w.state.crossed then w.state.crossed = {} end
    local pct, top = s.java_pct, #w.tiers
    for i, p in ipairs(w.tiers) do
      if pct and pct >= p and not w.state.crossed[i] then
        w.state.crossed[i] = true
        w:log("tier", string.format("%d %s: Java heap %.1f%% >= %g%%", i, W.tier_name(w.tiers, i), pct, p))
      end
    end
    if pct and pct >= w.tiers[top] then
      w:dump(string.format("tier %d %s (%.1f%%)", top, W.tier_name(w.tiers, top), pct))
    end
    for _, sig in ipairs(s.signals or {}) do
      w:log("signal", sig.what)
      if sig.dump then w:dump("logcat: " .. sig.what) end
    end
  end,
}

-- ---- deaths and the log's state ----

-- The watched pid is gone (or replaced): why, as one event (hk.watch_death), in the sample's
-- record (cause), on the chart, and handed to each watcher's on_death.
function W.death(w, rec, watchers)
  local ctx = w.ctx
  ctx.dead = ctx.pid
  local last = w.last_ok and w.last_ok.pid == ctx.pid and w.last_ok or nil
  local ok, d = pcall(death.death, ctx, w.dev, ctx.pid, last)
  if not ok then
    w:log("death", string.format("pid %d: not explained (%s)", ctx.pid, first_line(d)))
    return
  end
  local e = w:log("death", DR.summary(d))
  e.death = d
  if d.exit_info_pending then w.exit_wait = { d = d, pid = ctx.pid, ends = hk.clock() + 10 } end
  rec.cause = d.cause_class
  w.death_marks[#w.death_marks + 1] = { t = w.sample_t, cause_class = d.cause_class, text = e.detail }
  for _, def in ipairs(watchers) do
    if def.on_death then
      w.state[def.name] = w.state[def.name] or {}
      local okw, err = pcall(def.on_death, d, W.handle(w, def.name))
      if not okw then w:log("watcher-failed", def.name .. ": " .. first_line(err)) end
    end
  end
end

-- exit-info may record a death some seconds after it (it waits for lmkd's report): asked again
-- each sample for 10 s; when it comes, the death record (the same table as the event's) gains it.
function W.exit_info_late(w)
  local x = w.exit_wait
  local ok, r = pcall(death.exit_info, w.ctx, w.dev, x.pid)
  if ok and r then
    w.exit_wait = nil
    DR.add_exit_info(x.d, r)
    w:log("death-exit-info", string.format("pid %d: %s", x.pid, DR.summary(x.d)))
  elseif hk.clock() > x.ends then
    w.exit_wait = nil
  end
end

-- A log that cannot be read is said once (and again once it reads again); memory is still sampled.
function W.log_state(w, s)
  local why = w.ctx.log_error
  if why and not w.log_said then
    w.log_said = true
    w:log("log-unreadable", why .. "; memory is still sampled, deaths are not explained from the log")
  elseif not why and w.log_said and s.logcat then
    w.log_said = false
    w:log("log-back", "logcat reads again")
  end
end

-- Signals while no process is judged (gone): logged with their meaning, never a dump.
function W.quiet_signals(w, s)
  for _, sig in ipairs(s.signals or {}) do
    w:log("signal", sig.what)
  end
end

-- ---- the loop ----

local function fmt_mb(kb) return kb and string.format("%.1f", kb / 1024) or "?" end

local function status_line(rec)
  if rec.state ~= "ok" and rec.state ~= "startup" then
    return string.format("%s  %s", os.date("%H:%M:%S"), rec.state)
  end
  return string.format("%s  pid %d  up %ss  java %s/%s MB (%s%%)  native %s MB  pss %s MB  rss %s MB%s%s",
    os.date("%H:%M:%S"), rec.pid, rec.uptime_s and string.format("%.0f", rec.uptime_s) or "?",
    fmt_mb(rec.java_used_kb), fmt_mb(rec.java_max_kb), rec.java_pct and string.format("%.1f", rec.java_pct) or "?",
    fmt_mb(rec.native_kb), fmt_mb(rec.pss_kb), fmt_mb(rec.rss_kb),
    rec.tier > 0 and ("  [tier " .. rec.tier .. "]") or "",
    rec.state == "startup" and "  (startup: not judged)" or "")
end

function W.watchers(names)
  local list = {}
  for n in names:gmatch("[^,%s]+") do
    local def = hk.watchers()[n]
    if not def then
      local known = {}
      for k in pairs(hk.watchers()) do known[#known + 1] = k end
      table.sort(known)
      hk.usage_error("watch: no watcher '" .. n .. "' (known: " .. table.concat(known, ", ") .. ")")
    end
    list[#list + 1] = def
  end
  return list
end

function W.resolve_name(ctx, dev, process)
  if not process:match("^%d+$") then return process end
  for _, p in ipairs(dev:processes()) do
    if p.pid == tonumber(process) then return p.name end
  end
  error("watch: no process with pid " .. process .. " on " .. dev.serial .. " (see `hprofkit processes -s "
    .. dev.serial .. "`)", 0)
end

function W.run(args)
  local process = args.process
  if not process or process == "" then hk.usage_error("watch: which process? give its name or pid") end
  if not process:match("^[%w%._:%-]+$") then
    hk.usage_error("watch: '" .. process .. "' is not a process name or pid (letters, digits, . _ : -)")
  end
  if not hk.meminfo then
    error("watch: the meminfo plugin is not loaded: see `hprofkit plugins` and plugins.ini", 0)
  end
  local w = setmetatable({ args = args, events = {}, sample_events = {}, records = {}, dumps = 0,
                           dump_marks = {}, death_marks = {}, state = {}, sample_t = 0 }, Watch)
  w.native_done, w.native_first = {}, {}
  w.interval = W.duration(args.interval, "interval")
  if w.interval <= 0 then hk.usage_error("watch: --interval must be more than 0") end
  w.skip = W.duration(args.skip_startup, "skip-startup")
  w.cooldown = W.duration(args.cooldown, "cooldown")
  w.duration = args.duration ~= "" and W.duration(args.duration, "duration") or nil
  w.tiers = W.tiers(args.tiers)
  for _, k in ipairs({ "max_dumps", "count" }) do
    if args[k] < 0 or args[k] % 1 ~= 0 then
      hk.usage_error("watch: --" .. k:gsub("_", "-") .. " must be a whole number >= 0")
    end
  end
  local watchers = W.watchers(args.watcher)
  if args.native_profile and args.native_limit <= 0 and args.native_growth <= 0 then
    hk.usage_error("watch: --native-profile needs --native-limit BYTES or --native-growth BYTES (the native heap " ..
      "has no maximum to take a share of)")
  end
  W.duration(args.native_duration, "native-duration")
  local d = io.open(args.dump_dir .. "/.", "rb")
  if not d then hk.usage_error("watch: --dump-dir " .. args.dump_dir .. " is not a directory") end
  d:close()
  if args.samples ~= "" then W.samples_kind(args.samples) end
  if args.triage and not hk.queries()["triage"] then
    io.stderr:write("hprofkit watch: note: --triage: no triage recipe is available (no query named "
      .. "'triage'), so dumps are taken without it\n")
  end

  local ctx = { serial = args.serial ~= "" and args.serial or nil }
  w.ctx = ctx
  local dev = W.open_device(ctx) -- a device that fails at the start is an error (exit 1)
  w.dev = dev
  ctx.name = W.resolve_name(ctx, dev, process)
  ctx.log = logcat.reader(dev)
  if args.samples ~= "" then w.samples = W.open_samples(args.samples) end -- once the device answers
  io.stderr:write(string.format("hprofkit watch: %s on %s every %gs, tiers %s%%, skip %gs after start; java used: "
    .. "meminfo Dalvik Heap Heap Alloc; java max: heapgrowthlimit %s, heapsize %s (largeHeap); Ctrl-C ends\n",
    ctx.name, ctx.serial, w.interval, table.concat(w.tiers, "/"), w.skip,
    ctx.growth_kb and fmt_mb(ctx.growth_kb) .. " MB" or "absent", ctx.heapsize_kb and fmt_mb(ctx.heapsize_kb) .. " MB" or "absent"))
  io.stderr:write("hprofkit watch: log: ", ctx.log.how, "\n")

  hk.trap_interrupt()
  local start = hk.clock()
  local tick = 0
  local was = nil -- the state of the last sample
  while true do
    w.sample_t = math.floor((hk.clock() - start) * 1000 + 0.5) / 1000
    w.sample_events = {}
    local rec = { t = w.sample_t, time = os.date("!%Y-%m-%dT%H:%M:%SZ"), tier = 0 }
    local s = {}
    w.sample = s
    if not w.dev then
      local ok, nd = pcall(W.open_device, ctx)
      if ok then
        w.dev = nd
        w:log("device-back", ctx.serial)
      end
    end
    local state
    if w.dev then
      local ok, st = pcall(W.read_sample, ctx, w.dev, rec, s)
      if ok then state = st
      else
        state = "offline"
        w.dev = nil
        w:log("device-lost", first_line(st))
      end
    else
      state = "offline"
    end
    W.log_state(w, s)
    if w.exit_wait and w.dev then W.exit_info_late(w) end
    if state == "gone" then
      rec.pid = nil
      if ctx.pid and ctx.dead ~= ctx.pid then W.death(w, rec, watchers) end
      if was ~= "gone" then w:log("gone", ctx.name .. " is not running (waiting for it)") end
      W.quiet_signals(w, s)
    elseif state == "ok" then
      if ctx.pid and rec.pid ~= ctx.pid then
        if ctx.dead ~= ctx.pid then W.death(w, rec, watchers) end
        w:log("restart", string.format("pid %d -> %d", ctx.pid, rec.pid))
      end
      ctx.pid = rec.pid
      w.last_ok = rec
      -- without the device's uptime, the time since this pid was first seen is a lower bound
      w.first_seen = w.first_seen or {}
      w.first_seen[rec.pid] = w.first_seen[rec.pid] or hk.clock()
      local age = rec.uptime_s or (hk.clock() - w.first_seen[rec.pid])
      if age < w.skip then state = "startup" end
    elseif state == "error" then
      w:log("error", s.event)
    end
    rec.state = state
    for i, p in ipairs(w.tiers) do
      if rec.java_pct and rec.java_pct >= p then rec.tier = i end
    end
    if state == "ok" then
      for k, v in pairs(rec) do s[k] = v end
      s.new_process = w.judged_pid ~= rec.pid -- the first judged sample of this process
      w.judged_pid = rec.pid
      for _, def in ipairs(watchers) do
        w.state[def.name] = w.state[def.name] or {}
        local ok, err = pcall(def.on_sample, s, W.handle(w, def.name))
        if not ok then
          w:log("watcher-failed", def.name .. ": " .. first_line(err))
        end
      end
    end
    if args.native_profile and state == "ok" then W.native_trigger(w, rec) end
    was = (state == "startup") and "ok" or state
    local now = hk.clock()
    -- the reason to stop goes with the last sample
    if w.stopping then w:log("stop", w.stopping)
    elseif hk.interrupted() then w.stopping = "interrupted"; w:log("stop", "interrupted")
    elseif w.duration and now - start >= w.duration then w.stopping = "duration"; w:log("stop", "--duration reached")
    elseif args.count > 0 and #w.records + 1 >= args.count then w.stopping = "count"; w:log("stop", "--count reached")
    end
    rec.event = table.concat(w.sample_events, "; ")
    w.records[#w.records + 1] = rec
    W.write_sample(w.samples, rec)
    io.stderr:write(status_line(rec), "\n")
    if w.samples and hk.clock() - (w.chart_at or 0) >= 10 then w:chart() end
    if w.stopping then break end
    tick = tick + 1
    local next_at = start + tick * w.interval
    if next_at < now then -- the sample took longer than the interval: skip the missed ticks
      tick = math.ceil((now - start) / w.interval)
      next_at = start + tick * w.interval
    end
    if w.duration then next_at = math.min(next_at, start + w.duration) end
    if not hk.sleep(next_at - now) then w:log("stop", "interrupted"); break end
  end
  if w.samples then
    w.samples.f:close()
    w:chart()
  end
  return w.events, w.failed_dumps and { exit_code = 1 } -- a dump was wanted and not taken
end

hk.query{
  name = "watch",
  help = "Watch PROCESS (name or pid) on a device: each --interval a sample of the Java heap against\n" ..
         "its maximum (heapgrowthlimit, or heapsize for a largeHeap app), native heap, PSS and RSS;\n" ..
         "log the first crossing of each --tiers percentage and take a heap dump (no GC unless --gc)\n" ..
         "at the top tier or on a critical memory signal in logcat (am_mem_factor CRITICAL, the\n" ..
         "app's TRIM_MEMORY_RUNNING_CRITICAL or onLowMemory; am_low_memory is logged, no dump), at\n" ..
         "most --max-dumps, one per --cooldown, none in the first --skip-startup of the process.\n" ..
         "--duration T or --count N samples end it, or Ctrl-C after the current sample.  Survives\n" ..
         "restarts (new pid) and the device going away; a death is explained (low memory: lmkd or\n" ..
         "the kernel's killer; killed by ActivityManager; crash; ANR; exit-info on API 30+) with the\n" ..
         "last sample's figures.  --samples FILE (.csv or .jsonl) records each sample and writes\n" ..
         "the chart FILE.svg.  Durations: 500ms, 2s, 5m, 1h.\n" ..
         "--watcher NAME[,NAME] chooses the triggers (hk.watcher{} scripts; default: tiers).",
  needs_dump = false,
  positional = { "process" },
  args = { serial = "", interval = "2s", tiers = "70,85,92", skip_startup = "10s", dump_dir = ".",
           max_dumps = 3, cooldown = "5m", duration = "", gc = false, triage = false, samples = "",
           watcher = "tiers", count = 0, native_profile = false, native_limit = 0, native_growth = 0,
           native_duration = "30s" },
  aliases = { s = "serial" },
  options_help = "  --watcher: `tiers` is built in; hk.watcher{} scripts add more (docs/lua-api.md)\n" ..
                 "  --native-profile: record a heapprofd profile (profile-native, --native-duration) once\n" ..
                 "    the native heap passes --native-limit BYTES or grows by --native-growth BYTES\n" ..
                 "  --triage: runs the recipe named `triage` on each dump when one is installed",
  columns = { "time", "t", "pid", "event", "detail", "file" },
  run = function(_, args)
    local events, meta = W.run(args)
    meta = meta or {}
    meta.empty = "nothing happened"
    return events, meta
  end,
}
