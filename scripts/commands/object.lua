local function describe_value(dump, f)
  local row = { name = f.name, type = f.type }
  if f.type == "object" then
    row.value = f.ref ~= "0x0" and f.ref or hk.null
    local target = f.ref ~= "0x0" and dump:object(f.ref) or nil
    row.class = target and target.class_name or hk.null
    if type(f.value) == "string" then row.string = f.value end
  else
    row.value = f.value
  end
  return row
end

hk.query{
  name = "object",
  help = "One object: its class (a class object: `class NAME`), sizes (shallow, retained, native\n" ..
         "and retained native, as `top`), how strongly it is reachable, how many objects refer to\n" ..
         "it (referrers: as `dump:referrers`, Reference objects whose referent it is included),\n" ..
         "fields (references as ids with their class), and for an array its length and --elements\n" ..
         "elements from index --offset (a char[] or byte[] also as text: UTF-16, Latin-1); a\n" ..
         "String's value; where it was allocated, when the dump has allocation stacks\n" ..
         "(innermost frame first; R8-inlined frames expanded with a map).",
  positional = { "dump", "id" },
  args = { elements = 10, offset = 0 },
  options_help = "  --elements N  how many elements of an array (default 10)\n" ..
                 "  --offset I    the first element shown (0-based; default 0)",
  shape = "record",
  columns = { "id", "class", "kind", "heap", "shallow_bytes", "retained_bytes", "native_bytes",
              "retained_native_bytes", "reachability", "referrers", "length", "value", "fields", "offset", "elements", "text",
              "statics", "allocation_stack" },
  run = function(dump, args)
    local obj = dump:object(args.id)
    if not obj then hk.usage_error("no object with id " .. args.id .. " in this dump") end
    local rec = {
      id = obj.id, class = obj.label, kind = obj.kind, heap = obj.heap or hk.null,
      shallow_bytes = obj.shallow_size, retained_bytes = obj:retained_size(), native_bytes = obj.native_size,
      retained_native_bytes = obj:retained_native(), reachability = obj.reachability,
      referrers = #obj:referrers(), length = obj.length or hk.null, value = obj.value or hk.null,
    }
    if obj.kind == "instance" then
      rec.fields = {}
      for i, f in ipairs(obj:fields()) do rec.fields[i] = describe_value(dump, f) end
    elseif obj.kind == "class" then
      rec.statics = {}
      for i, s in ipairs(obj.as_class:statics()) do
        local f = { name = s.name, type = s.type, value = s.value }
        if s.type == "object" then
          f.ref = type(s.value) == "userdata" and s.value.id or "0x0"
          if type(s.value) == "string" then f.ref = "(string)" end
        end
        rec.statics[i] = f.type == "object" and f.ref ~= "(string)" and describe_value(dump, f) or
          { name = s.name, type = s.type, value = s.value == nil and hk.null or s.value }
      end
    else
      if args.offset < 0 or args.elements < 0 then hk.usage_error("--offset and --elements take a count from 0") end
      rec.offset, rec.elements = args.offset, {}
      rec.text = obj:text(args.offset, args.elements) or hk.null
      local refs = obj.kind == "object_array"
      for i = args.offset, math.min(obj.length, args.offset + args.elements) - 1 do
        -- an object array's element as its id with its class (and a String's text), as a field
        local row = refs and describe_value(dump, { type = "object", ref = obj:id_at(i), value = obj:at(i) })
          or { value = obj:at(i) }
        row.name, row.type, row.index = nil, nil, i
        if row.value == nil then row.value = hk.null end
        rec.elements[#rec.elements + 1] = row
      end
    end
    local stack = obj.allocation_stack
    if stack then
      rec.allocation_stack = {}
      for i, f in ipairs(stack) do
        rec.allocation_stack[i] = { class = f.class, method = f.method, file = f.file or hk.null,
                                    line = f.line, inlined = f.inlined }
      end
    end
    return rec
  end,
}
