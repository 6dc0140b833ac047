-- hprofkit devices: what the adb server knows.  Only devices in state "device" are asked for
-- their model, SDK level and build type; the others (unauthorized, offline, ...) come with a hint.
hk.query {
  name = "devices",
  help = "List devices: serial, state, model, SDK level, debuggable build (ro.debuggable or a "
      .. "userdebug/eng build); devices that are not ready are listed with their state and a hint",
  needs_dump = false,
  args = {},
  columns = { "serial", "state", "model", "sdk", "debuggable", "hint" },
  run = function(dump, args)
    local rows = {}
    for _, d in ipairs(hk.devices()) do
      rows[#rows + 1] = {
        serial = d.serial, state = d.state, model = d.model, sdk = d.sdk,
        debuggable = d.debuggable, hint = d.hint,
      }
    end
    return rows
  end,
}
