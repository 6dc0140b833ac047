-- Leak finders: objects that should have been collected.  Each is registered with
-- hk.leak_finder{name =, find = function(dump, report) ... report(obj, {reason =, key =,
-- labels =, retained_for_ms =}) end}; the leaks query keeps those still strongly reachable.
-- The rules are LeakCanary's (its ObjectWatcher and its inspectors' leaking-object filters).

local leaks = hk.leak_helpers or {}
hk.leak_helpers = leaks

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

-- ---- LeakCanary's watched objects (KeyedWeakReference, 1.x and 2.x) ----
hk.leak_finder{
  name = "watched",
  help = "referents of LeakCanary's KeyedWeakReference (1.x and 2.x)",
  find = function(dump, report)
    for _, name in ipairs{ "com.squareup.leakcanary.KeyedWeakReference", "leakcanary.KeyedWeakReference" } do
      local cls = dump:class(name)
      if cls then
        local dump_uptime = cls:static("heapDumpUptimeMillis")
        for ref, referent in cls:instances{ field = "referent" } do
          if type(referent) == "userdata" then
            local key = leaks.get(ref, "key")
            local desc = leaks.get(ref, "description") or leaks.get(ref, "name")
            local watch = leaks.get(ref, "watchUptimeMillis")
            local retained = leaks.get(ref, "retainedUptimeMillis")
            local labels = { "key = " .. tostring(key) }
            local retained_for
            -- LeakCanary 2 marks an object retained (retainedUptimeMillis, -1 until then) once it
            -- outlived its watch delay; older dumps have no such field and count as retained
            local is_retained = not (type(dump_uptime) == "number" and retained == -1)
            if type(dump_uptime) == "number" then
              if type(watch) == "number" then labels[#labels + 1] = "watchDurationMillis = " .. (dump_uptime - watch) end
              if type(retained) == "number" and retained ~= -1 then
                retained_for = dump_uptime - retained
                labels[#labels + 1] = "retainedDurationMillis = " .. retained_for
              end
            end
            if is_retained then report(referent, {
              reason = (type(desc) == "string" and desc ~= "") and ("ObjectWatcher was watching this because " .. desc)
                or "ObjectWatcher was watching this",
              key = type(key) == "string" and key or nil, labels = labels, retained_for_ms = retained_for,
            }) end
          end
        end
      end
    end
  end,
}

hk.leak_finder{
  name = "activities",
  help = "destroyed Activities (Activity.mDestroyed)",
  find = function(dump, report)
    local cls = dump:class("android.app.Activity")
    if not cls then return end
    for act, destroyed in cls:instances{ subclasses = true, field = "mDestroyed" } do
      if destroyed == true then report(act, { reason = "Activity#mDestroyed is true" }) end
    end
  end,
}

hk.leak_finder{
  name = "fragments",
  help = "Fragments (framework, support, androidx) whose FragmentManager is gone, or destroyed",
  find = function(dump, report)
    for _, name in ipairs{ "android.app.Fragment", "android.support.v4.app.Fragment", "androidx.fragment.app.Fragment" } do
      leaks.instances(dump, name, function(f)
        if leaks.get(f, "mFragmentManager") == nil then
          report(f, { reason = "Fragment#mFragmentManager is null" })
        elseif leaks.lifecycle_state(leaks.get(f, "mLifecycleRegistry")) == "DESTROYED" then
          report(f, { reason = "Fragment#mLifecycleRegistry is DESTROYED" })
        end
      end)
    end
  end,
}

hk.leak_finder{
  name = "views",
  help = "root Views of destroyed Activities, and detached window roots",
  find = function(dump, report)
    leaks.instances(dump, "android.view.View", function(v)
      local parent = leaks.get(v, "mParent")
      local parentless = parent == nil
      local child_of_vri = parent ~= nil and not leaks.is(parent, "android.view.View")
      if not (parentless or child_of_vri) then return end
      if leaks.destroyed_activity(leaks.get(v, "mContext")) then
        report(v, { reason = "View.mContext references a destroyed activity" })
        return
      end
      local count = leaks.get(v, "mWindowAttachCount") or 0
      if leaks.get(v, "mAttachInfo") == nil and count > 0
          and (child_of_vri or v.class_name == "com.android.internal.policy.DecorView") then
        report(v, { reason = "View detached yet still part of window view hierarchy" })
      end
    end)
  end,
}

hk.leak_finder{
  name = "viewmodels",
  help = "cleared ViewModels (androidx ViewModel.mCleared)",
  find = function(dump, report)
    leaks.instances(dump, "androidx.lifecycle.ViewModel", function(vm)
      if leaks.viewmodel_cleared(vm) == true then report(vm, { reason = "ViewModel#mCleared is true" }) end
    end)
  end,
}

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

hk.leak_finder{
  name = "lifecycles",
  help = "LifecycleRegistry in state DESTROYED",
  find = function(dump, report)
    leaks.instances(dump, "androidx.lifecycle.LifecycleRegistry", function(l)
      if leaks.lifecycle_state(l) == "DESTROYED" then report(l, { reason = "LifecycleRegistry state is DESTROYED" }) end
    end)
  end,
}

hk.leak_finder{
  name = "dialogs",
  help = "Dialogs shown then dismissed (mCreated, not mShowing, no mDecor)",
  find = function(dump, report)
    leaks.instances(dump, "android.app.Dialog", function(d)
      if leaks.get(d, "mCreated") == true and leaks.get(d, "mShowing") == false and leaks.get(d, "mDecor") == nil then
        report(d, { reason = "Dialog was dismissed (mCreated true, mShowing false, Dialog#mDecor is null)" })
      end
    end)
  end,
}

hk.leak_finder{
  name = "services",
  help = "Services that ActivityThread.mServices no longer holds",
  find = function(dump, report)
    local alive = leaks.alive_services(dump)
    if not alive then return end
    leaks.instances(dump, "android.app.Service", function(s)
      if not alive[s.id] then report(s, { reason = "Service not held by ActivityThread" }) end
    end)
  end,
}

hk.leak_finder{
  name = "windows",
  help = "destroyed Windows (Window.mDestroyed)",
  find = function(dump, report)
    leaks.instances(dump, "android.view.Window", function(w)
      if leaks.get(w, "mDestroyed") == true then report(w, { reason = "Window#mDestroyed is true" }) end
    end)
  end,
}

hk.leak_finder{
  name = "viewrootimpls",
  help = "ViewRootImpls without a view, or whose context is a destroyed Activity",
  find = function(dump, report)
    leaks.instances(dump, "android.view.ViewRootImpl", function(v)
      if leaks.get(v, "mView") == nil then
        report(v, { reason = "ViewRootImpl#mView is null" })
      elseif leaks.destroyed_activity(leaks.get(v, "mContext")) then
        report(v, { reason = "ViewRootImpl.mContext references a destroyed activity" })
      end
    end)
  end,
}
