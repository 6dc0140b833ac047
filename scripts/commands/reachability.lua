hk.query{
  name = "reachability",
  help = "Objects and shallow bytes by how strongly they are reachable from GC roots: the best\n" ..
         "over all paths of the weakest reference on the path (referents of Soft/Weak/Phantom\n" ..
         "references and of the finalizer queue are weak of their kind).  unreachable objects\n" ..
         "are garbage the dump still holds.",
  columns = { "reachability", "count", "shallow_bytes" },
  run = function(dump)
    local r = dump:reachability()
    local rows = {}
    for _, k in ipairs({ "strong", "soft", "weak", "finalizer", "phantom", "unreachable" }) do
      rows[#rows + 1] = { reachability = k, count = r[k].count, shallow_bytes = r[k].bytes }
    end
    return rows
  end,
}
