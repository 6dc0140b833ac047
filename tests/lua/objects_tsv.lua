-- Every object of arg.dump, one line each: id, kind, reachability, shallow and retained bytes
-- (tab-separated), for comparison with another tool's per-object export (t_ahat.sh).
local d = hk.open(arg.dump)
local out = {}
for o in d:objects() do
  out[#out + 1] = string.format("%s\t%s\t%s\t%d\t%d", o.id, o.kind, o.reachability, o.shallow_size,
                                o:retained_size())
end
io.write(table.concat(out, "\n"), "\n")
