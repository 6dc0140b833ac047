-- The leaks query: dump:leaks() (lib/leaks/analysis.lua) as LeakCanary-style text, or its
-- structure as JSON, with the gates leaks and library-leaks.
local helpers = require "leaks.helpers"
local text = require "leaks.text"

hk.dump_method("leaks", require "leaks.analysis")

-- hk.leak_helpers: the helpers and the text functions in one table, for users' leak finders and
-- inspectors (docs/lua-api.md)
hk.leak_helpers = {}
for _, m in ipairs({ helpers, text }) do
  for k, v in pairs(m) do hk.leak_helpers[k] = v end
end

local function simple_name(name) return (name:gsub("^.*%.", "")) end

local function text_of(result) return text.leaks_text(result) end

-- CSV: one row per trace, its path as "Class.field > Class.field > ..." with suspects in ~...~
local CSV_COLUMNS = { "signature", "kind", "object", "class", "retained_bytes", "retained_for_ms", "key", "root", "path",
  "description" }
local function rows_of(result)
  local rows = {}
  for _, g in ipairs(result.leaks) do
    for _, t in ipairs(g.traces) do
      local parts = {}
      for _, s in ipairs(t.steps) do
        if s.reference ~= hk.null then
          local name = s.reference.type == "array" and s.reference.name or (simple_name(s.class) .. "." .. s.reference.name)
          parts[#parts + 1] = s.suspect and ("~" .. name .. "~") or name
        end
      end
      rows[#rows + 1] = {
        signature = g.signature, kind = g.kind, object = t.object, class = t.class, retained_bytes = t.retained_bytes,
        retained_for_ms = t.retained_for_ms, key = t.key, root = t.root.type, path = table.concat(parts, " > "),
        description = g.description,
      }
    end
  end
  return rows
end

-- traces of a kind; with min (a gate's BYTES), only those retaining at least min bytes
local function count_kind(result, kind, min)
  local n = 0
  for _, g in ipairs(result.leaks or {}) do
    if g.kind == kind then
      for _, t in ipairs(g.traces or {}) do
        if not min or (t.retained_bytes or 0) >= min then n = n + 1 end
      end
    end
  end
  return n
end

local function gate_bytes(param, name)
  if param == nil then return nil end
  local b = tonumber(param)
  if not b or b < 0 or b ~= math.floor(b) then
    hk.usage_error("--fail-on " .. name .. ":" .. tostring(param) .. ": BYTES must be a whole number")
  end
  return b
end

hk.query{
  name = "leaks",
  help = "Leak traces at LeakCanary's grade: objects that should be gone (LeakCanary-watched\n" ..
         "objects, destroyed Activities, Fragments without a manager or destroyed, detached Views of\n" ..
         "destroyed Activities, cleared ViewModels, destroyed Lifecycles, dismissed Dialogs,\n" ..
         "Services ActivityThread no longer holds, destroyed Windows and ViewRootImpls, quitting\n" ..
         "MessageQueues, Editors, ContextWrappers, ContextImpls and ApplicationPackageManagers of\n" ..
         "destroyed Activities, dead Mortar scopes, Toasts done showing) that are strongly\n" ..
         "reachable; each path from a GC root, in LeakCanary's root order, printed as LeakCanary\n" ..
         "prints it (every object judged LEAKING / NOT_LEAKING / UNKNOWN and why, what it retains,\n" ..
         "the suspect references underlined), every GC root that holds the leaking object, known\n" ..
         "platform leaks told apart as library leaks, and leaks grouped by signature.",
  shape = "record",
  gates = {
    leaks = {
      help = "an application leak exists (leaks:BYTES: one retaining at least BYTES)",
      check = function(result, param)
        local n = count_kind(result, "application", gate_bytes(param, "leaks"))
        return n > 0, string.format("%d application leak trace%s", n, n == 1 and "" or "s")
      end,
    },
    ["library-leaks"] = {
      help = "a library leak (a known platform or manufacturer leak) exists (library-leaks:BYTES as for leaks)",
      check = function(result, param)
        local n = count_kind(result, "library", gate_bytes(param, "library-leaks"))
        return n > 0, string.format("%d library leak trace%s", n, n == 1 and "" or "s")
      end,
    },
  },
  run = function(dump)
    local result = dump:leaks()
    setmetatable(result, hk.object_mt)
    return result, { text = text_of(result), csv_rows = rows_of(result), csv_columns = CSV_COLUMNS }
  end,
}
