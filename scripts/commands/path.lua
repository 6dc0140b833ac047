hk.query{
  name = "path",
  help = "Why an object is alive: the shortest chain of references from a GC root to it.\n" ..
         "Roots held by a thread's stack or by native code (JNI references) and low-priority\n" ..
         "roots are used last, and the chain does not pass through weak/soft/phantom referents\n" ..
         "or the finalizer and Cleaner lists unless nothing else reaches the object (then\n" ..
         "weak = true on the last step).\n" ..
         "Each step is an object and the reference that reaches it: {type, name} with type\n" ..
         "root or local (the first step: its GC root), static, field or array ([3]).",
  positional = { "dump", "id" },
  columns = { "step", "object", "class", "reference", "shallow_bytes", "retained_bytes", "thread", "frame", "weak" },
  run = function(dump, args)
    local obj = dump:object(args.id)
    if not obj then hk.usage_error("no object with id " .. args.id .. " in this dump") end
    local steps = dump:path_to_root(obj)
    if not steps then
      error("no GC root reaches " .. obj.id .. " (" .. obj.class_name .. "): it is " ..
            obj.reachability .. "; the GC would free it", 0)
    end
    local rows = {}
    for i, s in ipairs(steps) do
      rows[i] = {
        step = i, object = s.object.id, class = s.object.label, reference = s.reference,
        shallow_bytes = s.object.shallow_size, retained_bytes = s.object:retained_size(),
        thread = s.thread or hk.null, frame = s.frame or hk.null, weak = s.weak == true,
      }
    end
    return rows
  end,
}
