-- The native section of the triage facts (triage --native TRACE): the heapprofd profile's
-- picked dump summed (unreleased, allocated, freed), its hotspots per call-stack fingerprint, a
-- flame tree of unreleased bytes (outermost caller at the root), and, with --meminfo, Native
-- Heap beside the profile with a sentence on the gap.  Nothing of where the trace was.
local np = require "native.profile"

local function present(v) return v ~= nil and v ~= hk.null end

-- The flame tree of unreleased bytes: a node per function on a path from the root, children
-- largest first; nodes under min bytes are folded into their parent's self.
local function flame(p, d, min)
  local root = { name = "all", total = 0, self = 0, kids = {} }
  for _, s in ipairs(d.samples) do
    local b = np.figures(d, s).unreleased
    if b > 0 then
      root.total = root.total + b
      local node, fs = root, p.stacks[s.stack]
      for i = 1, #fs do
        local name = np.frame_text(p.frames[fs[i]])
        local k = node.kids[name]
        if not k then k = { name = name, total = 0, self = 0, kids = {} }; node.kids[name] = k end
        k.total = k.total + b
        node = k
      end
      node.self = node.self + b
    end
  end
  local function out(n, depth)
    local kids = {}
    for _, k in pairs(n.kids) do
      if k.total >= min and depth < 40 then kids[#kids + 1] = k else n.self = n.self + k.total end
    end
    table.sort(kids, function(a, b) if a.total ~= b.total then return a.total > b.total end return a.name < b.name end)
    local r = { name = n.name, total_bytes = n.total, self_bytes = n.self, children = {} }
    for i, k in ipairs(kids) do r.children[i] = out(k, depth + 1) end
    return r
  end
  return out(root, 0)
end

local bytes = require("units").bytes

-- meminfo's Native Heap (KB) beside what the profile holds unreleased.
local function gap_sentence(kb, unreleased, interval)
  if not present(kb) then return hk.null end
  local gap = kb * 1024 - unreleased
  return string.format("Native Heap is %s in meminfo, the profile's unreleased allocations %s: %s %s. " ..
    "heapprofd sees only what was allocated after it started, and samples it (about one allocation in " ..
    "every %d bytes, scaled up), while meminfo counts the pages the allocator holds, freed-but-kept ones " ..
    "and its own overhead included.", bytes(kb * 1024), bytes(unreleased), bytes(math.abs(gap)),
    gap >= 0 and "more in meminfo" or "more in the profile", interval)
end

-- dump_process: the dump's own process name, to say when the profile is of another one.
return function(path, meminfo_summary, dump_process)
  local p = np.load(path)
  local series, heaps = np.series(p, path, nil)
  local d, at = np.pick(series, nil, path)
  local t = np.interval(d, nil)
  local rows = np.sort(np.by_fingerprint(p, d, 8), "unreleased_bytes")
  local hot = {}
  for i = 1, math.min(20, #rows) do
    local r = rows[i]
    hot[i] = { fingerprint = r.fingerprint, frames = r.frames, unreleased_bytes = r.unreleased_bytes,
               allocated_bytes = r.allocated_bytes, alloc_count = present(r.alloc_count) and r.alloc_count or hk.null }
  end
  local native_kb = meminfo_summary and meminfo_summary.native_heap
  local mismatch = hk.null
  if present(d.process) and present(dump_process) and d.process ~= dump_process then
    mismatch = string.format("the profile is of %s (pid %d), the dump of %s: they are not one process's memory",
      d.process, d.pid, dump_process)
    hk.warn("hprofkit triage: warning: --native: " .. mismatch)
  end
  return {
    pid = d.pid, process = present(d.process) and d.process or hk.null, heap = d.heap, heaps = heaps,
    dump = at, dumps = #series, sampling_interval = d.sampling_interval,
    unreleased_bytes = t.unreleased, allocated_bytes = t.allocated, freed_bytes = t.freed,
    hotspots = hot, flame = flame(p, d, math.max(1, t.unreleased // 200)),
    meminfo_native_heap_kb = present(native_kb) and native_kb or hk.null,
    process_mismatch = mismatch,
    meminfo_sentence = meminfo_summary and gap_sentence(native_kb, t.unreleased, d.sampling_interval) or hk.null,
  }
end
