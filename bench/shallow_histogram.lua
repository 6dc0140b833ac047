-- The shallow class histogram alone (open + index + instances and bytes per class, no graph):
-- the same work as VisualVM's class histogram, for bench/visualvm_bench.sh.  With HK_HIST_OUT set,
-- also writes "class<TAB>count" per class to that file (to hold against VisualVM's).
local rows = hk.open(arg.dump):histogram(nil, {retained = false})
local n = 0
for _, r in ipairs(rows) do n = n + r.count end
print(#rows .. " classes, " .. n .. " instances")
local out = os.getenv("HK_HIST_OUT")
if out then
  local f = assert(io.open(out, "w"))
  for _, r in ipairs(rows) do f:write(r.class, "\t", r.count, "\n") end
  f:close()
end
