-- Leak finder "dialogs" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "dialogs",
  help = "Dialogs shown then dismissed (mCreated, not mShowing, no mDecor)",
  find = function(dump, report)
    leaks.instances(dump, "android.app.Dialog", function(d)
      if leaks.get(d, "mCreated") == true and leaks.get(d, "mShowing") == false and leaks.get(d, "mDecor") == nil then
        report(d, { reason = "Dialog was dismissed (mCreated true, mShowing false, Dialog#mDecor is null)" })
      end
    end)
  end,
}
