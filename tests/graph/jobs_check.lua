-- Every object's graph answers, one line each, for comparing runs with different -j: the
-- parallel phases must give the same index whatever the number of threads.
local d = hk.open(arg.dump)
local out = {}
local k = 0
for obj in d:objects() do
  k = k + 1
  if k % 101 == 0 then
    local p = d:path_to_root(obj.id)
    out[#out + 1] = "path " .. (p and (#p .. " " .. p[1].object.id) or "none")
  end
  local dom = obj:dominator()
  local refs = obj:referrers()
  out[#out + 1] = string.format("%s %s %d %d %s %d", obj.id, dom and dom.id or "-", obj:retained_size(),
    obj:retained_native(), obj.reachability, #refs)
end
print(table.concat(out, "\n"))
