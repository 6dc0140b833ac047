-- hprofkit smaps FILE [--json]
-- /proc/PID/smaps classified the way android_os_Debug does for `dumpsys meminfo`:
-- every category and sub-category summed (Pss, SwapPss, Rss, private/shared
-- clean/dirty, mapping count), and the Unknown and Other mmap mappings by name,
-- largest Pss first.  The result is the plugin's document as a record, so --json
-- prints its schema (categories, unknown, other_mmap, total, warnings).
local function present(v)
  return v ~= nil and v ~= hk.null
end

hk.query{
  name = "smaps",
  help = "Classify /proc/PID/smaps like dumpsys meminfo (android_os_Debug's rules); sums per\n" ..
         "category and sub-category, and Unknown / Other mmap broken down by mapping name.\n" ..
         "--top N limits the by-name lists (0 = all).",
  positional = { "file" },
  needs_dump = false,
  args = { top = 20 },
  shape = "record",
  columns = { "categories", "total", "unknown", "other_mmap", "warnings" },
  run = function(_, args)
    if not hk.meminfo then
      error("the meminfo plugin is not loaded: see `hprofkit plugins` and the [meminfo] section of plugins.ini", 0)
    end
    local ok, t = pcall(hk.meminfo.smaps, hk.read_file(args.file))
    -- the file is the user's data, not the plugin's fault: its name, the reason, exit 1
    if not ok then error({ message = args.file .. ": " .. (tostring(t):gsub("^plugin [%w_-]+: [%w_.]+: ", "")), exit_code = 1 }) end
    local top = tonumber(args.top) or 20
    if top > 0 then
      for _, k in ipairs({ "unknown", "other_mmap" }) do
        for i = #t[k], top + 1, -1 do t[k][i] = nil end
      end
    end
    for _, c in ipairs(t.categories) do
      setmetatable(c, {
        __index = function(r, k)
          if k == "row" then
            return (present(rawget(r, "parent")) and "  " or "") .. rawget(r, "name")
          end
        end,
      })
    end
    local stats = { "pss", "swap_pss", "rss", "private_dirty", "private_clean", "shared_dirty",
                    "shared_clean", "swap", "mappings" }
    local cat_cols, named_cols = { "row" }, { "name" }
    for _, s in ipairs(stats) do
      cat_cols[#cat_cols + 1] = s
      named_cols[#named_cols + 1] = s
    end
    return t, { subcolumns = { categories = cat_cols, unknown = named_cols, other_mmap = named_cols } }
  end,
}
