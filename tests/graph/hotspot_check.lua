-- Checks the heap graph on a HotSpot dump of tests/java/GraphApp.java through the Lua API.
-- Prints one test line per check (PASS name | FAIL name: why).  Usage: hprofkit run THIS DUMP
local dump = hk.open(arg.dump)
local function one(name)
  local cls = dump:class(name)
  if not cls then return nil end
  for o in cls:instances() do return o end
end
local function check(name, cond, why)
  if cond then print("PASS " .. name) else print("FAIL " .. name .. ": " .. tostring(why)) end
end

local a, b, c, d, e = one("GraphApp$GA"), one("GraphApp$GB"), one("GraphApp$GC"), one("GraphApp$GD"), one("GraphApp$GE")
check("hotspot_objects_found", a and b and c and d and e, "GraphApp's nodes are not all in the dump")
if not (a and b and c and d and e) then return end
-- the case a BFS approximation gets wrong: c is reached first through a, but d->e->b->c also
-- reaches it, so only the virtual root dominates c (and b)
check("hotspot_dom_c_is_root", c:dominator() == nil, "dom(c) = " .. tostring(c:dominator() and c:dominator().id))
check("hotspot_dom_b_is_root", b:dominator() == nil, "dom(b) = " .. tostring(b:dominator() and b:dominator().id))
check("hotspot_dom_e_is_d", e:dominator() and e:dominator().id == d.id, "dom(e) is not d")
check("hotspot_dom_a_is_class", a:dominator() and a:dominator().id == dump:class("GraphApp").object.id,
      "a, held by a static, should be dominated by the class GraphApp")
-- retained: d retains itself, its payload, e and e's payload
local function shallow_with_pay(o) return o.shallow_size + o:field("pay").shallow_size end
check("hotspot_retained_d", d:retained_size() == shallow_with_pay(d) + shallow_with_pay(e),
      d:retained_size() .. " ~= " .. (shallow_with_pay(d) + shallow_with_pay(e)))
check("hotspot_retained_a", a:retained_size() == shallow_with_pay(a), a:retained_size())
local kids = d:dominated()
check("hotspot_dominated_largest_first", #kids == 2 and kids[1]:retained_size() >= kids[2]:retained_size(),
      #kids .. " children")

-- the chain: head retains every link
local head = dump:class("GraphApp").object
local link = one("GraphApp$LinkTail")
local steps = dump:path_to_root(link)
check("hotspot_path_chain", steps and steps[1].root == "STICKY_CLASS" or steps and steps[1].root ~= nil,
      "no path to the chain's tail")
if steps then
  -- the path reaches GraphApp's class (an application class: held by a system class's
  -- static or its loader), then static head, then next, next, ...
  local k = 1
  while steps[k] and steps[k].object ~= head do k = k + 1 end
  check("hotspot_path_static_head", steps[k] and steps[k].via == "static head",
        "no step through static head")
  check("hotspot_path_next", steps[k + 1] and steps[k + 1].via == "next" and steps[#steps].object == link,
        "steps do not follow next")
  print("# chain path has " .. #steps .. " steps")
end
-- path to c prefers the static root (a) over the frame local (d): thread-local roots last
local pc = dump:path_to_root(c)
check("hotspot_path_prefers_static", pc and pc[1].root ~= "JAVA_FRAME" and pc[#pc - 1].object.id == a.id,
      pc and ("starts at " .. tostring(pc[1].root)) or "no path")
local pd = dump:path_to_root(d)
check("hotspot_path_frame_root", pd and pd[1].root == "JAVA_FRAME" and pd[1].thread ~= nil, "d's path does not start at a frame")

-- reachability of the referents
local function reach(name) local o = one(name); return o and o.reachability end
check("hotspot_reach_weak", reach("GraphApp$WeakOnly") == "weak", reach("GraphApp$WeakOnly"))
check("hotspot_reach_soft", reach("GraphApp$SoftOnly") == "soft", reach("GraphApp$SoftOnly"))
check("hotspot_reach_phantom", reach("GraphApp$PhantomOnly") == "phantom", reach("GraphApp$PhantomOnly"))
check("hotspot_reach_finalizer", reach("GraphApp$Finalizable") == "finalizer", reach("GraphApp$Finalizable"))
check("hotspot_reach_strong", a.reachability == "strong", a.reachability)
local cyc = one("GraphApp$Cyc")
if cyc then check("hotspot_reach_cycle", cyc.reachability == "unreachable", cyc.reachability) end
-- a weakly held object is not retained by its WeakReference
local w = one("GraphApp$WeakOnly")
check("hotspot_weak_not_retained", w:dominator() == nil, "a WeakReference dominates its referent")
local refs = w:referrers()
check("hotspot_weak_referrer", #refs >= 1 and refs[#refs].class_name == "java.lang.ref.WeakReference",
      #refs .. " referrers")
-- no silent cap: every one of the 100 WeakReferences to ManyWeak is a referrer
local mw = one("GraphApp$ManyWeak")
local nweak = 0
for _, r in ipairs(mw and mw:referrers() or {}) do
  if r.class_name == "java.lang.ref.WeakReference" then nweak = nweak + 1 end
end
check("hotspot_referrers_no_cap", nweak == 100, nweak .. " WeakReference referrers")

-- totals: the root's children retain the whole heap
local total, kidsum = 0, 0
for o in dump:objects() do total = total + o.shallow_size end
for _, o in ipairs(dump:dominated_by_root()) do kidsum = kidsum + o:retained_size() end
check("hotspot_total_bytes", kidsum == total and dump:graph_totals().bytes == total, kidsum .. " vs " .. total)
local r = dump:reachability()
local n = 0
for _, v in pairs(r) do n = n + v.count end
check("hotspot_reach_counts", n == dump:info().objects, n .. " vs " .. tostring(dump:info().objects))
local roots = dump:roots()
check("hotspot_roots", #roots > 0 and roots[1].type ~= nil, #roots)
