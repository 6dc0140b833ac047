-- require "leaks.analysis": the leak analysis behind dump:leaks() and the leaks query
-- (commands/leaks.lua registers it as dump:leaks): leak traces, judged the way LeakCanary's
-- Shark judges them.  Returns analyse(dump).  analyse(dump, {search_first = true}) runs steps 1
-- and 2 alone and keeps them for the dump's next analyse (triage runs them before the
-- dominators, while the forward references are there, so that those need not outlive them).
--
-- 1. Leak finders (hk.leak_finder, scripts/leak_rules/finder_*.lua) name the objects that
--    should be gone; those still strongly reachable are leaks.
-- 2. One path search (dump:leak_paths, C) finds each leak's shortest path from a GC root,
--    never following references to ignore and following known library-leak references and
--    thread-stack roots last (reference matchers: hk.reference_matcher, leak_rules/matchers.lua).
-- 3. Object inspectors (hk.inspector, leak_rules/inspectors.lua) judge every object on the path;
--    statuses then propagate: above the last NOT_LEAKING object everything is NOT_LEAKING,
--    below the first LEAKING one everything LEAKING.  The references in between are the
--    suspects.
-- 4. A signature (SHA-1, as LeakCanary computes it) over the suspects' owner class and
--    generic reference name groups the same leak across dumps; a library leak's signature is
--    the SHA-1 of its pattern.

-- ---- reference matchers -------------------------------------------------------------------

local function matcher_pattern(m)
  if m.field then return "instance field " .. m.class .. "#" .. m.field end
  if m.static then return "static field " .. m.class .. "#" .. m.static end
  if m.root then return "native global variable referencing " .. m.class end
  return "local variable on thread " .. m.thread
end

-- Whether a matcher applies to this dump: its sdk range and manufacturers (when the dump
-- says which), then its own applies(info) function.
local function matcher_applies(m, info)
  local sdk = math.type(info.sdk) and info.sdk or nil
  if sdk and sdk >= 0 and m.sdk then
    local lo, hi = m.sdk[1] or 0, m.sdk[2] or math.maxinteger
    if sdk < lo or sdk > hi then return false end
  end
  if m.manufacturers and type(info.manufacturer) == "string" then
    local ok = false
    for _, name in ipairs(m.manufacturers) do
      if name:lower() == info.manufacturer:lower() then ok = true end
    end
    if not ok then return false end
  end
  if m.applies then return m.applies(info) and true or false end
  return true
end

-- The roots come as columns (dump:root_columns: type and thread serial by root index, false
-- for none); a root's object is looked up only where a rule needs it (dump:root_object).
-- A root as a table, for the matchers.
local function root_view(dump, types, serials, k)
  return { type = types[k], thread = serials[k] or nil, object = dump:root_object(k) }
end

-- Thread objects by thread serial, from THREAD_OBJECT roots, and each thread's name.
local function threads_of(dump, types, serials)
  local by_serial = {}
  for k, t in ipairs(types) do
    local th = serials[k]
    if t == "THREAD_OBJECT" and th then
      local obj = dump:root_object(k)
      if obj then by_serial[th] = obj end
    end
  end
  return by_serial
end

local function thread_name(t)
  local ok, name = pcall(function() return t:field("name") end)
  return ok and type(name) == "string" and name or nil
end

