-- Object inspectors: judge each object on a leak trace.  hk.inspector{class =, inspect =
-- function(obj, r) end} runs for instances of class (and subclasses); "java.lang.Class" means
-- class objects, "*" every object.  r:leaking(reason), r:not_leaking(reason), r:label(text);
-- r.dump is the dump.
-- The set follows LeakCanary's AndroidObjectInspectors and ObjectInspectors (facts: which
-- fields say what); the wording is ours.
local L = require "leaks.helpers"
local get, is = L.get, L.is

local function simple(name) return (name:gsub("^.*%.", "")) end

-- They run, and their reasons and labels are listed, in the order of LeakCanary's
-- ObjectInspectors.jdkDefaults then AndroidObjectInspectors (a leak finder's own reasons,
-- the watched objects', come first, as its KEYED_WEAK_REFERENCE inspector's do); those
-- LeakCanary 2.7 lacks follow.

hk.inspector{ class = "java.lang.ClassLoader", inspect = function(_, r) r:not_leaking("a ClassLoader is never leaking") end }
hk.inspector{ class = "java.lang.Class", inspect = function(_, r) r:not_leaking("a class is never leaking") end }
hk.inspector{
  class = "*",
  inspect = function(obj, r)
    if obj.kind ~= "instance" or not obj.class_name:match("^.+%$%d+$") then return end
    local super = obj.class.super
    if super and super.name ~= "java.lang.Object" then r:label("Anonymous subclass of " .. super.name) end
  end,
}
hk.inspector{
  class = "java.lang.Thread",
  inspect = function(t, r)
    local name = get(t, "name")
    r:label("Thread name: '" .. tostring(name) .. "'")
    if name == "main" then r:not_leaking("the main thread always runs") end
  end,
}
local function view_inspect(v, r, prefix)
  prefix = prefix or ""
  local root_parent, root_view = get(v, "mParent"), nil
  local guard = 0
  while is(root_parent, "android.view.View") and guard < 1000 do
    root_view, root_parent, guard = root_parent, get(root_parent, "mParent"), guard + 1
  end
  local in_window = root_parent ~= nil or (root_view ~= nil and root_view.class_name == "com.android.internal.policy.DecorView")
  local count = get(v, "mWindowAttachCount") or 0
  local detached = get(v, "mAttachInfo") == nil
  if L.destroyed_activity(get(v, "mContext")) then
    r:leaking(prefix .. "View.mContext references a destroyed activity")
  elseif in_window and count > 0 then
    if detached then r:leaking(prefix .. "View detached yet still part of window view hierarchy")
    elseif root_view and get(root_view, "mAttachInfo") == nil then
      r:leaking(prefix .. "View attached but root view " .. root_view.class_name .. " detached (attach disorder)")
    else r:not_leaking(prefix .. "View attached") end
  end
  r:label(prefix .. (in_window and "View is part of a window view hierarchy" or "View not part of a window view hierarchy"))
  r:label(prefix .. (detached and "View.mAttachInfo is null (view detached)" or "View.mAttachInfo is not null (view attached)"))
  r:label(prefix .. "View.mWindowAttachCount = " .. tostring(count))
end
hk.inspector{ class = "android.view.View", inspect = function(v, r) view_inspect(v, r) end }
hk.inspector{
  class = "android.widget.Editor",
  inspect = function(e, r)
    local tv = get(e, "mTextView")
    if tv then view_inspect(tv, r, "Editor#mTextView: ") end
  end,
}
local function activity_state(a)
  local d = get(a, "mDestroyed")
  return d == nil and "UNKNOWN" or tostring(d)
