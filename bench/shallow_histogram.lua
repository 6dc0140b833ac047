-- The shallow class histogram alone (open + index + instances and bytes per class, no graph):
-- the same work as VisualVM's class histogram, for bench/visualvm_bench.sh.
local rows = hk.open(arg.dump):histogram()
local n = 0
for _, r in ipairs(rows) do n = n + r.count end
print(#rows .. " classes, " .. n .. " instances")
