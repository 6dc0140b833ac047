-- The leak path search's worst case: a target no strong path reaches, so the search visits the
-- whole strongly reachable heap; timed without and with the built-in reference rules.
-- Usage: hprofkit run bench/leakpath_full.lua DUMP (after bench/leaks_bench.sh made the dump)
local d = hk.open(arg.dump)
local target
for obj in d:class("java.lang.Object[]"):instances() do
  if obj.reachability ~= "strong" then target = obj break end
end
d:leak_paths({ d:object(d:roots()[1].id) }, {}, {})  -- builds the refs phase
local refs = {}
for _, m in ipairs(hk.reference_matchers()) do if m.field or m.static then refs[#refs+1] = {class=m.class, field=m.field, static=m.static, ignore=m.kind=="ignore"} end end
local t0 = os.clock()
d:leak_paths({ target }, {}, {})
local t1 = os.clock()
d:leak_paths({ target }, refs, {})
local t2 = os.clock()
print(string.format("whole-heap search: %.2f s without rules, %.2f s with %d rules", t1 - t0, t2 - t1, #refs))
