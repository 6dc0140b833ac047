-- Per-class retained bytes by the definition, on one thread in Lua: a depth-first walk of the
-- dominator tree (an explicit stack: chains run a million deep) adding an object's retained
-- size when no instance of its class is above it on the path. Prints the classes whose sum
-- differs from dump:class_retained(), which cuts the tree into tasks for the threads; with
-- --heap, from dump:class_retained(heap), which reads no record (shallow bytes from the
-- retained sizes, the heap from a bit an object).
-- Usage: hprofkit [-j N] run THIS DUMP [--lists 1] [--early 1] [--plan 1] [--heap_first H] [--heap H]
local d = hk.open(arg.dump)
-- with --lists: the per-class instance lists exist first, where class_retained takes each
-- object's class from them instead of its record
if arg.lists then
  for _ in d:class("java.lang.String"):instances() do break end
end
-- with --plan: the walk announced (dump:graph_plan), then the dominators asked for by another
-- query: they keep their memory for the walk the same way
if arg.plan then
  d:graph_plan{ "class_retained" }
  d:graph_totals()
end
-- with --heap_first H: a walk within heap H first, which finds the whole dump's figures on its
-- way and keeps them for class_retained
if arg.heap_first then d:class_retained(arg.heap_first) end
-- with --early: class_retained before anything computed the dominators: it asks for them,
-- and their memory becomes its child lists and codes
local early = arg.early and d:class_retained()
-- with --heap H: the figure within heap H (ahat's), each object's shallow bytes in H added up
-- its path, counted for an instance in H with no instance of its class above it
local heap = arg.heap
local want, open = {}, {}
local function key(o)
  local c = o.class
  return c and c.id, c and c.name
end
local frames = {{kids = d:dominated_by_root(), i = 0, acc = 0}}
while #frames > 0 do
  local f = frames[#frames]
  f.i = f.i + 1
  local o = f.kids[f.i]
  if o then
    local id, name = key(o)
    local inheap, top = heap and o.heap == heap, false
    if id then
      if not heap and not open[id] then want[name] = (want[name] or 0) + o:retained_size() end
      top = inheap and not open[id]
      open[id] = (open[id] or 0) + 1
    end
    frames[#frames + 1] = {kids = o:dominated(), i = 0, id = id, name = name, top = top,
                           acc = inheap and o.shallow_size or 0}
  else
    frames[#frames] = nil
    if f.id then
      open[f.id] = open[f.id] - 1
      if open[f.id] == 0 then open[f.id] = nil end
    end
    if f.top then want[f.name] = (want[f.name] or 0) + f.acc end
    if #frames > 0 then frames[#frames].acc = frames[#frames].acc + f.acc end
  end
end
local got, n, bad, first = early or d:class_retained(heap), 0, 0, {}
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
