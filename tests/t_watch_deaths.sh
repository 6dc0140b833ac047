# watch's death record and `exits`, through the scripted device (tests/adbd) at several API
# levels, on real device text from ../shared/reference/logcat/ (each case names its file) and,
# where no real line exists, on the formats FORMATS.md there describes (named by section).
# The reference lines are re-framed for the device by a small Python walk written here (brief,
# Android Studio and log-viewer layouts -> PID TID PRIO TAG: MESSAGE), never by our parser.
. "$SRC/tests/lib.sh"
. "$SRC/tests/lib_device.sh"
. "$SRC/tests/lib_watch.sh"
REF="$SRC/../shared/reference/logcat"
if [ ! -d "$REF" ]; then skip watch-deaths "../shared/reference/logcat is absent"; exit 0; fi
watch_device 33 || exit 0

# relog STEP FILE [GREP]: FILE's lines (those matching GREP) into the device's log at STEP, each
# in the buffer its tag writes to
relog() {
  grep -E "${3:-.}" "$2" | python3 -c '
import re, sys
step = sys.argv[1]
buf = {"ActivityManager": "system", "am_proc_start": "events", "am_kill": "events", "am_proc_died": "events"}
for line in sys.stdin:
    line = line.rstrip("\n")
    m = re.match(r"^([VDIWEF])/([^(]+)\(\s*(\d+)\): (.*)$", line)                       # brief
    if m: prio, tag, pid, tid, msg = m[1], m[2].strip(), m[3], m[3], m[4]
    m2 = re.match(r"^\S+ \S+ (\d+)-(\d+)/\S+ ([VDIWEF])/([^:]+): (.*)$", line)          # Studio
    if m2: pid, tid, prio, tag, msg = m2[1], m2[2], m2[3], m2[4].strip(), m2[5]
    m3 = re.match(r"^\S+ \S+\s+(\d+)\s+(\d+)\s+(\S+)\s+([VDIWEF])\s+(.*)$", line)     # viewer columns
    if m3: pid, tid, tag, prio, msg = m3[1], m3[2], m3[3], m3[4], m3[5]
    if not (m or m2 or m3): continue
    print(step, buf.get(tag, "main"), pid, tid, prio, tag + ": " + msg)
' "$1" >>"$CFG/logcat"
}
# say STEP BUFFER PID TID PRIO TAG: MESSAGE -- one line of a format FORMATS.md describes
say() { echo "$*" >>"$CFG/logcat"; }
ev() { jq -r "$2" "$T/$1.out" 2>&1; } # NAME JQ: from watch's --json events

