-- What `native` and `native-diff` share: a trace's heapprofd profile read once
-- (hk.native_profile), one dump picked by the global options, and its samples summed per
-- call-stack fingerprint (the top N frames, from the allocating one up) and per function.
--
-- heapprofd's figures are cumulative since the profile began, so a dump's unreleased bytes
-- are allocated - freed of each call stack at that dump (with dump_at_max: the bytes live at
-- the peak).  What a dump added since the one before it is the difference per call stack.
local M = {}

local function present(v) return v ~= nil and v ~= hk.null end

-- The text of one frame: its name, else module+0xpc (the module's file name).
function M.frame_text(f)
  if present(f.name) then return f.name end
  local mod = present(f.module) and f.module:match("[^/]*$") or "?"
  return string.format("%s+0x%x", mod, f.rel_pc)
end

function M.load(path)
  local m = hk.options.map
  return hk.native_profile(path, { map = type(m) == "string" and m or nil })
end

-- "path@N": the Nth dump of that trace (the spelling native-diff takes for two dumps of one
-- trace); returns the path and the pick, nil when the argument names none.
function M.split_spec(spec)
  local path, pick = spec:match("^(.*)@([%w]+)$")
  if path and path ~= "" and (pick == "last" or pick:match("^%d+$")) then return path, pick end
  return spec, nil
end

local function matches_process(d)
  local o = hk.options
  if o.trace_pid and d.pid ~= o.trace_pid then return false end
  if o.trace_process then
    local name = present(d.process) and d.process or ""
    if name ~= o.trace_process and name:match("[^/]*$") ~= o.trace_process then return false end
  end
  return true
end

-- What the trace holds, one line per dump, for a message that lists them.
function M.listing(p)
  local lines = {}
  for i, d in ipairs(p.dumps) do
    lines[#lines + 1] = string.format("  %d: pid %d%s, heap %s, ts %d, %d call stacks", i, d.pid,
      present(d.process) and (" (" .. d.process .. ")") or "", d.heap, d.ts, #d.samples)
  end
  return table.concat(lines, "\n")
end

-- The dumps of the picked process (the first that has one, unless --trace-pid/--trace-process
-- say) and heap (default: libc.malloc when profiled, else the first heap), in trace order; and
-- the process's heaps.
function M.series(p, path, heap)
  if #p.dumps == 0 then
    error(path .. ": the trace holds no native heap profile (heapprofd ProfilePackets); record one with " ..
      "`hprofkit profile-native` or Perfetto's heapprofd data source", 0)
  end
  local pid, heaps, seen = nil, {}, {}
  for _, d in ipairs(p.dumps) do
    if matches_process(d) then
      pid = pid or d.pid
      if d.pid == pid and not seen[d.heap] then
        seen[d.heap] = true
        heaps[#heaps + 1] = d.heap
      end
    end
  end
  if not pid then
    error(path .. ": no native heap profile matches --trace-pid/--trace-process; the trace holds:\n" ..
      M.listing(p), 0)
  end
  if heap and not seen[heap] then
    hk.usage_error(string.format("%s: pid %d has no heap '%s'; its heaps: %s", path, pid, heap,
      table.concat(heaps, ", ")))
  end
  heap = heap or (seen["libc.malloc"] and "libc.malloc" or heaps[1])
  local series = {}
  for _, d in ipairs(p.dumps) do
    if d.pid == pid and d.heap == heap then series[#series + 1] = d end
  end
  return series, heaps
end

-- The dump --trace-dump (or a path@N spelling) picks from a series: "last" by default.
function M.pick(series, pick, path)
  pick = pick or hk.options.trace_dump or "last"
  if pick == "last" then return series[#series], #series end
  local n = tonumber(pick)
  if n and n >= 1 and n <= #series and n == math.floor(n) then return series[n], n end
  for i, d in ipairs(series) do
    if d.ts == n then return d, i end
  end
  hk.usage_error(string.format("%s: dump %s (--trace-dump or TRACE@N) names no dump: the process has %d (1 to %d, " ..
    "'last', or a timestamp)", path, pick, #series, #series))
end

-- Per call stack of a dump: unreleased, allocated and freed bytes and counts.
local function figures(d, s)
  if d.at_max then
    return { unreleased = s.max_bytes, allocated = s.max_bytes, freed = 0,
             alloc_count = d.sampling_interval > 0 and s.max_count or nil, free_count = 0 }
  end
  return { unreleased = s.alloc_bytes - s.freed_bytes, allocated = s.alloc_bytes, freed = s.freed_bytes,
           alloc_count = s.alloc_count, free_count = s.free_count }
end
M.figures = figures

-- Totals of a dump, and what it added since prev (nil: the first).
function M.interval(d, prev)
  local t = { unreleased = 0, allocated = 0, freed = 0 }
  local before = {}
  if prev then
    for _, s in ipairs(prev.samples) do before[s.stack] = figures(prev, s) end
  end
  local added = 0
  for _, s in ipairs(d.samples) do
    local f = figures(d, s)
    t.unreleased = t.unreleased + f.unreleased
    t.allocated = t.allocated + f.allocated
    t.freed = t.freed + f.freed
    added = added + f.allocated - (before[s.stack] and before[s.stack].allocated or 0)
  end
  t.allocated_since = prev and added or t.allocated
  return t
end

-- The stack's frames from the allocating one up (leaf first), as text.
function M.leaf_first(p, stack)
  local fs, out = p.stacks[stack], {}
  for i = #fs, 1, -1 do out[#out + 1] = M.frame_text(p.frames[fs[i]]) end
  return out
end

local function add(row, f)
  row.unreleased_bytes = row.unreleased_bytes + f.unreleased
  row.allocated_bytes = row.allocated_bytes + f.allocated
  row.freed_bytes = row.freed_bytes + f.freed
  row.alloc_count = f.alloc_count and row.alloc_count and row.alloc_count + f.alloc_count or nil
  row.free_count = row.free_count + (f.free_count or 0)
end

local function new_row(extra)
  local r = { unreleased_bytes = 0, allocated_bytes = 0, freed_bytes = 0, alloc_count = 0, free_count = 0 }
  for k, v in pairs(extra) do r[k] = v end
  return r
end

-- Rows per fingerprint: the first `depth` frames from the allocating one; fingerprint is
-- the SHA-1 of their names, one line each (so the same hotspot has the same fingerprint in
-- any trace of the app).
function M.by_fingerprint(p, d, depth)
  local rows, index = {}, {}
  for _, s in ipairs(d.samples) do
    local frames = M.leaf_first(p, s.stack)
    local top = {}
    for i = 1, math.min(depth, #frames) do top[i] = frames[i] end
    local key = table.concat(top, "\n")
    local row = index[key]
    if not row then
      row = new_row({ fingerprint = hk.sha1(key):sub(1, 12), frames = top, stacks = 0 })
      index[key] = row
      rows[#rows + 1] = row
    end
    row.stacks = row.stacks + 1
    add(row, figures(d, s))
  end
  return rows
end

-- Rows per function: self (the stacks it allocates in) and total (every stack it is on, once).
function M.by_function(p, d)
  local rows, index = {}, {}
  local function row_of(name)
    local r = index[name]
    if not r then
      r = new_row({ ["function"] = name, self_unreleased_bytes = 0, self_allocated_bytes = 0 })
      index[name] = r
      rows[#rows + 1] = r
    end
    return r
  end
  for _, s in ipairs(d.samples) do
    local f = figures(d, s)
    local frames, seen = M.leaf_first(p, s.stack), {}
    for i, name in ipairs(frames) do
      local r = row_of(name)
      if i == 1 then
        r.self_unreleased_bytes = r.self_unreleased_bytes + f.unreleased
        r.self_allocated_bytes = r.self_allocated_bytes + f.allocated
      end
      if not seen[name] then
        seen[name] = true
        add(r, f)
      end
    end
  end
  return rows
end

function M.sort(rows, key)
  table.sort(rows, function(a, b)
    if a[key] ~= b[key] then return a[key] > b[key] end
    return (a.fingerprint or a["function"]) < (b.fingerprint or b["function"])
  end)
  return rows
end

return M
