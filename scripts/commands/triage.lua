-- triage: one command from a dump to the facts CI reads (--json) and a report a person reads in
-- a browser (--report FILE.html).  A recipe: it runs the other queries and gathers what they
-- answer into one record.  The facts hold nothing that depends on where or when they were made
-- (no path, host or run time), so the same dump gives the same bytes.  Copy it and change it.
local SCHEMA = "hprofkit-triage/2"
local TOP, CLASSES, DUPS = 20, 20, 20

-- One query running another, the documented way.
local function run(name, dump, args) return hk.run(name, dump, args or {}) end

local function present(v) return v ~= nil and v ~= hk.null end
local function ornull(v) if present(v) then return v end return hk.null end

local usage = hk.usage_error
local leak_text = require "leaks.text"
local diff = require "diff.report"

local function progress(phase)
  if hk.isatty(2) then io.stderr:write("\r\027[Ktriage: ", phase, " ...") io.stderr:flush() end
end

local function done_progress()
  if hk.isatty(2) then io.stderr:write("\r\027[K") io.stderr:flush() end
end

local function as_object(t) return setmetatable(t, hk.object_mt) end

-- ---- the facts ----

-- layout: dump.jvm_layout, how the sizes were counted (a HotSpot dump's JVM layout, or "dump")
local function origin_of(info, layout)
  return {
    layout = layout.name, layout_why = layout.why,
    format = info.format, id_size = info.id_size, sdk = ornull(info.sdk),
    fingerprint = ornull(info.fingerprint), manufacturer = ornull(info.manufacturer),
    model = ornull(info.model), process = ornull(info.process),
    timestamp = ornull(info.timestamp), file_bytes = ornull(info.file_bytes),
  }
end

-- hist: the histogram query's rows (all classes).  By heap, the rows the query would give
-- with --heap come straight from dump:histogram (the query adds retained bytes, not needed here).
local function totals_of(dump, info, hist)
  local heaps, bytes, count = {}, 0, 0
  for _, h in ipairs(info.heaps or {}) do
    local n, hb = 0, 0
    for _, r in ipairs(dump:histogram(h, { retained = false })) do
      n = n + r.count
      hb = hb + r.shallow_bytes
    end
    heaps[#heaps + 1] = { heap = h, count = n, shallow_bytes = hb }
  end
  table.sort(heaps, function(a, b) return a.heap < b.heap end)
  for _, r in ipairs(hist) do
    count = count + r.count
    bytes = bytes + r.shallow_bytes
  end
  local reach = {}
  for _, r in ipairs(run("reachability", dump, {})) do
    reach[#reach + 1] = { reachability = r.reachability, count = r.count,
                          shallow_bytes = r.shallow_bytes }
  end
  local g = dump:graph_totals()
  return {
    objects = info.objects, classes = info.classes, instances = info.instances,
    object_arrays = info.object_arrays, primitive_arrays = info.primitive_arrays,
    gc_roots = info.gc_roots, count = count, shallow_bytes = bytes, native_bytes = g.native,
    heaps = heaps, reachability = reach,
  }
end

-- The first CLASSES rows: what `histogram -n CLASSES` gives.
local function histogram_of(hist)
  local rows = {}
  for i = 1, math.min(CLASSES, #hist) do
    local r = hist[i]
    rows[i] = { class = r.class, count = r.count, shallow_bytes = r.shallow_bytes,
                retained_bytes = ornull(r.retained_bytes) }
  end
  return rows
end

local function chain_of(obj)
  local chain = {}
  local d = obj:dominator()
  while d do
    chain[#chain + 1] = { id = d.id, class = d.label, retained_bytes = d:retained_size() }
    d = d:dominator()
  end
  return chain
end

local function top_of(dump, heap)
  local rows = {}
  for i, r in ipairs(run("top", dump, { n = TOP, heap = heap })) do
    rows[i] = {
      id = r.id, class = r.class, shallow_bytes = r.shallow_bytes, retained_bytes = r.retained_bytes,
      native_bytes = r.native_bytes, retained_native_bytes = r.retained_native_bytes,
      dominators = chain_of(dump:object(r.id)),
    }
  end
  return rows
end

-- The facts' leaks for a person: the counts, then every trace as `leaks` prints it.
local function leaks_text(L)
  local head = string.format("  %d application leak trace%s retaining %s, %d library leak trace%s\n",
    L.application or 0, L.application == 1 and "" or "s", leak_text.si_bytes(L.application_retained_bytes or 0),
    L.library or 0, L.library == 1 and "" or "s")
  if L.note ~= nil and L.note ~= hk.null then head = head .. "  note: " .. L.note .. "\n" end
  if #L.leaks == 0 then return head end
  return head .. leak_text.leaks_text({ leaks = L.leaks }) .. "\n"
end

local function leaks_of(dump)
  if not dump.leaks then
    return { leaks = {}, note = "this hprofkit has no leak traces (dump:leaks): none were looked for",
             application = 0, library = 0, application_retained_bytes = 0 }
  end
  local found = dump:leaks()
  local leaks = found.leaks or found
  local app, lib, retained = 0, 0, 0
  for _, l in ipairs(leaks) do
    if l.kind == "library" then lib = lib + (l.count or 1)
    else app = app + (l.count or 1); retained = retained + (l.retained_bytes or 0) end
  end
  return { leaks = leaks, note = hk.null, application = app, library = lib,
           application_retained_bytes = retained }
end

local function bitmaps_of(dump)
  local res = run("bitmaps", dump, {})
  local items, bytes = {}, 0
  for i, b in ipairs(res.bitmaps) do
    bytes = bytes + b.bytes
    items[i] = { id = b.id, width = b.width, height = b.height, bytes = b.bytes,
                 source = ornull(b.source), pixels_sha256 = ornull(b.pixels_sha256) }
  end
  local groups, meta = run("duplicate-bitmaps", dump, {})
  local wasted, members, out = 0, 0, {}
  for i, g in ipairs(groups) do
    wasted = wasted + g.wasted_bytes
    members = members + g.count
    out[i] = { width = g.width, height = g.height, count = g.count, bytes = g.bytes,
               wasted_bytes = g.wasted_bytes, pixels_sha256 = g.pixels_sha256, ids = g.ids }
  end
  return { count = #items, bytes = bytes, with_pixels = res.summary.with_image,
           duplicate_groups = #out, duplicates = members, wasted_bytes = wasted,
           bitmaps = items, groups = out }
end

local function duplicates_of(dump, name)
  local rows = run(name, dump, { n = DUPS })
  local wasted = 0
  for _, r in ipairs(rows) do wasted = wasted + r.wasted_bytes end
  return { wasted_bytes = wasted, groups = rows }
end

local function mb(kb) return string.format("%.1f MB", kb / 1024) end

-- Where the capture and the dump disagree on what they come from (process, package, pid, the
-- Android version the layout implies): one sentence each, also said on stderr.
local function mismatches(path, mi, origin, pid)
  local out = {}
  local function say(what) out[#out + 1] = what end
  local mp, dp = mi.process, present(origin.process) and origin.process or nil
  if mp and dp and mp ~= dp then
    local mpkg, dpkg = mp:match("^[^:]+"), dp:match("^[^:]+")
    say(mpkg ~= dpkg and string.format("the meminfo is of package %s, the dump of %s", mpkg, dpkg)
                     or string.format("the meminfo is of process %s, the dump of %s", mp, dp))
  end
  if mi.pid and present(pid) and mi.pid ~= pid then
    say(string.format("the meminfo is of pid %d, the dump of pid %d", mi.pid, pid))
  end
  -- the App Summary section came with Android 6.0 (API 23)
  if mi.summary and next(mi.summary) and present(origin.sdk) and origin.sdk < 23 then
    say(string.format("the meminfo has an App Summary (Android 6.0, API 23, or later), the dump is from API %d",
                      origin.sdk))
  end
  for _, m in ipairs(out) do hk.warn("triage: warning: --meminfo " .. path .. ": " .. m .. ": are they of one process?") end
  return out
end

-- meminfo's App Summary against the dump: a number and a sentence for each gap.
local function meminfo_join(path, origin, totals, bitmaps, pid)
  if not hk.meminfo then usage("--meminfo needs the meminfo plugin (see `hprofkit plugins`)") end
  local ok, text = pcall(hk.read_file, path)
  if not ok then usage("--meminfo: " .. tostring(text)) end
  local parsed, mi = pcall(hk.meminfo.parse, text)
  -- the file is the user's data, not the plugin's fault: its name, the reason, exit 1
  if not parsed then
    error({ message = "--meminfo " .. path .. ": " .. (tostring(mi):gsub("^plugin [%w_-]+: [%w_.]+: ", "")), exit_code = 1 })
  end
  local s = mi.summary or {}
  local app = 0
  for _, h in ipairs(totals.heaps) do if h.heap == "app" then app = h.shallow_bytes end end
  if app == 0 then app = totals.shallow_bytes end
  local joins = {}
  local function join(name, kb, dump_bytes, what, why)
    if not present(kb) then
      joins[#joins + 1] = { name = name, meminfo_kb = hk.null, dump_bytes = dump_bytes, gap_bytes = hk.null,
        sentence = name .. ": this meminfo has no App Summary value; the dump's " .. what .. " is " ..
                   mb(dump_bytes / 1024) .. "." }
      return
    end
    local gap = kb * 1024 - dump_bytes
    joins[#joins + 1] = { name = name, meminfo_kb = kb, dump_bytes = dump_bytes, gap_bytes = gap,
      sentence = string.format("%s is %s in meminfo, the dump's %s %s: %s %s. %s", name, mb(kb), what,
        mb(dump_bytes / 1024), mb(math.abs(gap) / 1024),
        gap >= 0 and "more in meminfo" or "more in the dump", why) }
  end
  join("Java Heap", s.java_heap, app, "objects in the app heap total",
       "Java Heap PSS counts pages, not objects: free space inside the heap, the card table and " ..
       "the app's share of the zygote and boot image pages; the dump counts only the objects " ..
       "(a GC before the dump shrinks the difference).")
  local old = present(origin.sdk) and origin.sdk < 26
  join("Graphics", s.graphics, bitmaps.bytes, "bitmaps' pixels total",
       "Graphics counts GL textures, surfaces and gralloc buffers, which the dump cannot see; " ..
       (old and "before Android 8 bitmap pixels are Java byte arrays (mBuffer), counted under Java Heap."
            or "since Android 8 bitmap pixels are in the native heap, counted under Native Heap."))
  join("Native Heap", s.native_heap, totals.native_bytes, "registered native allocations total",
       "The dump knows only native memory registered with a NativeAllocationRegistry (bitmaps, " ..
       "some buffers); the rest of malloc is invisible to it.")
  local summary = {}
  for k, v in pairs(s) do summary[k] = v end
  return { summary = as_object(summary), joins = joins, mismatches = mismatches(path, mi, origin, pid) }
end

local function labels_of(list)
  local labels = {}
  if type(list) == "string" then list = list ~= "" and { list } or {} end
  for _, l in ipairs(list or {}) do
    local k, v = l:match("^([^=]+)=(.*)$")
    if not k then usage("--label needs KEY=VALUE, got '" .. l .. "'") end
    labels[k] = v
  end
  return as_object(labels)
end

-- ---- gates (CI): check(facts, param) -> tripped, message ----

local function bytes_param(name, param)
  local n = tonumber(param or "")
  if not n or n < 0 then usage("--fail-on " .. name .. ":BYTES needs a number of bytes, got '" .. tostring(param) .. "'") end
  return n
end

local gates = {
  leaks = { help = "an application leak is found",
    check = function(f) return f.leaks.application > 0,
      string.format("%d application leaks", f.leaks.application) end },
  ["library-leaks"] = { help = "a known library leak is found",
    check = function(f) return f.leaks.library > 0,
      string.format("%d library leaks", f.leaks.library) end },
  ["leak-retained"] = { help = "leak-retained:BYTES: application leaks retain more than BYTES in all",
    check = function(f, p) local max = bytes_param("leak-retained", p)
      return f.leaks.application_retained_bytes > max,
        string.format("application leaks retain %d bytes (limit %d)", f.leaks.application_retained_bytes, max) end },
  ["bitmap-waste"] = { help = "bitmap-waste:BYTES: duplicate bitmaps waste more than BYTES",
    check = function(f, p) local max = bytes_param("bitmap-waste", p)
      return f.bitmaps.wasted_bytes > max,
        string.format("duplicate bitmaps waste %d bytes (limit %d)", f.bitmaps.wasted_bytes, max) end },
}

local function gate_help()
  local help = {}
  for name, g in pairs(gates) do help[name] = g.help end
  return help
end

-- ---- the report's extra data: what the page shows beyond the facts ----

local report = nil   -- the writer (lib/report/html.lua), loaded on first use

local function load_report()
  if not report then
    report = require "report.html"
  end
  return report
end

-- Whole or not at all (hk.write_file renames a temporary file over the path); a path that
-- cannot be written is the user's to fix.
local function write_file(path, text)
  local ok, err = pcall(hk.write_file, path, text)
  if not ok then usage("--report: " .. tostring(err)) end
end

hk.query{
  name = "triage",
  help = "One command from a dump to its facts: origin, app version, the screen in front (route),\n" ..
         "totals (by heap, by reachability, native),\n" ..
         "the top classes and retainers (with their dominator chains), leaks by signature,\n" ..
         "bitmaps and the bytes duplicates waste, duplicate strings and arrays; with --meminfo the\n" ..
         "App Summary against the dump, with --baseline the diff.  --json gives the facts (the same\n" ..
         "dump gives the same bytes: no path, host or time of the run); --report FILE.html writes\n" ..
         "one self-contained page (treemap of the dominator tree, leak traces, bitmap gallery, ...).",
  args = { meminfo = "", baseline = "", samples = "", report = "", label = {}, native = "", heap = "" },
  options_help = "  --meminfo FILE    a saved `dumpsys meminfo` of the same process\n" ..
                 "  --baseline DUMP   an earlier dump: the diff summary\n" ..
                 "  --heap NAME       the top retainers and the class table of that heap only (app, zygote,\n" ..
                 "                    image; all); the report's class table opens on the app heap anyway\n" ..
                 "  --native TRACE    a heapprofd profile of the same app: its native hotspots (and, with\n" ..
                 "                    --meminfo, Native Heap beside them)\n" ..
                 "  --samples FILE    a `watch` samples file (.csv or .jsonl): a chart in the report\n" ..
                 "  --report FILE     write the HTML report\n" ..
                 "  --label KEY=VALUE a label copied into the facts (repeatable)\n" ..
                 "  --fail-on GATE,...  exit 3 when a gate trips: leaks, library-leaks,\n" ..
                 "                    leak-retained:BYTES, bitmap-waste:BYTES",
  shape = "record",
  columns = { "schema", "labels", "dump_sha256", "origin", "app", "route", "heap", "totals", "histogram", "top", "leaks",
              "bitmaps", "duplicate_strings", "duplicate_arrays", "meminfo", "native", "diff", "gates_tripped" },
  gates = gates,
  run = function(dump, args)
    if args.samples ~= "" then -- a user's mistake here is said before the work, exit 2
      if args.report == "" then hk.usage_error("--samples FILE draws a chart in the report: give --report FILE too") end
      if not (args.samples:match("%.csv$") or args.samples:match("%.jsonl$")) then
        hk.usage_error("--samples '" .. args.samples .. "': the name must end in .csv or .jsonl")
      end
      local f, why = io.open(args.samples)
      if not f then hk.usage_error("--samples: " .. why) end
      f:close()
    end
    local facts = { schema = SCHEMA, labels = labels_of(args.label) }
    -- the fleet's key, hashed on a thread of its own while the work below goes on (read back
    -- once the dump's own work is done)
    dump:sha256_start()
    local info = run("info", dump, {})
    local heap = args.heap ~= "all" and args.heap or ""
    local known = heap == ""
    for _, h in ipairs(info.heaps or {}) do known = known or h == heap end
    if not known then
      hk.usage_error(string.format("no heap '%s' in this dump; its heaps: %s", heap,
        #(info.heaps or {}) > 0 and table.concat(info.heaps, ", ") or "none (use --heap all)"))
    end
    facts.origin = origin_of(info, dump.jvm_layout)
    facts.app = require("fleet.app_version")(dump, facts.origin)
    facts.route = require("fleet.route")(dump)
    progress("classes")
    -- the duplicates' holders and the report's panels walk the referrers after the
    -- dominators: said up front, the graph keeps them instead of building them again; the
    -- histogram's per-class walk gets the dominators' scratch as its child lists and retained
    -- sizes.  The forward references are not kept: what walks them (the leak search, the
    -- report's paths) runs before the dominators.  The instance lists, given back for the
    -- dominators, come back from the per-class walk's class codes for the bitmaps and the
    -- duplicates, not from every object's record
    dump:graph_plan{ "referrers", "reachability", "dominators", "class_retained", "class_lists",
                     args.report ~= "" and "paths_first" or nil }
    -- the per-class instance lists, which the leak finders walk, made first
    local string_class = dump:class("java.lang.String")
    if string_class then for _ in string_class:instances() do break end end
    -- the leak finders and the leak path search, before the dominators (the rest of the leak
    -- analysis, which reads retained sizes, runs where facts.leaks is filled)
    progress("leak search")
    if dump.leaks then dump:leaks{ search_first = true } end
    -- the lists are 4 bytes an object at the dominators' peak: the per-class walk reads the
    -- records instead, and makes them again from its codes
    dump:release{ "instances" }
    -- top first: it asks for the dominators and reachability together, so reachability comes
    -- from the dominators' search of the live heap instead of a search of its own
    progress("heap graph and top retainers")
    facts.heap = heap ~= "" and heap or hk.null
    facts.top = top_of(dump, heap)
    progress("histogram")
    -- the class table of the heap asked for; the report's opens on the app heap of an Android
    -- dump, as Android Studio's does, unless --heap says otherwise.  That heap's table first:
    -- its walk of the dominator tree finds the whole dump's retained bytes by class on the way
    local has_app = false
    for _, h in ipairs(info.heaps or {}) do has_app = has_app or h == "app" end
    local report_heap = heap ~= "" and heap or (args.heap == "" and has_app and "app" or nil)
    local report_hist = report_heap and run("histogram", dump, { heap = report_heap })
    local hist = run("histogram", dump, {})
    facts.totals = totals_of(dump, info, hist)
    local heap_hist = heap ~= "" and report_hist or hist
    facts.histogram = histogram_of(heap_hist)
    report_hist = report_hist or hist
    progress("leaks")
    facts.leaks = leaks_of(dump)
    -- the report's treemap is the child lists' last reader: made now, it does not make them
    -- again after the duplicates; their 8 bytes an object then go back for the duplicates
    local report_tree = args.report ~= "" and load_report().dominator_tree(dump) or nil
    dump:release{ "dominator_children" }
    progress("bitmaps")
    facts.bitmaps = bitmaps_of(dump)
    progress("duplicate strings")
    facts.duplicate_strings = duplicates_of(dump, "duplicate-strings")
    progress("duplicate arrays")
    facts.duplicate_arrays = duplicates_of(dump, "duplicate-arrays")
    -- the lists' 4 bytes an object back before the report (its thumbnails may make them again)
    dump:release{ "instances" }
    progress("hashing")
    facts.dump_sha256 = dump:sha256()
    facts.meminfo = args.meminfo ~= "" and meminfo_join(args.meminfo, facts.origin, facts.totals, facts.bitmaps, info.pid) or hk.null
    facts.native = hk.null
    if args.native ~= "" then
      progress("native heap profile")
      local native_facts = require "native.facts"
      facts.native = native_facts(args.native, present(facts.meminfo) and facts.meminfo.summary or nil,
        facts.origin.process)
    end
    facts.diff = hk.null
    if args.baseline ~= "" then
      progress("diff against the baseline")
      local base, kept = diff.baseline_open(args.baseline, dump)
      base:sha256_start()
      -- the diff query's summary, less the two paths (facts hold nothing of where they ran)
      local d = diff.report(base, dump, { n = 20, dump_leaks = facts.leaks.leaks })
      d.base, d.dump = nil, nil
      d.baseline_sha256 = base:sha256()
      -- the baseline's totals as facts.totals has the dump's (the explorer shows both)
      d.totals_base = totals_of(base, run("info", base, {}), run("histogram", base, {}))
      facts.diff = d
      if not kept then base:close() end -- its index and graph are not needed for the report
    end
    -- on a terminal, the leaks as the leaks query prints them: one step a line
    local meta = { texts = { leaks = leaks_text } }
    if args.report ~= "" then
      -- written once the CLI's --fail-on gates ran, so the page shows facts.gates_tripped
      meta.finish = function(result)
        progress("report")
        write_file(args.report, load_report().write(dump, result, {
          samples = args.samples ~= "" and args.samples or nil,
          histogram = report_hist,
          tree = report_tree,
          histogram_heap = report_heap,
          gate_help = gate_help(),
          progress = progress,
        }))
        done_progress()
      end
    end
    done_progress()
    return facts, meta
  end,
}
