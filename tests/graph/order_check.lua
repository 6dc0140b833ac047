-- The graph's phases in either order give the same answers: dominators drop the forward
-- edges to save memory, and paths asked for afterwards must rebuild them.  Prints the
-- paths of the top retainers and their retained sizes; arg.order is "dom-first" or
-- "paths-first".
local function ids(path)
  if not path then return "none" end
  local t = {}
  for _, s in ipairs(path) do t[#t + 1] = s.object.id .. (s.via ~= "" and ("." .. s.via) or "") end
  return table.concat(t, " ")
end
local ids_of = {}
for _, o in ipairs(hk.open(arg.dump):top_retained(8, true)) do ids_of[#ids_of + 1] = o.id end
local d = hk.open(arg.dump)   -- a fresh graph, phases in the order asked
local lines = {}
local function retained() for i, id in ipairs(ids_of) do lines[#lines + 1] = "R " .. id .. " " .. d:object(id):retained_size() end end
local function paths() for _, id in ipairs(ids_of) do lines[#lines + 1] = "P " .. ids(d:path_to_root(id)) end end
if arg.order == "paths-first" then paths(); retained() else retained(); paths() end
table.sort(lines)
print(table.concat(lines, "\n"))
