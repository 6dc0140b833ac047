-- prints {"TYPE": count, ...} of the dump's GC root records, sorted, as JSON
local dump = hk.open(arg.dump)
local n = {}
for _, r in ipairs(dump:roots()) do n[r.type] = (n[r.type] or 0) + 1 end
local keys = {}
for k in pairs(n) do keys[#keys + 1] = k end
table.sort(keys)
local parts = {}
for i, k in ipairs(keys) do parts[i] = string.format("%q:%d", k, n[k]) end
print("{" .. table.concat(parts, ",") .. "}")
