-- require "leaks.helpers": what the leak finders and inspectors (scripts/leak_rules/) share:
-- null-safe field reads, Android context unwrapping, map values, the Services ActivityThread
-- holds.  Users' scripts reach it as hk.leak_helpers too (commands/leaks.lua).

local leaks = {}

-- Field values that may be missing in a given Android version: nil instead of an error.
function leaks.get(obj, name)
  if type(obj) ~= "userdata" then return nil end
  local ok, v = pcall(obj.field, obj, name)
  if ok then return v end
  return nil
end

function leaks.instances(dump, name, fn)
  local cls = dump:class(name)
  if not cls then return end
  for obj in cls:instances(true) do fn(obj) end
end

function leaks.is(obj, name)
  return type(obj) == "userdata" and obj.kind == "instance" and obj:is_instance_of(name)
end

-- The Android component a Context is or wraps (ContextWrapper.mBase, DecorContext's window),
-- or nil: an Activity, Application or Service.
function leaks.component_context(ctx)
  local seen = {}
  while type(ctx) == "userdata" and not seen[ctx.id] do
    seen[ctx.id] = true
    if leaks.is(ctx, "android.app.Activity") or leaks.is(ctx, "android.app.Application")
        or leaks.is(ctx, "android.app.Service") then
      return ctx
    end
    if not leaks.is(ctx, "android.content.ContextWrapper") then return nil end
    local base = leaks.get(ctx, "mBase")
    if leaks.is(ctx, "com.android.internal.policy.DecorContext") and not leaks.is(base, "android.app.Activity") then
      local window = leaks.get(ctx, "mPhoneWindow")
      if window then base = leaks.get(window, "mContext") end
    end
    ctx = base
  end
  return nil
end

function leaks.activity_of(ctx)
  local c = leaks.component_context(ctx)
  if c and leaks.is(c, "android.app.Activity") then return c end
  return nil
end

function leaks.destroyed_activity(ctx)
  local a = leaks.activity_of(ctx)
  return a and leaks.get(a, "mDestroyed") == true and a or nil
end

-- The values of a java.util.HashMap (table of nodes) or android.util.ArrayMap (key, value
-- pairs in mArray).
function leaks.map_values(map)
  local out = {}
  if type(map) ~= "userdata" then return out end
  local arr = leaks.get(map, "mArray")
  if type(arr) == "userdata" and arr.kind == "object_array" then
    for i = 1, arr.length - 1, 2 do
      local v = arr:at(i)
      if type(v) == "userdata" then out[#out + 1] = v end
    end
    return out
  end
  local tab = leaks.get(map, "table")
  if type(tab) == "userdata" and tab.kind == "object_array" then
    for i = 0, tab.length - 1 do
      local node, guard = tab:at(i), 0
      while type(node) == "userdata" and guard < 10000 do
        local v = leaks.get(node, "value")
        if type(v) == "userdata" then out[#out + 1] = v end
        node, guard = leaks.get(node, "next"), guard + 1
      end
    end
  end
  return out
end

-- The Services ActivityThread holds (mServices), or nil when the dump has no ActivityThread.
function leaks.alive_services(dump)
  local cls = dump:class("android.app.ActivityThread")
  if not cls then return nil end
  local at = cls:static("sCurrentActivityThread")
  if type(at) ~= "userdata" then
    for obj in cls:instances() do at = obj end
  end
  if type(at) ~= "userdata" then return nil end
  local alive = {}
  for _, s in ipairs(leaks.map_values(leaks.get(at, "mServices"))) do alive[s.id] = true end
  return alive
end

-- The enum constant's name (java.lang.Enum.name) of a field, or nil.
function leaks.enum_name(obj, field)
  local e = leaks.get(obj, field)
  if type(e) ~= "userdata" then return nil end
  local n = leaks.get(e, "name")
  return type(n) == "string" and n or nil
end

-- A LifecycleRegistry's state name (the field was mState before the Kotlin rewrite), or nil.
function leaks.lifecycle_state(l)
  if type(l) ~= "userdata" then return nil end
  return leaks.enum_name(l, "state") or leaks.enum_name(l, "mState")
end

-- Whether a ViewModel was cleared: mCleared, or in lifecycle 2.8+ its impl's isCleared.
function leaks.viewmodel_cleared(vm)
  local c = leaks.get(vm, "mCleared")
  if c == nil then c = leaks.get(leaks.get(vm, "impl"), "isCleared") end
  return c
end

-- Why a View is a leaking root View (LeakCanary's VIEW filter), or nil: a root View (no parent,
-- or a ViewRootImpl's child) of a destroyed Activity, or detached yet still part of a window.
function leaks.root_view_leak(v)
  local parent = leaks.get(v, "mParent")
  local parentless = parent == nil
  local child_of_vri = parent ~= nil and not leaks.is(parent, "android.view.View")
  if not (parentless or child_of_vri) then return nil end
  if leaks.destroyed_activity(leaks.get(v, "mContext")) then return "View.mContext references a destroyed activity" end
  local count = leaks.get(v, "mWindowAttachCount") or 0
  if leaks.get(v, "mAttachInfo") == nil and count > 0
      and (child_of_vri or v.class_name == "com.android.internal.policy.DecorView") then
    return "View detached yet still part of window view hierarchy"
  end
  return nil
end

-- Whether a component Context is an Activity LeakCanary calls destroyed: mDestroyed, or
-- mFinished where the Activity has no mDestroyed (before API 17).
function leaks.activity_destroyed(a)
  if not leaks.is(a, "android.app.Activity") then return false end
  local d = leaks.get(a, "mDestroyed")
  if d == nil then d = leaks.get(a, "mFinished") end
  return d == true
end

return leaks
