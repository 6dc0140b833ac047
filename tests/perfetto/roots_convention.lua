-- The roots convention of a Perfetto heap graph, for tests/t_perfetto.sh: one line of
--   roots zygote_objects zygote_not_rooted zygote_retained app_retained_by_zygote
-- roots: GC roots; zygote_not_rooted: zygote/image-heap objects that are no root (a device's
-- heap graph has none: ART's GC and Perfetto count them all as VM-internal roots);
-- zygote_retained: bytes zygote objects retain; app_retained_by_zygote: app-heap bytes whose
-- dominator chain runs through a zygote object.
local dump = hk.open(arg.dump)
local rooted, nroots = {}, 0
for _, r in ipairs(dump:roots()) do
  if not rooted[r.id] then nroots = nroots + 1 end
  rooted[r.id] = true
end
local zyg, not_rooted, zret, app_under = 0, 0, 0, 0
local function zygote(o) return o.heap == "zygote" or o.heap == "image" end
for obj in dump:objects() do
  if zygote(obj) then
    zyg = zyg + 1
    if not rooted[obj.id] then not_rooted = not_rooted + 1 end
    if obj.reachability == "strong" and (not obj:dominator() or not zygote(obj:dominator())) then
      zret = zret + obj:retained_size()
    end
  elseif obj.reachability == "strong" then
    local d = obj:dominator()
    while d and not zygote(d) do d = d:dominator() end
    if d then app_under = app_under + obj.shallow_size end
  end
end
print(nroots, zyg, not_rooted, zret, app_under)
