-- ISO 8601 in UTC with milliseconds: 2026-12-01T13:06:03.123Z (null when the dump has no time)
local function iso8601(ms)
  if type(ms) ~= "number" or ms <= 0 then return hk.null end
  return hk.iso8601(ms)
end

hk.query{
  name = "info",
  help = "What a dump is: format, id size, object counts, heaps, and where it came from\n" ..
         "(SDK level, build fingerprint, manufacturer, model, process; null when absent), and the\n" ..
         "R8/ProGuard map applied to its names, if any; for a Perfetto trace, source lists what\n" ..
         "the trace holds and which dump was opened.\n" ..
         "timestamp: milliseconds since 1970 as the dump records it; timestamp_iso: the same in\n" ..
         "ISO 8601, UTC.",
  shape = "record",
  columns = { "format", "id_size", "classes", "instances", "object_arrays", "primitive_arrays",
              "gc_roots", "objects", "heaps", "sdk", "fingerprint", "manufacturer", "model",
              "process", "timestamp", "timestamp_iso", "file_bytes", "path", "map", "source" },
  subcolumns = { source = { "key", "value" } },
  run = function(dump)
    local info = dump:info()
    info.timestamp_iso = iso8601(info.timestamp)
    return info
  end,
}
