-- For t_oracle.sh and t_oracle_diff.sh: each object of DUMP and BASE with its counterpart in the other dump as
-- hprofkit's diff matches them ("-": added in DUMP, removed from BASE), in the rows
-- tests/java/AhatOracle.java writes for ahat's baseline mode.  usage: run diff_status.lua DUMP --base BASE
local dump, base = hk.open(arg.dump, { map = arg.map }), hk.open(arg.base, { map = arg.map })
local df = dump:diff(base)
local out = {}
for _, pair in ipairs{ { "dump", dump }, { "base", base } } do
  for o in pair[2]:objects() do
    local c = df:counterpart(o)
    out[#out + 1] = table.concat({ "status", pair[1], o.id, o.label, c and c.id or "-" }, "\t")
  end
end
print(table.concat(out, "\n"))
