-- Recomputes df:by_path from the public object API: which unmatched objects are entries (held
-- by a matched object, or unmatched roots), their order, which unmatched objects each claims
-- and the per-(path, class) sums, and compares them with df:by_path("added"|"removed").
-- Rule: an object several entries reach counts under the first entry, in object order (the
-- unmatched roots last), that reaches it through unmatched objects that are not entries.  Sizes are obj.shallow_size, as the diff's tallies count them.
-- --rule nearest checks by_path against the old rule instead (for a build from before it).
-- Also tallies the old rule (the nearest entry, breadth first from all entries at once) and
-- says whether its figures differ, so a pair is known to exercise sharing.
-- Prints "ok SIDE ROWS", "nearest-differs SIDE yes|no", and "mismatch ..." lines.
local base, dump = hk.open(arg.base), hk.open(arg.dump)
local df = dump:diff(base)

-- The strong referrers of y: obj:referrers() lists them, then the Reference objects whose
-- referent (or a finalizer reference's zombie) y is; one occurrence of those is dropped.
local function strong_referrers(y)
    local list, weak = y:referrers(), {}
    for _, r in ipairs(list) do
        if r.kind == "instance" and r:is_instance_of("java.lang.ref.Reference") and weak[r.id] == nil then
            local n = 0
            for _, f in ipairs(r:fields()) do
                if (f.name == "referent" or f.name == "zombie") and f.ref == y.id then n = n + 1 end
            end
            weak[r.id] = n
        end
    end
    local out = {}
    for k = #list, 1, -1 do
        local r = list[k]
        if (weak[r.id] or 0) > 0 then weak[r.id] = weak[r.id] - 1
        else table.insert(out, 1, r) end
    end
    return out
end

-- df:path(entry) is rendered as by_path renders a row's path (the test holds it to that).

-- unmatched objects no entry reaches make one row of their own
local UNREACHED = "(not reached from the matched heap)\0(various)"

local function check(d, status)
    -- the unmatched objects, their index, strong referrers; matched holders' indices
    local idx, unm, order = {}, {}, {}
    local i = 0
    for o in d:objects() do
        idx[o.id] = i
        if df:status(o) == status then unm[o.id] = o; order[#order + 1] = o end
        i = i + 1
    end
    local kids, entry, keys = {}, {}, {}
    for _, y in ipairs(order) do
        local first
        for _, r in ipairs(strong_referrers(y)) do
            if unm[r.id] then
                kids[r.id] = kids[r.id] or {}
                table.insert(kids[r.id], y)
            elseif not first or idx[r.id] < idx[first.id] then
                first = r
            end
        end
        if first then
            entry[y.id] = true
            keys[#keys + 1] = {obj = y, self = idx[y.id]}
        end
    end
    -- the queue's order: the entries in object order, whichever pass found them
    table.sort(keys, function(a, b) return a.self < b.self end)
    local q = {}
    for _, k in ipairs(keys) do q[#q + 1] = k.obj end
    for _, rt in ipairs(d:roots()) do
        local o = rt.object
        if o and unm[o.id] and not entry[o.id] then entry[o.id] = true; q[#q + 1] = o end
    end
    local key_of = {} -- an entry's key, made once: df:path walks the whole chain above it
    local function add(groups, e, o)
        local key = key_of[e.id]
        if not key then key = df:path(e) .. "\0" .. (e.class_name or e.label); key_of[e.id] = key end
        local g = groups[key]
        if not g then g = {entries = {}, objects = 0, bytes = 0}; groups[key] = g end
        g.entries[e.id] = true
        g.objects = g.objects + 1
        g.bytes = g.bytes + o.shallow_size
    end
    -- the rule: each entry in turn takes what it reaches that no earlier entry took
    local taken, rule = {}, {}
    for _, e in ipairs(q) do
        local stack = {e}
        taken[e.id] = true
        while #stack > 0 do
            local x = table.remove(stack)
            add(rule, e, x)
            for _, c in ipairs(kids[x.id] or {}) do
                if not taken[c.id] and not entry[c.id] then taken[c.id] = true; stack[#stack + 1] = c end
            end
        end
    end
    -- the old rule: breadth first from every entry at once
    local owner, near, fifo, h = {}, {}, {}, 1
    for _, e in ipairs(q) do owner[e.id] = e; fifo[#fifo + 1] = e end
    while h <= #fifo do
        local x = fifo[h]; h = h + 1
        add(near, owner[x.id], x)
        for _, c in ipairs(kids[x.id] or {}) do
            if not owner[c.id] then owner[c.id] = owner[x.id]; fifo[#fifo + 1] = c end
        end
    end
    for _, t in ipairs{{rule, taken}, {near, owner}} do
        for _, o in ipairs(order) do
            if not t[2][o.id] then
                local g = t[1][UNREACHED] or {entries = {}, objects = 0, bytes = 0}
                t[1][UNREACHED] = g
                g.objects = g.objects + 1
                g.bytes = g.bytes + o.shallow_size
            end
        end
    end
    local function count(t) local n = 0; for _ in pairs(t) do n = n + 1 end; return n end
    local function same(a, b)
        if count(a) ~= count(b) then return false end
        for k, g in pairs(a) do
            local o = b[k]
            if not o or count(g.entries) ~= count(o.entries) or g.objects ~= o.objects or g.bytes ~= o.bytes then
                return false
            end
        end
        return true
    end
    -- --rule nearest: check by_path against the old rule instead (a build from before the change)
    if arg.rule == "nearest" then rule, near = near, rule end
    local got, bad, seen = df:by_path(status), 0, {}
    local function report(fmt, ...)
        bad = bad + 1
        if bad <= 5 then print(string.format("mismatch " .. status .. " " .. fmt, ...)) end
    end
    for _, r in ipairs(got) do
        local key = r.path .. "\0" .. r.class
        local g = rule[key]
        local want = g and string.format("%d/%d/%d", count(g.entries), g.objects, g.bytes) or "absent"
        local have = string.format("%d/%d/%d", r.entries, r.objects, r.bytes)
        seen[key] = true
        if want ~= have then report("%s %s: by_path %s, rule %s", r.path, r.class, have, want) end
    end
    for k, g in pairs(rule) do
        if not seen[k] then report("%s: no by_path row, rule 0/%d/%d", k:gsub("\0", " "), g.objects, g.bytes) end
    end
    if bad == 0 then print(string.format("ok %s %d", status, #got)) end
    print(string.format("nearest-differs %s %s", status, same(rule, near) and "no" or "yes"))
end

check(dump, "added")
check(base, "removed")
