-- Leak finder "mortar-scopes" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
-- LeakCanary's MORTAR_SCOPE leaking-object filter (shark AndroidObjectInspectors).
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "mortar-scopes",
  help = "Mortar scopes that are dead (mortar.MortarScope.dead)",
  find = function(dump, report)
    leaks.instances(dump, "mortar.MortarScope", function(s)
      if leaks.get(s, "dead") == true then
        report(s, { reason = "mortar.MortarScope.dead is true for scope " .. tostring(leaks.get(s, "name")) })
      end
    end)
  end,
}
