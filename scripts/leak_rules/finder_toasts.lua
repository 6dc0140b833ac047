-- Leak finder "toasts" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
-- LeakCanary's TOAST leaking-object filter (shark AndroidObjectInspectors).
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "toasts",
  help = "Toasts done showing (Toast.mTN.mWM set, Toast.mTN.mView null)",
  find = function(dump, report)
    leaks.instances(dump, "android.widget.Toast", function(t)
      local tn = leaks.get(t, "mTN")
      if type(tn) == "userdata" and leaks.get(tn, "mWM") ~= nil and leaks.get(tn, "mView") == nil then
        report(t, { reason = "This toast is done showing (Toast.mTN.mWM != null && Toast.mTN.mView == null)" })
      end
    end)
  end,
}
