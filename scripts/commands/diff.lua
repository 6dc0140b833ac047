-- hprofkit diff BASE DUMP: what grew between two dumps of the same app.  Objects are matched by
-- names and paths, never by ids (core/diff/diff.h says how); lib/diff/report.lua turns the match
-- into a report; this file chooses the maps and opens the dumps.

local D = require "diff.report"
local say_maps = D.say_maps

-- the report for users' scripts (docs/lua-api.md)
hk.diff_report, hk.diff_base_map = D.report, D.base_map
-- any list beside a baseline (the listing commands' --baseline) and the dumps the explorer keeps
hk.beside_baseline, hk.baseline_open, hk.keep_open = D.beside_baseline, D.baseline_open, D.keep_open

-- The maps of the two dumps of one app (README, "Diff"): for BASE, --base-map, else a map
-- beside BASE, else --map (or HPROFKIT_MAP), else the map beside DUMP; for DUMP, --map, else a
-- map beside DUMP, else the map beside BASE.  --no-map: none, except --base-map for BASE.
-- Returns each side's map (a file or false) and why it was chosen.
local function choose_maps(args)
  local global, env = hk.options and hk.options.map, os.getenv("HPROFKIT_MAP")
  local why = {}
  if global == nil and env and env ~= "" then global, why.global = env, "HPROFKIT_MAP" end
  local given_base = args.base_map ~= "" and args.base_map or nil
  if given_base then -- before the notes: a map that cannot be read is the whole answer
    local f, err = io.open(given_base)
    if not f then hk.usage_error("--base-map: " .. err) end
    f:close()
  end
  if global == false then return given_base or false, false, why end
  local mb, md = hk.map_beside(args.base), hk.map_beside(args.dump)
  local function pick(list)
    for _, c in ipairs(list) do
      if c[1] then return c[1], c[2] end
    end
    return false
  end
  local base_map, dump_map
  base_map, why.base = pick{ { given_base }, { mb, "beside BASE" }, { global, why.global }, { md, "beside DUMP" } }
  dump_map, why.dump = pick{ { global, why.global }, { md, "beside DUMP" }, { mb, "beside BASE" } }
  return base_map, dump_map, why
end

-- How many of a dump's class names look renamed by R8 (a last segment of one or two letters,
-- as `a.b` or `o`), after its map.  Every dump has a few (R, `io`); a side with four times the
-- other's, and at least ten, is one read without the map the other was read with (ART's test
-- pair: 28 such names without its map, 4 with it).
local function obfuscated_share(dump)
  local short, all = 0, 0
  for _, c in ipairs(dump:classes()) do
    all = all + 1
    local last = c.name:gsub("%[%]", ""):match("([^.$]+)$") or ""
    if last:match("^%a%a?$") then short = short + 1 end
  end
  return short, all
end

local function warn_obfuscation(base, dump)
  local bs, ba = obfuscated_share(base)
  local ds, da = obfuscated_share(dump)
  for _, p in ipairs{ { "BASE", bs, ba, "DUMP", ds, da }, { "DUMP", ds, da, "BASE", bs, ba } } do
    if p[2] >= 10 and p[2] >= 4 * (p[5] + 2) then
      hk.warn(string.format("diff: warning: %s looks obfuscated (%d of its %d class names are R8's short ones) and %s " ..
        "does not: give %s its map (%s FILE)", p[1], p[2], p[3], p[4], p[1], p[1] == "BASE" and "--base-map" or "--map"))
    end
  end
end

-- Opens a dump for the diff: a missing file or a map that cannot be read is the user's mistake
-- (exit 2), a file that is not a dump a failed dump (exit 1), as for every command.
local function open(path, map)
  return D.kept(path) or hk.open(path, { map = map })
end

local SUBCOLUMNS = {
  classes = { "class", "status", "count_delta", "shallow_delta", "retained_delta", "count_base", "count_dump",
              "shallow_base", "shallow_dump", "retained_base", "retained_dump" },
  heaps = { "heap", "count_delta", "shallow_delta", "count_base", "count_dump", "shallow_base", "shallow_dump" },
  growers = { "count_delta", "count_base", "count_dump", "retained_delta", "class", "element_class", "path" },
  added_by_path = { "bytes", "objects", "entries", "class", "path" },
  removed_by_path = { "bytes", "objects", "entries", "class", "path" },
  added_by_class = { "class", "objects", "bytes" },
  removed_by_class = { "class", "objects", "bytes" },
}

hk.query{
  name = "diff",
  help = "What grew between two dumps of the same app (BASE first).  Objects are matched without\n" ..
         "ids: classes by name, GC roots by kind, thread and class, then objects held at the same\n" ..
         "field path; the rest are added (in DUMP) or removed (in BASE).  Sections: per-class\n" ..
         "deltas (count, shallow, retained; status added/removed for classes on one side only),\n" ..
         "per heap, growing collections (same path, more elements: the top one is the usual\n" ..
         "culprit), bytes added and removed by class and by the path that holds them, bitmaps.",
  positional = { "base", "dump" },
  needs_dump = false,
  args = { n = 20, heap = "", min_growth = 10, min_bytes = 65536, object = "", base_map = "", bitmaps = true, leaks = true },
  aliases = { n = "n" },
  options_help = "  -n N              rows per section (0: all; default 20)\n" ..
                 "  --heap NAME       per-class deltas of one heap only (Android: app, image, zygote)\n" ..
                 "  --min-growth N    a collection or array is a grower when it gained at least N elements\n" ..
                 "  --min-bytes B     ... or gained elements and B bytes of retained size (defaults 10, 65536)\n" ..
                 "  --object ID       also show one object (of either dump): status, counterpart, changed fields\n" ..
                 "  --base-map FILE   ProGuard/R8 map for BASE.  Without it BASE takes the map beside\n" ..
                 "                    BASE, else the global --map, else DUMP's; DUMP takes --map, else\n" ..
                 "                    the map beside DUMP, else BASE's (one app: one map names both)\n" ..
                 "  --no-bitmaps      skip the bitmap section (it hashes pixels)\n" ..
                 "  --no-leaks        skip the leak signatures new and gone (they run the leaks search on both)",
  shape = "record",
  columns = { "base", "dump", "summary", "heaps", "classes", "growers", "added_by_path", "removed_by_path",
              "added_by_class", "removed_by_class", "bitmaps", "leak_signatures", "object" },
  run = function(_, args)
    local base_map, dump_map, why = choose_maps(args)
    say_maps(base_map, dump_map, why)
    local base = open(args.base, base_map)
    local dump = open(args.dump, dump_map)
    warn_obfuscation(base, dump)
    local rec = D.report(base, dump, {
      n = args.n, heap = args.heap, min_growth = args.min_growth, min_bytes = args.min_bytes, object = args.object,
      bitmaps = args.bitmaps, leaks = args.leaks,
      free_base = not D.kept(args.base), -- opened for this run only: nothing asks for its graph after
    })
    return rec, { subcolumns = SUBCOLUMNS }
  end,
}
