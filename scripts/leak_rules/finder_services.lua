-- Leak finder "services" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
local leaks = require "leaks.helpers"

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