# ---- API 33: lmkd kills the app (FORMATS.md §3 "12-15": Kill '…' … rss, swap; reason:, §2
# killinfo, §4 has died, §6 exit-info one field a line with subreason) ----
curve "$(step 100 30 88000)" "$(step 100 31 89000)" "$(step 100 32 90000)" "pid=100 gone" "$(step 101 1 20000)"
say 3 main 612 612 I "lowmemorykiller: Kill '$APP' (100), uid 10190, oom_score_adj 905 to free 51234kB rss, 1234kB swap; reason: device is low on swap (0kB < 314572kB) and thrashing (27%)"
say 3 events 612 612 I "killinfo: [100,10190,905,200,12808,2,11520,309488,1404,2016,5876,4096,1048572,0,129552,129168,81308,89836,18380,60416,16944,28728,0,0,0,16,120,4,0,40196,0,27,90,0,0,0,0,0]"
say 3 events 1500 1520 I "am_proc_died: [0,100,$APP,905,19]"
say 3 system 1500 1520 I "ActivityManager: Process $APP (pid 100) has died: cch+5 CEM"
exitinfo() { # LAYOUT: three records of the package, newest first (FORMATS.md §6)
  python3 - "$1" "$APP" <<'EOP' >"$CFG/exitinfo"
import sys
layout, app = sys.argv[1], sys.argv[2]
recs = [dict(timestamp="2023-11-14 22:13:23.400", pid=100, reason="3 (LOW_MEMORY)", subreason="0 (UNKNOWN)", status=0,
             importance=400, pss="49MB", rss="88MB", description="null"),
        dict(timestamp="2023-11-14 21:02:11.007", pid=90, reason="13 (OTHER KILLS BY SYSTEM)",
             subreason="3 (TOO MANY EMPTY PROCS)", status=0, importance=400, pss="0.00", rss="1.9GB", description="empty #17"),
        dict(timestamp="2023-11-14 20:00:00.000", pid=80, reason="2 (SIGNALED)", subreason="0 (UNKNOWN)", status=9,
             importance=125, pss="75MB", rss="128MB", description="null")]
print("ACTIVITY MANAGER PROCESS EXIT INFO (dumpsys activity exit-info)")
print("  Last Timestamp of Persistence Into Persistent Storage: 2023-11-14 22:13:00.000")
print("  package: " + app)
print("    Historical Process Exit for uid=10190")
for i, r in enumerate(recs):
    ids = "pid=%d realUid=10190 packageUid=10190 definingUid=10190 user=0" % r["pid"]
    if layout == "a15":
        print("        ApplicationExitInfo #%d:" % i)
        print("          timestamp=%s %s" % (r["timestamp"], ids))
        print("          process=%s reason=%s subreason=%s status=%d" % (app, r["reason"], r["subreason"], r["status"]))
        print("          importance=%d pss=%s rss=%s description=%s state=empty trace=null" % (r["importance"], r["pss"], r["rss"], r["description"]))
        continue
    print("        ApplicationExitInfo #%d:" % i)
    print("          timestamp=" + r["timestamp"])
    for kv in ids.split(): print("          " + kv)
    print("          process=" + app)
    print("          reason=" + r["reason"])
    if layout == "sub": print("          subreason=" + r["subreason"])
    for k in ("status", "importance", "pss", "rss", "description"): print("          %s=%s" % (k, r[k]))
    print("          state=empty")
    print("          trace=null")
EOP
}
exitinfo sub
watch lmkd --count 5 --json
grep -q "death  pid 100 $APP: low memory (lmkd) (reason 'device is low on swap (0kB < 314572kB) and thrashing (27%)', kill_reason 2 LOW_SWAP_AND_THRASHING, oom_score_adj 905, freed 51234 kB rss, 1234 kB swap); exit-info LOW_MEMORY, importance 400 (cached), pss 49MB, rss 88MB; last sample: java 87.9 MB of 100.0 MB" "$T/lmkd.err" \
  && pass deaths_lmkd_status_line || fail deaths_lmkd_status_line "$(grep death "$T/lmkd.err")"
eq deaths_lmkd_json "$(ev lmkd '.[] | select(.event == "death") | .death | [.pid, .cause, .killer_figures.reason, .killer_figures.rss_kb, .killer_figures.swap_kb, .killer_figures.oom_score_adj, .killinfo.kill_reason_name, .killinfo.MemFree, .exit_info.reason, .exit_info.pss_kb, .exit_info.rss_kb, .exit_info.importance, .last_sample.java_used_kb, .last_sample.native_kb, .last_sample.pss_kb] | map(tostring) | join("|")')" \
  "100|low memory (lmkd)|device is low on swap (0kB < 314572kB) and thrashing (27%)|51234|1234|905|LOW_SWAP_AND_THRASHING|11520|LOW_MEMORY|50176|90112|400 (cached)|90000|14000|120000"
eq deaths_lmkd_samples "$(col lmkd state | sed -n 4p)/$(col lmkd cause | sed -n 4p)/$(col lmkd event | sed -n 4p | sed 's/ (reason .*//')" \
  "gone/low_memory/death pid 100 $APP: low memory (lmkd)"
