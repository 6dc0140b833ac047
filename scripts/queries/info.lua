hk.query{
  name = "info",
  help = "What a dump is: format, id size, object counts, heaps, and where it came from\n" ..
         "(SDK level, build fingerprint, manufacturer, model, process; null when absent);\n" ..
         "for a Perfetto trace, source lists what the trace holds and which dump was opened.",
  shape = "record",
  columns = { "format", "id_size", "classes", "instances", "object_arrays", "primitive_arrays",
              "gc_roots", "objects", "heaps", "sdk", "fingerprint", "manufacturer", "model",
              "process", "timestamp", "file_bytes", "path", "source" },
  subcolumns = { source = { "key", "value" } },
  run = function(dump)
    return dump:info()
  end,
}
