-- A leak trace as LeakCanary prints it (Shark's LeakTrace.toString): the GC root as LeakCanary
-- names it, one object a line with its status, what it retains and its labels, the reference
-- to the next object underlined (under its name) when it is a suspect.  Beside LeakCanary's
-- text each object's line ends with its id, and the roots that also hold the leaking object
-- follow the trace.  require("leaks.text").trace_text(trace) and .leaks_text(result) are what
-- the leaks query and triage print (users' scripts: hk.leak_helpers, commands/leaks.lua).

local leaks = {}

-- LeakCanary's names of the root types (LeakTrace.GcRootType)
local ROOT_NAMES = {
  JNI_GLOBAL = "Global variable in native code", JNI_LOCAL = "Local variable in native code",
  JAVA_FRAME = "Java local variable", NATIVE_STACK = "Input or output parameters in native code",
  STICKY_CLASS = "System class", THREAD_BLOCK = "Thread block",
  MONITOR_USED = "Monitor (anything that called the wait() or notify() methods, or that is synchronized.)",
  THREAD_OBJECT = "Thread object", JNI_MONITOR = "Root JNI monitor",
}
local ZWSP = "\u{200B}"

function leaks.root_name(t)
  if t == nil or t == hk.null then return "unknown" end
  return ROOT_NAMES[t] or t
end

-- Bytes as LeakCanary writes them (SI units, one decimal): 402 B, 1.2 kB, 3.4 MB.
function leaks.si_bytes(n)
  if n < 1000 then return string.format("%d B", n) end
  local exp = math.floor(math.log(n) / math.log(1000))
  return string.format("%.1f %sB", n / 1000 ^ exp, ("kMGTPE"):sub(exp, exp))
end

local function simple_name(name) return (name:gsub("^.*%.", "")) end

local function type_name(step, first_local)
  if first_local then return "thread" end
  if step.kind == "class" then return "class" end
  if step.kind == "instance" then return "instance" end
  return "array"
end

local function object_lines(w, step, head, bar, first_local)
  w(head, step.class, " ", type_name(step, first_local), " ", step.object, "\n")
  local why = step.reasons[1]
  if step.status == "UNKNOWN" then w(bar, "Leaking: UNKNOWN\n")
  else w(bar, "Leaking: ", step.status == "LEAKING" and "YES (" or "NO (", tostring(why), ")\n") end
  if step.retained_bytes ~= nil and step.retained_bytes ~= hk.null then
    w(bar, "Retaining ", leaks.si_bytes(step.retained_bytes), " in ", tostring(step.retained_objects), " objects\n")
  end
  for k = (step.status ~= "UNKNOWN" and 2 or 1), #step.reasons do w(bar, step.reasons[k], "\n") end
end

local function reference_lines(w, step)
  local r = step.reference
  local name = r.type == "array" and r.name or (r.type == "local" and "<Java Local>" or r.name)
  local prefix = "    ↓" .. (r.type == "static" and " static" or "") .. " " .. simple_name(step.class) .. "."
  w("│", prefix, name, "\n")
  if step.suspect then w("│", string.rep(" ", utf8.len(prefix)), string.rep("~", utf8.len(name)), "\n") end
end

function leaks.trace_text(t)
  local out = {}
  local function w(...) for _, s in ipairs({ ... }) do out[#out + 1] = s end end
  w("┬───\n│ GC Root: ", leaks.root_name(t.root.type), "\n│\n")
  for i, s in ipairs(t.steps) do
    local first_local = i == 1 and s.reference ~= hk.null and s.reference.type == "local"
    if i == #t.steps then
      object_lines(w, s, "╰→ ", ZWSP .. "     ", first_local)
    else
      object_lines(w, s, "├─ ", "│    ", first_local)
      reference_lines(w, s)
    end
  end
  -- the roots besides the one the trace starts from (a Java local's is on the object after
  -- its thread)
  local first = t.steps[1]
  if first and first.reference ~= hk.null and first.reference.type == "local" then first = t.steps[2] end
  local others = {}
  for _, r in ipairs(t.roots or {}) do
    if not (r.type == t.root.type and r.object == (first and first.object)) then others[#others + 1] = r end
  end
  if #others > 0 then
    w("Also held by ", #others == 1 and "another GC root" or (#others .. " other GC roots"), ":\n")
    for _, r in ipairs(others) do
      w("  GC Root: ", leaks.root_name(r.type), ": ", tostring(r.class), " ", tostring(r.object),
        r.thread ~= hk.null and r.thread ~= nil and (" (thread " .. r.thread .. ")") or "", "\n")
    end
  end
  return table.concat(out)
end

-- The whole result of dump:leaks(): a count line, then each group (signature, its traces).
function leaks.leaks_text(result)
  if #result.leaks == 0 then return "no leaks: no leaking object is strongly reachable\n" end
  local out = {}
  local function w(...) for _, s in ipairs({ ... }) do out[#out + 1] = s end end
  local napp, nlib = 0, 0
  for _, g in ipairs(result.leaks) do if g.kind == "application" then napp = napp + 1 else nlib = nlib + 1 end end
  w(string.format("%d application leak%s, %d library leak%s\n", napp, napp == 1 and "" or "s",
    nlib, nlib == 1 and "" or "s"))
  for _, g in ipairs(result.leaks) do
    w("\n", string.rep("=", 60), "\n")
    w(string.format("%s leak, %d trace%s, %s retained by leaking objects\n",
      g.kind == "application" and "Application" or "Library", g.count, g.count == 1 and "" or "s",
      leaks.si_bytes(g.retained_bytes)))
    w("Signature: ", g.signature, "\n")
    if g.kind == "library" then w("Pattern: ", g.pattern, "\n") end
    if g.description ~= hk.null and g.kind == "library" then w("Description: ", g.description, "\n") end
    for _, t in ipairs(g.traces) do w("\n", leaks.trace_text(t)) end
  end
  return table.concat(out)
end

return leaks