eq deaths_lmkd_then_restart "$(ev lmkd '[.[] | .event] | join(",")')" "tier,tier,death,gone,restart,stop"
eq deaths_lmkd_chart "$(sed 's/xmlns="[^"]*"//' "$T/lmkd/s.csv.svg" | xmllint --xpath 'string(//*[@class="death"]/@data-cause)' -)" low_memory
eq deaths_lmkd_no_dump "$(dumps lmkd)" 0
# the samples file read back draws the same death mark (triage --samples' chart)
echo 'local t, c = hk.watch_chart(hk.watch_samples(arg.dump), {}):match("<g class=\"death\" data%-t=\"([^\"]*)\" data%-cause=\"([^\"]*)\"")
print(string.format("%.3f %s", tonumber(t), c))' >"$T/redraw.lua"
eq deaths_lmkd_chart_redrawn "$("$HK" run "$T/redraw.lua" "$T/lmkd/s.csv" 2>&1)" "$(printf '%.3f' "$(col lmkd t | sed -n 4p)") low_memory"
# `exits` lists the same death, and reads each layout of §6
for layout in sub nosub a15; do
  exitinfo $layout
  timeout 30 "$HK" exits -s "$S" "$APP" --json >"$T/exits-$layout.json" 2>"$T/exits-$layout.err"
  eq "exits_layout_$layout" "$(jq -r '[.exits[] | "\(.pid) \(.reason) \(.pss_kb) \(.rss_kb) \(.importance)"] | join(", ")' "$T/exits-$layout.json" 2>&1)" \
    "100 LOW_MEMORY 50176 90112 400 (cached), 90 OTHER KILLS BY SYSTEM null 1992294 400 (cached), 80 SIGNALED 76800 131072 125 (foreground service)"
done
eq exits_subreason "$(jq -r '.exits[1].subreason' "$T/exits-sub.json")/$(jq -r '.exits[1].subreason' "$T/exits-nosub.json")" "TOO MANY EMPTY PROCS/null"
eq exits_sigkill_text "$(jq -r '.exits[2].cause' "$T/exits-a15.json")" "killed (SIGKILL; cause not attributed by this device)"
eq exits_summary "$(jq -r '[.summary[].text] | join("; ")' "$T/exits-a15.json")" "LOW_MEMORY 1 of 3; OTHER KILLS BY SYSTEM 1 of 3; SIGNALED 1 of 3"
timeout 30 "$HK" exits -s "$S" "$APP" >"$T/exits.txt" 2>&1
grep -q "80  $APP  SIGNALED" "$T/exits.txt" && grep -q "^  SIGNALED 1 of 3" "$T/exits.txt" \
  && pass exits_table || fail exits_table "$(head -c 600 "$T/exits.txt")"

# ---- API 33: no kill record in the log (lmkd's lines not kept), exit-info records the death two
# samples late (it waits for lmkd's report): asked again, the record gains it ----
curve "$(step 110 30 40000)" "$(step 110 31 41000)" "pid=110 gone" "$(step 110 33 41000)" "$(step 110 34 41000)" "$(step 110 35 41000)"
say 2 system 1500 1520 I "ActivityManager: Process $APP (pid 110) has died: cch+5 CEM"
exitinfo nosub
sed -i 's/pid=100$/pid=110/' "$CFG/exitinfo"
echo 4 >"$CFG/exitinfo_from"
watch late --count 6 --json
eq deaths_exit_info_late "$(ev late '[.[] | select(.event | startswith("death")) | .event] | join(",")')/$(ev late '.[] | select(.event == "death") | .death | "\(.cause) \(.cause_from) \(.exit_info.reason) \(.exit_info.pss_kb) \(.sources[-1])"')" \
  "death,death-exit-info/low memory (exit-info LOW_MEMORY) exit-info LOW_MEMORY 50176 exit-info (its record, asked again)"
grep -q "death-exit-info  pid 110: pid 110 $APP: low memory (exit-info LOW_MEMORY); exit-info LOW_MEMORY, importance 400 (cached), pss 49MB, rss 88MB" "$T/late.err" \
  && pass deaths_exit_info_late_said || fail deaths_exit_info_late_said "$(grep death "$T/late.err")"

# ---- API 29: no exit-info: one line, exit 1 (the device cannot answer) ----
set_sdk 29
timeout 30 "$HK" exits -s "$S" "$APP" >"$T/old.out" 2>"$T/old.err"
eq exits_before_api30 "$?/$(grep -c . "$T/old.err")/$(cat "$T/old.err")" \
  "1/1/hprofkit exits: exit-info needs Android 11 (API 30); $S is API 29: \`hprofkit watch\` reads its deaths from logcat instead"

timeout 30 "$HK" exits "$T/no/such.txt" >/dev/null 2>"$T/bad.err"
eq exits_bad_target "$?/$(grep -c . "$T/bad.err")/$(cat "$T/bad.err")" \
  "2/1/hprofkit exits: '$T/no/such.txt' is neither a file nor a package name (letters, digits, . _)"

# ---- saved files: the real exit-info samples (toString lines, an app's own log) ----
# exitinfo-tostring-termux-api700.txt
timeout 30 "$HK" exits "$REF/exitinfo-tostring-termux-api700.txt" --json >"$T/termux.json" 2>&1
eq exits_file_tostring "$(jq -r '[.exits[] | "\(.pid) \(.reason)/\(.subreason) \(.status) \(.importance_code) \(.pss) \(.rss) \(.description)"] | join(", ")' "$T/termux.json" 2>&1)" \
  "16125 OTHER KILLS BY SYSTEM/TOO MANY EMPTY PROCS 0 400 24MB 77MB too many empty, 15301 LOW_MEMORY/UNKNOWN 0 400 0.00 (not sampled) 0.00 (not sampled) null, 23926 SIGNALED/UNKNOWN 9 125 75MB 128MB null"
# app-logged-exit-reasons-studio-status22540.log
timeout 30 "$HK" exits "$REF/app-logged-exit-reasons-studio-status22540.log" --json >"$T/status.json" 2>&1
eq exits_file_app_log "$(jq -r '.exits[] | "\(.reason) \(.description) \(.time)"' "$T/status.json" 2>&1)" \
  "USER REQUESTED remove task 2025-05-09 11:43:55.537 UTC"

# ---- API 23: logcat rejects -v epoch, so -t takes the device clock; ActivityManager's kill
# named with its reason (am-killing-empty-a5x-brief-securitytraining6.log: 5.x lines; 6.0
# prints the same `Killing pid:process/uid (adj N): reason`, FORMATS.md §4) ----
set_sdk 23
APP=com.android.deskclock
curve "$(step 32653 30 40000)" "$(step 32653 31 41000)" "$(step 32653 32 41000)" "$(step 691 1 20000)" "$(step 691 2 20000)"
relog 3 "$REF/am-killing-empty-a5x-brief-securitytraining6.log" "32653:com.android.deskclock|pid=691"
: >"$CFG/log"
watch api23 --count 5 --json
grep -q "death  pid 32653 com.android.deskclock: killed by ActivityManager: empty #7 (adj 15); last sample" "$T/api23.err" \
  && pass deaths_api23_am_reason || fail deaths_api23_am_reason "$(grep -E 'death|log' "$T/api23.err" | head -5)"
grep -q "log: logcat -v threadtime -b main,system,events,crash, since the last line's device time (API 23)" "$T/api23.err" \
  && pass deaths_api23_log_command || fail deaths_api23_log_command "$(grep 'log:' "$T/api23.err")"
eq deaths_api23_no_epoch "$(grep -c 'logcat.*epoch' "$CFG/log")/$(grep -c "logcat -d -v threadtime .* -t '11-14 22:13:2" "$CFG/log")" "0/5"
eq deaths_api23_restart "$(col api23 event | sed -n 4p | sed 's/.*; //')" "restart pid 32653 -> 691"
eq deaths_api23_sources "$(ev api23 '.[] | select(.event == "death") | .death.sources | join("|")')" \
  "logcat main,system,events,crash (2 lines over the last two samples)|exit-info: none before Android 11 (API 23)"

# ---- API 28, Android Studio's layout (am-killing-zygote-signal9-studio-cameraview606.log):
# the kill, libprocessgroup and the zygote's signal 9 ----
set_sdk 28
APP=com.google.process.gapps
curve "$(step 24229 30 40000)" "$(step 24229 31 41000)" "pid=24229 gone" "$(step 24229 33 41000)"
relog 2 "$REF/am-killing-zygote-signal9-studio-cameraview606.log"
watch studio --count 3 --json
eq deaths_studio "$(ev studio '.[] | select(.event == "death") | .death | "\(.pid) \(.cause) \(.killer_figures.adj) \(.records | join(","))"')" \
  "24229 killed by ActivityManager: empty #33 906 am_killing,zygote_signal"

# ---- API 23, no kill record (lmkd-error-has-died-cm13-viewer-magisk193.log: lmkd found the
# pid gone, ActivityManager's `has died`): unknown, naming what was read ----
set_sdk 23
APP=com.topjohnwu.magisk
curve "$(step 5845 30 40000)" "$(step 5845 31 41000)" "pid=5845 gone" "$(step 5846 1 41000)"
relog 2 "$REF/lmkd-error-has-died-cm13-viewer-magisk193.log"
watch unknown --count 3 --json
eq deaths_unknown "$(ev unknown '.[] | select(.event == "death") | .death | "\(.cause_class)|\(.sources | join("|"))|\(.records | join(","))"')" \
  "unknown|logcat main,system,events,crash (4 lines over the last two samples)|kernel log (0 lines)|exit-info: none before Android 11 (API 23)|am_has_died,lmkd_proc_gone"
ev unknown '.[] | select(.event == "death") | .detail' | grep -q "^pid 5845 $APP: unknown (read: logcat .*); ActivityManager saw it die without killing it" \
  && pass deaths_unknown_note || fail deaths_unknown_note "$(ev unknown '.[] | select(.event == "death") | .detail')"

# ---- API 19 (4.4): -t is a line count; brief has-died lines of 4.1-4.3
# (am-has-died-adj-a41-brief-so19835733.log); no kernel buffer ----
set_sdk 19
APP=com.whatsapp
curve "$(step 12041 30 40000)" "$(step 12041 31 41000)" "pid=12041 gone" "$(step 12041 33 41000)"
relog 0 "$REF/am-has-died-adj-a41-brief-so19835733.log" "partnersetup"
relog 2 "$REF/am-has-died-adj-a41-brief-so19835733.log"
watch api19 --count 3 --json
eq deaths_api19 "$(ev api19 '.[] | select(.event == "death") | .death | "\(.pid) \(.cause_class) \(.records | join(",")) \(.sources[1]) / \(.sources[2])"')" \
  "12041 unknown am_has_died kernel log: \`logcat\` exited with status 1: Unable to open log device '/dev/log/kernel': No such file or directory / dmesg: exit status 1: dmesg: klogctl: Operation not permitted"
grep -q "log: logcat -v threadtime -b main,system,events, the last 2000 lines, those seen dropped (API 19)" "$T/api19.err" \
  && pass deaths_api19_count || fail deaths_api19_count "$(grep 'log:' "$T/api19.err")"
eq deaths_api19_old_lines_dropped "$(ev api19 '[.[] | select(.event == "death") | .death.sources[0]] | .[0]')" \
  "logcat main,system,events (9 lines over the last two samples)"

# the same on a device whose dmesg the shell may read: the kernel's kill of the pid (the last one:
# an older kill of the same pid is another process's; FORMATS.md §3 "Kernel driver", dmesg layout)
curve "$(step 12041 30 40000)" "$(step 12041 31 41000)" "pid=12041 gone"
relog 2 "$REF/am-has-died-adj-a41-brief-so19835733.log" "whatsapp"
printf '%s\n' "<6>[  100.000000] lowmemorykiller: Killing 'com.whatsapp' (12041), adj 8," \
  "<6>[  100.000001]    to free 10000kB on behalf of 'kswapd0' (87) because" \
  "<6>[ 5000.000000] lowmemorykiller: Killing 'Binder_3' (12041), adj 8," \
  "   to free 45000kB on behalf of 'kswapd0' (87) because" \
  "   cache 40000kB is below limit 46080kB for oom_score_adj 470" "   Free memory is 3000kB above reserved" >"$CFG/dmesg"
watch dmesg --count 3 --json
eq deaths_api19_dmesg "$(ev dmesg '.[] | select(.event == "death") | .death | [.cause, .killer_figures.comm, .killer_figures.adj, .killer_figures.to_free_kb, .killer_figures.cache_kb, .sources[2]] | map(tostring) | join("|")')" \
  "low memory (kernel low memory killer)|Binder_3|8|45000|40000|dmesg (6 lines)"

# ---- API 24: the kernel's low memory killer, only in -b kernel (FORMATS.md §3 "Kernel
# driver": Killing '<comm>' + continuation lines; the name is a thread's, matched by pid) ----
set_sdk 24
APP=com.example.app
curve "$(step 300 30 40000)" "$(step 300 31 41000)" "pid=300 gone" "$(step 301 1 41000)"
say 2 kernel 0 0 I "lowmemorykiller: Killing 'RenderThread' (300), adj 906,"
say 2 kernel 0 0 I "lowmemorykiller:    to free 61440kB on behalf of 'kswapd0' (87) because"
say 2 kernel 0 0 I "lowmemorykiller:    cache 51200kB is below limit 55296kB for oom_score_adj 900"
say 2 kernel 0 0 I "lowmemorykiller:    Free memory is 2048kB above reserved"
say 2 system 1500 1520 I "ActivityManager: Process $APP (pid 300) has died"
watch kernel --count 3 --json
eq deaths_kernel_lmk "$(ev kernel '.[] | select(.event == "death") | .death | [.cause, .killer_figures.comm, .killer_figures.adj, .killer_figures.to_free_kb, .killer_figures.cache_kb, .killer_figures.limit_kb, .killer_figures.min_oom_score_adj, .killer_figures.free_kb] | map(tostring) | join("|")')" \
  "low memory (kernel low memory killer)|RenderThread|906|61440|51200|55296|900|2048"

# ---- API 26: lmkd 8.1-9.0, three log lines (FORMATS.md §3), am_kill of 5 fields (§2) ----
set_sdk 26
curve "$(step 400 30 40000)" "$(step 400 31 41000)" "pid=400 gone" "$(step 401 1 41000)"
say 2 main 612 612 I "lowmemorykiller: Killing '$APP' (400), uid 10190, adj 906"
say 2 main 612 612 I "lowmemorykiller:    to free 51234kB because system is under critical memory pressure oom_adj 800"
watch lmkd9 --count 3 --json
eq deaths_lmkd_9 "$(ev lmkd9 '.[] | select(.event == "death") | .death | [.cause, .killer_figures.adj, .killer_figures.to_free_kb, .killer_figures.pressure, .killer_figures.min_oom_adj] | map(tostring) | join("|")')" \
  "low memory (lmkd)|906|51234|critical|800"
curve "$(step 410 30 40000)" "$(step 410 31 41000)" "pid=410 gone"
say 2 events 1500 1520 I "am_kill : [0,410,$APP,906,excessive cpu 61000 during 300000 dur=1200000 limit=2]"
watch amkill --count 3 --json
eq deaths_am_kill_event "$(ev amkill '.[] | select(.event == "death") | .death | "\(.cause) \(.killer_figures.oom_adj)"')" \
  "killed by ActivityManager: excessive cpu 61000 during 300000 dur=1200000 limit=2 906"

# ---- API 31: crashes, from the crash buffer (libc's `Fatal signal`, AndroidRuntime's FATAL
# EXCEPTION + `Process: P, PID: N`: layouts every version prints, not in FORMATS.md) ----
set_sdk 31
curve "$(step 700 30 40000)" "$(step 700 31 41000)" "pid=700 gone"
say 2 crash 700 715 F "libc: Fatal signal 11 (SIGSEGV), code 1 (SEGV_MAPERR), fault addr 0x0 in tid 715 (RenderThread), pid 700 ($APP)"
watch native --count 3 --json
eq deaths_native_crash "$(ev native '.[] | select(.event == "death") | .death | "\(.cause_class) \(.cause)"')" \
  "crash crashed (native Fatal signal 11 SIGSEGV)"
curve "$(step 710 30 40000)" "$(step 710 31 41000)" "pid=710 gone"
say 2 crash 710 710 E "AndroidRuntime: FATAL EXCEPTION: main"
say 2 crash 710 710 E "AndroidRuntime: Process: $APP, PID: 710"
say 2 crash 710 710 E "AndroidRuntime: java.lang.OutOfMemoryError: Failed to allocate a 16 byte allocation"
watch java --count 3 --json
eq deaths_java_crash "$(ev java '.[] | select(.event == "death") | .death | "\(.cause_class) \(.cause) \(.killer_figures.thread)"')" \
  "crash crashed (Java FATAL EXCEPTION) main"

# an ANR, and ActivityManager's kill that ends it (events am_anr, am_kill: FORMATS.md §2)
curve "$(step 720 30 40000)" "$(step 720 31 41000)" "pid=720 gone"
say 2 events 1500 1520 I "am_anr  : [0,720,$APP,952680005,Input dispatching timed out]"
say 2 events 1500 1520 I "am_kill : [0,720,$APP,0,bg anr]"
watch anr --count 3 --json
eq deaths_anr "$(ev anr '.[] | select(.event == "death") | .death | "\(.cause_class) \(.killer_figures.reason) / \(.killer_figures.killed_by_am)"')" \
  "anr Input dispatching timed out / bg anr"

# ---- signals judged: am_low_memory at every sample, at a low heap, takes no dump; am_mem_factor
# below critical neither (FORMATS.md §5) ----
set_sdk 33
lowmem() { step 500 "$1" 40000 "log=1000 1020 I am_low_memory: 18"; }
curve "$(lowmem 30)" "$(lowmem 31)" "$(lowmem 32)" "$(lowmem 33)" "$(step 500 34 40000 'log=1000 1020 I am_mem_factor: [2,1]')"
watch lowmem --count 5 --skip-startup 0s
eq signals_low_memory_no_dump "$(dumps lowmem)/$(col lowmem event | grep -c '^signal am_low_memory: a process the system did not kill died')" "0/4"
eq signals_mem_factor_low "$(col lowmem event | sed -n 5p | cut -d';' -f1)" "signal memory factor LOW (was MODERATE"

# ---- a log that cannot be read: said once, memory still sampled ----
curve "$(step 600 30 40000)" "$(step 600 31 41000)" "$(step 600 32 42000)" "$(step 600 33 43000)"
echo "logcat: Unable to open log device '/dev/log/main': Permission denied" >"$CFG/logcat_broken"
watch broken --count 4
eq log_unreadable_once "$(grep -c 'log-unreadable' "$T/broken.err")/$(col broken java_used_kb | tr '\n' ' ')" "1/40000 41000 42000 43000 "
grep -q "log-unreadable  \`logcat\` exited with status 1: logcat: Unable to open log device '/dev/log/main': Permission denied; memory is still sampled" "$T/broken.err" \
  && pass log_unreadable_said || fail log_unreadable_said "$(grep log- "$T/broken.err")"

# ---- the parsers on what devices really print and on what breaks them ----
cat >"$T/parse.lua" <<'EOF'
local function show(recs)
  local out = {}
  for _, r in ipairs(recs) do
    local keys = {}
    for k in pairs(r) do if k ~= "line" and k ~= "layout" and not k:match("^log_") then keys[#keys + 1] = k end end
    table.sort(keys)
    local p = {}
    for _, k in ipairs(keys) do p[#p + 1] = k .. "=" .. tostring(r[k]) end
    out[#out + 1] = table.concat(p, " ")
  end
  return table.concat(out, "\n")
end
local text = hk.read_file(arg.dump)
print(show(os.getenv("EXIT") and hk.deaths.exit_info(text) or hk.deaths.logcat(text)))
EOF
parse() { "$HK" run "$T/parse.lua" "$1" 2>&1; }
# events-am-proc-start-payloads-4x-pidcat58.txt: payloads without a user (4.0.4) and with (4.4.2)
grep '^\[' "$REF/events-am-proc-start-payloads-4x-pidcat58.txt" | sed 's/^/I\/am_proc_start(  300): /' >"$T/start.log"
eq parse_proc_start_payloads "$(parse "$T/start.log" | awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(pid|process|user)=/) printf "%s ", $i; print "" }')" \
  "pid=18384 process=com.rayonnance.idtekt 
pid=9773 process=com.google.android.gms 
pid=2011 process=com.google.android.configupdater user=0 
pid=21185 process=com.google.android.inputmethod.latin user=0 
pid=23752 process=com.android.providers.calendar user=0 "
# collapsed spaces and no tag padding; a cut killinfo; binary junk around them
printf '1700000000.500 612 612 I lowmemorykiller: Kill '"'"'a.b'"'"' (77), uid 1, oom_score_adj 900 to free 10kB rss, 2kB swap; reason: x\n' >"$T/odd.log"
printf '1700000000.600 612 612 I am_kill: [0,78,a.b,900,empty #3]\n' >>"$T/odd.log"
printf '1700000000.700 612 612 I killinfo: [79,1000,905,20\n' >>"$T/odd.log"
head -c 3000 /dev/urandom >>"$T/odd.log"; printf '\n\x00\xff am_kill : [,,\nI/lowmemorykiller(1): Kill '"'"'\n' >>"$T/odd.log"
eq parse_odd "$(parse "$T/odd.log" | grep -E 'pid=7[789]' | sed 's/ values=.*//')" \
  "kind=lmkd_kill oom_score_adj=900 pid=77 process=a.b reason=x rss_kb=10 swap_kb=2 uid=1
kind=am_kill oom_adj=900 pid=78 process=a.b reason=empty #3 user=0
kind=killinfo min_oom_adj=20 oom_adj=905 pid=79 uid=1000"
# the kernel driver's record as dmesg prints it (later lines indented, no prefix) and lmkd
# 5.0-8.0's three lines in brief (FORMATS.md §3)
printf '<6>[ 1234.567890] lowmemorykiller: Killing '"'"'RenderThread'"'"' (4242), adj 1000,\n   to free 51234kB on behalf of '"'"'kswapd0'"'"' (87) because\n   cache 12345kB is below limit 20000kB for oom_score_adj 900\n   Free memory is 1234kB above reserved\n' >"$T/dmesg.log"
printf 'I/lowmemorykiller(  240): Killing '"'"'com.x'"'"' (555), uid 10001, adj 15\nI/lowmemorykiller(  240):    to free 20480kB because cache 30000kB is below limit 32768kB for oom_adj 9\nI/lowmemorykiller(  240):    Free memory is -1024kB below reserved\n' >>"$T/dmesg.log"
eq parse_kernel_and_lmkd5 "$(parse "$T/dmesg.log")" \
  "adj=1000 cache_kb=12345 comm=RenderThread free_kb=1234 free_vs_reserved=above kind=kernel_lmk_kill limit_kb=20000 min_oom_score_adj=900 on_behalf_of=kswapd0 pid=4242 to_free_kb=51234
adj=15 cache_kb=30000 free_kb=-1024 free_vs_reserved=below kind=lmkd_kill limit_kb=32768 min_oom_adj=9 pid=555 process=com.x to_free_kb=20480 uid=10001"
# the event tags' versions (FORMATS.md §2): am_proc_died of 3 and 5 values, am_kill of 5 and 6
# (rss), am_mem_factor's levels; tags padded to 8 in threadtime
cat >"$T/events.log" <<'EOS'
11-14 22:13:20.500  1500  1520 I am_proc_died: [0,1234,com.x]
11-14 22:13:20.501  1500  1520 I am_proc_died: [0,1235,com.y,905,19]
11-14 22:13:20.502  1500  1520 I am_kill : [0,1236,com.z,906,empty #35]
11-14 22:13:20.503  1500  1520 I am_kill : [0,1237,com.w,915,remove task,51234]
11-14 22:13:20.504  1500  1520 I am_mem_factor: [3,2]
EOS
eq parse_event_versions "$(parse "$T/events.log")" \
  "kind=am_proc_died pid=1234 process=com.x user=0
kind=am_proc_died oom_adj=905 pid=1235 proc_state=19 process=com.y user=0
kind=am_kill oom_adj=906 pid=1236 process=com.z reason=empty #35 user=0
kind=am_kill oom_adj=915 pid=1237 process=com.w reason=remove task rss_kb=51234 user=0
current=3 current_name=CRITICAL kind=am_mem_factor previous=2 previous_name=LOW"
# exit-info: an unknown reason number, a cut record, junk
printf 'ApplicationExitInfo #0:\n  pid=42\n  reason=99\n  subreason=77 (SOMETHING NEW)\n  pss=12\nApplicationExitInfo #1: pid=43 reas' >"$T/odd.txt"
head -c 2000 /dev/urandom >>"$T/odd.txt"
timeout 30 "$HK" exits "$T/odd.txt" --json >"$T/odd.json" 2>"$T/odd.err"
eq exits_odd "$?/$(jq -r '.exits[0] | "\(.pid) \(.reason) \(.subreason) \(.pss_kb)"' "$T/odd.json" 2>&1)" \
  "0/42 99 (a number hprofkit does not know) SOMETHING NEW 0"
# a bug report: the exit-info section among others; lines after a record that are not its
# fields (" pid=" of another section) leave it alone
{ echo "------ DUMPSYS (dumpsys) ------"; echo "  ProcessRecord{1 4242:com.other/u0a1} pid=4242 uid=10001";
  exitinfo nosub; cat "$CFG/exitinfo"; echo; echo "  mPid=1 pid=999 reason=1 status=7"; echo "DUMP OF SERVICE alarm:"; } >"$T/bugreport.txt"
timeout 30 "$HK" exits "$T/bugreport.txt" --json >"$T/bugreport.json" 2>&1
eq exits_bugreport "$(jq -r '[.exits[] | "\(.pid) \(.reason) \(.status)"] | join(", ")' "$T/bugreport.json" 2>&1)" \
  "100 LOW_MEMORY 0, 90 OTHER KILLS BY SYSTEM 0, 80 SIGNALED 9"
head -c 5000 /dev/urandom >"$T/junk.bin"
timeout 30 "$HK" exits "$T/junk.bin" --json >"$T/junk.json" 2>&1
eq exits_junk "$?/$(jq -r '.exits | length' "$T/junk.json" 2>&1)" "0/0"
