-- hprofkit profile-native [-s SERIAL] PROCESS [--duration 30s] [--sampling-interval BYTES]
--   [--trace FILE]
-- Records a native heap profile of a running app with heapprofd, as Perfetto's own
-- tools/heap_profile does: the config goes to `perfetto --txt -c - --background` on the device's
-- stdin, the recording runs for --duration (Ctrl-C stops it early, keeping what was recorded),
-- the trace is pulled (atomically) to --trace FILE and removed from the device; then `native`
-- reads it.  heapprofd exists from Android 10 (API 29); it profiles apps that are profileable
-- (android:profileable, Android 10+) or debuggable, or any process on a userdebug build.
local units = require "units"
local np = require "native.profile"

local REMOTE_DIR = "/data/misc/perfetto-traces" -- the one place a shell user's perfetto may write

-- The heapprofd config, one line of text proto (echoed through the device's shell): the
-- process by name or pid, its process name recorded too (process_stats).
local function config(target, interval, seconds)
  local who = tonumber(target) and ("pid: " .. target) or ('process_cmdline: "' .. target .. '"')
  return table.concat({
    "buffers { size_kb: 65536 fill_policy: DISCARD }",
    "buffers { size_kb: 4096 fill_policy: DISCARD }",
    'data_sources { config { name: "android.heapprofd" target_buffer: 0 heapprofd_config {',
    "sampling_interval_bytes: " .. interval, who, "shmem_size_bytes: 8388608 block_client: true } } }",
    'data_sources { config { name: "linux.process_stats" target_buffer: 1',
    "process_stats_config { scan_all_processes_on_start: true } } }",
    "duration_ms: " .. math.floor(seconds * 1000),
  }, " ")
end

local function find_process(dev, target)
  for _, p in ipairs(dev:processes()) do
    if tostring(p.pid) == target or p.name == target then return p end
  end
  hk.usage_error(string.format("profile-native: no process '%s' runs on %s (see `hprofkit processes -s %s`)",
    target, dev.serial, dev.serial))
end

-- Waits for the recorder (pid on the device) to finish: the duration, then up to 60 s for the
-- trace to be written; Ctrl-C stops the recording early (perfetto writes what it has).
local function wait_recorder(dev, pid, seconds)
  hk.trap_interrupt()
  local start, stopped = hk.clock(), false
  while true do
    local _, rc = dev:shell("kill -0 " .. pid .. " 2>/dev/null")
    if rc ~= 0 then return stopped end
    if (hk.interrupted() and not stopped) or hk.clock() - start > seconds + 60 then
      dev:shell("kill " .. pid)
      stopped = true
    end
    hk.sleep(0.25)
  end
end

hk.query{
  name = "profile-native",
  help = "Record a native heap profile of PROCESS (name or pid) with heapprofd (Android 10+; the app must\n" ..
         "be profileable or debuggable): --duration (30s), --sampling-interval BYTES (4096), into\n" ..
         "--trace FILE (default PROCESS-DATE-TIME.native.pftrace); Ctrl-C stops early.  Then the hotspots\n" ..
         "as `native` shows them.",
  positional = { "process" },
  needs_dump = false,
  args = { serial = "", duration = "30s", sampling_interval = 4096, trace = "", n = 10 },
  aliases = { s = "serial" },
  shape = "record",
  columns = { "trace", "device", "process", "pid", "duration_s", "sampling_interval", "stopped_early",
              "unreleased_bytes", "allocated_bytes", "hotspots" },
  run = function(_, args)
    local seconds = units.duration(args.duration, "profile-native: --duration")
    local interval = math.tointeger(tonumber(args.sampling_interval))
    if not interval or interval < 1 then
      hk.usage_error("profile-native: --sampling-interval takes a number of bytes from 1, not '" ..
        tostring(args.sampling_interval) .. "'")
    end
    local dev = hk.device(args.serial ~= "" and args.serial or nil)
    if (dev.sdk or 0) < 29 then
      error(string.format("profile-native: native heap profiles need heapprofd, which Android 10 (API 29) " ..
        "brought; %s is API %s: record on a newer device, or watch its Native Heap with `hprofkit watch`",
        dev.serial, tostring(dev.sdk)), 0)
    end
    local proc = find_process(dev, tostring(args.process))
    local remote = string.format("%s/hprofkit-%d-%d.pftrace", REMOTE_DIR, proc.pid, os.time())
    local out, rc = dev:shell("echo '" .. config(proc.name, interval, seconds) .. "' | perfetto --txt -c - -o " ..
      remote .. " --background 2>&1")
    local recorder = tonumber((out or ""):match("^%s*(%d+)%s*$"))
    if rc ~= 0 or not recorder then
      error("profile-native: perfetto on " .. dev.serial .. " did not start: " .. ((out or ""):gsub("%s+$", "")), 0)
    end
    io.stderr:write(string.format("profile-native: recording %s (pid %d) on %s for %s\n", proc.name, proc.pid,
      dev.serial, args.duration))
    local stopped = wait_recorder(dev, recorder, seconds)
    local file = args.trace ~= "" and args.trace or string.format("%s-%s.native.pftrace",
      (proc.name:gsub("[/:]", "_")), os.date("%Y%m%d-%H%M%S"))
    local ok, perr = pcall(dev.pull, dev, remote, file)
    dev:shell("rm -f " .. remote)
    if not ok then error("profile-native: the trace could not be pulled: " .. tostring(perr), 0) end
    local p = np.load(file)
    local mine = false
    for _, d in ipairs(p.dumps) do mine = mine or d.pid == proc.pid end
    if not mine then
      error(string.format("profile-native: %s holds no native heap profile of %s: heapprofd profiles only " ..
        "profileable apps (<profileable android:shell=\"true\"/> in the manifest, Android 10+) and debuggable " ..
        "ones, or any process on a userdebug build", file, proc.name), 0)
    end
    local r = hk.run("native", nil, { trace = file, n = args.n })
    return {
      trace = file, device = dev.serial, process = proc.name, pid = proc.pid, duration_s = seconds,
      sampling_interval = interval, stopped_early = stopped, unreleased_bytes = r.unreleased_bytes,
      allocated_bytes = r.allocated_bytes, hotspots = r.hotspots,
    }, { subcolumns = { hotspots = { "fingerprint", "unreleased_bytes", "allocated_bytes", "alloc_count",
                                     "top_frames" } } }
  end,
}
