-- Leak finder "views" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "views",
  help = "root Views of destroyed Activities, and detached window roots",
  find = function(dump, report)
    leaks.instances(dump, "android.view.View", function(v)
      local why = leaks.root_view_leak(v)
      if why then report(v, { reason = why }) end
    end)
  end,
}
