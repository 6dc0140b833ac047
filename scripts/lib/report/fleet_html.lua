-- The fleet report: fleet-report's result as one self-contained HTML page in the triage
-- report's style (its stylesheet, tables and leak traces, from html.lua).  No script: the page
-- is tables.  Returns { write = function(result) -> text }.
local P = require("report.html").parts
local esc, size = P.esc, P.size

local M = {}

-- JSON's null (hk.null) as Lua's nil: the trace drawing reads absent values as nil.
local function denull(v)
  if v == hk.null then return nil end
  if type(v) ~= "table" then return v end
  local out = {}
  for k, x in pairs(v) do out[k] = denull(x) end
  return out
end

local BYTES = { retained_p50 = true, retained_p75 = true, retained_p95 = true, retained_max = true,
                previous_p75 = true, java_heap_p50 = true, bitmap_p50 = true, duplicate_waste_p50 = true,
                java_heap_bytes = true, bitmap_bytes = true, duplicate_waste_bytes = true,
                java_heap_p75 = true, java_heap_p95 = true }

local function cell(r, c)
  if BYTES[c] then return P.cell({ bytes = r[c] }, "bytes") end
  if c == "signature" then return '<a href="#sig-' .. esc(r[c]) .. '">' .. esc(r[c]:sub(1, 12)) .. "</a>" end
  return P.cell(r, c)
end

local function card(p, label, value)
  p[#p + 1] = '<div class="card"><div class="v">' .. value .. '</div><div class="l">' .. esc(label) .. "</div></div>"
end

function M.write(res)
  local p = { '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; style-src \'unsafe-inline\'">',
    "<title>Fleet triage</title><style>", hk.read_file(P.dir .. "report.css"), "</style></head><body>",
    "<header><h1>Fleet triage</h1>", '<p class="origin"><span><b>app</b> ',
    esc(res.app ~= hk.null and res.app or "(none)"), '</span> <span><b>grouped by</b> ', esc(table.concat(res.by, ", ")),
    "</span> <span><b>versions ordered by</b> ", esc(res.version_order), '</span></p><div class="cards">' }
  card(p, "dumps", P.num(res.dumps))
  card(p, "devices", P.num(res.devices))
  card(p, "versions", P.num(#res.versions))
  card(p, "regressions", P.num(#res.regressions))
  p[#p + 1] = '</div></header><nav><a href="#versions">versions</a> ' ..
              (res.routes ~= hk.null and '<a href="#routes">routes</a> ' or "") ..
              '<a href="#regressions">regressions</a> <a href="#groups">leaks</a> <a href="#leaks">traces</a></nav>'
  p[#p + 1] = '<section id="versions"><h2>Versions</h2>'
  p[#p + 1] = P.table_html({ "version", "version_code", "dumps", "devices", "java_heap_p50", "java_heap_bytes",
                             "bitmap_p50", "bitmap_bytes", "duplicate_waste_p50", "duplicate_waste_bytes" },
                           res.versions, cell)
  if res.routes ~= hk.null then
    p[#p + 1] = '</section><section id="routes"><h2>Routes (the screen at dump time)</h2>'
    local rcols = {}
    for _, b in ipairs(res.by) do if b ~= "signature" then rcols[#rcols + 1] = b end end
    for _, c in ipairs({ "dumps", "devices", "java_heap_p50", "java_heap_p75", "java_heap_p95",
                         "retained_p50", "retained_p75", "retained_p95" }) do rcols[#rcols + 1] = c end
    p[#p + 1] = P.table_html(rcols, res.routes, cell)
  end
  p[#p + 1] = '</section><section id="regressions"><h2>Regressions</h2>'
  p[#p + 1] = P.table_html({ "version", "previous", "change", "signature", "description", "dumps", "retained_p75",
                             "previous_p75", "factor" }, res.regressions, cell)
  p[#p + 1] = '</section><section id="groups"><h2>Leaks by ' .. esc(table.concat(res.by, ", ")) .. "</h2>"
  local cols = {}
  for _, b in ipairs(res.by) do if b ~= "signature" then cols[#cols + 1] = b end end
  for _, c in ipairs({ "signature", "kind", "description", "dumps", "of_dumps", "devices", "retained_p50",
                       "retained_p75", "retained_p95", "retained_max", "first_seen", "last_seen" }) do
    cols[#cols + 1] = c
  end
  p[#p + 1] = P.table_html(cols, res.groups, cell) .. "</section>"
  -- one example trace per signature, drawn as the triage report draws a leak
  local seen, leaks = {}, {}
  for _, g in ipairs(res.groups) do
    if not seen[g.signature] then
      seen[g.signature] = true
      leaks[#leaks + 1] = { signature = g.signature, kind = g.kind, description = g.description,
                            pattern = "an example trace, from dump " .. g.example_dump:sub(1, 12),
                            count = 1, retained_bytes = g.retained_max,
                            traces = g.example_trace ~= hk.null and { denull(g.example_trace) } or {} }
    end
  end
  local traces = P.leaks_html({ leaks = { leaks = leaks, note = hk.null } })
  -- anchors for the signature links
  for _, l in ipairs(leaks) do
    traces = traces:gsub('<p class="sig">signature ' .. esc(l.signature):gsub("%p", "%%%0"),
                         '<p class="sig" id="sig-' .. esc(l.signature) .. '">signature ' .. esc(l.signature), 1)
  end
  p[#p + 1] = traces
  p[#p + 1] = "</body></html>\n"
  return table.concat(p)
end

return M
