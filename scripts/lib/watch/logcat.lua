-- require("watch.logcat").reader(dev[, {since = SECONDS}]) (hk.logcat_reader) -> a reader of the device's log since the last read:
--   reader:read()         -> lines ({text, pid}), or nil and why the log cannot be read
--   reader:read_buffer(b) -> the lines of one more buffer (kernel) over the last two reads'
--                            window, or nil and why
--   reader.how            -> the command's shape, said once at the start
-- The command fits the device's Android version (../shared/reference/logcat/FORMATS.md):
--   API 24+   logcat -v threadtime -v epoch -t SECONDS.MILLIS   (epoch and seconds -t: 7.0)
--   API 21-23 logcat -v threadtime -t 'MM-DD hh:mm:ss.mmm'     (the device's clock)
--   API 19-20 logcat -v threadtime -t COUNT                      (-t is only a line count;
--             the lines already seen are dropped)
-- logcat's exit status is read (an `echo` after it: shells before 7.0 have no shell protocol
-- to carry it), so a rejected option is an error, never an empty log.

local R = {}
R.__index = R

local MARK = "hk-logcat-exit="

local M = {}

function M.reader(dev, opts)
  opts = opts or {}
  local sdk = dev.sdk or 0
  local r = setmetatable({ dev = dev, sdk = sdk, seen = {}, window = {} }, R)
  r.buffers = { "main", "system", "events" }
  if sdk >= 21 then r.buffers[#r.buffers + 1] = "crash" end
  if sdk >= 24 then
    r.mode = "epoch"
    r.since = opts.since or tonumber((dev:shell("date +%s")):match("(%d+)")) or 0
  elseif sdk >= 21 then
    r.mode = "clock"
    local c = (dev:shell("date +%m-%d_%H:%M:%S")):match("(%d%d%-%d%d_%d%d:%d%d:%d%d)")
    r.since = c and (c:gsub("_", " ") .. ".000") or nil
    if not r.since then r.mode = "count" end
  else
    r.mode = "count"
  end
  r.count = opts.count or 2000
  r.how = string.format("logcat -v threadtime%s -b %s, %s (API %d)", r.mode == "epoch" and " -v epoch" or "",
    table.concat(r.buffers, ","), ({ epoch = "since the last line's seconds.millis",
      clock = "since the last line's device time", count = "the last " .. r.count .. " lines, those seen dropped" })[r.mode],
    sdk)
  if r.mode == "count" then r:read() end -- what is in the log now is the past
  return r
end

function R:command(buffers)
  local b = {}
  for _, n in ipairs(buffers) do b[#b + 1] = "-b " .. n end
  local t
  if self.mode == "epoch" then t = string.format("%.3f", self.since)
  elseif self.mode == "clock" then t = "'" .. self.since .. "'"
  else t = tostring(self.count) end
  return string.format("logcat -d -v threadtime%s %s -t %s 2>&1; echo %s$?", self.mode == "epoch" and " -v epoch" or "",
    table.concat(b, " "), t, MARK)
end

-- the output without the status line, and the status (nil when it never came)
local function status_of(text)
  local code
  local body = text:gsub("hk%-logcat%-exit=(%d+)\r?\n?", function(c) code = tonumber(c); return "" end)
  return body, code
end

local function first_line(s)
  for l in s:gmatch("[^\r\n]+") do if l:match("%S") then return l end end
  return "(no output)"
end

function R:run(buffers)
  local text = self.dev:shell(self:command(buffers))
  local body, code = status_of(text)
  if code ~= 0 then
    return nil, string.format("`logcat` %s: %s", code and ("exited with status " .. code) or "gave no exit status",
      first_line(body))
  end
  return body
end

local function stamp(mode, line)
  if mode == "epoch" then
    local ts, pid = line:match("^%s*(%d+%.%d+)%s+(%d+)")
    return tonumber(ts), tonumber(pid)
  end
  local ts, pid = line:match("^(%d%d%-%d%d %d%d:%d%d:%d%d%.%d+)%s+(%d+)")
  return ts, tonumber(pid)
end

-- Lines after the last one seen: by time (epoch, clock), or after the last line of the
-- previous read (count).
function R:new_lines(body)
  local lines = {}
  if self.mode == "count" then
    local all = {}
    for line in body:gmatch("[^\r\n]+") do all[#all + 1] = line end
    local from = 1
    if self.last then
      for i = #all, 1, -1 do if all[i] == self.last then from = i + 1; break end end
    end
    for i = from, #all do
      local _, pid = stamp("clock", all[i])
      lines[#lines + 1] = { text = all[i], pid = pid }
    end
    self.last = all[#all] or self.last
    return lines
  end
  for line in body:gmatch("[^\r\n]+") do
    local ts, pid = stamp(self.mode, line)
    if ts and not (ts == self.since and self.seen[line]) and not (ts < self.since) then
      if ts ~= self.since then self.since = ts; self.seen = {} end
      self.seen[line] = true
      lines[#lines + 1] = { text = line, pid = pid }
    end
  end
  return lines
end

function R:read()
  local before = self.since
  local body, why = self:run(self.buffers)
  if not body then return nil, why end
  local lines = self:new_lines(body)
  self.window = { self.window[2] or before, before }
  return lines
end

-- One more buffer over the window of the last two reads (the kernel's low memory killer
-- writes only there); lines are not de-duplicated against anything.
function R:read_buffer(name)
  local save = self.since
  if self.mode ~= "count" and self.window[1] then self.since = self.window[1] end
  local body, why = self:run({ name })
  self.since = save
  if not body then return nil, why end
  local lines = {}
  for line in body:gmatch("[^\r\n]+") do lines[#lines + 1] = { text = line } end
  return lines
end

return M
