-- The leaks query: dump:leaks() (leak-analysis.lua) as LeakCanary-style text, or its structure
-- as JSON, with the gates leaks and library-leaks.

local function simple_name(name) return (name:gsub("^.*%.", "")) end

-- ---- text -----------------------------------------------------------------------------------

local function text_of(result)
  local out = {}
  local function w(...) for _, s in ipairs({ ... }) do out[#out + 1] = s end end
  if #result.leaks == 0 then return "no leaks: no leaking object is strongly reachable\n" end
  local napp, nlib = 0, 0
  for _, g in ipairs(result.leaks) do if g.kind == "application" then napp = napp + 1 else nlib = nlib + 1 end end
  w(string.format("%d application leak%s, %d library leak%s\n", napp, napp == 1 and "" or "s",
    nlib, nlib == 1 and "" or "s"))
  for _, g in ipairs(result.leaks) do
    w("\n", string.rep("=", 60), "\n")
    w(string.format("%s leak, %d trace%s, %d bytes retained\n", g.kind == "application" and "Application" or "Library",
      g.count, g.count == 1 and "" or "s", g.retained_bytes))
    w("Signature: ", g.signature, "\n")
    if g.kind == "library" then w("Pattern: ", g.pattern, "\n") end
    if g.description ~= hk.null and g.kind == "library" then w("Description: ", g.description, "\n") end
    for _, t in ipairs(g.traces) do
      w("\n┬───\n")
      w("│ GC Root: ", tostring(t.root.type), t.root.thread ~= hk.null and (" (thread " .. t.root.thread .. ")") or "", "\n")
      for i, s in ipairs(t.steps) do
        local last = i == #t.steps
        local head = last and "╰→ " or "├─ "
        local bar = last and "     " or "│    "
        local kind = s.kind == "class" and " class" or (s.kind == "instance" and " instance" or " array")
        w(head, s.class, kind, " ", s.object, "\n")
        w(bar, "Leaking: ", s.status == "LEAKING" and "YES" or s.status == "NOT_LEAKING" and "NO" or "UNKNOWN")
        if s.reasons[1] and s.status ~= "UNKNOWN" then w(" (", s.reasons[1], ")") end
        w("\n")
        for k = (s.status ~= "UNKNOWN" and 2 or 1), #s.reasons do w(bar, s.reasons[k], "\n") end
        if last then
          w(bar, "Retained ", tostring(t.retained_bytes), " bytes")
          if t.retained_for_ms ~= hk.null then w(", retained for ", tostring(t.retained_for_ms), " ms") end
          if t.key ~= hk.null then w(", key ", t.key) end
          w("\n")
        else
          local r = s.reference
          local owner = simple_name(s.class)
          local name = r.type == "array" and r.name or (r.type == "static" and ("static " .. owner .. "." .. r.name))
            or (r.type == "local" and (owner .. "." .. r.name)) or (owner .. "." .. r.name)
          w("│    ↓ ", name, "\n")
          if s.suspect then w("│      ", string.rep("~", utf8.len(name)), "\n") end
          if s.library_leak then w("│    (known library leak reference)\n") end
        end
      end
    end
  end
  return table.concat(out)
end

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
         "Services ActivityThread no longer holds, destroyed Windows and ViewRootImpls) that\n" ..
         "are strongly reachable; each path from a GC root with every object judged\n" ..
         "(LEAKING / NOT_LEAKING / UNKNOWN and why), the suspect references marked, known\n" ..
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