-- The arguments of dump:leak_paths for the matchers that apply: field rules, root rules, and
-- what each rule index means.
local function path_rules(dump, matchers, types, serials, threads)
  local refs, ref_matcher, root_rules = {}, {}, {}
  local root_matchers = {}
  for i, m in ipairs(matchers) do
    if m.field or m.static then
      refs[#refs + 1] = { class = m.class, field = m.field, static = m.static, ignore = m.kind == "ignore" }
      ref_matcher[#refs] = i
    else
      root_matchers[#root_matchers + 1] = i
    end
  end
  if #root_matchers > 0 then
    -- A root's rule: false when an ignore rule matches it, else the first library rule that
    -- does.  A root matcher looks at the root's object, a thread matcher at its thread only,
    -- and a dump has a hundred thousand Java frame roots on a few threads: so a frame root's
    -- rule is decided once per thread, and a root's object is looked at only when a root
    -- matcher names its type.
    local function rule_of(r)
      local rule
      for _, i in ipairs(root_matchers) do
        local m, hit = matchers[i], false
        if m.root and r.object and r.type:lower():gsub("_", "-") == m.root then
          hit = r.object:is_instance_of(m.class)
        elseif m.thread and r.type == "JAVA_FRAME" and r.thread and threads[r.thread] then
          hit = thread_name(threads[r.thread]) == m.thread
        end
        if hit then
          if m.kind == "ignore" then rule = false
          elseif rule == nil then rule = i end
        end
      end
      return rule
    end
    local root_types = {}
    for _, i in ipairs(root_matchers) do
      if matchers[i].root then root_types[matchers[i].root] = true end
    end
    local named, by_thread = {}, {}   -- root type -> a root matcher names it; thread -> {rule}
    for ri, t in ipairs(types) do
      local th = serials[ri]
      local is_named = named[t]
      if is_named == nil then
        is_named = root_types[t:lower():gsub("_", "-")] or false
        named[t] = is_named
      end
      local rule
      if is_named then rule = rule_of(root_view(dump, types, serials, ri))
      elseif t == "JAVA_FRAME" and th and threads[th] then
        local memo = by_thread[th]
        if not memo then
          memo = { rule_of(root_view(dump, types, serials, ri)) }   -- {} when no rule matches
          by_thread[th] = memo
        end
        rule = memo[1]
      end
      if rule ~= nil then root_rules[ri] = rule end
    end
  end
  return refs, ref_matcher, root_rules
end

-- ---- inspection -----------------------------------------------------------------------------

local Reporter = {}
Reporter.__index = Reporter
-- each reason or label once: a finder and an inspector often say the same thing
local function add_once(list, text)
  text = tostring(text)
  for _, x in ipairs(list) do if x == text then return end end
  list[#list + 1] = text
end
function Reporter:leaking(reason) add_once(self.leaking_reasons, reason) end
function Reporter:not_leaking(reason) add_once(self.not_leaking_reasons, reason) end
function Reporter:label(text) add_once(self.labels, text) end
Reporter.unknown = Reporter.label

local function class_name_of(obj)
  if obj.kind == "class" then return obj.as_class and obj.as_class.name or obj.label end
  return obj.class_name
end

local function simple_name(name) return (name:gsub("^.*%.", "")) end

-- The inspectors that apply to obj: instances of their class; "java.lang.Class" for class
-- objects; "*" for every object.  Cached per class.
local function inspectors_for(cache, obj)
  local key = obj.kind == "class" and "<class>" or obj.class_name
  local list = cache[key]
  if list then return list end
  list = {}
  for _, ins in ipairs(hk.inspectors()) do
    local c = ins.class
    local hit
    if c == "*" then hit = true
    elseif obj.kind == "class" then hit = c == "java.lang.Class"
    else hit = obj:is_instance_of(c) end
    if hit then list[#list + 1] = ins end
  end
  cache[key] = list
  return list
end

local function inspect(cache, dump, obj)
  local r = setmetatable({ object = obj, dump = dump, labels = {}, leaking_reasons = {}, not_leaking_reasons = {} },
    Reporter)
  for _, ins in ipairs(inspectors_for(cache, obj)) do
    local ok, err = pcall(ins.inspect, obj, r)
    if not ok then r:label("inspector from " .. tostring(ins.source) .. " failed: " .. tostring(err)) end
  end
  return r
end

-- LeakCanary's status of one object from its reasons; leaking wins a conflict only on the
-- leaking object itself.
local function resolve(r, leaking_wins)
  local nl, l = r.not_leaking_reasons, r.leaking_reasons
  if #nl > 0 and #l == 0 then return "NOT_LEAKING", table.concat(nl, " and ") end
  if #l > 0 and #nl == 0 then return "LEAKING", table.concat(l, " and ") end
  if #l > 0 then
    if leaking_wins then return "LEAKING", table.concat(l, " and ") .. ". Conflicts with " .. table.concat(nl, " and ") end
    return "NOT_LEAKING", table.concat(nl, " and ") .. ". Conflicts with " .. table.concat(l, " and ")
  end
  return "UNKNOWN", nil
end

-- Statuses of a path's nodes with propagation, as LeakCanary computes them.
local function statuses(nodes)
  local last = #nodes
  local st, why = {}, {}
  local last_not, first_leak = 0, last
  for i, n in ipairs(nodes) do
    local s, w = resolve(n.report, i == last)
    if i == last then
      if s == "UNKNOWN" then s, w = "LEAKING", "This is the leaking object"
      elseif s == "NOT_LEAKING" then s, w = "LEAKING", "This is the leaking object. Conflicts with " .. w end
    end
    st[i], why[i] = s, w
    if s == "NOT_LEAKING" then last_not, first_leak = i, last
    elseif s == "LEAKING" and first_leak == last then first_leak = i end
  end
  local names = {}
  for i, n in ipairs(nodes) do names[i] = simple_name(class_name_of(n.object)) end
  for i = 1, last_not - 1 do
    local nxt = i + 1
    while st[nxt] ~= "NOT_LEAKING" do nxt = nxt + 1 end
    local base = names[nxt] .. "↓ is not leaking"
    if st[i] == "UNKNOWN" then why[i] = base
    elseif st[i] == "NOT_LEAKING" then why[i] = base .. " and " .. why[i]
    else why[i] = base .. ". Conflicts with " .. why[i] end
    st[i] = "NOT_LEAKING"
  end
  for i = last - 1, first_leak + 1, -1 do
    local prev = i - 1
    while st[prev] ~= "LEAKING" do prev = prev - 1 end
    local base = names[prev] .. "↑ is leaking"
    if st[i] == "UNKNOWN" then why[i] = base else why[i] = base .. " and " .. why[i] end
    st[i] = "LEAKING"
  end
  return st, why
end

-- ---- traces ---------------------------------------------------------------------------------

local function reference_of(via)
  if via == nil or via == "" then return nil end
  local s = via:match("^static (.*)$")
  if s then return { type = "static", name = s } end
  if via:match("^%[%d+%]$") then return { type = "array", name = via } end
  return { type = "field", name = via }
end

local function generic_name(ref)
  if ref.type == "array" then return "[x]" end
  if ref.type == "local" then return "<Java Local>" end
  return ref.name
end

-- The finder's texts no inspector gave, then the inspectors' in their order.
local function finder_first(found, inspected)
  local out, have = {}, {}
  for _, t in ipairs(inspected) do have[t] = true end
  for _, t in ipairs(found) do
    t = tostring(t)
    if not have[t] then out[#out + 1] = t; have[t] = true end
  end
  for _, t in ipairs(inspected) do out[#out + 1] = t end
  return out
end

-- Every GC root that holds obj (obj:holding_roots): type, object, its class, thread name.
local function roots_of(obj, threads)
  local out = {}
  for i, r in ipairs(obj:holding_roots().roots) do
    local t = r.thread and threads[r.thread]
    out[i] = { type = r.type, object = r.object and r.object.id or hk.null,
               class = r.object and class_name_of(r.object) or hk.null,
               thread = t and thread_name(t) or hk.null }
  end
  return out
end

-- obj:retained_count() once per object of an analysis (traces share their first steps, which
-- may retain much of the heap)
local function count_of(counts, obj)
  local n = counts[obj.id]
  if not n then n = obj:retained_count(); counts[obj.id] = n end
  return n
end

-- roots: whether to list the GC roots that hold the leaking object (the referrers of the
-- whole heap are built for them)
local function build_trace(dump, path, leak, candidates, threads, cache, counts, roots)
  local nodes = {}
  local root = { type = path.root and path.root.type or hk.null, thread = hk.null }
  local steps = path.steps
  -- a Java local: shown as held by its thread, as LeakCanary shows it
  if path.root and path.root.type == "JAVA_FRAME" and path.root.thread and threads[path.root.thread] then
    local t = threads[path.root.thread]
    root.thread = thread_name(t) or hk.null
    nodes[1] = { object = t, ref = { type = "local", name = "<Java Local>" } }
  elseif path.root and path.root.thread and threads[path.root.thread] then
    root.thread = thread_name(threads[path.root.thread]) or hk.null
  end
  for _, s in ipairs(steps) do nodes[#nodes + 1] = { object = s.object, ref = reference_of(s.via) } end
  for _, n in ipairs(nodes) do
    n.report = inspect(cache, dump, n.object)
    -- what a finder said about an object (the leaking one, or another on the way) counts too;
    -- what no inspector says first, as LeakCanary's first inspector (the watched objects) does
    local c = candidates[n.object.id]
    if c then
      n.report.leaking_reasons = finder_first(c.reasons, n.report.leaking_reasons)
      n.report.labels = finder_first(c.labels, n.report.labels)
    end
  end
  local st, why = statuses(nodes)
  local out, suspects = {}, {}
  for i, n in ipairs(nodes) do
    local suspect = false
    if i < #nodes then
      suspect = st[i] == "UNKNOWN" or (st[i] == "NOT_LEAKING" and st[i + 1] ~= "NOT_LEAKING")
    end
    local reasons = {}
    if why[i] then reasons[1] = why[i] end
    for _, l in ipairs(n.report.labels) do reasons[#reasons + 1] = l end
    -- what an object retains, on the steps LeakCanary says it for (UNKNOWN and LEAKING)
    local held = st[i] ~= "NOT_LEAKING"
    out[i] = {
      object = n.object.id, class = class_name_of(n.object),
      kind = n.object.kind,
      reference = n.ref or hk.null, status = st[i], reasons = reasons, suspect = suspect,
      retained_bytes = held and n.object:retained_size() or hk.null,
      retained_objects = held and count_of(counts, n.object) or hk.null,
    }
    if suspect then suspects[#suspects + 1] = out[i] end
  end
  local obj = leak.object
  return {
    object = obj.id, class = class_name_of(obj), retained_bytes = obj:retained_size(),
    retained_objects = count_of(counts, obj), roots = roots and roots_of(obj, threads) or nil,
    retained_for_ms = leak.retained_for_ms or hk.null, root = root, steps = out,
    found_by = leak.finders, key = leak.key or hk.null,
  }, suspects
end

local function signature_of(suspects)
  local parts = {}
  for i, s in ipairs(suspects) do parts[i] = s.class .. generic_name(s.reference) end
  return hk.sha1(table.concat(parts))
end

-- ---- the whole analysis ---------------------------------------------------------------------

-- Runs every finder; candidates merged by id.
local function find_candidates(dump)
  local by_id, list = {}, {}
  local names = {}
  for name in pairs(hk.leak_finders()) do names[#names + 1] = name end
  table.sort(names)
  for _, name in ipairs(names) do
    local finder = hk.leak_finders()[name]
    finder.find(dump, function(obj, what)
      if type(obj) ~= "userdata" then return end
      what = what or {}
      local c = by_id[obj.id]
      if not c then
        c = { object = obj, reasons = {}, labels = {}, finders = {} }
        by_id[obj.id] = c
        list[#list + 1] = c
      end
      c.finders[#c.finders + 1] = name
      if what.reason then c.reasons[#c.reasons + 1] = what.reason end
      for _, l in ipairs(what.labels or {}) do c.labels[#c.labels + 1] = l end
      if what.key and not c.key then c.key = what.key end
      if what.retained_for_ms and not c.retained_for_ms then c.retained_for_ms = what.retained_for_ms end
    end)
  end
  return list, by_id
end

-- The leaks whose path runs through another leaking object: LeakCanary reports only the
-- upper one (Shark's deduplicateShortestPaths), whose trace holds the lower one too.
local function below_other_leaks(leaking, paths)
  local found, below = {}, {}
  for i, c in ipairs(leaking) do if paths[i] then found[c.object.id] = true end end
  for i in ipairs(leaking) do
    local steps = paths[i] and paths[i].steps or {}
    for k = 1, #steps - 1 do
      if found[steps[k].object.id] then below[i] = true; break end
    end
  end
  return below
end

-- The finders and the path search: all that needs the forward references, none the dominators.
local function search(dump)
  local info = dump:info()
  local matchers = {}
  for _, m in ipairs(hk.reference_matchers()) do
    if matcher_applies(m, info) then matchers[#matchers + 1] = m end
  end
  -- a candidate is a leak when the path search reaches it over strong references (which is
  -- also how weakly reachable candidates drop out, with no reachability pass of its own)
  local leaking, by_id = find_candidates(dump)
  local s = { leaking = leaking, by_id = by_id, matchers = matchers }
  if #leaking == 0 then return s end
  -- the traces' holding roots walk the referrers after the dominators: said before those run,
  -- the graph keeps the referrers through them instead of building them again from the
  -- forward references (which it then need not keep: the path search is over by then)
  dump:graph_plan{ "referrers" }
  local types, serials = dump:root_columns()
  s.threads = threads_of(dump, types, serials)
  local refs, root_rules
  refs, s.ref_matcher, root_rules = path_rules(dump, matchers, types, serials, s.threads)
  local targets = {}
  for i, c in ipairs(leaking) do targets[i] = c.object end
  s.paths = dump:leak_paths(targets, refs, root_rules)
  return s
end

-- searched ahead (dump:leaks{search_first = true}), by dump, for its next dump:leaks()
local searched = setmetatable({}, { __mode = "k" })

local function analyse(dump, opts)
  if opts and opts.search_first then
    searched[dump] = search(dump)
    return nil
  end
  local s = searched[dump] or search(dump)
  searched[dump] = nil
  local leaking, by_id, matchers = s.leaking, s.by_id, s.matchers
  local result = { leaks = {} }
  if #leaking == 0 then return result end
  local threads, ref_matcher, paths = s.threads, s.ref_matcher, s.paths
  local groups, order, cache, counts = {}, {}, {}, {}
  local below = below_other_leaks(leaking, paths)
  for i, c in ipairs(leaking) do
    local path = paths[i]
    if path and not below[i] then
      local trace, suspects = build_trace(dump, path, c, by_id, threads, cache, counts,
                                          not (opts and opts.roots == false))
      local m = path.rule and matchers[path.rule_root and path.rule or ref_matcher[path.rule]]
      local g
      if m then
        local pattern = matcher_pattern(m)
        local sig = hk.sha1(pattern)
        g = groups[sig]
        if not g then
          g = { signature = sig, kind = "library", pattern = pattern,
                description = m.description or hk.null, count = 0, retained_bytes = 0, retained_objects = 0,
                traces = {} }
        end
        if path.rule_step then
          -- the matched reference is where the blame lies: mark it
          local idx = path.rule_step + (#trace.steps - #path.steps)
          local step = trace.steps[idx]
          step.library_leak = true
          -- its first label, as LeakCanary labels the object holding the reference
          table.insert(step.reasons, step.status ~= "UNKNOWN" and 2 or 1, "Library leak match: " .. pattern)
        end
      else
        local sig = signature_of(suspects)
        g = groups[sig]
        if not g then
          local first = suspects[1]
          local desc = first and (simple_name(first.class) .. "." .. first.reference.name) or hk.null
          g = { signature = sig, kind = "application", pattern = hk.null, description = desc,
                count = 0, retained_bytes = 0, retained_objects = 0, traces = {} }
        end
      end
      if not groups[g.signature] then groups[g.signature] = g; order[#order + 1] = g end
      g.count = g.count + 1
      g.retained_bytes = g.retained_bytes + trace.retained_bytes
      g.retained_objects = g.retained_objects + trace.retained_objects
      g.traces[#g.traces + 1] = trace
    end
  end
  table.sort(order, function(a, b)
    if a.kind ~= b.kind then return a.kind == "application" end
    if a.retained_bytes ~= b.retained_bytes then return a.retained_bytes > b.retained_bytes end
    return a.signature < b.signature
  end)
  for _, g in ipairs(order) do
    table.sort(g.traces, function(a, b) return a.retained_bytes > b.retained_bytes end)
  end
  result.leaks = order
  return result
end

return analyse

