-- dump:class_retained() walks every class; an explorer asks for one class after another of the
-- same dump, so the answer is kept while the dump is (weak keys)
local class_retained = setmetatable({}, { __mode = "k" })
local class_native = setmetatable({}, { __mode = "k" })

hk.query{
  name = "class",
  help = "One class: its id, superclass, class loader (an id and its class; null for the boot\n" ..
         "loader), instance size and count, retained and native bytes of its instances (native as\n" ..
         "`histogram`'s), "..
         "declared instance fields (with the class that declares each) and static fields with\n" ..
         "their values (references as ids).",
  positional = { "dump", "name" },
  shape = "record",
  columns = { "name", "id", "super", "loader", "loader_class", "instance_size", "instance_count", "retained_bytes", "native_bytes", "fields", "statics" },
  run = function(dump, args)
    local cls = dump:class(args.name)
    if not cls then hk.usage_error("no class named " .. args.name .. " in this dump") end
    local rec = {
      name = cls.name, id = cls.id, super = cls.super and cls.super.name or hk.null,
      loader = cls.loader and cls.loader.id or hk.null, loader_class = cls.loader and cls.loader.label or hk.null,
      instance_size = cls.instance_size, instance_count = cls.instance_count,
      retained_bytes = 0, native_bytes = 0, fields = {}, statics = {},
    }
    class_retained[dump] = class_retained[dump] or dump:class_retained()
    rec.retained_bytes = class_retained[dump][cls.name] or 0
    class_native[dump] = class_native[dump] or dump:class_native()
    rec.native_bytes = class_native[dump][cls.name] or 0
    local c = cls
    while c do
      for _, f in ipairs(c:fields()) do rec.fields[#rec.fields + 1] = { name = f.name, type = f.type, class = c.name } end
      c = c.super
    end
    for _, s in ipairs(cls:statics()) do
      local v = s.value
      local row = { name = s.name, type = s.type, value = v == nil and hk.null or v }
      if type(v) == "userdata" then row.value, row.class = v.id, v.label end
      rec.statics[#rec.statics + 1] = row
    end
    return rec
  end,
}
