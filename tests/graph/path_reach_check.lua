-- path and reachability must agree on every object: a path exists exactly when the object is
-- reachable at all, and it is weak exactly when the object is not strongly reachable.
local d = hk.open(arg.dump)
local n, bad, first = 0, 0, {}
for o in d:objects() do
  n = n + 1
  local p = d:path_to_root(o)
  local weak = p ~= nil and p[#p].weak == true
  local reach = o.reachability
  local ok = (p == nil) == (reach == "unreachable") and (reach == "strong") == (p ~= nil and not weak)
  if not ok then
    bad = bad + 1
    if #first < 5 then
      first[#first + 1] = string.format("%s %s reach=%s path=%s", o.id, o.class_name, reach,
        p == nil and "none" or (weak and "weak" or "strong"))
    end
  end
end
print(string.format("objects %d disagree %d %s", n, bad, table.concat(first, "; ")))
