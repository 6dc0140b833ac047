-- The triage order against the lazy one: one dump gets triage's plan (the leak search and
-- the whole path search ahead of the dominators, the forward references not kept, the instance
-- lists and the dominator tree's child lists freed and made again, the lists from the class
-- walk's codes), a second copy of the same dump none.  Prints how many objects were compared
-- and how many answers differ in each: path_to_root (of every k-th object, reached or not), the
-- leak traces, class retained bytes, the virtual root's children, each class's instances.
local a, b = hk.open(arg.dump), hk.open(arg.dump)
local step = tonumber(arg.step or "7")
a:graph_plan{ "referrers", "reachability", "dominators", "class_retained", "class_lists", "paths_first" }
a:leaks{ search_first = true }
a:release{ "instances" }
a:top_retained(5)
local cra = a:class_retained()
local la = a:leaks()
a:release{ "dominator_children" }
local function path_text(dump, obj)
  local steps = dump:path_to_root(obj)
  if not steps then return "none" end
  local t = {}
  for _, s in ipairs(steps) do
    t[#t + 1] = s.object.id .. " " .. (s.via or "") .. " " .. tostring(s.root) .. " " .. tostring(s.weak)
  end
  return table.concat(t, "|")
end
local n, paths, weak, i = 0, 0, 0, 0
for oa in a:objects() do
  if i % step == 0 then
    n = n + 1
    local pa, pb = path_text(a, oa), path_text(b, b:object(oa.id))
    if pa ~= pb then paths = paths + 1 end
    if pa:find("true") then weak = weak + 1 end
  end
  i = i + 1
end
local json = require "text.json"
local leaks = json.encode(la) == json.encode(b:leaks()) and 0 or 1
local crb, classes = b:class_retained(), 0
for k, v in pairs(cra) do if crb[k] ~= v then classes = classes + 1 end end
for k, v in pairs(crb) do if cra[k] ~= v then classes = classes + 1 end end
local ka, kb, kids = a:dominated_by_root(), b:dominated_by_root(), 0
if #ka ~= #kb then kids = 1 end
for i = 1, math.min(#ka, #kb) do if ka[i].id ~= kb[i].id then kids = kids + 1 end end
local function ids(c)
  local t = {}
  for o in c:instances() do t[#t + 1] = o.id end
  return table.concat(t, " ")
end
local inst, cb = 0, b:classes()
for k, c in ipairs(a:classes()) do if ids(c) ~= ids(cb[k]) then inst = inst + 1 end end
print(string.format("objects %d weak %d leaks %d paths %d classes %d kids %d instances %d traces %d", n, weak, leaks,
  paths, classes, kids, inst, #la.leaks))
