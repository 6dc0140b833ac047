-- Leak finder "context-wrappers" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
-- LeakCanary's CONTEXT_WRAPPER leaking-object filter (shark AndroidObjectInspectors).
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "context-wrappers",
  help = "ContextWrappers (not themselves an Activity, Application or Service) of destroyed Activities",
  find = function(dump, report)
    leaks.instances(dump, "android.content.ContextWrapper", function(w)
      for _, c in ipairs{ "android.app.Activity", "android.app.Application", "android.app.Service" } do
        if w:is_instance_of(c) then return end
      end
      if leaks.activity_destroyed(leaks.component_context(w)) then
        report(w, { reason = w.class_name:gsub("^.*%.", "") .. " wraps an Activity with Activity.mDestroyed true" })
      end
    end)
  end,
}
