local time = require "text.time"

-- ISO 8601 in UTC with milliseconds: 2026-12-01T13:06:03.123Z (null when the dump has no time)
local function iso8601(ms)
  if type(ms) ~= "number" or ms <= 0 then return hk.null end
  return time.iso8601(ms)
end

hk.query{
  name = "info",
  help = "What a dump is: format, id size, object counts, heaps, and where it came from\n" ..
         "(SDK level, build fingerprint, manufacturer, model, process; null when absent), and the\n" ..
         "R8/ProGuard map applied to its names, if any; for a Perfetto trace, source lists what\n" ..
         "the trace holds and which dump was opened.\n" ..
         "timestamp: milliseconds since 1970 as the dump records it; timestamp_iso: the same in\n" ..
         "ISO 8601, UTC.\n" ..
         "layout: how objects are sized.  ART records each object's size; a HotSpot dump only its\n" ..
         "fields' bytes, so its objects are sized as the JVM lays them out (--jvm-layout, default\n" ..
         "auto: from the dump's packed addresses): compressed (12-byte header, 4-byte references),\n" ..
         "plain (16, 8), compact (8, 4), or HEADER/REF like 12/8; layout_why says why; dump: the\n" ..
         "dump's own sizes.  header_bytes, reference_bytes, alignment_bytes: the layout's (null\n" ..
         "for the dump's own sizes).",
  shape = "record",
  columns = { "format", "id_size", "classes", "instances", "object_arrays", "primitive_arrays",
              "gc_roots", "objects", "heaps", "sdk", "fingerprint", "manufacturer", "model",
              "process", "timestamp", "timestamp_iso", "file_bytes", "path", "map", "layout", "layout_why",
              "header_bytes", "reference_bytes", "alignment_bytes", "source" },
  subcolumns = { source = { "key", "value" } },
  run = function(dump)
    local info = dump:info()
    info.timestamp_iso = iso8601(info.timestamp)
    local l = dump.jvm_layout
    info.layout = l.name
    info.layout_why = (l.chosen == "auto" and "auto: " or "") .. l.why
    info.header_bytes = l.header_bytes or hk.null
    info.reference_bytes = l.reference_bytes or hk.null
    info.alignment_bytes = l.alignment_bytes or hk.null
    return info
  end,
}
