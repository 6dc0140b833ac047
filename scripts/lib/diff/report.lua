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

-- hb, hd: by_name of each side; rb, rd: class_retained of each side
local function class_deltas(base, dump, hb, hd, rb, rd)
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

-- b: BASE's side when it was taken already
local function bitmaps(base, dump, df, b)
  if not dump.bitmap_scan then return nil end
  b = b or bitmap_side(base, df, "removed")
  local d = bitmap_side(dump, df, "added")
  return {
    count_base = b.count, count_dump = d.count, bytes_base = b.bytes, bytes_dump = d.bytes,
    added = d.new, added_bytes = d.new_bytes, removed = b.new, removed_bytes = b.new_bytes,
    duplicate_groups_base = b.duplicate_groups, duplicate_groups_dump = d.duplicate_groups,
    duplicate_bytes_base = b.duplicate_bytes, duplicate_bytes_dump = d.duplicate_bytes,
  }
end

-- Leak signatures (the leaks query's groups) new in DUMP and gone since BASE, from the leak
-- search on each side.  The groups only: not the roots that hold each leak, which would
-- build the referrers of the whole heap.
local function groups_of(leaks)
  local t = {}
  for _, g in ipairs(leaks) do
    t[#t + 1] = { signature = g.signature, kind = g.kind, description = g.description,
                  count = g.count, retained_bytes = g.retained_bytes }
  end
  return t
end

local function leak_groups(d) return groups_of(d:leaks{ roots = false }.leaks or {}) end

-- gb: BASE's leak_groups when they were taken already; dump_leaks: DUMP's dump:leaks().leaks
-- when the caller has them (triage), which saves a second leak search of DUMP
local function leak_signatures(base, dump, gb, dump_leaks)
  if not dump.leaks then return nil end
  gb = gb or leak_groups(base)
  local gd = dump_leaks and groups_of(dump_leaks) or leak_groups(dump)
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

-- The diff of a pair, kept while both dumps are (an explorer asks for it page after page).
local diffs = setmetatable({}, { __mode = "k" })
local function diff_of(base, dump, opts)
  local per = diffs[dump] or setmetatable({}, { __mode = "k" })
  diffs[dump] = per
  per[base] = per[base] or dump:diff(base, opts)
  return per[base]
end

-- Dumps an explorer keeps open (keep_open, hk.keep_open): the diff command and --baseline take
-- these instead of indexing the file again.  A command line run keeps none.
local kept = {}
function M.keep_open(path, d) kept[path] = d end
function M.kept(path) return kept[path] end

-- The baseline dump for --baseline PATH beside DUMP: the one kept open, else PATH opened with
-- the map the diff rule gives it.  Returns it and whether it was kept (then not to be closed).
function M.baseline_open(path, dump)
  if kept[path] then return kept[path], true end
  return hk.open(path, { map = M.base_map(path, dump) }), false
end

-- ---- a listing beside the baseline (--baseline on histogram, top, instances, ...) ----
-- Each listed figure X gets base_X (the baseline's) and delta_X; each row a change: NEW (not in
-- the baseline), REMOVED (the baseline's row that the dump lacks), GREW, SHRANK or SAME by
-- its measure (then count).  Rows of objects are paired as diff pairs objects (df:counterpart),
-- with baseline_id the counterpart; rows of classes, strings and arrays by their key.
local obj_figure = {
  retained_bytes = function(o) return o:retained_size() end, shallow_bytes = function(o) return o.shallow_size end,
  native_bytes = function(o) return o.native_size end, retained_native_bytes = function(o) return o:retained_native() end,
}
local LISTS = {
  histogram = { key = function(r) return r.class end, all = "n",
                fields = { "count", "shallow_bytes", "retained_bytes", "native_bytes" } },
  ["duplicate-strings"] = { key = function(r, d) return d:object(r.id).value end, all = "n", ids = { "id", "holder" },
                            fields = { "count", "bytes", "wasted_bytes" }, measure = "wasted_bytes" },
  ["duplicate-arrays"] = { key = function(r, d) local o = d:object(r.id); return o.class_name .. "\0" .. (o:bytes() or "") end,
                           all = "n", ids = { "id", "holder" }, fields = { "count", "bytes", "wasted_bytes" }, measure = "wasted_bytes" },
  top = { objects = true, fields = { "shallow_bytes", "retained_bytes", "native_bytes", "retained_native_bytes" } },
  instances = { objects = true, fields = { "shallow_bytes", "retained_bytes" } },
  dominated = { objects = true, fields = { "shallow_bytes", "retained_bytes", "retained_native_bytes" },
                base_args = function(a, dump, df)
                  if a.id == "" then return a end
                  local c = df:counterpart(dump:object(a.id))
                  if not c then return nil end
                  a.id = c.id
                  return a
                end },
  -- --export writes the dump's pictures only
  bitmaps = { objects = true, rows = "bitmaps", fields = { "bytes" }, measure = "bytes",
              base_args = function(a) a.export = ""; return a end },
}

local function change_of(r, measure)
  for _, f in ipairs{ measure, "count" } do
    local d = r["delta_" .. f]
    if d and d > 0 then return "GREW" elseif d and d < 0 then return "SHRANK" end
  end
  return "SAME"
end

local function copy(t)
  local c = {}
  for k, v in pairs(t) do c[k] = v end
  return c
end

local function set_side(r, spec, from, base_obj)
  for _, f in ipairs(spec.fields) do
    if r[f] ~= nil and r[f] ~= hk.null then
      local b = from and from[f]
      if b == nil and base_obj and obj_figure[f] then b = obj_figure[f](base_obj) end
      r["base_" .. f] = b or 0
      r["delta_" .. f] = r[f] - (b or 0)
    end
  end
end

-- the baseline's row the dump lacks: its figures as the baseline's, the dump's 0, ids null
local function removed_row(b, spec)
  local r = copy(b)
  for _, f in ipairs(spec.fields) do
    if b[f] ~= nil and b[f] ~= hk.null then r[f], r["base_" .. f], r["delta_" .. f] = 0, b[f], -b[f] end
  end
  r.baseline_id = b.id or hk.null
  for _, k in ipairs(spec.ids or { "id" }) do if r[k] ~= nil then r[k] = hk.null end end
  r.change = "REMOVED"
  return r
end

local function join_objects(spec, rows, brows, dump, base, df)
  local by_id, matched = {}, {}
  for _, b in ipairs(brows) do by_id[b.id] = b end
  for _, r in ipairs(rows) do
    local c = df:counterpart(dump:object(r.id))
    r.baseline_id = c and c.id or hk.null
    if c then
      matched[c.id] = true
      set_side(r, spec, by_id[c.id], c)
      r.change = change_of(r, spec.measure or "retained_bytes")
    else
      set_side(r, spec, {}, nil)
      r.change = "NEW"
    end
  end
  for _, b in ipairs(brows) do
    if not matched[b.id] and not df:counterpart(base:object(b.id)) then rows[#rows + 1] = removed_row(b, spec) end
  end
  return rows
end

local function join_keys(spec, rows, brows, dump, base, n)
  local by_key, seen = {}, {}
  for _, b in ipairs(brows) do
    local k = spec.key(b, base)
    if by_key[k] then for _, f in ipairs(spec.fields) do by_key[k][f] = by_key[k][f] + b[f] end -- one name, two classes
    else by_key[k] = copy(b) end
  end
  local out, removed = {}, {}
  for _, r in ipairs(rows) do
    local k = spec.key(r, dump)
    local b = by_key[k]
    seen[k] = true
    set_side(r, spec, b or {}, nil)
    r.change = b and change_of(r, spec.measure or "retained_bytes") or "NEW"
    if n == 0 or #out < n then out[#out + 1] = r end
  end
  for _, b in ipairs(brows) do
    local k = spec.key(b, base)
    if not seen[k] then seen[k] = true; removed[#removed + 1] = removed_row(by_key[k], spec) end
  end
  for i = 1, (n == 0 and #removed or math.min(n, #removed)) do out[#out + 1] = removed[i] end
  return out
end

-- The columns a table shows beside the baseline: the change first, each figure's base_ and
-- delta_ after the query's own.
local function baseline_columns(columns, spec)
  local out = { "change" }
  for _, c in ipairs(columns or {}) do out[#out + 1] = c end
  for _, f in ipairs(spec.fields) do out[#out + 1] = "base_" .. f; out[#out + 1] = "delta_" .. f end
  if spec.objects then out[#out + 1] = "baseline_id" end
  return out
end

-- beside_baseline(name, dump, args) (hk.beside_baseline) -> the rows of query name on dump beside the baseline's
-- (args.baseline), and the meta with the columns for a table
function M.beside_baseline(name, dump, args)
  local spec, def = LISTS[name], hk.queries()[name]
  local list = def.run
  local base = M.baseline_open(args.baseline, dump)
  local df = diff_of(base, dump)
  local a = copy(args)
  a.baseline = ""
  local n = spec.all and a[spec.all] or 0
  if spec.all then a[spec.all] = 0 end
  local result, meta = list(dump, copy(a))
  meta = meta and copy(meta) or {}
  local ba = spec.base_args and spec.base_args(copy(a), dump, df) or a
  local ok, bresult = true, {}
  if ba then ok, bresult = pcall(list, base, ba) end -- a class or heap the baseline lacks: no rows
  if not ok then bresult = {} end
  local rows = spec.rows and result[spec.rows] or result
  local brows = spec.rows and (bresult[spec.rows] or {}) or bresult
  if spec.objects then join_objects(spec, rows, brows, dump, base, df)
  else rows = join_keys(spec, rows, brows, dump, base, n) end
  if spec.rows then
    result[spec.rows] = rows
    meta.subcolumns = copy(meta.subcolumns or {})
    meta.subcolumns[spec.rows] = baseline_columns(meta.subcolumns[spec.rows], spec)
    return result, meta
  end
  meta.columns = baseline_columns(meta.columns or def.columns, spec)
  return rows, meta
end

-- The whole report as a record.  opts: n (rows per section, 0 all), heap, min_growth (10),
-- min_bytes (65536), object, bitmaps (default true), dump_leaks (DUMP's dump:leaks().leaks, when
-- the caller has them), free_base (neither BASE's graph nor the
-- Diff's growers are asked for after the report: BASE's dominators are freed before DUMP's are
-- computed, and both sides' per-object records shrink once read, df:side_done).  Also used by
-- triage --baseline.
function M.report(base, dump, opts)
  opts = opts or {}
  local n = opts.n or 20
  local df = diff_of(base, dump, { base_first = opts.free_base })
  local heap = opts.heap ~= "" and opts.heap or nil
  -- one side after the other (free_base): both sides' tallies and by-path rows, and the
  -- growers' candidates, before the dominators, the records then shrunk (to a bit an object,
  -- and DUMP's holders for the growers' paths, when no one object's path is asked for); all
  -- that reads BASE's dominators (its retained bytes by class, which also give the totals the
  -- heap's sum, its leak search) before DUMP's are computed
  local forget = opts.free_base and not (opts.object and opts.object ~= "") and "forget" or nil
  local hb, rb, gb, leaks_base, bitmaps_base, hd, rd, gd, grow
  local want_leaks = opts.leaks ~= false and dump.leaks
  if opts.free_base then
    -- the growers' candidates taken with BASE's, while both sides' records are whole
    df:side_done("base", true, forget and "forget growers" or "growers")
    df:side_done("dump", true, forget and "forget growers" or "growers")
    -- the class walk asked for first, as the dominators are computed: they keep the instance
    -- lists for it, which the leak search reads too
    hb, rb = by_name(base, heap), base:class_retained(heap)
    gb = base:graph_totals()
    leaks_base = want_leaks and leak_groups(base) or nil
    -- BASE's bitmaps before its instance lists go with its graph
    bitmaps_base = opts.bitmaps ~= false and dump.bitmap_scan and bitmap_side(base, df, "removed") or nil
    df:side_done("base") -- its graph and instance lists freed
    hd, rd = by_name(dump, heap), dump:class_retained(heap)
    gd = dump:graph_totals()
    grow = growers(df, { min_growth = opts.min_growth, min_bytes = opts.min_bytes, n = n })
    df:side_done("dump", true, forget) -- its holders and kinds freed
  else
    hb, rb = by_name(base, heap), base:class_retained(heap)
    gb = base:graph_totals()
    leaks_base = want_leaks and leak_groups(base) or nil
    hd, rd = by_name(dump, heap), dump:class_retained(heap)
  end
  local classes = class_deltas(base, dump, hb, hd, rb, rd)
  local t = df:totals()
  local added_classes, removed_classes = 0, 0
  for _, r in ipairs(classes) do
    if r.status == "added" then added_classes = added_classes + 1 end
    if r.status == "removed" then removed_classes = removed_classes + 1 end
  end
  local bi, di = base:info(), dump:info()
  gd = gd or dump:graph_totals()
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
    growers = grow or growers(df, { min_growth = opts.min_growth, min_bytes = opts.min_bytes, n = n }),
    added_by_class = head(df:by_class("added"), n),
    removed_by_class = head(df:by_class("removed"), n),
    added_by_path = df:by_path("added", n),
    removed_by_path = df:by_path("removed", n),
  }
  if opts.bitmaps ~= false then rec.bitmaps = bitmaps(base, dump, df, bitmaps_base) end
  rec.leak_signatures = opts.leaks ~= false and leak_signatures(base, dump, leaks_base, opts.dump_leaks) or hk.null
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
