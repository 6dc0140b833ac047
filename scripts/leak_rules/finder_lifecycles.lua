-- Leak finder "lifecycles" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "lifecycles",
  help = "LifecycleRegistry in state DESTROYED",
  find = function(dump, report)
    leaks.instances(dump, "androidx.lifecycle.LifecycleRegistry", function(l)
      if leaks.lifecycle_state(l) == "DESTROYED" then report(l, { reason = "LifecycleRegistry state is DESTROYED" }) end
    end)
  end,
}
