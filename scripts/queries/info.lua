hk.query{
  name = "info",
  help = "What a dump is: format, id size, object counts, heaps, and where it came from\n" ..
         "(SDK level, build fingerprint, manufacturer, model, process; null when absent), and the\n" ..
         "R8/ProGuard map applied to its names, if any.",
  shape = "record",
  columns = { "format", "id_size", "classes", "instances", "object_arrays", "primitive_arrays",
              "gc_roots", "objects", "heaps", "sdk", "fingerprint", "manufacturer", "model",
              "process", "timestamp", "file_bytes", "path", "map" },
  run = function(dump)
    return dump:info()
  end,
}
