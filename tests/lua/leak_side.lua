-- hprofkit's side of tests/t_shark.sh: every leak finder's candidates, then each leak trace
-- (JSON on one line) and its text, as tests/shark_compare.py reads them.
local dump = hk.open(arg.dump, { map = false })
for name, finder in pairs(hk.leak_finders()) do
  finder.find(dump, function(obj)
    if type(obj) == "userdata" then print("CAND " .. obj.id .. " " .. name) end
  end)
end
local result = dump:leaks()
for _, g in ipairs(result.leaks) do
  for _, t in ipairs(g.traces) do
    local head = { kind = g.kind, signature = g.signature, group_count = g.count,
                   group_retained_bytes = g.retained_bytes, group_retained_objects = g.retained_objects }
    print("TRACE " .. hk.json_encode({ group = head, trace = t }, nil, true))
    io.write(hk.leak_helpers.trace_text(t))
    print("END")
  end
end
