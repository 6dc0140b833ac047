-- Prints "id retained_size" for every strongly reachable instance and array, sorted by id,
-- then the object count: what a heap-graph round trip must keep (tests/t_perfetto.sh).
local dump = hk.open(arg.dump)
local rows, n = {}, 0
for obj in dump:objects() do
  n = n + 1
  if obj.kind ~= "class" and obj.reachability == "strong" then
    rows[#rows + 1] = { tonumber(obj.id), obj.id .. " " .. obj:retained_size() }
  end
end
table.sort(rows, function(a, b) return a[1] < b[1] end)
for _, r in ipairs(rows) do print(r[2]) end
print("objects " .. n)
