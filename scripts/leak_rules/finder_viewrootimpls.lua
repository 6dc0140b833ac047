-- Leak finder "viewrootimpls" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "viewrootimpls",
  help = "ViewRootImpls without a view, or whose context is a destroyed Activity",
  find = function(dump, report)
    leaks.instances(dump, "android.view.ViewRootImpl", function(v)
      if leaks.get(v, "mView") == nil then
        report(v, { reason = "ViewRootImpl#mView is null" })
      elseif leaks.destroyed_activity(leaks.get(v, "mContext")) then
        report(v, { reason = "ViewRootImpl.mContext references a destroyed activity" })
      end
    end)
  end,
}
