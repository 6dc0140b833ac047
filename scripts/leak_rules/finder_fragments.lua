-- Leak finder "fragments" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
local leaks = require "leaks.helpers"

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
