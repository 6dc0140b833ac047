-- hprofkit processes [-s SERIAL]: pid, name, and whether the process is an app (its name is an
-- installed package in `pm list packages`; media.extractor reads like one but is not).  Apps first.
hk.query {
  name = "processes",
  help = "List a device's processes, apps first (app = listed by `pm list packages`; only apps "
      .. "have a Java heap to dump)",
  needs_dump = false,
  args = { serial = "" },
  aliases = { s = "serial" },
  columns = { "pid", "name", "app" },
  run = function(dump, args)
    local serial = args.serial
    if serial == "" then serial = nil end
    local rows = {}
    for _, p in ipairs(hk.device(serial):processes()) do
      rows[#rows + 1] = { pid = p.pid, name = p.name, app = p.app }
    end
    return rows
  end,
}