end
hk.inspector{
  class = "android.app.Activity",
  inspect = function(a, r)
    local d = get(a, "mDestroyed")
    if d == true then r:leaking("Activity#mDestroyed is true")
    elseif d == false then r:not_leaking("Activity#mDestroyed is false") end
    if get(a, "mFinished") == true then r:label("Activity#mFinished is true") end
  end,
}
local service_cache = setmetatable({}, { __mode = "k" })
hk.inspector{
  class = "android.app.Service",
  inspect = function(s, r)
    -- which Services ActivityThread holds, once per dump; nothing to say without ActivityThread
    local alive = service_cache[r.dump]
    if alive == nil then alive = L.alive_services(r.dump) or false; service_cache[r.dump] = alive end
    if not alive then return end
    if alive[s.id] then r:not_leaking("Service held by ActivityThread")
    else r:leaking("Service not held by ActivityThread") end
  end,
}
-- Every field that holds a Context, labelled with what it is or wraps.
hk.inspector{
  class = "*",
  inspect = function(obj, r)
    if obj.kind ~= "instance" then return end
    for _, f in ipairs(obj:fields()) do
      local v = f.value
      if type(v) == "userdata" and v.kind == "instance" and v:is_instance_of("android.content.Context") then
        local comp = L.component_context(v)
        local text = f.name .. " instance of " .. v.class_name
        if comp and is(comp, "android.app.Activity") then
          local state = "with mDestroyed = " .. activity_state(comp)
          text = comp.id == v.id and (text .. " " .. state)
            or (text .. ", wrapping activity " .. comp.class_name .. " " .. state)
        elseif comp and comp.id ~= v.id then
          text = text .. ", wrapping " .. comp.class_name
        end
        r:label(text)
      end
    end
  end,
}
-- A ContextWrapper that is not itself an Activity, Application or Service.
hk.inspector{
  class = "android.content.ContextWrapper",
  inspect = function(w, r)
    for _, c in ipairs{ "android.app.Activity", "android.app.Application", "android.app.Service" } do
      if w:is_instance_of(c) then return end
    end
    local name = simple(w.class_name)
    local comp = L.component_context(w)
    if not comp then r:label(name .. " does not wrap a known Android context")
    elseif is(comp, "android.app.Activity") then
      local d = get(comp, "mDestroyed")
      if d == true then r:leaking(name .. " wraps an Activity with Activity.mDestroyed true")
      elseif d == false then r:label(name .. " wraps an Activity with Activity.mDestroyed false") end
    elseif is(comp, "android.app.Application") then r:label(name .. " wraps an Application context")
    else r:label(name .. " wraps a Service context") end
  end,
}
local function outer_context(r, outer, impl, prefix)
  if not outer then return end
  if is(outer, "android.app.Activity") then
    local d = get(outer, "mDestroyed")
    if d == true then r:leaking(prefix .. ".mOuterContext is an instance of " .. outer.class_name .. " with Activity.mDestroyed true")
    elseif d == false then r:not_leaking(prefix .. ".mOuterContext is an instance of " .. outer.class_name .. " with Activity.mDestroyed false")
    else r:label(prefix .. ".mOuterContext is an instance of " .. outer.class_name) end
  elseif is(outer, "android.app.Application") then
    r:not_leaking(prefix .. ".mOuterContext is an instance of " .. outer.class_name .. " which extends android.app.Application")
  elseif outer.id == impl.id then
    r:label(prefix .. ".mOuterContext == ContextImpl.this: not tied to any particular lifecycle")
  else
    r:label(prefix .. ".mOuterContext is an instance of " .. outer.class_name)
  end
end
hk.inspector{
  class = "android.app.ContextImpl",
  inspect = function(c, r) outer_context(r, get(c, "mOuterContext"), c, "ContextImpl") end,
}
-- LeakCanary 2.7's class name, and Android's (finder-context-impls.lua)
for _, name in ipairs{ "android.app.ApplicationContextManager", "android.app.ApplicationPackageManager" } do
  hk.inspector{
    class = name,
    inspect = function(m, r)
      local impl = get(m, "mContext")
      if impl then outer_context(r, get(impl, "mOuterContext"), impl, simple(name) .. ".mContext") end
    end,
  }
end
hk.inspector{
  class = "android.app.Dialog",
  inspect = function(d, r)
    r:label("Dialog#mDecor is " .. (get(d, "mDecor") == nil and "null" or "not null"))
  end,
}
hk.inspector{ class = "android.app.Application", inspect = function(_, r) r:not_leaking("Application is a singleton") end }
hk.inspector{
  class = "android.view.inputmethod.InputMethodManager",
  inspect = function(_, r) r:not_leaking("InputMethodManager is a singleton") end,
}
for _, name in ipairs{ "android.app.Fragment", "android.support.v4.app.Fragment", "androidx.fragment.app.Fragment" } do
  hk.inspector{
    class = name,
    inspect = function(f, r)
      if get(f, "mFragmentManager") == nil then r:leaking("Fragment#mFragmentManager is null")
      else r:not_leaking("Fragment#mFragmentManager is not null") end
      local tag = get(f, "mTag")
      if type(tag) == "string" and tag ~= "" then r:label("Fragment.mTag=" .. tag) end
    end,
  }
