-- The triage report: one self-contained HTML file written from the triage facts (the numbers
-- the page shows are the facts'), plus what only a page needs: the dominator tree for the
-- treemap, the details of every object the page names, the whole class histogram, bitmap
-- thumbnails and the samples chart.  No network: the script, the style and the images are
-- inline.  Loaded by commands/triage.lua (require "report.html"); returns { write = function(dump, facts, opts) }
-- with opts.histogram (the histogram query's rows, every class), opts.samples (a `watch`
-- samples file, or nil), opts.gate_help (gate name -> what it checks, for the banner of
-- facts.gates_tripped) and opts.progress (a function(phase) for stderr).
local M = {}

-- the page's style and script: scripts/report/ (shared with serve's explorer), beside lib/
-- (require hands a module its file's path as its second argument)
local HERE = (select(2, ...) or ""):gsub("lib/report/html%.lua$", "report/")
local TREE_NODES = 4000            -- treemap nodes embedded
local TREE_KIDS = 60               -- children kept per node (the rest: one "smaller" node)
local ROOT_KIDS = 300              -- ... and under the root, where the heap's roots are
local PANEL_OBJECTS = 600          -- objects with a details panel, from the page's own lists
local PANEL_NEIGHBOURS = 3000      -- and what those panels link to (fields, referrers, path), one hop
local THUMB_SIDE = 160
local THUMB_BUDGET = 8 * 1024 * 1024   -- bytes of data: URIs, so the page stays under ~10 MB
local THUMB_MAX = 400

local function esc(s)
  return (tostring(s):gsub("[&<>\"']", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;",
                                         ['"'] = "&quot;", ["'"] = "&#39;" }))
end

local function present(v) return v ~= nil and v ~= hk.null end

local size = require("units").bytes
local json = require "text.json"
local iso8601 = require("text.time").iso8601
local leak_text = require "leaks.text"

local function num(n) return present(n) and tostring(n) or "–" end

local function oid(id)
  if not present(id) then return "–" end
  return string.format('<a class="oid" href="#" data-id="%s">%s</a>', esc(id), esc(id))
end

-- ---- data the page needs beyond the facts ----

