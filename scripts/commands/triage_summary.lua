-- A few lines a person reads first, from a triage facts file (`hprofkit triage DUMP --json -o
-- FACTS.json`): the dump, each leak with its signature and path, the biggest retainers, the
-- bitmaps and what duplicates waste, duplicate strings, what grew since a --baseline, and which
-- gates tripped.  ./run.sh prints it for the bundled dump.
--   hprofkit run scripts/commands/triage_summary.lua FACTS.json [--top N]
if not arg.dump then hk.usage_error("usage: hprofkit run scripts/commands/triage_summary.lua FACTS.json [--top N]") end
local parsed, f = pcall(hk.json_decode, hk.read_file(arg.dump))
if not parsed or type(f) ~= "table" or not tostring(f.schema or ""):match("^hprofkit%-triage/") then
  hk.usage_error(arg.dump .. " is not a triage facts file (hprofkit triage DUMP --json -o FILE)")
end
local TOP = tonumber(arg.top or 5)

local human = require("units").bytes
local function present(v) return v ~= nil and v ~= hk.null end
local function short(class) return (class:gsub("^class ", ""):match("([^.]+)$")) end
local out = {}
local function say(fmt, ...) out[#out + 1] = string.format(fmt, ...) end

local function header()
  local o, t = f.origin, f.totals
  local where = present(o.process) and o.process or "an unnamed process"
  local sdk = present(o.sdk) and (", API " .. o.sdk) or ""
  say("%s%s: %d objects, %s on the Java heap, %s native", where, sdk, t.objects, human(t.shallow_bytes),
      human(t.native_bytes))
end

-- the path as `Class.field > Class[index] > ... > LeakingClass`
local function trace_line(tr)
  local parts = { "GC root " .. tostring(present(tr.root) and tr.root.type or "?") }
  for _, s in ipairs(tr.steps or {}) do
    local r, ref = s.reference, ""
    if present(r) then ref = r.type == "array" and ("[" .. tostring(r.name):gsub("[%[%]]", "") .. "]") or ("." .. r.name) end
    parts[#parts + 1] = short(s.class) .. ref .. (s.status == "LEAKING" and " (leaking)" or "")
  end
  return table.concat(parts, " > ")
end

local function leaks()
  local l = f.leaks.leaks or {}
  if #l == 0 then say("Leaks: none found") return end
  say("Leaks: %d (%s retained by application leaks)", #l, human(f.leaks.application_retained_bytes))
  for _, g in ipairs(l) do
    local tr = g.traces and g.traces[1]
    say("  %s leaked through %s, %d instance(s), retains %s", tr and tr.class or "?", g.description, g.count,
        human(g.retained_bytes))
    say("    signature %s", g.signature)
    if tr then say("    %s", trace_line(tr)) end
  end
end

-- the top retainers that no retainer shown before dominates
local function retainers()
  say("Biggest retainers (each apart from those above it):")
  local shown, n = {}, 0
  for _, t in ipairs(f.top or {}) do
    local inside = false
    for _, d in ipairs(present(t.dominators) and t.dominators or {}) do inside = inside or shown[d.id] end
    shown[t.id] = true
    if not inside and n < TOP then
      n = n + 1
      local native = (t.retained_native_bytes or 0) > 0 and (" + " .. human(t.retained_native_bytes) .. " native") or ""
      say("  %10s%s  %s %s", human(t.retained_bytes), native, t.class, t.id)
    end
  end
end

local function bitmaps()
  local b = f.bitmaps
  say("Bitmaps: %d (%d with pixels), %s; %d duplicate group(s) waste %s", b.count, b.with_pixels or 0,
      human(b.bytes), b.duplicate_groups or 0, human(b.wasted_bytes))
  for _, g in ipairs(present(b.groups) and b.groups or {}) do
    say("  %d x %dx%d with the same pixels: %s", g.count, g.width, g.height, table.concat(g.ids, ", "))
  end
  local s = f.duplicate_strings
  if present(s.groups) and #s.groups > 0 then
    local ex = {}
    for i = 1, math.min(3, #s.groups) do ex[i] = string.format("%q x %d", s.groups[i].value, s.groups[i].count) end
    say("Duplicate strings waste %s: %s", human(s.wasted_bytes), table.concat(ex, ", "))
  end
end

local function grew()
  if not present(f.diff) then return end
  local g = f.diff.growers or {}
  if #g == 0 then say("Since the baseline: no collection grew") return end
  say("Grew since the baseline:")
  for i = 1, math.min(3, #g) do
    say("  %s: %d -> %d elements (+%s retained)", g[i].path, g[i].count_base, g[i].count_dump,
        human(g[i].retained_delta))
  end
end

header()
leaks()
retainers()
bitmaps()
grew()
local tripped = present(f.gates_tripped) and f.gates_tripped or {}
say("CI gates tripped: %s", #tripped > 0 and (table.concat(tripped, ", ") .. " (triage --fail-on exits 3)") or "none")
print(table.concat(out, "\n"))
