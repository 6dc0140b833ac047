-- A triage recipe: objects that should be gone but are still strongly reachable, each with the
-- chain that holds it and what it retains.  Candidates are LeakCanary's watched objects (the
-- referent of a KeyedWeakReference, 1.x and 2.x) and destroyed Activities (mDestroyed).
local function watched(dump, out)
  for _, name in ipairs{ "com.squareup.leakcanary.KeyedWeakReference", "leakcanary.KeyedWeakReference" } do
    local cls = dump:class(name)
    if cls then
      for ref, referent in cls:instances{ field = "referent" } do
        if type(referent) == "userdata" then
          -- a heap graph (Perfetto) has no String text: the key is then absent, not empty
          local key = ref:field("key")
          out[#out + 1] = { obj = referent, why = "watched by LeakCanary (key " .. (type(key) == "string" and key or "absent") .. ")" }
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

hk.query{
  name = "leaks",
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
