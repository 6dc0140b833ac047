-- The app's version as the dump holds it, for the triage facts (`app`): a function
-- (dump, origin) -> { package, version_name, version_code, source } with hk.null for what the
-- dump does not hold.  Where it looks, first found wins per value:
--   1. BuildConfig statics (VERSION_NAME, VERSION_CODE) of the class whose APPLICATION_ID is the
--      process's package, else of the only BuildConfig with a VERSION_NAME;
--   2. a PackageInfo of that package (versionName; longVersionCode, versionCode or
--      mVersionCodeMajor << 32 | versionCode);
--   3. an ApplicationInfo of that package (longVersionCode, versionCode).
local function text(v)
  if type(v) == "userdata" then v = v.value end
  if type(v) == "string" then return v end
end

local function int(v) if math.type(v) == "integer" then return v end end

local function package_of(origin)
  local p = origin and origin.process
  if type(p) ~= "string" then return nil end
  return p:match("^([^:]+)")   -- "com.example:remote" runs in com.example
end

local function from_buildconfig(dump, pkg)
  local best, candidates = nil, 0
  for _, cls in ipairs(dump:classes()) do
    if cls.name:match("%.BuildConfig$") then
      local name = text(cls:static("VERSION_NAME"))
      if name then
        candidates = candidates + 1
        local found = { name = name, code = int(cls:static("VERSION_CODE")),
                        package = text(cls:static("APPLICATION_ID")) }
        if pkg and found.package == pkg then return found end
        best = best or found
      end
    end
  end
  if candidates == 1 then return best end
end

local function from_instances(dump, class, pkg)
  local cls = dump:class(class)
  if not cls then return nil end
  for obj in cls:instances() do
    if not pkg or text(obj:field("packageName")) == pkg then
      local code = int(obj:field("longVersionCode"))
      local major, minor = int(obj:field("mVersionCodeMajor")), int(obj:field("versionCode"))
      if not code and minor then code = ((major or 0) << 32) | (minor & 0xffffffff) end
      return { name = text(obj:field("versionName")), code = code,
               package = text(obj:field("packageName")) }
    end
  end
end

return function(dump, origin)
  local pkg = package_of(origin)
  local out = { package = pkg, version_name = nil, version_code = nil, source = nil }
  for _, try in ipairs({
    { "BuildConfig", function() return from_buildconfig(dump, pkg) end },
    { "PackageInfo", function() return from_instances(dump, "android.content.pm.PackageInfo", pkg) end },
    { "ApplicationInfo", function() return from_instances(dump, "android.content.pm.ApplicationInfo", pkg) end },
  }) do
    local got = try[2]()
    if got then
      if not out.version_name and got.name then out.version_name = got.name; out.source = out.source or try[1] end
      if not out.version_code and got.code then out.version_code = got.code; out.source = out.source or try[1] end
      out.package = out.package or got.package
    end
    if out.version_name and out.version_code then break end
  end
  for _, k in ipairs({ "package", "version_name", "version_code", "source" }) do
    if out[k] == nil then out[k] = hk.null end
  end
  return setmetatable(out, hk.object_mt)
end
