-- Leak finder "views" (hk.leak_finder, see docs/lua-api.md); helpers in recipes/leak-helpers.lua.
local leaks = hk.leak_helpers

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
