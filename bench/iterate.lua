-- Iterate every instance of every class from Lua and read one field of each.
local dump = hk.open(arg.dump)
local t0 = os.clock()
local n, seen = 0, 0
for _, cls in ipairs(dump:classes()) do
  local fields = cls:fields()
  local fname = fields[1] and fields[1].name
  for obj in cls:instances() do
    n = n + 1
    if fname and obj:field(fname) ~= nil then seen = seen + 1 end
  end
end
local secs = os.clock() - t0
print(string.format("%d objects in %.2f s: %.2f million objects/s (%d field values read)", n, secs, n / secs / 1e6, seen))
