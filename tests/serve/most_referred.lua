-- For t_serve_browser.sh: the object with the most referrers under 200 (a page past the first
-- 50 of them to walk), printed as its id.  usage: hprofkit run most_referred.lua DUMP
local d = hk.open(arg.dump)
local best, most = nil, 0
for o in d:objects() do
  local n = #o:referrers()
  if n > most and n < 200 then best, most = o, n end
end
print(best and best.id or "")
