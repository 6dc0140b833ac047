-- hprofkit native TRACE [--heap NAME] [--by fingerprint|function] [--frames N] [-n N]
-- The native allocation hotspots of a heapprofd profile: per call-stack fingerprint (the
-- top --frames frames, from the allocating one up, as the OOM-monitoring APMs group them) or
-- per function (self and total, a flame graph flattened), the bytes not released at the dump
-- (allocated - freed), allocated, freed and their counts; and every dump of the process with
-- its totals and what it added since the one before.
local np = require "native.profile"

hk.query{
  name = "native",
  help = "Native heap allocation hotspots from a heapprofd profile in a Perfetto trace: per call-stack\n" ..
         "fingerprint (--by fingerprint, the top --frames frames) or per function (--by function: self\n" ..
         "and total), the bytes unreleased at the dump (allocated - freed), allocated and freed, with\n" ..
         "counts; and every dump of the process in time.  The process: --trace-pid/--trace-process\n" ..
         "(default: the first profiled); the dump: --trace-dump N|last|TS (default: the last).\n" ..
         "Java frames are named with --map (and the trace's own deobfuscation data).",
  positional = { "trace" },
  needs_dump = false,
  args = { heap = "", by = "fingerprint", frames = 8, n = 20 },
  shape = "record",
  columns = { "trace", "pid", "process", "heap", "heaps", "dump", "dumps_in_trace", "sampling_interval",
              "unreleased_bytes", "allocated_bytes", "freed_bytes", "hotspots", "dumps", "notes" },
  run = function(_, args)
    if args.by ~= "fingerprint" and args.by ~= "function" then
      hk.usage_error("--by is 'fingerprint' or 'function', not '" .. tostring(args.by) .. "'")
    end
    local depth = tonumber(args.frames)
    if not depth or depth < 1 or depth ~= math.floor(depth) then
      hk.usage_error("--frames takes a whole number from 1, not '" .. tostring(args.frames) .. "'")
    end
    local p = np.load(args.trace)
    local series, heaps = np.series(p, args.trace, args.heap ~= "" and args.heap or nil)
    local d, at = np.pick(series, nil, args.trace)
    local rows = args.by == "function" and np.by_function(p, d) or np.by_fingerprint(p, d, depth)
    np.sort(rows, "unreleased_bytes")
    local n = tonumber(args.n) or 20
    if n > 0 then for i = #rows, n + 1, -1 do rows[i] = nil end end
    for _, r in ipairs(rows) do
      if r.frames then r.top_frames = table.concat(r.frames, " < ") end
    end
    local dumps, prev = {}, nil
    for i, s in ipairs(series) do
      local t = np.interval(s, prev)
      dumps[i] = { dump = i, ts = s.ts, window_ns = s.start_ts and s.ts - s.start_ts or hk.null, call_stacks = #s.samples, unreleased_bytes = t.unreleased,
                   allocated_bytes = t.allocated, freed_bytes = t.freed, allocated_since_previous_bytes = t.allocated_since,
                   unreleased_change_bytes = t.unreleased - (prev and np.interval(prev, nil).unreleased or 0),
                   at_max = s.at_max }
      prev = s
    end
    local total = np.interval(d, nil)
    local result = {
      trace = args.trace, pid = d.pid, process = d.process, heap = d.heap, heaps = heaps, dump = at,
      dumps_in_trace = #series, sampling_interval = d.sampling_interval,
      unreleased_bytes = total.unreleased, allocated_bytes = total.allocated, freed_bytes = total.freed,
      hotspots = rows, dumps = dumps,
      notes = p.notes ~= "" and p.notes or hk.null,
    }
    local hot_cols = args.by == "function"
      and { "function", "self_unreleased_bytes", "unreleased_bytes", "self_allocated_bytes", "allocated_bytes",
            "alloc_count" }
      or { "fingerprint", "unreleased_bytes", "allocated_bytes", "freed_bytes", "alloc_count", "free_count",
           "stacks", "top_frames" }
    return result, { subcolumns = {
      hotspots = hot_cols,
      dumps = { "dump", "ts", "call_stacks", "unreleased_bytes", "unreleased_change_bytes", "allocated_bytes",
                "allocated_since_previous_bytes", "freed_bytes" },
    } }
  end,
}
