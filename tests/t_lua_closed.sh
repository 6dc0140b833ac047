# A closed dump cannot be used: its Dump, Objects and Classes (and iterators over them) raise
# "this dump is closed" instead of reading freed memory (the build under test runs with ASan).
. "$SRC/tests/lib.sh"
"$GEN" --scenario demo -o demo.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
cat > closed.lua <<'LUA'
local d, other = hk.open(arg.dump), hk.open(arg.dump)
local o = d:class("java.lang.String"):instances()()
local c = o.class
local it = c:instances()
local objs = d:objects()
d:close()
local uses = {
  object = function() return o.class_name end, object_method = function() return o:field("count") end,
  class = function() return c.name end, dump = function() return d:info() end,
  instances = function() return it() end, objects = function() return objs() end,
  object_as_id = function() return other:object(o) end, graph = function() return o:retained_size() end,
}
for _, k in ipairs{ "object", "object_method", "class", "dump", "instances", "objects", "object_as_id", "graph" } do
  local ok, e = pcall(uses[k])
  print(k, ok and "no error" or tostring(e):match("this dump is closed") or tostring(e))
end
d:close()   -- twice is harmless
print("tostring", tostring(d))
LUA
"$HK" run closed.lua demo.hprof > closed.out 2> closed.err; rc=$?
if grep -qE 'Sanitizer|runtime error' closed.err; then
  fail closed-dump "sanitizer report: $(grep -m2 -E 'ERROR|SUMMARY|runtime error' closed.err | tr '\n' ' ')"
else
  eq closed-dump-exit "$rc" 0
  for k in object object_method class dump instances objects object_as_id graph; do
    eq "closed-dump-$k" "$(awk -F'\t' -v k=$k '$1 == k { print $2 }' closed.out)" "this dump is closed"
  done
  eq closed-dump-tostring "$(awk -F'\t' '$1 == "tostring" { print $2 }' closed.out)" "hk.Dump(closed)"
fi
