-- Every object's graph answers, one line each, for comparing runs with different -j: the
-- parallel phases must give the same index whatever the number of threads.  The graph is
-- asked for as `top` asks (dominators and reachability at once: the dominators' search runs
-- beside the referrers and reachability starts from it), then `histogram`'s per-class
-- retained bytes; with arg.order = "reach-first" reachability is computed on its own first
-- (a search of its own), with "referrers-first" the referrers before the dominators: the
-- same answers.
local d = hk.open(arg.dump)
local out = {}
if arg.order == "reach-first" then d:reachability() end
-- referrers asked for first are kept through the dominators (rewritten into preorder numbers
-- and back); otherwise the dominators drop them and they are built again when asked for
if arg.order == "referrers-first" then for o in d:objects() do o:referrers() break end end
for _, o in ipairs(d:top_retained(50)) do out[#out + 1] = "top " .. o.id .. " " .. o:retained_size() end
local per, names = d:class_retained(), {}
for name in pairs(per) do names[#names + 1] = name end
table.sort(names)
for _, name in ipairs(names) do out[#out + 1] = "class " .. name .. " " .. per[name] end
local reach = d:reachability()
for _, s in ipairs({"strong", "soft", "weak", "finalizer", "phantom", "unreachable"}) do
  local r = reach[s] or {}
  out[#out + 1] = string.format("reach %s %d %d", s, r.count or 0, r.bytes or 0)
end
for _, o in ipairs(d:dominated_by_root(200)) do out[#out + 1] = "vroot " .. o.id end
local k = 0
for obj in d:objects() do
  k = k + 1
  if k % 101 == 0 then
    local p = d:path_to_root(obj.id)
    out[#out + 1] = "path " .. (p and (#p .. " " .. p[1].object.id) or "none")
    local kids = {}
    for _, c in ipairs(obj:dominated(5)) do kids[#kids + 1] = c.id end
    out[#out + 1] = "kids " .. table.concat(kids, " ")
  end
  local dom = obj:dominator()
  local refs = {}
  for _, r in ipairs(obj:referrers()) do refs[#refs + 1] = r.id end
  out[#out + 1] = string.format("%s %s %d %d %s %s", obj.id, dom and dom.id or "-", obj:retained_size(),
    obj:retained_native(), obj.reachability, table.concat(refs, ","))
end
print(table.concat(out, "\n"))
