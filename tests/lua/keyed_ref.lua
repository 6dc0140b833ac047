-- prints the key of every com.squareup.leakcanary.KeyedWeakReference
local dump = hk.open(arg.dump)
local c = dump:class("com.squareup.leakcanary.KeyedWeakReference")
for ref in c:instances() do print(ref:field("key")) end
