local sort_keys = {
  retained_bytes = function(o) return o:retained_size() end,
  shallow_bytes = function(o) return o.shallow_size end,
}

-- The first k of list by key, largest first (ties by id): a selection when k is small beside the
-- list (the first page of a class with millions of instances), else a sort.
local function row_of(o)
  return { id = o.id, class = o.label, heap = o.heap or hk.null, shallow_bytes = o.shallow_size,
           retained_bytes = o:retained_size(), reachability = o.reachability, value = o.value or hk.null }
end

local function first_k(list, key, k)
  local keys = {}
  for i, o in ipairs(list) do keys[i] = key(o) end
  local function before(i, j) -- ties: the earlier object first, as cls:ranked_instances orders them
    if keys[i] ~= keys[j] then return keys[i] > keys[j] end
    return i < j
  end
  local idx = {}
  if k * 8 >= #list then
    for i = 1, #list do idx[i] = i end
    table.sort(idx, before)
  else
    for i = 1, #list do
      if #idx < k or before(i, idx[#idx]) then
        local at = #idx + 1
        while at > 1 and before(i, idx[at - 1]) do idx[at] = idx[at - 1]; at = at - 1 end
        idx[at] = i
        if #idx > k then idx[#idx] = nil end
      end
    end
  end
  local out = {}
  for i = 1, math.min(k, #idx) do out[i] = list[idx[i]] end
  return out
end

-- The first RANKED of a class of more than BIG instances, kept per dump (weak keys) and per
-- class, heap and order once asked for: the next pages of a large class, and the first page
-- asked again (an explorer's back button), cost no pass over its instances.  Small classes
-- are ranked afresh: that is quick.
local BIG, RANKED = 100000, 1000
local kept = setmetatable({}, { __mode = "k" })

local function ranked(dump, cls, args, by)
  local k = args.offset + args.n
  if cls.instance_count < BIG or k > RANKED then
    return cls:ranked_instances{ n = args.n, offset = args.offset, heap = args.heap, by = by }
  end
  local per = kept[dump] or {}
  kept[dump] = per
  local key = cls.id .. " " .. args.heap .. " " .. by
  if not per[key] then
    local list, total = cls:ranked_instances{ n = RANKED, offset = 0, heap = args.heap, by = by }
    per[key] = { list = list, total = total }
  end
  local e, page = per[key], {}
  for i = args.offset + 1, math.min(#per[key].list, k) do page[#page + 1] = e.list[i] end
  return page, e.total
end

hk.query{
  name = "instances",
  help = "The instances of a class, largest retained size first (--sort shallow_bytes or id),\n" ..
         "with their heap, sizes and reachability; --heap NAME keeps one heap's, --subclasses\n" ..
         "adds the subclasses' instances, --text S keeps Strings whose text contains S.  Paged\n" ..
         "with --offset and -n.",
  positional = { "dump", "class" },
  args = { heap = "", sort = "retained_bytes", n = 100, offset = 0, subclasses = false, text = "", baseline = "" },
  aliases = { n = "n" },
  options_help = "  -n N          how many instances (default 100)\n" ..
                 "  --offset K    skip the first K (after sorting)\n" ..
                 "  --baseline DUMP  beside an earlier dump: each figure X also as base_X and delta_X, each\n" ..
                 "                   row NEW / REMOVED / GREW / SHRANK / SAME (what serve --baseline shows)",
  columns = { "id", "class", "heap", "shallow_bytes", "retained_bytes", "reachability", "value" },
  run = function(dump, args)
    if args.baseline ~= "" then return hk.beside_baseline("instances", dump, args) end
    local cls = dump:class(args.class)
    if not cls then hk.usage_error("no class named " .. args.class .. " in this dump") end
    local key = sort_keys[args.sort]
    if not key and args.sort ~= "id" then
      hk.usage_error("--sort takes retained_bytes, shallow_bytes or id, not " .. args.sort)
    end
    if key and not args.subclasses and args.text == "" then -- the common case, chosen in C
      local list, total = ranked(dump, cls, args, args.sort == "shallow_bytes" and "shallow" or "retained")
      local rows = {}
      for i, o in ipairs(list) do rows[i] = row_of(o) end
      return rows, { total = total }
    end
    local list = {}
    for obj in cls:instances(args.subclasses) do
      if (args.heap == "" or obj.heap == args.heap) and
         (args.text == "" or (obj.value and obj.value:find(args.text, 1, true))) then
        list[#list + 1] = obj
      end
    end
    local total = #list
    if key then list = first_k(list, key, args.offset + args.n) end
    local rows = {}
    for i = args.offset + 1, math.min(#list, args.offset + args.n) do rows[#rows + 1] = row_of(list[i]) end
    return rows, { total = total }
  end,
}