-- The dominator tree, largest first, breadth first until the node budget is spent: each node
-- {id, c = class, r = retained, k = children}; a node's children past TREE_KIDS (or past the
-- budget) become one node for the rest.
local function dominator_tree(dump)
  local total = dump:graph_totals().bytes
  local root = { id = hk.null, c = "all objects", r = total, k = {} }
  -- the root's children past ROOT_KIDS + 1 are only summed: the virtual root retains exactly
  -- its children's bytes, so what they hold is the total less the children shown (asking for
  -- all of them made an object for each of hundreds of thousands)
  local queue, n = { { node = root, kids = dump:dominated_by_root(ROOT_KIDS + 2) } }, 1
  local head = 1
  while head <= #queue do
    local q = queue[head]
    head = head + 1
    local rest, rest_n = 0, 0
    for i, o in ipairs(q.kids) do
      local r = o:retained_size()
      if i <= (q.obj and TREE_KIDS or ROOT_KIDS) and n < TREE_NODES and r > 0 then
        local node = { id = o.id, c = o.label, r = r, k = {} }
        q.node.k[#q.node.k + 1] = node
        n = n + 1
        if r * 2000 >= total then   -- descend into nodes of 0.05 % of the heap or more
          local kids = o:dominated(TREE_KIDS + 1)
          if #kids > 0 then queue[#queue + 1] = { node = node, kids = kids, obj = o } end
        end
      else
        rest, rest_n = rest + r, rest_n + 1
      end
    end
    if not q.obj and #q.kids > ROOT_KIDS + 1 then   -- cut: at least two children are not shown
      rest = total
      for _, k in ipairs(q.node.k) do rest = rest - k.r end
    end
    if q.obj and #q.kids > TREE_KIDS then
      -- dominated(n) was cut: what it left out is the node's retained minus its own and kids'
      local sum = q.obj.shallow_size
      for _, k in ipairs(q.node.k) do sum = sum + k.r end
      rest, rest_n = math.max(0, q.node.r - sum), rest_n + 1
    end
    if rest > 0 then
      q.node.k[#q.node.k + 1] = { id = hk.null, c = string.format("(%s smaller)", rest_n > 1 and "more" or "1"),
                                  r = rest, k = {} }
    end
  end
  return root
end

-- The tree as JSON text into the list out, by hand: hk.json_encode refuses tables nested more
-- than 200 deep, and a dominator chain (a linked list) puts thousands of levels in the tree.
local function tree_json(node, out)
  out[#out + 1] = '{"c":' .. json.encode(node.c, nil, true) .. ',"id":' .. json.encode(node.id, nil, true) .. ',"k":['
  for i, kid in ipairs(node.k) do
    if i > 1 then out[#out + 1] = "," end
    tree_json(kid, out)
  end
  out[#out + 1] = '],"r":' .. json.encode(node.r, nil, true) .. "}"
end

-- s cut to at most n bytes and marked: the cut backs off to a character's first byte, since
-- half a UTF-8 sequence would make the page's text invalid.
local function clip(s, n)
  if #s <= n then return s end
  local i = n
  while i > 0 and (s:byte(i + 1) & 0xC0) == 0x80 do i = i - 1 end
  return s:sub(1, i) .. "…"
end

-- What the panel shows of one object: sizes, fields, referrers, the path from a root.
local function details(dump, obj)
  local d = { id = obj.id, class = obj.label, kind = obj.kind, shallow_bytes = obj.shallow_size,
              retained_bytes = obj:retained_size(), reachability = obj.reachability,
              native_bytes = obj.native_size, fields = {}, referrers = {}, path = {} }
  if obj.kind == "instance" then
    for i, f in ipairs(obj:fields()) do
      if i > 60 then break end
      -- f.ref is the referenced object's id ("0x0" for null); a String's text comes as its value
      local v, ref = f.value, f.type == "object" and f.ref ~= "0x0" and f.ref or nil
      local shown
      if ref then shown = type(v) == "string" and ref .. " " .. clip(string.format("%q", v), 120) or ref
      elseif type(v) == "string" then shown = clip(v, 120)
      elseif v == nil then shown = "null"
      else shown = tostring(v) end
      d.fields[#d.fields + 1] = { f.name, f.type, shown, ref or hk.null }
    end
  elseif obj.kind == "object_array" or obj.kind == "primitive_array" then
    d.length = obj.length
    for i = 0, math.min(obj.length, 20) - 1 do
      local v = obj:at(i)
      local isobj = type(v) == "userdata"
      d.fields[#d.fields + 1] = { "[" .. i .. "]", obj.elem_type or "", isobj and v.id or tostring(v),
                                  isobj and v.id or hk.null }
    end
  end
  if obj.value then d.value = clip(obj.value, 200) end
  for i, r in ipairs(obj:referrers()) do
    if i > 20 then break end
    d.referrers[#d.referrers + 1] = { r.id, r.label }
  end
  local steps = dump:path_to_root(obj)
  for _, s in ipairs(steps or {}) do
    d.path[#d.path + 1] = { s.object.id, s.object.label, s.via or "", s.root or hk.null }
  end
  return d
end

local function collect_ids(facts, tree)
  local ids, order = {}, {}
  local function add(id) if present(id) and not ids[id] then ids[id] = true; order[#order + 1] = id end end
  for _, t in ipairs(facts.top) do
    add(t.id)
    for _, c in ipairs(t.dominators) do add(c.id) end
  end
  for _, l in ipairs(facts.leaks.leaks) do
    for _, tr in ipairs(l.traces or {}) do
      add(tr.object)
      for _, s in ipairs(tr.steps or {}) do add(s.object) end
    end
  end
  for _, b in ipairs(facts.bitmaps.bitmaps) do add(b.id) end
  for _, sec in ipairs({ facts.duplicate_strings, facts.duplicate_arrays }) do
    for _, g in ipairs(sec.groups) do add(g.id); add(g.holder) end
  end
  -- then the treemap's nodes, breadth first
  local queue, head = { tree }, 1
  while head <= #queue and #order < PANEL_OBJECTS do
    local n = queue[head]; head = head + 1
    add(n.id)
    for _, k in ipairs(n.k) do queue[#queue + 1] = k end
  end
  return order
end

local function thumbnails(dump, facts)
  local out, used, shown, left, note = {}, 0, 0, 0, hk.null
  for _, b in ipairs(facts.bitmaps.bitmaps) do
    if present(b.source) then
      local png = dump:bitmap_image(b.id)
      local thumb = png and hk.png_thumbnail(png, THUMB_SIDE)
      local uri = thumb and ("data:image/png;base64," .. hk.base64(thumb))
      if uri and used + #uri <= THUMB_BUDGET and shown < THUMB_MAX then
        out[b.id] = uri
        used, shown = used + #uri, shown + 1
      elseif uri then
        left = left + 1
      end
    end
  end
  if left > 0 then
    note = string.format("%d thumbnails left out to keep the report small (%d shown, %s)", left, shown, size(used))
  end
  return out, note
end

-- A watch samples file: .jsonl (one object a line) or .csv (a header line, then values).
local function read_samples(path)
  local ok, text = pcall(hk.read_file, path)
  if not ok then error("--samples: " .. tostring(text), 0) end
  local rows = {}
  if path:match("%.jsonl$") then
    for line in text:gmatch("[^\n]+") do
      local okj, r = pcall(hk.json_decode, line)
      if okj and type(r) == "table" then rows[#rows + 1] = r end
    end
  elseif path:match("%.csv$") then
    local header
    for line in text:gmatch("[^\n]+") do
      local cells = {}
      for c in (line .. ","):gmatch('([^,]*),') do cells[#cells + 1] = c:gsub('^"(.*)"$', "%1") end
      if not header then header = cells
      else
        local r = {}
        for i, k in ipairs(header) do
          local v = cells[i]
          r[k] = tonumber(v) or (v ~= "" and v or nil)
        end
        rows[#rows + 1] = r
      end
    end
  else
    error("--samples '" .. path .. "': the name must end in .csv or .jsonl", 0)
  end
  return rows
end

-- The chart of the samples, as `watch` draws it (lib/watch/chart.lua).
local function samples_chart(rows)
  return require("watch.chart").chart(rows, { title = "watch samples" })
end

-- ---- the page ----

local function table_html(cols, rows, cell)
  if #rows == 0 then return "<p>None.</p>" end
  local p = { "<table><thead><tr>" }
  for _, c in ipairs(cols) do p[#p + 1] = "<th>" .. esc(c) .. "</th>" end
  p[#p + 1] = "</tr></thead><tbody>"
  for _, r in ipairs(rows) do
    p[#p + 1] = "<tr>"
    for _, c in ipairs(cols) do p[#p + 1] = "<td>" .. cell(r, c) .. "</td>" end
    p[#p + 1] = "</tr>"
  end
  p[#p + 1] = "</tbody></table>"
  return table.concat(p)
end

local BYTES = { shallow_bytes = true, retained_bytes = true, native_bytes = true, bytes = true,
                wasted_bytes = true, retained_native_bytes = true }

local function cell(r, c)
  local v = r[c]
  if c == "id" or c == "holder" or c == "object" then return oid(v) end
  if BYTES[c] then return '<span title="' .. num(v) .. ' bytes">' .. size(v) .. "</span>" end
  if not present(v) then return "–" end
  return esc(v)
end

local function header(facts)
  local o, t = facts.origin, facts.totals
  local p = { '<header><h1>Heap triage: ', esc(present(o.process) and o.process or "heap dump"), "</h1>",
              '<p class="origin">' }
  for _, k in ipairs({ "format", "sdk", "manufacturer", "model", "fingerprint", "timestamp" }) do
    local v = o[k]
    -- the dump's time as a person reads it (ISO 8601, UTC)
    if k == "timestamp" and math.type(v) == "integer" and v >= 0 then
      v = iso8601(v)
    end
    if present(v) then p[#p + 1] = "<span><b>" .. k .. "</b> " .. esc(v) .. "</span> " end
  end
  p[#p + 1] = '</p><p class="origin"><span><b>sha256</b> ' .. esc(facts.dump_sha256) .. "</span>"
  local keys = {}
  for k in pairs(facts.labels) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do p[#p + 1] = " <span><b>" .. esc(k) .. "</b> " .. esc(facts.labels[k]) .. "</span>" end
  p[#p + 1] = '</p><div class="cards">'
  local function card(label, value, title)
    p[#p + 1] = '<div class="card"><div class="v" title="' .. esc(title or "") .. '">' .. value ..
                '</div><div class="l">' .. esc(label) .. "</div></div>"
  end
  card("objects", num(t.objects))
  card("shallow bytes", size(t.shallow_bytes), t.shallow_bytes .. " bytes")
  card("native bytes", size(t.native_bytes), t.native_bytes .. " bytes")
  for _, h in ipairs(t.heaps) do card("heap " .. h.heap, size(h.shallow_bytes), h.count .. " objects") end
  for _, r in ipairs(t.reachability) do
    if r.count > 0 then card(r.reachability, size(r.shallow_bytes), r.count .. " objects") end
  end
  card("app leaks", num(facts.leaks.application))
  card("bitmaps", num(facts.bitmaps.count), size(facts.bitmaps.bytes))
  p[#p + 1] = "</div>"
  p[#p + 1] = "</header>"
  return table.concat(p)
end

-- The --fail-on gates that tripped (facts.gates_tripped, set by the CLI before the page is
-- written), first on the page: CI failed because of them.  gate_help: name -> what it checks.
local function gates_html(facts, gate_help)
  local tripped = facts.gates_tripped
  if not present(tripped) or #tripped == 0 then return "" end
  local p = { '<div id="gates" class="gates" role="alert"><b>',
              #tripped == 1 and "A --fail-on gate tripped" or #tripped .. " --fail-on gates tripped",
              "</b> (the command exited 3):<ul>" }
  for _, name in ipairs(tripped) do
    local help = gate_help and gate_help[name]
    p[#p + 1] = '<li data-gate="' .. esc(name) .. '"><b>' .. esc(name) .. "</b>" .. (help and ": " .. esc(help) or "") .. "</li>"
  end
  p[#p + 1] = "</ul></div>"
  return table.concat(p)
end

local function leaks_html(facts)
  local L = facts.leaks
  local p = { '<section id="leaks"><h2>Leaks</h2>' }
  if present(L.note) then p[#p + 1] = '<p class="note">' .. esc(L.note) .. "</p>" end
  if #L.leaks == 0 then p[#p + 1] = "<p>No leaks found.</p>" end
  for _, l in ipairs(L.leaks) do
    -- a leak with no known pattern has pattern = hk.null (JSON null), which is not text
    local pattern = present(l.pattern) and " · " .. esc(l.pattern) or ""
    p[#p + 1] = string.format('<div class="leak %s"><h3>%s <small>%s%s · %s instance(s) · retains %s</small></h3><p class="sig">signature %s</p>',
      esc(l.kind or ""), esc(present(l.description) and l.description or present(l.pattern) and l.pattern or "leak"),
      esc(l.kind or ""), pattern,
      num(l.count), size(l.retained_bytes), esc(l.signature or ""))
    for ti, tr in ipairs(l.traces or {}) do
      if ti > 3 then p[#p + 1] = "<p class=\"note\">" .. (#l.traces - 3) .. " more traces in the facts</p>"; break end
      p[#p + 1] = '<ol class="trace">'
      if tr.root then
        local root = leak_text.root_name(tr.root.type)
        p[#p + 1] = "<li class=\"root\">GC Root: " .. esc(root or "") .. "</li>"
      end
      -- each object once: the last step is the leaking object, with what it retains
      local steps = tr.steps or {}
      for si, s in ipairs(steps) do
        local ref = type(s.reference) == "table" and s.reference or {}   -- leaks gives null on the last step
        local reasons = type(s.reasons) == "table" and table.concat(s.reasons, "; ") or (s.reasons or "")
        local last = si == #steps
        local retains = present(s.retained_bytes) and (" <small>retains " .. size(s.retained_bytes) ..
          (present(s.retained_objects) and (" in " .. s.retained_objects .. " objects") or "") .. "</small>") or ""
        p[#p + 1] = string.format('<li class="%s%s%s">%s %s%s <span class="status">%s</span>%s <span class="why">%s</span></li>',
          esc(s.status or ""), s.suspect and " suspect" or "", last and " leaking" or "", oid(s.object), esc(s.class or ""),
          present(ref.name) and (" ." .. esc(ref.name) .. " <small>(" .. esc(ref.type or "") .. ")</small>") or "",
          esc(s.status or ""), retains, esc(reasons))
      end
      if #steps == 0 then
        p[#p + 1] = string.format('<li class="leaking">%s %s <span class="status">LEAKING</span> retains %s</li>',
          oid(tr.object), esc(tr.class or ""), size(tr.retained_bytes))
      end
      p[#p + 1] = "</ol>"
      local others = {}
      for _, r in ipairs(tr.roots or {}) do
        if not (tr.root and r.type == tr.root.type and steps[1] and r.object == steps[1].object) then
          others[#others + 1] = esc(leak_text.root_name(r.type)) .. " " ..
            oid(r.object) .. " " .. esc(present(r.class) and r.class or "")
        end
      end
      if #others > 0 then p[#p + 1] = '<p class="note">Also held by: ' .. table.concat(others, "; ") .. "</p>" end
    end
    p[#p + 1] = "</div>"
  end
  p[#p + 1] = "</section>"
  return table.concat(p)
end

local function top_html(facts)
  local rows = {}
  for i, t in ipairs(facts.top) do
    local chain = {}
    for _, c in ipairs(t.dominators) do chain[#chain + 1] = oid(c.id) .. " " .. esc(c.class) end
    rows[i] = { id = t.id, class = t.class, shallow_bytes = t.shallow_bytes, retained_bytes = t.retained_bytes,
                native_bytes = t.native_bytes, dominators = table.concat(chain, " ← ") }
  end
  local cols = { "id", "class", "shallow_bytes", "retained_bytes", "native_bytes", "dominators" }
  return '<section id="top"><h2>Top retainers</h2>' ..
         table_html(cols, rows, function(r, c) if c == "dominators" then return r[c] ~= "" and r[c] or "(a root)" end return cell(r, c) end) ..
         "</section>"
end

local function gallery_html(facts, thumbs, note)
  local B = facts.bitmaps
  local p = { '<section id="bitmaps"><h2>Bitmaps</h2>',
    string.format("<p>%d bitmaps, %s; %d with pixels; %d duplicate groups (%d bitmaps) waste %s.</p>",
      B.count, size(B.bytes), B.with_pixels, B.duplicate_groups, B.duplicates, size(B.wasted_bytes)) }
  if present(note) then p[#p + 1] = '<p class="note">' .. esc(note) .. "</p>" end
  local group_of = {}
  for gi, g in ipairs(B.groups) do for _, id in ipairs(g.ids) do group_of[id] = gi end end
  p[#p + 1] = '<div class="gallery">'
  for _, b in ipairs(B.bitmaps) do
    local img = thumbs[b.id] and ('<img alt="bitmap ' .. esc(b.id) .. '" src="' .. thumbs[b.id] .. '">')
                or '<div class="noimg">no pixels</div>'
    p[#p + 1] = string.format('<figure class="bitmap" data-id="%s"%s>%s<figcaption>%s<br>%d×%d · %s<br>%s%s</figcaption></figure>',
      esc(b.id), group_of[b.id] and (' data-group="' .. group_of[b.id] .. '"') or "", img, oid(b.id), b.width, b.height,
      size(b.bytes), esc(present(b.source) and b.source or "no source"),
      group_of[b.id] and (' · <span class="dup">duplicate group ' .. group_of[b.id] .. "</span>") or "")
  end
  p[#p + 1] = "</div></section>"
  return table.concat(p)
end

local function dups_html(facts)
  local s, a = facts.duplicate_strings, facts.duplicate_arrays
  return '<section id="duplicates"><h2>Duplicate strings and arrays</h2>' ..
    string.format("<h3>Strings: the top groups waste %s</h3>", size(s.wasted_bytes)) ..
    table_html({ "count", "bytes", "wasted_bytes", "length", "value", "id", "holder", "holder_class" }, s.groups, cell) ..
    string.format("<h3>Primitive arrays: the top groups waste %s</h3>", size(a.wasted_bytes)) ..
    table_html({ "class", "length", "count", "bytes", "wasted_bytes", "value", "id", "holder", "holder_class" }, a.groups, cell) ..
    "</section>"
end

local function meminfo_html(facts)
  if not present(facts.meminfo) then return "" end
  local m = facts.meminfo
  local keys = {}
  for k in pairs(m.summary) do keys[#keys + 1] = k end
  table.sort(keys)
  local rows = {}
  for _, k in ipairs(keys) do rows[#rows + 1] = { row = k, kb = m.summary[k] } end
  local joins = {}
  for _, j in ipairs(m.joins) do
    joins[#joins + 1] = { name = j.name, meminfo = present(j.meminfo_kb) and size(j.meminfo_kb * 1024) or "–",
                          dump = size(j.dump_bytes), gap = present(j.gap_bytes) and size(j.gap_bytes) or "–", sentence = j.sentence }
  end
  return '<section id="meminfo"><h2>meminfo beside the dump</h2><div class="cols"><div><h3>App Summary (KB)</h3>' ..
    table_html({ "row", "kb" }, rows, function(r, c) return present(r[c]) and esc(r[c]) or "–" end) ..
    "</div><div><h3>The dump's numbers against it</h3>" ..
    table_html({ "name", "meminfo", "dump", "gap", "sentence" }, joins, function(r, c) return esc(r[c]) end) ..
    "</div></div></section>"
end

-- The native heap profile (triage --native): hotspots, and a flame graph of unreleased bytes
-- drawn here as SVG (outermost caller on top, width by bytes; the title of each box says all).
local function flame_svg(tree)
  local W, H, rows = 1000, 17, {}
  local function walk(n, x, depth, scale)
    if depth > 0 then
      local w = n.total_bytes * scale
      if w >= 1 then
        local h = 0
        for c in n.name:gmatch(".") do h = (h * 31 + c:byte()) % 360 end
        rows[#rows + 1] = string.format('<g><title>%s: %s (%s in itself)</title><rect x="%.1f" y="%d" width="%.1f" ' ..
          'height="%d" fill="hsl(%d,70%%,60%%)" stroke="#fff"/>%s</g>', esc(n.name), size(n.total_bytes),
          size(n.self_bytes), x, (depth - 1) * H, w, H - 1, 20 + h % 40,
          w > 40 and string.format('<text x="%.1f" y="%d" font-size="11">%s</text>', x + 3, depth * H - 5,
            esc(clip(n.name, math.floor(w / 6.5)))) or "")
      end
    end
    for _, c in ipairs(n.children) do
      walk(c, x, depth + 1, scale)
      x = x + c.total_bytes * scale
    end
  end
  local function depth_of(n) local d = 0 for _, c in ipairs(n.children) do d = math.max(d, depth_of(c)) end return d + 1 end
  walk(tree, 0, 0, tree.total_bytes > 0 and W / tree.total_bytes or 0)
  return string.format('<svg id="flame" viewBox="0 0 %d %d" width="100%%" role="img" aria-label="flame graph">%s</svg>', W,
    math.max(1, depth_of(tree) - 1) * H, table.concat(rows))
end

local function native_html(facts)
  local n = facts.native
  if not present(n) then return "" end
  local hot = {}
  for i, r in ipairs(n.hotspots) do
    hot[i] = { unreleased = size(r.unreleased_bytes), allocated = size(r.allocated_bytes),
               allocations = present(r.alloc_count) and num(r.alloc_count) or "–", stack = table.concat(r.frames, " < ") }
  end
  return '<section id="native"><h2>Native heap (heapprofd)</h2>' ..
    string.format("<p>%s of pid %d, heap %s, dump %d of %d: %s unreleased (%s allocated, %s freed).</p>",
      esc(present(n.process) and n.process or "a process"), n.pid, esc(n.heap), n.dump, n.dumps, size(n.unreleased_bytes),
      size(n.allocated_bytes), size(n.freed_bytes)) ..
    (present(n.process_mismatch) and ('<p class="warn">Warning: ' .. esc(n.process_mismatch) .. ".</p>") or "") ..
    (present(n.meminfo_sentence) and ("<p>" .. esc(n.meminfo_sentence) .. "</p>") or "") ..
    '<h3>Unreleased bytes by call stack</h3><p class="hint">Each box a function, its width the bytes not freed ' ..
    'that were allocated under it; hover for the figures.</p>' .. flame_svg(n.flame) ..
    "<h3>Hotspots (the top 8 frames of each stack)</h3>" ..
    table_html({ "unreleased", "allocated", "allocations", "stack" }, hot, function(r, c) return esc(r[c]) end) ..
    "</section>"
end

-- The treemap's tree, for a caller that makes it while the dominator tree's child lists are
-- still there (triage), rather than have write() make them again.
M.dominator_tree = dominator_tree

function M.write(dump, facts, opts)
  local phase = opts.progress or function() end
  phase("report: dominator tree")
  local tree = opts.tree or dominator_tree(dump)
  -- nothing below walks the tree's child lists: their 8 bytes an object go back before the
  -- panels' paths and the thumbnails (which may make the instance lists again) need memory
  dump:release{ "dominator_children" }
  phase("report: objects")
  local objects, order = {}, collect_ids(facts, tree)
  for _, id in ipairs(order) do
    local o = dump:object(id)
    if o then objects[id] = details(dump, o) end
  end
  -- one hop further, so that a link in a panel opens a panel (in the order of the first ones)
  local more, seen = {}, {}
  local function want(id) if present(id) and not objects[id] and not seen[id] then seen[id] = true; more[#more + 1] = id end end
  for _, id in ipairs(order) do
    local d = objects[id]
    if d then
      for _, f in ipairs(d.fields) do want(f[4]) end
      for _, r in ipairs(d.referrers) do want(r[1]) end
      for _, p in ipairs(d.path) do want(p[1]) end
    end
  end
  for i = 1, math.min(#more, PANEL_NEIGHBOURS) do
    local o = dump:object(more[i])
    if o then objects[more[i]] = details(dump, o) end
  end
  phase("report: histogram")
  local hist = {}
  for i, r in ipairs(opts.histogram) do hist[i] = { r.class, r.count, r.shallow_bytes, r.retained_bytes } end
  phase("report: thumbnails")
  local thumbs, thumb_note = thumbnails(dump, facts)
  local chart = ""
  if opts.samples then chart = '<section id="samples"><h2>watch samples</h2>' .. samples_chart(read_samples(opts.samples)) .. "</section>" end
  -- on one line: the page parses it, no one reads it (indenting doubled its size)
  local tree_text = {}
  tree_json(tree, tree_text)
  local data = '{"histogram":' .. json.encode(hist, nil, true) ..
               ',"objects":' .. json.encode(setmetatable(objects, hk.object_mt), nil, true) ..
               ',"tree":' .. table.concat(tree_text) .. "}"
  data = data:gsub("</", "<\\/")
  local css = hk.read_file(HERE .. "report.css")
  local js = hk.read_file(HERE .. "ui.js") .. "\n" .. hk.read_file(HERE .. "report.js") -- ui.js: shared with the explorer
  return table.concat({
    '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
    '<meta http-equiv="Content-Security-Policy" content="default-src \'none\'; img-src data:; style-src \'unsafe-inline\'; script-src \'unsafe-inline\'">',
    "<title>Heap triage ", esc(present(facts.origin.process) and facts.origin.process or ""), "</title><style>", css, "</style></head><body>",
    gates_html(facts, opts.gate_help), header(facts),
    -- what a reader looks at first: the leaks, what retains the most, bitmaps, duplicates,
    -- meminfo and the watch chart when given, then the whole class table
    '<nav><a href="#leaks">leaks</a> <a href="#top">top retainers</a> <a href="#treemap">treemap</a> <a href="#bitmaps">bitmaps</a> <a href="#duplicates">duplicates</a>',
    present(facts.meminfo) and ' <a href="#meminfo">meminfo</a>' or "",
    present(facts.native) and ' <a href="#native">native heap</a>' or "", opts.samples and ' <a href="#samples">samples</a>' or "",
    ' <a href="#classes">classes</a></nav>',
    leaks_html(facts), top_html(facts),
    '<section id="treemap"><h2>Dominator tree</h2><p class="hint">Each rectangle is an object, its area what it retains. Click to descend; the path above goes back.</p><div id="crumbs"></div><div id="tm"></div></section>',
    gallery_html(facts, thumbs, thumb_note), dups_html(facts), meminfo_html(facts), native_html(facts), chart,
    '<section id="classes"><h2>Classes', opts.histogram_heap and (' <small>(heap ' .. esc(opts.histogram_heap) ..
      ')</small>') or "", '</h2><input id="filter" placeholder="filter classes" type="search"> <span id="hcount"></span><table id="hist"><thead><tr><th data-k="0">class</th><th data-k="1">count</th><th data-k="2">shallow</th><th data-k="3">retained</th></tr></thead><tbody></tbody></table></section>',
    '<aside id="panel" hidden><button id="close" title="close">×</button><div id="pbody"></div></aside>',
    '<script type="application/json" id="data">', data, "</script><script>", js, "</script></body></html>\n",
  })
end

-- Pieces other pages in this style reuse (fleet-report's --report).
M.parts = { esc = esc, size = size, num = num, table_html = table_html, cell = cell, leaks_html = leaks_html, clip = clip,
            dir = HERE }
return M
