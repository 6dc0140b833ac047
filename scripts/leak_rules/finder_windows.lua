-- Leak finder "windows" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "windows",
  help = "destroyed Windows (Window.mDestroyed)",
  find = function(dump, report)
    leaks.instances(dump, "android.view.Window", function(w)
      if leaks.get(w, "mDestroyed") == true then report(w, { reason = "Window#mDestroyed is true" }) end
    end)
  end,
}
