-- require "diff.report": the diff's record from the match of two dumps (dump:diff(base);
-- core/diff/diff.h says how objects are matched), for the diff command and triage --baseline
-- (hk.diff_report and hk.diff_base_map for users' scripts: commands/diff.lua).
local M = {}

local function num(v) return v or 0 end

-- class name -> {count, shallow} of a histogram (classes sharing a name summed)
local function by_name(dump, heap)
  local t = {}
  for _, r in ipairs(dump:histogram(heap, { retained = false })) do
    local e = t[r.class] or { count = 0, shallow = 0 }
    e.count, e.shallow = e.count + r.count, e.shallow + r.shallow_bytes
    t[r.class] = e
  end
  return t
end

local function class_deltas(df, base, dump, heap)
  local hb, hd = by_name(base, heap), by_name(dump, heap)
  local rb, rd = base:class_retained(heap), dump:class_retained(heap)
  local names, rows = {}, {}
  for n in pairs(hb) do names[n] = true end
  for n in pairs(hd) do names[n] = true end
  for n in pairs(names) do
    local b, d = hb[n] or {}, hd[n] or {}
    local in_base, in_dump = base:class(n) ~= nil or hb[n] ~= nil, dump:class(n) ~= nil or hd[n] ~= nil
    local row = {
      class = n, status = in_base and in_dump and "same" or in_dump and "added" or "removed",
      count_base = num(b.count), count_dump = num(d.count),
      shallow_base = num(b.shallow), shallow_dump = num(d.shallow),
      retained_base = num(rb[n]), retained_dump = num(rd[n]),
    }
    row.count_delta = row.count_dump - row.count_base
    row.shallow_delta = row.shallow_dump - row.shallow_base
    row.retained_delta = row.retained_dump - row.retained_base
    rows[#rows + 1] = row
  end
  table.sort(rows, function(a, b)
    if a.shallow_delta ~= b.shallow_delta then return a.shallow_delta > b.shallow_delta end
    if a.count_delta ~= b.count_delta then return a.count_delta > b.count_delta end
    return a.class < b.class
  end)
  return rows
end

local function heap_deltas(base, dump)
  local names, order = {}, {}
  for _, d in ipairs{ base, dump } do
    for _, h in ipairs(d:info().heaps) do
      if not names[h] then names[h] = true; order[#order + 1] = h end
    end
  end
  local rows = {}
  for _, h in ipairs(order) do
    local row = { heap = h, count_base = 0, count_dump = 0, shallow_base = 0, shallow_dump = 0 }
    for side, d in pairs{ base = base, dump = dump } do
      local ok, hist = pcall(d.histogram, d, h, { retained = false })
      if ok then
        for _, r in ipairs(hist) do
          row["count_" .. side] = row["count_" .. side] + r.count
          row["shallow_" .. side] = row["shallow_" .. side] + r.shallow_bytes
        end
      end
    end
    row.count_delta = row.count_dump - row.count_base
    row.shallow_delta = row.shallow_dump - row.shallow_base
    rows[#rows + 1] = row
  end
  return rows
end

local function growers(df, opts)
  local rows = {}
  for _, g in ipairs(df:growers{ min_growth = opts.min_growth, min_bytes = opts.min_bytes, n = opts.n }) do
    local rb, rd = g.base_retained, g.dump_retained
    rows[#rows + 1] = {
      path = g.path, class = g.dump.label, element_class = g.element_class,
      count_base = g.base_count, count_dump = g.dump_count, count_delta = g.dump_count - g.base_count,
      retained_base = rb, retained_dump = rd, retained_delta = rd - rb,
      id_base = g.base.id, id_dump = g.dump.id,
    }
  end
  return rows
end

-- count, bytes and duplicate groups of the bitmaps of a dump, and those the diff calls new
local function bitmap_side(d, df, status)
  local rows = d:bitmap_scan{}
  local t = { count = #rows, bytes = 0, duplicate_groups = 0, duplicate_bytes = 0, new = 0, new_bytes = 0 }
  local seen = {}
  for _, r in ipairs(rows) do
    t.bytes = t.bytes + r.bytes
    local o = d:object(r.id)
    if o and df:status(o) == status then t.new, t.new_bytes = t.new + 1, t.new_bytes + r.bytes end
    local sha = r.pixels_sha256
    if sha and sha ~= hk.null then
      local key = r.width .. "x" .. r.height .. ":" .. sha
      seen[key] = (seen[key] or 0) + 1
      if seen[key] == 2 then t.duplicate_groups = t.duplicate_groups + 1 end
      if seen[key] >= 2 then t.duplicate_bytes = t.duplicate_bytes + r.bytes end
    end
  end
  return t
end

local function bitmaps(base, dump, df)
  if not dump.bitmap_scan then return nil end
  local b, d = bitmap_side(base, df, "removed"), bitmap_side(dump, df, "added")
  return {
    count_base = b.count, count_dump = d.count, bytes_base = b.bytes, bytes_dump = d.bytes,
    added = d.new, added_bytes = d.new_bytes, removed = b.new, removed_bytes = b.new_bytes,
    duplicate_groups_base = b.duplicate_groups, duplicate_groups_dump = d.duplicate_groups,
    duplicate_bytes_base = b.duplicate_bytes, duplicate_bytes_dump = d.duplicate_bytes,
  }
end

-- Leak signatures new in DUMP and gone since BASE, from the leak search on each side.
-- Leak signatures (the leaks query's groups) new in DUMP and gone since BASE.
local function leak_groups(d)
  local t = {}
  for _, g in ipairs(d:leaks().leaks or {}) do
    t[#t + 1] = { signature = g.signature, kind = g.kind, description = g.description,
                  count = g.count, retained_bytes = g.retained_bytes }
  end
  return t
end

local function leak_signatures(base, dump)
  if not dump.leaks then return nil end
  local gb, gd = leak_groups(base), leak_groups(dump)
  local in_base, in_dump, new, gone = {}, {}, {}, {}
  for _, g in ipairs(gb) do in_base[g.signature] = true end
  for _, g in ipairs(gd) do
    in_dump[g.signature] = true
    if not in_base[g.signature] then new[#new + 1] = g end
  end
  for _, g in ipairs(gb) do if not in_dump[g.signature] then gone[#gone + 1] = g end end
  return { new = new, gone = gone }
end

local function head(rows, n)
  if n and n > 0 then for i = #rows, n + 1, -1 do rows[i] = nil end end
  return rows
end

-- What changed for one object: its status, counterpart, path and differing fields.
local function one_object(df, base, dump, id)
  local obj = dump:object(id) or base:object(id)
  if not obj then error("no object with id " .. id .. " in either dump", 0) end
  local other = df:counterpart(obj)
  local rows = {}
  for _, c in ipairs(df:changes(obj) or {}) do
    local function show(v) return type(v) == "userdata" and v ~= hk.null and v.label .. "@" .. v.id or v end
    rows[#rows + 1] = { field = c.field, base = show(c.base), dump = show(c.dump) }
  end
  return { id = obj.id, class = obj.label, status = df:status(obj), counterpart = other and other.id or hk.null,
           path = df:path(obj), changes = rows }
end

-- The whole report as a record.  opts: n (rows per section, 0 all), heap, min_growth (10),
-- min_bytes (65536), object, bitmaps (default true).  Also used by triage --baseline.
function M.report(base, dump, opts)
  opts = opts or {}
  local n = opts.n or 20
  local df = dump:diff(base)
  -- the per-class deltas first: their dominators give the totals the heap's sum for free
  local classes = class_deltas(df, base, dump, opts.heap ~= "" and opts.heap or nil)
  local t = df:totals()
  local added_classes, removed_classes = 0, 0
  for _, r in ipairs(classes) do
    if r.status == "added" then added_classes = added_classes + 1 end
    if r.status == "removed" then removed_classes = removed_classes + 1 end
  end
  local bi, di = base:info(), dump:info()
  local gb, gd = base:graph_totals(), dump:graph_totals()
  local rec = {
    base = bi.path, dump = di.path,
    summary = {
      objects_base = bi.objects, objects_dump = di.objects, bytes_base = gb.bytes, bytes_dump = gd.bytes,
      bytes_delta = gd.bytes - gb.bytes,
      same_objects = t.same_objects, added_objects = t.added_objects, added_bytes = t.added_bytes,
      removed_objects = t.removed_objects, removed_bytes = t.removed_bytes,
      classes_added = added_classes, classes_removed = removed_classes,
      matched_roots = t.matched_roots, matched_classes = t.matched_classes,
    },
    heaps = heap_deltas(base, dump),
    classes = head(classes, n),
    growers = growers(df, { min_growth = opts.min_growth, min_bytes = opts.min_bytes, n = n }),
    added_by_class = head(df:by_class("added"), n),
    removed_by_class = head(df:by_class("removed"), n),
    added_by_path = df:by_path("added", n),
    removed_by_path = df:by_path("removed", n),
  }
  if opts.bitmaps ~= false then rec.bitmaps = bitmaps(base, dump, df) end
  rec.leak_signatures = opts.leaks ~= false and leak_signatures(base, dump) or hk.null
  if opts.object and opts.object ~= "" then rec.object = one_object(df, base, dump, opts.object) end
  local top = rec.growers[1]
  rec.summary.top_grower = top and (top.path .. " (+" .. top.count_delta .. " " .. (top.element_class ~= hk.null and top.element_class or "elements") .. ")") or hk.null
  return rec, df
end

-- Says which map each side uses when the command line did not name it, and warns when one side
-- is read with a map and the other without (the classes the map renames would not match).
function M.say_maps(base_map, dump_map, why)
  for _, side in ipairs{ "base", "dump" } do
    local m = side == "base" and base_map or dump_map
    if m and why[side] then
      hk.warn(string.format("diff: note: %s is read with the map %s (%s)", side:upper(), m, why[side]))
    end
  end
  if (base_map and not dump_map) or (dump_map and not base_map) then
    hk.warn(string.format("diff: warning: %s is read with the map %s and %s with none: classes the map renames " ..
      "will not match (give --map FILE for DUMP, --base-map FILE for BASE)",
      base_map and "BASE" or "DUMP", base_map or dump_map, base_map and "DUMP" or "BASE"))
  end
end

-- base_map(base_path, dump) -> the map BASE is read with (a file, or false) by the diff's rule
-- (commands/diff.lua) when DUMP is already open: the map beside BASE, else DUMP's (triage
-- --baseline).
function M.base_map(base, dump)
  local mb = hk.map_beside(base)
  local base_map = hk.options and hk.options.map == false and false or mb or dump.map or false
  M.say_maps(base_map, dump.map or false, { base = mb and "beside BASE" or "the map DUMP is read with" })
  return base_map
end

return M
