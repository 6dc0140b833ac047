-- checks the object table: ids strictly ascending, and every id finds its own object
local dump = hk.open(arg.dump)
local prev, n = -1, 0
for obj in dump:objects() do
  local id = tonumber(obj.id)
  if id <= prev then error(string.format("object table out of order at %s after 0x%x", obj.id, prev)) end
  if n % 97 == 0 and dump:object(obj.id) ~= obj then error("lookup of " .. obj.id .. " finds another object") end
  prev, n = id, n + 1
end
print(n)
