-- hprofkit native-diff BASE DUMP [--heap NAME] [--frames N] [--min-growth BYTES] [-n N]
-- Which native call stacks grew between two heapprofd dumps: two traces, or two dumps of one
-- trace spelled TRACE@N (N from 1, or "last"), as the Java diff's growers are listed: per
-- call-stack fingerprint the unreleased bytes in BASE and in DUMP and the growth, largest
-- first; fingerprints only one side has are new or gone.
local np = require "native.profile"

-- The picked dump of one side: its profile, the dump, and how it was named.
local function side(spec, heap, profiles)
  local path, pick = np.split_spec(spec)
  profiles[path] = profiles[path] or np.load(path)
  local p = profiles[path]
  local series = np.series(p, path, heap)
  local d, at = np.pick(series, pick, path)
  return p, d, string.format("%s@%d", path, at)
end

local function rows_by_key(p, d, depth)
  local t = {}
  for _, r in ipairs(np.by_fingerprint(p, d, depth)) do t[r.fingerprint] = r end
  return t
end

hk.query{
  name = "native-diff",
  help = "Native call stacks that grew between two heapprofd dumps (two traces, or TRACE@N for the\n" ..
         "Nth dump of one trace, TRACE@last): per call-stack fingerprint (the top --frames frames) the\n" ..
         "unreleased bytes in BASE and DUMP and the growth, largest first; stacks only one side has\n" ..
         "are new or gone.  --min-growth BYTES hides smaller changes.",
  positional = { "base", "dump" },
  needs_dump = false,
  args = { heap = "", frames = 8, n = 20, min_growth = 1 },
  shape = "record",
  columns = { "base", "dump", "heap", "base_unreleased_bytes", "dump_unreleased_bytes", "growth_bytes", "stacks" },
  run = function(_, args)
    local depth = tonumber(args.frames)
    if not depth or depth < 1 or depth ~= math.floor(depth) then
      hk.usage_error("--frames takes a whole number from 1, not '" .. tostring(args.frames) .. "'")
    end
    local min = tonumber(args.min_growth)
    if not min then hk.usage_error("--min-growth takes a number of bytes, not '" .. tostring(args.min_growth) .. "'") end
    local heap = args.heap ~= "" and args.heap or nil
    local profiles = {}
    local bp, bd, bname = side(args.base, heap, profiles)
    local dp, dd, dname = side(args.dump, heap or bd.heap, profiles)
    local before, after = rows_by_key(bp, bd, depth), rows_by_key(dp, dd, depth)
    local rows = {}
    local function add(key, b, a)
      local bu, au = b and b.unreleased_bytes or 0, a and a.unreleased_bytes or 0
      if math.abs(au - bu) < min then return end
      local r = a or b
      rows[#rows + 1] = {
        fingerprint = key, status = not b and "new" or not a and "gone" or (au > bu and "grew" or "shrank"),
        base_unreleased_bytes = bu, dump_unreleased_bytes = au, growth_bytes = au - bu,
        allocated_since_bytes = (a and a.allocated_bytes or 0) - (b and b.allocated_bytes or 0),
        frames = r.frames, top_frames = table.concat(r.frames, " < "),
      }
    end
    for k, a in pairs(after) do add(k, before[k], a) end
    for k, b in pairs(before) do if not after[k] then add(k, b, nil) end end
    table.sort(rows, function(x, y)
      if x.growth_bytes ~= y.growth_bytes then return x.growth_bytes > y.growth_bytes end
      return x.fingerprint < y.fingerprint
    end)
    local n = tonumber(args.n) or 20
    if n > 0 then for i = #rows, n + 1, -1 do rows[i] = nil end end
    local bt, dt = np.interval(bd, nil), np.interval(dd, nil)
    return {
      base = bname, dump = dname, heap = dd.heap,
      base_unreleased_bytes = bt.unreleased, dump_unreleased_bytes = dt.unreleased,
      growth_bytes = dt.unreleased - bt.unreleased, stacks = rows,
    }, { subcolumns = { stacks = { "fingerprint", "status", "base_unreleased_bytes", "dump_unreleased_bytes",
                                   "growth_bytes", "top_frames" } } }
  end,
}
