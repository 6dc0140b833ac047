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
         "fields (references as ids with their class), and for an array its length and first\n" ..
         "elements; a String's value; where it was allocated, when the dump has allocation stacks\n" ..
         "(innermost frame first; R8-inlined frames expanded with a map).",
  positional = { "dump", "id" },
  args = { elements = 10 },
  shape = "record",
  columns = { "id", "class", "kind", "heap", "shallow_bytes", "retained_bytes", "native_bytes",
              "retained_native_bytes", "reachability", "referrers", "length", "value", "fields", "elements",
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
      rec.elements = {}
      for i = 0, math.min(obj.length, args.elements) - 1 do
        local v = obj:at(i)
        if type(v) == "userdata" then v = v.id end
        rec.elements[#rec.elements + 1] = { index = i, value = v == nil and hk.null or v }
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
