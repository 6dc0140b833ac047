-- Iterate every instance of every class from Lua and read one field of each, three ways:
-- obj:field(name) per object; cls:instances{field = name}, which hands each object with its
-- field value (one call per object instead of two); cls:field_values(name), the whole class's
-- values in one array (no Object per instance).  Classes without fields (arrays) are iterated
-- with cls:instances() in all three.
local dump = hk.open(arg.dump)
local classes = dump:classes()
local function first_field(cls)
  local f = cls:fields()[1]
  return f and f.name
end

local function count_plain(cls)
  local n = 0
  for _ in cls:instances() do n = n + 1 end
  return n
end

local function run(label, body)
  local t0 = os.clock()
  local n, seen = body()
  local secs = os.clock() - t0
  print(string.format("%-34s %d objects in %.2f s CPU: %.2f million objects/s (%d non-nil values)",
    label, n, secs, n / secs / 1e6, seen))
end

run("obj:field(name)", function()
  local n, seen = 0, 0
  for _, cls in ipairs(classes) do
    local fname = first_field(cls)
    for obj in cls:instances() do
      n = n + 1
      if fname and obj:field(fname) ~= nil then seen = seen + 1 end
    end
  end
  return n, seen
end)

run("cls:instances{field = name}", function()
  local n, seen = 0, 0
  for _, cls in ipairs(classes) do
    local fname = first_field(cls)
    if fname then
      for _, v in cls:instances{ field = fname } do
        n = n + 1
        if v ~= nil then seen = seen + 1 end
      end
    else
      n = n + count_plain(cls)
    end
  end
  return n, seen
end)

run("cls:field_values(name)", function()
  local n, seen = 0, 0
  for _, cls in ipairs(classes) do
    local fname = first_field(cls)
    if fname then
      local vals, count = cls:field_values(fname)
      for i = 1, count do
        if vals[i] ~= nil then seen = seen + 1 end
      end
      n = n + count
    else
      n = n + count_plain(cls)
    end
  end
  return n, seen
end)
