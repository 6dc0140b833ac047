-- prints the largest object's shallow size and class (a one-off script for the tests)
local dump = hk.open(arg.dump)
local best, cls = -1, nil
for obj in dump:objects() do
  local s = obj.shallow_size
  if s > best then best, cls = s, obj.class_name end
end
print(best, cls)
