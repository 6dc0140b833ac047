-- Leak finder "activities" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
local leaks = require "leaks.helpers"

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
