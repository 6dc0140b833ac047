-- The screen the user was on when the dump was taken, for the triage facts (`route`): a function
-- (dump) -> { activity, activities }.  The rule: the ActivityThread (its static
-- sCurrentActivityThread, else its only instance) keeps the process's Activities in mActivities,
-- an ArrayMap (Android 4.4 on) of token -> ActivityClientRecord; the foreground Activity is the
-- record's `activity` whose mResumed is true and mFinished false.  When several are (Android 10's
-- multi-resume, split screen) their class names are sorted and joined with "+".  `activity` is
-- hk.null when the dump holds no ActivityThread, an mActivities that is not an ArrayMap, or no
-- such Activity (a process in the background, a screen being finished); `activities` counts the
-- records (0: no Activity at all, hk.null: no mActivities to read).
local function activity_thread(dump)
  local cls = dump:class("android.app.ActivityThread")
  if not cls then return nil end
  local current = cls:static("sCurrentActivityThread")
  if type(current) == "userdata" then return current end
  local only
  for obj in cls:instances() do
    if only then return nil end
    only = obj
  end
  return only
end

-- The values of an android.util.ArrayMap: mArray holds key, value pairs, mSize of them.
local function arraymap_values(map)
  if type(map) ~= "userdata" or not map:is_instance_of("android.util.ArrayMap") then return nil end
  local arr, size = map:field("mArray"), map:field("mSize")
  if type(arr) ~= "userdata" or math.type(size) ~= "integer" then return nil end
  local out = {}
  for k = 0, math.min(size, arr.length // 2) - 1 do out[#out + 1] = arr:at(2 * k + 1) end
  return out
end

return function(dump)
  local at = activity_thread(dump)
  local records = at and arraymap_values(at:field("mActivities"))
  if not records then return setmetatable({ activity = hk.null, activities = hk.null }, hk.object_mt) end
  local names = {}
  for _, rec in ipairs(records) do
    local act = type(rec) == "userdata" and rec:field("activity")
    if type(act) == "userdata" and act:field("mResumed") == true and act:field("mFinished") ~= true then
      names[#names + 1] = act.class_name
    end
  end
  table.sort(names)
  return setmetatable({ activity = #names > 0 and table.concat(names, "+") or hk.null,
                        activities = #records }, hk.object_mt)
end
