-- Per-class retained bytes within one heap by the definition (ahat's), on one thread in Lua:
-- a depth-first walk of the dominator tree summing each object's shallow bytes in the heap
-- into its subtree's, counted for an instance in the heap when no instance of its class is
-- above it on the path. Prints the classes whose sum differs from dump:class_retained(heap),
-- which reads no record: shallow bytes from the retained sizes, the heap from a bit an object.
-- Usage: hprofkit [-j N] run THIS DUMP --heap NAME [--lists 1]
local d = hk.open(arg.dump)
local heap = arg.heap
if arg.lists then
  for _ in d:class("java.lang.String"):instances() do break end
end
local want, open = {}, {}
local frames = {{kids = d:dominated_by_root(), i = 0, acc = 0}}
while #frames > 0 do
  local f = frames[#frames]
  f.i = f.i + 1
  local o = f.kids[f.i]
  if o then
    local c = o.class
    local id, inheap = c and c.id, o.heap == heap
    frames[#frames + 1] = {kids = o:dominated(), i = 0, id = id, name = c and c.name,
                           top = inheap and id and not open[id], acc = inheap and o.shallow_size or 0}
    if id then open[id] = (open[id] or 0) + 1 end
  else
    frames[#frames] = nil
    if f.id then open[f.id] = open[f.id] - 1 > 0 and open[f.id] - 1 or nil end
    if f.top then want[f.name] = (want[f.name] or 0) + f.acc end
    if #frames > 0 then frames[#frames].acc = frames[#frames].acc + f.acc end
  end
end
local got, n, bad, first = d:class_retained(heap), 0, 0, {}
for name, w in pairs(want) do
  n = n + 1
  if got[name] ~= w then
    bad = bad + 1
    if #first < 5 then first[#first + 1] = string.format("%s: %s, walk %d", name, tostring(got[name]), w) end
  end
end
for name in pairs(got) do
  if not want[name] and got[name] ~= 0 then bad = bad + 1 end
end
print(string.format("classes %d differ %d %s", n, bad, table.concat(first, "; ")))
