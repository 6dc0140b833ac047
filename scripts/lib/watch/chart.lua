-- require("watch.chart").chart(records, {title=, tiers={70,85,92}, dumps={{t=, reason=, file=}},
--   deaths={{t=, cause_class=, text=}}}) -> SVG text (without deaths: the records' cause)
-- The chart of a `watch` (its samples, as written to the samples file): Java heap used against
-- its maximum with the tier lines, native heap and PSS in MB over seconds since the start, dumps
-- as marked vertical lines; samples without a value (device away, process gone) break the lines.
-- The plot's scale is on the root element (data-plot="X Y W H", data-t-max, data-mb-max), so a
-- reader can turn any point back into (seconds, MB).
local function esc(s)
  return (tostring(s):gsub("[&<>\"]", { ["&"] = "&amp;", ["<"] = "&lt;", [">"] = "&gt;", ['"'] = "&quot;" }))
end

local function nice_step(range, n)
  local raw = range / n
  local mag = 10 ^ math.floor(math.log(raw, 10))
  for _, m in ipairs({ 1, 2, 2.5, 5, 10 }) do
    if raw <= m * mag then return m * mag end
  end
  return 10 * mag
end

local SERIES = {
  { key = "java_used_kb", name = "Java used", color = "#d62728", width = 2 },
  { key = "java_max_kb", name = "Java max", color = "#7f7f7f", width = 1.5 },
  { key = "native_kb", name = "native heap", color = "#1f77b4", width = 1.5 },
  { key = "pss_kb", name = "PSS", color = "#2ca02c", width = 1.5 },
}

local function value(r, key)
  local v = r[key]
  if v == nil or v == hk.null or type(v) ~= "number" then return nil end
  return v
end

local M = {}

function M.chart(records, opts)
  opts = opts or {}
  local W, H, X0, Y0, PW, PH = 900, 380, 70, 30, 800, 290
  local tmax, mbmax = 1, 1
  for _, r in ipairs(records) do
    if type(r.t) == "number" and r.t > tmax then tmax = r.t end
    for _, s in ipairs(SERIES) do
      local v = value(r, s.key)
      if v and v / 1024 > mbmax then mbmax = v / 1024 end
    end
  end
  local ystep = nice_step(mbmax, 6)
  mbmax = math.ceil(mbmax * 1.05 / ystep) * ystep
  local function x(t) return X0 + t / tmax * PW end
  local function y(mb) return Y0 + PH - mb / mbmax * PH end
  local o = {}
  local function add(...) for _, s in ipairs({ ... }) do o[#o + 1] = s end end
  add(string.format('<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 %d %d" '
    .. 'font-family="sans-serif" font-size="11" data-plot="%d %d %d %d" data-t-max="%.17g" data-mb-max="%.17g">\n',
    W, H, W, H, X0, Y0, PW, PH, tmax, mbmax))
  add(string.format('<title>%s</title>\n', esc((opts.title or "watch") .. ": Java heap used vs max, native, PSS (MB)")))
  add('<rect x="0" y="0" width="100%" height="100%" fill="white"/>\n')
  add(string.format('<text x="%d" y="18" font-size="13" font-weight="bold">%s</text>\n', X0,
    esc((opts.title or "watch") .. ": Java heap used vs max, native heap, PSS (MB)")))
  -- axes and grid
  add('<g class="axes" stroke="#ccc" stroke-width="0.5">\n')
  for v = 0, mbmax + ystep / 2, ystep do
    add(string.format('<line x1="%d" y1="%.2f" x2="%d" y2="%.2f"/>', X0, y(v), X0 + PW, y(v)))
    add(string.format('<text x="%d" y="%.2f" text-anchor="end" stroke="none" fill="#333">%g</text>\n', X0 - 6, y(v) + 4, v))
  end
  -- time in the unit that keeps the labels short: seconds, minutes or hours
  local unit, per = "s", 1
  if tmax >= 7200 then unit, per = "h", 3600 elseif tmax >= 120 then unit, per = "m", 60 end
  local tstep = nice_step(tmax / per, 8)
  for u = 0, tmax / per + tstep / 2, tstep do
    local t = u * per
    if t <= tmax then
      add(string.format('<line x1="%.2f" y1="%d" x2="%.2f" y2="%d"/>', x(t), Y0, x(t), Y0 + PH))
      add(string.format('<text x="%.2f" y="%d" text-anchor="middle" stroke="none" fill="#333">%g%s</text>\n',
        x(t), Y0 + PH + 15, u, unit))
    end
  end
  add('</g>\n')
  -- a series: one polyline per run of samples that have a value
  local function lines(key, fn, attrs)
    local run = {}
    local function flush()
      if #run > 0 then
        add(string.format('<polyline data-series="%s" fill="none" %s points="%s"/>\n', key, attrs, table.concat(run, " ")))
        run = {}
      end
    end
    for _, r in ipairs(records) do
      local v = fn(r)
      if v and type(r.t) == "number" then run[#run + 1] = string.format("%.2f,%.2f", x(r.t), y(v))
      else flush() end
    end
    flush()
  end
  for i, p in ipairs(opts.tiers or {}) do
    lines("tier" .. i, function(r)
      local m = value(r, "java_max_kb")
      return m and m / 1024 * p / 100
    end, string.format('stroke="#ff7f0e" stroke-width="1" stroke-dasharray="4 3" data-percent="%g"', p))
  end
  for _, s in ipairs(SERIES) do
    lines(s.key, function(r)
      local v = value(r, s.key)
      return v and v / 1024
    end, string.format('stroke="%s" stroke-width="%g"%s', s.color, s.width,
      s.key == "java_max_kb" and ' stroke-dasharray="8 3"' or ""))
  end
  for _, d in ipairs(opts.dumps or {}) do
    add(string.format('<g class="dump" data-t="%.17g"><line x1="%.2f" y1="%d" x2="%.2f" y2="%d" stroke="#9467bd" '
      .. 'stroke-width="1.5"/><text x="%.2f" y="%d" fill="#9467bd">dump</text><title>%s</title></g>\n',
      d.t, x(d.t), Y0, x(d.t), Y0 + PH, x(d.t) + 3, Y0 + 10, esc(d.reason .. " -> " .. (d.file or ""))))
  end
  -- deaths: given, or read back from the samples' cause (a samples file redrawn, the report)
  local deaths = opts.deaths
  if not deaths then
    deaths = {}
    for _, r in ipairs(records) do
      if type(r.cause) == "string" and r.cause ~= "" and type(r.t) == "number" then
        deaths[#deaths + 1] = { t = r.t, cause_class = r.cause, text = type(r.event) == "string" and r.event or "" }
      end
    end
  end
  for _, d in ipairs(deaths) do
    add(string.format('<g class="death" data-t="%.17g" data-cause="%s"><line x1="%.2f" y1="%d" x2="%.2f" y2="%d" '
      .. 'stroke="#d62728" stroke-width="2" stroke-dasharray="2 2"/><text x="%.2f" y="%d" fill="#d62728">death</text>'
      .. '<title>%s</title></g>\n', d.t, esc(d.cause_class or ""), x(d.t), Y0, x(d.t), Y0 + PH, x(d.t) + 3, Y0 + 22,
      esc(d.text or "")))
  end
  -- legend
  local lx = X0
  for _, s in ipairs(SERIES) do
    add(string.format('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="%s" stroke-width="2"/><text x="%d" y="%d">%s</text>\n',
      lx, H - 12, lx + 20, H - 12, s.color, lx + 24, H - 8, esc(s.name)))
    lx = lx + 120
  end
  if opts.tiers and #opts.tiers > 0 then
    add(string.format('<line x1="%d" y1="%d" x2="%d" y2="%d" stroke="#ff7f0e" stroke-dasharray="4 3"/><text x="%d" y="%d">tiers %s%%</text>\n',
      lx, H - 12, lx + 20, H - 12, lx + 24, H - 8, esc(table.concat(opts.tiers, "/"))))
  end
  add("</svg>\n")
  return table.concat(o)
end

-- .samples(path) -> records: a samples file written by `watch` (.csv or .jsonl) read back,
-- numbers as numbers and empty cells absent, so chart(samples(f)) redraws the
-- chart (triage --samples).
local function csv_cells(line)
  local cells, i = {}, 1
  while i <= #line + 1 do
    if line:sub(i, i) == '"' then
      local j, v = i + 1, {}
      while true do
        local q = line:find('"', j, true) or #line + 1
        v[#v + 1] = line:sub(j, q - 1)
        if line:sub(q + 1, q + 1) == '"' then v[#v + 1] = '"'; j = q + 2 else i = q + 2; break end
      end
      cells[#cells + 1] = table.concat(v)
    else
      local c = line:find(",", i, true) or #line + 1
      cells[#cells + 1] = line:sub(i, c - 1)
      i = c + 1
    end
  end
  return cells
end

function M.samples(path)
  local text = hk.read_file(path)
  local records, header = {}, nil
  local jsonl = path:match("%.jsonl$") ~= nil
  for line in text:gmatch("[^\r\n]+") do
    if jsonl then
      local r = hk.json_decode(line)
      for k, v in pairs(r) do if v == hk.null then r[k] = nil end end
      records[#records + 1] = r
    elseif not header then
      header = csv_cells(line)
    else
      local r = {}
      for i, v in ipairs(csv_cells(line)) do
        if v ~= "" and header[i] then r[header[i]] = tonumber(v) or v end
      end
      records[#records + 1] = r
    end
  end
  return records
end

return M
