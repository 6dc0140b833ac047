-- Lists every object that is not a class object, one line each, sorted by id:
-- id class shallow retained native reachability roots refs(field=id,...)
-- (class objects too when arg.classes is set), for tests/t_perfetto.sh.
local dump = hk.open(arg.dump)
local roots = {}
for _, r in ipairs(dump:roots()) do
  local k = r.id
  roots[k] = roots[k] and (roots[k] .. "+" .. r.type) or r.type
end
local lines = {}
for obj in dump:objects() do
  if obj.kind ~= "class" or arg.classes then
    local refs = {}
    if obj.kind == "instance" then
      for _, f in ipairs(obj:fields()) do
        if f.type == "object" then
          local v = f.ref or f.value
          refs[#refs + 1] = f.name .. "=" .. (type(v) == "string" and ("\"" .. v .. "\"") or (v and v.id) or "null")
        else refs[#refs + 1] = f.name .. ":" .. tostring(f.value) end
      end
    elseif obj.kind == "object_array" then
      for i = 0, obj.length - 1 do local e = obj:at(i); refs[#refs + 1] = "[" .. i .. "]=" .. (e and e.id or "null") end
    end
    lines[#lines + 1] = { tonumber(obj.id), string.format("%s %s %d %d %d %s %s %s", obj.id, obj.label,
      obj.shallow_size, obj:retained_size(), obj.native_size, obj.reachability, roots[obj.id] or "-",
      #refs > 0 and table.concat(refs, ",") or "-") }
  end
end
table.sort(lines, function(a, b) return a[1] < b[1] end)
for _, l in ipairs(lines) do print(l[2]) end
