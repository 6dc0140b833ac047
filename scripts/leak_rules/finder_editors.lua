-- Leak finder "editors" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
-- LeakCanary's EDITOR leaking-object filter (shark AndroidObjectInspectors).
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "editors",
  help = "Editors whose TextView is a leaking root View",
  find = function(dump, report)
    leaks.instances(dump, "android.widget.Editor", function(e)
      local tv = leaks.get(e, "mTextView")
      local why = type(tv) == "userdata" and leaks.root_view_leak(tv)
      if why then report(e, { reason = "Editor#mTextView: " .. why }) end
    end)
  end,
}
