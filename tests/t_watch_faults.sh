# `watch` under fault injection (tests/adbd/adbd_fault.c): the device drops the connection,
# stalls, answers garbage or half an answer while watch samples (dumpsys meminfo) and while it
# takes a dump (am dumpheap, stat, the pull).  Watch says each failure in one line, keeps no
# part of a dump on the host, leaves nothing on the device once the next dump has run, and
# ends with the README's status: 1 when a dump failed, 0 when only samples did.
. "$SRC/tests/lib.sh"
. "$SRC/tests/lib_device.sh"
. "$SRC/tests/lib_watch.sh"
watch_device 35 || exit 0
export HK_ADB_TIMEOUT=1 HK_DUMP_TIMEOUT=2

# a dump is due at the second sample (97% of the Java heap's 100 MB)
for spec in "dumpsys meminfo|garbage" "dumpsys meminfo|short" "dumpsys meminfo|stall" \
            "am dumpheap|garbage" "am dumpheap|stall" "am dumpheap|short" "stat -c|garbage" \
            "sync:|short" "sync:|garbage" "am dumpheap|drop"; do
  step=${spec%|*} action=${spec#*|} n="w-${step%% *}-$action"
  curve "$(step 100 30 40000)" "$(step 100 31 97000)" "$(step 100 32 97000)"
  echo "$step $action" >"$CFG/fault"
  watch "$n" --count 3 --cooldown 0s --max-dumps 1
  : >"$CFG/fault"
  want_rc=1 said="dump-failed  tier 3 capture \(94.7%\): adb: "
  [ "$step" = "dumpsys meminfo" ] && want_rc=0 said="device-lost  adb: .*dumpsys meminfo"
  rc=$(cat "$T/$n.rc") extra=$(ls -A "$T/$n" | grep -vxE 's\.csv|s\.csv\.svg') left=$(ls -A "$CFG/root/data/local/tmp")
  if [ "$rc" = "$want_rc" ] && grep -qE "^hprofkit watch: [0-9:]+  $said" "$T/$n.err" && [ -z "$extra$left" ]; then
    pass "$n: $(grep -m1 -oE "(dump-failed|device-lost)  .{0,110}" "$T/$n.err")"
  else fail "$n" "exit $rc (want $want_rc), host [$extra], device [$left]: $(grep -E 'dump-failed|device-lost' "$T/$n.err" | head -2)"; fi
  if [ "$action" = drop ]; then adb_connect "$S"; adb_wait "$S" device; fi
done
