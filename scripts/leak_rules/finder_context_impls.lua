-- Leak finders "context-impls" and "package-managers" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
-- LeakCanary's CONTEXT_IMPL and APPLICATION_PACKAGE_MANAGER leaking-object filter (shark AndroidObjectInspectors).
local leaks = require "leaks.helpers"
-- LeakCanary 2.7 looks for android.app.ApplicationContextManager, a class Android does not
-- have; Android's is android.app.ApplicationPackageManager (its mContext a ContextImpl).  Both
-- are looked for.

local function destroyed_outer(impl)
  local outer = leaks.get(impl, "mOuterContext")
  if leaks.is(outer, "android.app.Activity") and leaks.get(outer, "mDestroyed") == true then return outer end
  return nil
end

hk.leak_finder{
  name = "context-impls",
  help = "ContextImpls whose outer context is a destroyed Activity",
  find = function(dump, report)
    leaks.instances(dump, "android.app.ContextImpl", function(c)
      local outer = destroyed_outer(c)
      if outer then
        report(c, { reason = "ContextImpl.mOuterContext is an instance of " .. outer.class_name ..
          " with Activity.mDestroyed true" })
      end
    end)
  end,
}

hk.leak_finder{
  name = "package-managers",
  help = "ApplicationPackageManagers whose ContextImpl's outer context is a destroyed Activity",
  find = function(dump, report)
    for _, name in ipairs{ "android.app.ApplicationPackageManager", "android.app.ApplicationContextManager" } do
      leaks.instances(dump, name, function(m)
        local outer = destroyed_outer(leaks.get(m, "mContext"))
        if outer then
          report(m, { reason = name:gsub("^.*%.", "") .. ".mContext.mOuterContext is an instance of " ..
            outer.class_name .. " with Activity.mDestroyed true" })
        end
      end)
    end
  end,
}
