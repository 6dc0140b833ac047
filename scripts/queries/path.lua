hk.query{
  name = "path",
  help = "Why an object is alive: the shortest chain of references from a GC root to it.\n" ..
         "Roots held by a thread's stack or by native code (JNI references) and low-priority\n" ..
         "roots are used last, and the chain does not pass through weak/soft/phantom referents\n" ..
         "or the finalizer and Cleaner lists unless nothing else reaches the object (then\n" ..
         "weak = true on the last step).\n" ..
         "via: the field, array index ([3]) or static field that holds the next object.",
  positional = { "dump", "id" },
  columns = { "step", "root", "thread", "frame", "id", "class", "via", "shallow", "retained", "weak" },
  run = function(dump, args)
    local obj = dump:object(args.id)
    if not obj then error("no object with id " .. args.id .. " in this dump", 0) end
    local steps = dump:path_to_root(obj)
    if not steps then
      error("no GC root reaches " .. obj.id .. " (" .. obj.class_name .. "): it is " ..
            obj.reachability .. "; the GC would free it", 0)
    end
    local rows = {}
    for i, s in ipairs(steps) do
      rows[i] = {
        step = i, root = s.root or hk.null, thread = s.thread or hk.null, frame = s.frame or hk.null,
        id = s.object.id, class = s.object.label, via = s.via ~= "" and s.via or hk.null,
        shallow = s.object.shallow_size, retained = s.object:retained_size(),
      }
      if s.weak then rows[i].weak = true end
    end
    return rows
  end,
}