end
hk.inspector{
  class = "android.os.MessageQueue",
  inspect = function(q, r)
    local quitting = get(q, "mQuitting")
    if quitting == nil then quitting = get(q, "mQuiting") end
    if quitting == true then r:leaking("MessageQueue#mQuitting is true")
    elseif quitting == false then r:not_leaking("MessageQueue#mQuitting is false") end
    local head = get(q, "mMessages")
    local looper = head and get(get(head, "target"), "mLooper")
    local thread = looper and get(looper, "mThread")
    if thread then r:label('HandlerThread: "' .. tostring(get(thread, "name")) .. '"') end
  end,
}
hk.inspector{
  class = "mortar.Presenter",
  inspect = function(p, r) r:label("Presenter#view is " .. (get(p, "view") == nil and "null" or "not null")) end,
}
hk.inspector{
  class = "mortar.MortarScope",
  inspect = function(s, r)
    local dead, name = get(s, "dead"), tostring(get(s, "name"))
    if dead == true then r:leaking("mortar.MortarScope.dead is true for scope " .. name)
    elseif dead == false then r:not_leaking("mortar.MortarScope.dead is false for scope " .. name) end
  end,
}
hk.inspector{
  class = "com.squareup.coordinators.Coordinator",
  inspect = function(c, r) r:label("Coordinator#attached is " .. tostring(get(c, "attached"))) end,
}
hk.inspector{
  class = "android.view.ViewRootImpl",
  inspect = function(v, r)
    if get(v, "mView") == nil then
      r:leaking("ViewRootImpl#mView is null")
    else
      if L.destroyed_activity(get(v, "mContext")) then
        r:leaking("ViewRootImpl.mContext references a destroyed activity, did you forget to cancel toasts or dismiss dialogs?")
      end
      r:label("ViewRootImpl#mView is not null")
    end
    local attrs = get(v, "mWindowAttributes")
    if attrs then
      local title = get(attrs, "mTitle")
      r:label(type(title) == "string" and ('mWindowAttributes.mTitle = "' .. title .. '"') or "mWindowAttributes.mTitle is null")
      local t = get(attrs, "type")
      if t then r:label("mWindowAttributes.type = " .. t .. (t == 2005 and " (Toast)" or "")) end
    end
  end,
}
hk.inspector{
  class = "android.view.Window",
  inspect = function(w, r)
    if get(w, "mDestroyed") == true then r:leaking("Window#mDestroyed is true")
    else r:label("Window#mDestroyed is false") end
  end,
}
hk.inspector{
  class = "android.os.Message",
  inspect = function(m, r)
    r:label("Message.what = " .. tostring(get(m, "what")))
    r:label("Message.when = " .. tostring(get(m, "when")))
  end,
}
hk.inspector{
  class = "android.widget.Toast",
  inspect = function(t, r)
    local tn = get(t, "mTN")
    if not tn or get(tn, "mWM") == nil then return end   -- never shown: nothing to say
    if get(tn, "mView") == nil then
      r:leaking("This toast is done showing (Toast.mTN.mWM != null && Toast.mTN.mView == null)")
    else
      r:not_leaking("This toast is showing (Toast.mTN.mWM != null && Toast.mTN.mView != null)")
    end
  end,
}
hk.inspector{ class = "android.app.ActivityThread", inspect = function(_, r) r:not_leaking("ActivityThread is a singleton") end }
hk.inspector{
  class = "androidx.lifecycle.LifecycleRegistry",
  inspect = function(l, r)
    local state = L.lifecycle_state(l)
    if not state then return end
    r:label("mState = " .. state)
    -- DESTROYED alone does not make the registry leak: a fragment keeps its view's registry
    if state ~= "DESTROYED" then r:not_leaking("mState is not DESTROYED") end
  end,
}
hk.inspector{
  class = "androidx.lifecycle.ViewModel",
  inspect = function(vm, r)
    local c = L.viewmodel_cleared(vm)
    if c == true then r:leaking("ViewModel#mCleared is true")
    elseif c == false then r:label("ViewModel#mCleared is false") end
  end,
}
hk.inspector{
  class = "android.animation.Animator",
  inspect = function(a, r)
    local l = get(a, "mListeners")
    r:label(l == nil and "mListeners = null" or "mListeners is set")
  end,
}
hk.inspector{
  class = "android.animation.ObjectAnimator",
  inspect = function(a, r)
    r:label("mPropertyName = " .. tostring(get(a, "mPropertyName")))
    for _, f in ipairs{ "mInitialized", "mStarted", "mRunning", "mAnimationEndRequested", "mDuration", "mStartDelay" } do
      local v = get(a, f)
      if v ~= nil then r:label(f .. " = " .. tostring(v)) end
    end
  end,
}
hk.inspector{
  class = "androidx.compose.runtime.Recomposer",
  inspect = function(rc, r)
    local flow = get(rc, "_state")
    local state = flow and L.enum_name(flow, "_state")
    if not state then return end
    local label = "Recomposer is in state " .. state
    if state == "ShutDown" or state == "ShuttingDown" then r:leaking(label)
    elseif state == "PendingWork" or state == "Idle" then r:not_leaking(label)
    else r:label(label) end
  end,
}
hk.inspector{
  class = "androidx.compose.runtime.CompositionImpl",
  inspect = function(c, r)
    local d = get(c, "disposed")
    if d == true then r:leaking("Composition disposed") elseif d == false then r:not_leaking("Composition not disposed") end
  end,
}
