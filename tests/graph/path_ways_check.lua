-- A path is the same however it is found: from the whole search of the heap (the first
-- question here is an object no root reaches, which runs the search to its end), and from a
-- graph that knows reachability and the referrers, asked in a shuffled order, where the
-- search stops at the object asked for, searches the weakly held part first, or searches
-- only the object's ancestors.  Prints "objects N differ M" and the first differences;
-- arg.max: how many objects (0: all).
local function text(p)
  if not p then return "none" end
  local t = {}
  for _, s in ipairs(p) do
    t[#t + 1] = s.object.id .. "." .. (s.via or "") .. (s.root and ("@" .. s.root) or "") .. (s.weak and "W" or "")
  end
  return table.concat(t, " ")
end
local max = tonumber(arg.max or "0")
local whole, objs = hk.open(arg.dump), {}
for o in whole:objects() do objs[#objs + 1] = o.id end
for _, id in ipairs(objs) do
  local o = whole:object(id)
  if o.reachability == "unreachable" then whole:path_to_root(o); break end
end
local d = hk.open(arg.dump)
d:graph_plan{ "references", "referrers", "reachability", "dominators", "paths" }
d:top_retained(1)
math.randomseed(11)
for i = #objs, 2, -1 do local j = math.random(i); objs[i], objs[j] = objs[j], objs[i] end
local n, bad, first = 0, 0, {}
for _, id in ipairs(objs) do
  if max > 0 and n >= max then break end
  n = n + 1
  local a, b = text(whole:path_to_root(whole:object(id))), text(d:path_to_root(d:object(id)))
  if a ~= b then
    bad = bad + 1
    if #first < 3 then first[#first + 1] = id .. ": " .. a:sub(1, 120) .. " | " .. b:sub(1, 120) end
  end
end
print(string.format("objects %d differ %d %s", n, bad, table.concat(first, "; ")))
