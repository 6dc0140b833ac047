-- Leak finder "message-queues" (hk.leak_finder, see docs/lua-api.md); helpers in lib/leaks/helpers.lua.
-- LeakCanary's MESSAGE_QUEUE leaking-object filter (shark AndroidObjectInspectors).
local leaks = require "leaks.helpers"

hk.leak_finder{
  name = "message-queues",
  help = "MessageQueues that are quitting (MessageQueue.mQuitting)",
  find = function(dump, report)
    leaks.instances(dump, "android.os.MessageQueue", function(q)
      local quitting = leaks.get(q, "mQuitting")
      if quitting == nil then quitting = leaks.get(q, "mQuiting") end
      if quitting == true then report(q, { reason = "MessageQueue#mQuitting is true" }) end
    end)
  end,
}
