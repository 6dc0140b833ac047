-- Leak finder "watched" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "watched",
  help = "referents of LeakCanary's KeyedWeakReference (1.x and 2.x)",
  find = function(dump, report)
    for _, name in ipairs{ "com.squareup.leakcanary.KeyedWeakReference", "leakcanary.KeyedWeakReference" } do
      local cls = dump:class(name)
      if cls then
        local dump_uptime = cls:static("heapDumpUptimeMillis")
        for ref, referent in cls:instances{ field = "referent" } do
          if type(referent) == "userdata" then
            local key = leaks.get(ref, "key")
            local desc = leaks.get(ref, "description") or leaks.get(ref, "name")
            local watch = leaks.get(ref, "watchUptimeMillis")
            local retained = leaks.get(ref, "retainedUptimeMillis")
            local labels = { "key = " .. tostring(key) }
            local retained_for
            -- LeakCanary 2 marks an object retained (retainedUptimeMillis, -1 until then) once it
            -- outlived its watch delay; older dumps have no such field and count as retained
            local is_retained = not (type(dump_uptime) == "number" and retained == -1)
            if type(dump_uptime) == "number" then
              if type(watch) == "number" then labels[#labels + 1] = "watchDurationMillis = " .. (dump_uptime - watch) end
              if type(retained) == "number" and retained ~= -1 then
                retained_for = dump_uptime - retained
                labels[#labels + 1] = "retainedDurationMillis = " .. retained_for
              end
            end
            if is_retained then report(referent, {
              reason = (type(desc) == "string" and desc ~= "") and ("ObjectWatcher was watching this because " .. desc)
                or "ObjectWatcher was watching this",
              key = type(key) == "string" and key or nil, labels = labels, retained_for_ms = retained_for,
            }) end
          end
        end
      end
    end
  end,
}
