-- Per-class retained bytes against ahat's dominator tree (an independent implementation):
-- for each class whose instances are all strongly reachable, the retained size of the set
-- of its instances is the sum of ahat's retained over the instances that no other instance
-- of the same class dominates.  Usage: hprofkit run THIS DUMP --ahat PREFIX.objects.tsv
local d = hk.open(arg.dump)
local cls, ret, idom, weak = {}, {}, {}, {}
local f = assert(io.open(arg.ahat))
f:read("l")
for line in f:lines() do
  local id, kind, class, _, _, _, r, _, dom, reach = line:match(
    "^(%S+)\t(%S+)\t([^\t]+)\t([^\t]*)\t(%d+)\t(%d+)\t(%d+)\t(%d+)\t(%S+)\t(%S+)")
  if id and kind ~= "class" then
    cls[id], ret[id], idom[id] = class, tonumber(r), dom
    if reach ~= "strong" then weak[class] = true end
  end
end
f:close()
local want = {}
for id, class in pairs(cls) do
  local top, p = true, idom[id]
  while p and p ~= "-" do
    if cls[p] == class then top = false; break end
    p = idom[p]
  end
  if top then want[class] = (want[class] or 0) + ret[id] end
end
local got = d:class_retained()
local n, bad, first = 0, 0, {}
for class, w in pairs(want) do
  if not weak[class] then
    n = n + 1
    if got[class] ~= w then
      bad = bad + 1
      if #first < 5 then first[#first + 1] = string.format("%s: %s, ahat %d", class, tostring(got[class]), w) end
    end
  end
end
print(string.format("classes %d differ %d %s", n, bad, table.concat(first, "; ")))
if arg.class then print(string.format("%s %s %s", arg.class, tostring(got[arg.class]), tostring(want[arg.class]))) end
