-- A triage recipe: objects that should be gone but are still strongly reachable, each with the
-- chain that holds it and what it retains.  Candidates are LeakCanary's watched objects (the
-- referent of a KeyedWeakReference, 1.x and 2.x) and destroyed Activities (mDestroyed).
local function watched(dump, out)
  for _, name in ipairs{ "com.squareup.leakcanary.KeyedWeakReference", "leakcanary.KeyedWeakReference" } do
    local cls = dump:class(name)
    if cls then
      for ref, referent in cls:instances{ field = "referent" } do
        if type(referent) == "userdata" then
          out[#out + 1] = { obj = referent, why = "watched by LeakCanary (key " .. tostring(ref:field("key")) .. ")" }
        end
      end
    end
  end
end

local function destroyed_activities(dump, out)
  local cls = dump:class("android.app.Activity")
  if not cls then return end
  for act, destroyed in cls:instances{ subclasses = true, field = "mDestroyed" } do
    if destroyed then out[#out + 1] = { obj = act, why = "Activity destroyed (mDestroyed)" } end
  end
end

-- --fail-on gates: a row is one leak; rows marked library_leak = true are known leaks of a
-- library (Android, a vendor) rather than of the app.  PARAM: the retained bytes a leak must
-- reach to count (default 0: any leak).
local function leak_gate(want_library)
  return function(rows, param)
    local min = tonumber(param or 0)
    if not min then hk.usage_error("--fail-on: the parameter is a number of retained bytes, got '" .. param .. "'") end
    local n, bytes = 0, 0
    for _, r in ipairs(rows) do
      local size = r.retained_bytes or r.retained or 0
      if (r.library_leak == true) == want_library and size >= min then
        n, bytes = n + 1, bytes + size
      end
    end
    return n > 0, string.format("%d %s retaining %d bytes", n,
      want_library and (n == 1 and "library leak" or "library leaks") or (n == 1 and "leak" or "leaks"), bytes)
  end
end

hk.query{
  name = "leaks",
  gates = {
    leaks = { help = "an app leak (not a library's) is found; leaks:BYTES only those retaining BYTES or more",
              check = leak_gate(false) },
    ["library-leaks"] = { help = "a known library leak is found; library-leaks:BYTES as for leaks",
                          check = leak_gate(true) },
  },
  help = "Objects that should have been collected but are strongly reachable: LeakCanary's\n" ..
         "watched objects (KeyedWeakReference) and destroyed Activities, with the root, the\n" ..
         "field chain that holds each (first and last links), and its retained bytes.",
  columns = { "id", "class", "why", "retained", "root", "held_by", "path" },
  run = function(dump, args)
    local found, rows, seen = {}, {}, {}
    watched(dump, found)
    destroyed_activities(dump, found)
    for _, f in ipairs(found) do
      local obj = f.obj
      if not seen[obj.id] and obj.reachability == "strong" then
        seen[obj.id] = true
        local steps = dump:path_to_root(obj)
        local vias = {}
        for i = 1, #steps - 1 do vias[#vias + 1] = steps[i].via end
        rows[#rows + 1] = {
          id = obj.id, class = obj.label, why = f.why, retained = obj:retained_size(),
          root = steps[1].root,
          held_by = steps[1].object.label .. (steps[1].via ~= "" and (" ." .. steps[1].via) or ""),
          path = table.concat(vias, " > "),
        }
      end
    end
    table.sort(rows, function(a, b) return a.retained > b.retained end)
    return rows, { empty = "no leak candidates are strongly reachable" }
  end,
}
