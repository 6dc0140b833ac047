# watch: a live app's memory against the real adb server, served by the test device
# daemon as a scripted curve (tests/adbd/adbd.c: curve, curve.pos): `dumpsys meminfo`, `getprop`,
# pidof, /proc, logcat, a restart with a new pid, a device that goes away and comes back.
. "$SRC/tests/lib.sh"
. "$SRC/tests/lib_device.sh"

. "$SRC/tests/lib_watch.sh"
watch_device 35 || exit 0

# ---- tiers: each crossing logged once, with its sample; one dump at the top tier per cooldown ----
curve "$(step 100 20 50000)" "$(step 100 21 73000)" "$(step 100 22 74000)" "$(step 100 23 88000)" \
  "$(step 100 24 95000)" "$(step 100 25 96000)" "$(step 100 26 60000)" "$(step 100 27 97000)" "$(step 100 28 97000)"
watch tiers --count 9
eq watch_tiers_exit "$(cat "$T/tiers.rc")" 0
eq watch_tiers_levels "$(col tiers tier | head -9 | tr '\n' ' ')" "0 1 1 2 3 3 0 3 3 "
eq watch_tiers_crossed_at "$(col tiers event | head -9 | cut -c1-6 | tr '\n' '|')" "|tier 1||tier 2|tier 3||||stop -|"
eq watch_count "$(col tiers t | grep -c .)" 9
eq watch_tiers_one_dump "$(dumps tiers)" 1
f=$(ls "$T"/tiers/*.hprof 2>/dev/null | head -1)
cmp -s "$f" "$T/demo.hprof" && pass watch_dump_is_the_dump || fail watch_dump_is_the_dump "$f differs"
[ -s "${f%.hprof}.meminfo.txt" ] && grep -q "MEMINFO in pid 100" "${f%.hprof}.meminfo.txt" \
  && pass watch_dump_meminfo_beside || fail watch_dump_meminfo_beside "$(ls "$T/tiers")"
grep -qE "OPEN shell,v2,raw:am dumpheap -b png 100 /data/local/tmp/" "$CFG/log" \
  && pass watch_dump_no_gc || fail watch_dump_no_gc "$(grep dumpheap "$CFG/log")"
eq watch_dump_sample "$(col tiers event | sed -n 5p | grep -o 'dump tier 3 capture (92.8%)')" "dump tier 3 capture (92.8%)"
eq watch_java_max_source "$(col tiers java_max_from | sort -u)" "dalvik.vm.heapgrowthlimit"
eq watch_java_used "$(col tiers java_used_kb | sed -n 2p),$(col tiers java_max_kb | sed -n 2p),$(col tiers java_pct | sed -n 2p)" \
  "73000,102400,71.29"
grep -q "java max: heapgrowthlimit 100.0 MB" "$T/tiers.err" && pass watch_says_sources || fail watch_says_sources "$(head -2 "$T/tiers.err")"

# the cooldown passed: the next top-tier sample dumps again; --max-dumps caps it; --gc asks for -g
: >"$CFG/log"
curve "$(step 100 20 95000)" "$(step 100 21 95000)" "$(step 100 22 95000)" "$(step 100 23 95000)" "$(step 100 24 95000)"
watch maxdumps --count 5 --cooldown 0s --max-dumps 2 --gc
eq watch_max_dumps "$(dumps maxdumps)" 2
grep -q "no-dump  --max-dumps 2 reached" "$T/maxdumps.err" && pass watch_max_dumps_said || fail watch_max_dumps_said "$(tail -3 "$T/maxdumps.err")"
grep -qE "am dumpheap -g -b png 100 " "$CFG/log" && pass watch_gc || fail watch_gc "$(grep dumpheap "$CFG/log")"

# ---- the startup window, after a restart too ----
curve "$(step 200 1 97000)" "$(step 200 2 97000)" "$(step 200 20 50000)" "$(step 300 1 97000)" "$(step 300 5 98000)" \
  "$(step 300 15 80000)" "$(step 300 16 80000)"
watch startup --count 7
eq watch_startup_states "$(col startup state | head -7 | tr '\n' ' ')" "startup startup ok startup startup ok ok "
eq watch_startup_no_dump "$(dumps startup)" 0
col startup event | sed -n 4p | grep -q "^death pid 200 com.example.app: unknown (read: logcat .*; restart pid 200 -> 300$" \
  && pass watch_restart_logged || fail watch_restart_logged "$(col startup event | sed -n 4p)"
eq watch_restart_tiers_again "$(col startup event | sed -n 6p)" "tier 1 observe: Java heap 78.1% >= 70%"
eq watch_uptime "$(col startup uptime_s | head -4 | tr '\n' ' ')" "1.0 2.0 20.0 1.0 "

# ---- a logcat memory signal dumps; a process that is gone is waited for ----
curve "$(step 400 30 40000)" "$(step 400 31 41000 'log=1000 1020 I am_mem_factor: [3,2]')" "$(step 400 32 41000)" \
  "pid=400 gone" "$(step 400 33 41000)"
watch trim --count 5 --json
eq watch_events_json "$(jq -r '[.[] | .event] | join(",")' "$T/trim.out" 2>&1)" "signal,dump,death,gone,stop"
eq watch_trim_dump "$(dumps trim)" 1
col trim event | sed -n 2p | grep -q "^signal memory factor CRITICAL.*dump logcat: memory factor CRITICAL" \
  && pass watch_trim_reason || fail watch_trim_reason "$(col trim event | sed -n 2p)"
eq watch_gone "$(col trim state | sed -n 4p)/$(col trim event | sed -n 4p | sed 's/.*; //')" "gone/gone com.example.app is not running (waiting for it)"
eq watch_gone_back "$(col trim state | sed -n 5p)" "ok"

# ---- the device goes away and comes back; --duration ends a wait for it ----
curve "$(step 500 30 40000)" "$(step 500 31 41000 drop=1500)" "$(step 500 32 42000)" "$(step 500 33 43000)"
watch lost --duration 3s --interval 200ms
eq watch_device_lost_exit "$(cat "$T/lost.rc")" 0
grep -q "device-lost" "$T/lost.err" && grep -q "device-back" "$T/lost.err" \
  && pass watch_device_lost_and_back || fail watch_device_lost_and_back "$(grep -v ' pid ' "$T/lost.err" | tail -5)"
[ "$(col lost state | grep -c offline)" -ge 1 ] && pass watch_device_lost_samples || fail watch_device_lost_samples "$(col lost state | tr '\n' ' ')"
col lost java_used_kb | grep -q 43000 && pass watch_device_back_sampling || fail watch_device_back_sampling "$(col lost java_used_kb | tr '\n' ' ')"
curve "$(step 500 30 40000 drop=60000)" "$(step 500 31 41000)"
start=$(date +%s%N)
watch lostlong --duration 2s --interval 200ms
took=$(( ($(date +%s%N) - start) / 1000000 ))
eq watch_duration_while_lost "$(cat "$T/lostlong.rc")/$((took < 8000))" "0/1"
rm -f "$CFG/offline_until"
adb_wait "$S" device || timeout 10 adb -P "$APORT" connect "$S" >/dev/null 2>&1
adb_wait "$S" device

# unplugged: the device leaves the server's list (a command under way then reads "closed"), then comes back
curve "$(step 510 30 40000)"
( sleep 0.8; adb -P "$APORT" disconnect "$S" >/dev/null 2>&1; sleep 1; adb_connect "$S" ) &
unplug=$!
watch unplug --duration 6s --interval 200ms
wait $unplug
grep -qE "device-lost.*(not found|closed)" "$T/unplug.err" && grep -q "device-back" "$T/unplug.err" && [ "$(col unplug state | tail -1)" = ok ] \
  && pass watch_device_unplugged || fail watch_device_unplugged "$(grep -v ' pid ' "$T/unplug.err" | tail -5)"
adb_wait "$S" device

# ---- Ctrl-C: the current sample ends, the samples file is whole ----
curve "$(step 600 30 40000)" "$(step 600 31 41000)"
for kind in csv jsonl; do
  rm -rf "$T/int"; mkdir -p "$T/int"
  "$HK" watch -s "$S" com.example.app --interval 100ms --skip-startup 0s --dump-dir "$T/int" \
    --samples "$T/int/s.$kind" >"$T/int.out" 2>"$T/int.err" &
  p=$!
  sleep 1.2
  kill -INT $p
  wait $p; rc=$?
  n=$(grep -c . "$T/int/s.$kind")
  if [ $kind = csv ]; then
    bad=$(python3 -c 'import csv, sys
print(" ".join(str(len(r)) for r in csv.reader(open(sys.argv[1], newline="")) if len(r) != 15))' "$T/int/s.csv")
  else
    bad=$(jq -c . "$T/int/s.jsonl" >/dev/null 2>&1 || echo "not JSON lines")
  fi
  last=$(grep -o "stop  interrupted" "$T/int.err")
  if [ "$rc" = 0 ] && [ "$n" -ge 3 ] && [ -z "$bad" ] && [ "$last" = "stop  interrupted" ] && [ -s "$T/int/s.$kind.svg" ]; then
    pass watch_sigint_$kind
  else fail watch_sigint_$kind "rc $rc, $n lines, bad '$bad', last '$last'"; fi
done

# ---- the chart: well-formed SVG whose series are the samples ----
svg="$T/tiers/s.csv.svg"
xmllint --noout "$svg" 2>"$T/xml.err" && pass watch_svg_wellformed || fail watch_svg_wellformed "$(head -c 300 "$T/xml.err")"
# turn the java_used polyline back into (t, KB) and compare with the CSV
plot=$(xmllint --xpath 'string(/*/@data-plot)' "$svg"); tmax=$(xmllint --xpath 'string(/*/@data-t-max)' "$svg")
mbmax=$(xmllint --xpath 'string(/*/@data-mb-max)' "$svg")
for series in java_used_kb pss_kb java_max_kb; do
  pts=$(sed 's/xmlns="[^"]*"//' "$svg" | xmllint --xpath "//polyline[@data-series='$series']/@points" - 2>/dev/null \
    | sed 's/ points="//g; s/"//g')
  got=$(echo "$pts" | tr ' ' '\n' | grep , | awk -F, -v p="$plot" -v tm="$tmax" -v mm="$mbmax" \
    'BEGIN { split(p, g, " ") } { printf "%.1f:%.0f\n", ($1 - g[1]) / g[3] * tm, (g[2] + g[4] - $2) / g[4] * mm * 1024 / 1000 }')
  want=$(paste -d: <(col tiers t) <(col tiers $series) | awk -F: '$2 != "" { printf "%.1f:%.0f\n", $1, $2 / 1000 }')
  eq "watch_svg_series_$series" "$got" "$want"
done
eq watch_svg_tiers "$(sed 's/xmlns="[^"]*"//' "$svg" | xmllint --xpath 'count(//polyline[starts-with(@data-series,"tier")])' -)" 3
eq watch_svg_dump_marked "$(sed 's/xmlns="[^"]*"//' "$svg" | xmllint --xpath 'count(//*[@class="dump"])' -)" 1

# ---- user watchers (hk.watcher in a user script): one dumps on its own condition, one stops ----
mkdir -p "$T/scripts/commands"
cat >"$T/scripts/commands/mine.lua" <<'EOF'
hk.watcher{
  name = "native-big",
  help = "dump when the native heap passes 12 MB",
  on_sample = function(s, w)
    if s.native_kb and s.native_kb > 12 * 1024 and not w.state.done then
      w.state.done = true
      w:dump("native heap " .. s.native_kb .. " KB")
    end
  end,
}
hk.watcher{
  name = "stop-at-3",
  on_sample = function(s, w)
    w.state.n = (w.state.n or 0) + 1
    if w.state.n == 3 then w:stop("seen 3 samples") end
  end,
}
EOF
curve "$(step 700 30 40000)" "$(step 700 31 80000)" "$(step 700 32 90000)" "$(step 700 33 90000)"
HPROFKIT_SCRIPTS="$T/scripts" watch user --count 4 --watcher native-big
eq watch_user_dump "$(dumps user)" 1
grep -q "dump  native heap 13000 KB" "$T/user.err" && pass watch_user_dump_reason || fail watch_user_dump_reason "$(grep dump "$T/user.err")"
curve "$(step 700 30 40000)" "$(step 700 31 80000)" "$(step 700 32 90000)" "$(step 700 33 90000)"
HPROFKIT_SCRIPTS="$T/scripts" watch userstop --watcher tiers,stop-at-3
eq watch_user_stop "$(cat "$T/userstop.rc")/$(grep -c . "$T/userstop/s.csv")/$(col userstop event | tail -1)" \
  "0/4/tier 2 warn: Java heap 87.9% >= 85%; stop seen 3 samples"
err watch_unknown_watcher "no watcher 'nosuch' \(known: .*tiers" timeout 30 "$HK" watch -s "$S" com.example.app --watcher nosuch

# ---- --triage: the recipe named triage, when there is one, writes beside the dump ----
curve "$(step 800 30 97000)" "$(step 800 31 97000)"
watch builtin --count 2 --triage
f=$(ls "$T"/builtin/*.hprof 2>/dev/null | head -1); b=${f%.hprof}
eq watch_triage_builtin_facts "$(jq -r '"\(.schema) \(.meminfo != null)"' "$b.facts.json" 2>&1)" "hprofkit-triage/2 true"
grep -q "data-ready" "$b.report.html" 2>/dev/null && pass watch_triage_builtin_report \
  || fail watch_triage_builtin_report "$(ls "$T/builtin") $(tail -3 "$T/builtin.err")"
cat >"$T/scripts/commands/triage.lua" <<'EOF'
hk.query{ name = "triage", args = { report = "", samples = "" }, shape = "record",
  run = function(dump, args)
    local info = dump:info()
    if args.report ~= "" then hk.write_file(args.report, "<html>" .. info.instances .. "</html>") end
    return { instances = info.instances, samples = args.samples }
  end }
EOF
curve "$(step 800 30 97000)" "$(step 800 31 97000)"
HPROFKIT_SCRIPTS="$T/scripts" watch triage --count 2 --triage
f=$(ls "$T"/triage/*.hprof 2>/dev/null | head -1); b=${f%.hprof}
want=$("$HK" info "$T/demo.hprof" --json | jq .instances)
eq watch_triage_facts "$(jq -r '"\(.instances) \(.samples)"' "$b.facts.json" 2>&1)" "$want $T/triage/s.csv"
[ -s "$b.report.html" ] && pass watch_triage_report || fail watch_triage_report "$(ls "$T/triage")"

# ---- a pid names the process, which is then followed by name ----
curve "$(step 950 30 40000)"
timeout 30 "$HK" watch -s "$S" 950 --count 1 --samples "$T/bypid.csv" >/dev/null 2>"$T/bypid.err"
eq watch_by_pid "$?/$(awk -F, 'NR == 2 { print $4 }' "$T/bypid.csv")" "0/950"
touch "$CFG/no_pidof"
curve "$(step 960 30 40000)"
timeout 30 "$HK" watch -s "$S" com.example.app --count 1 --samples "$T/nopidof.csv" >/dev/null 2>"$T/nopidof.err"
eq watch_without_pidof "$?/$(awk -F, 'NR == 2 { print $4 }' "$T/nopidof.csv")" "0/960"
rm -f "$CFG/no_pidof"
err watch_no_such_pid "no process with pid 951" timeout 30 "$HK" watch -s "$S" 951 --count 1

# ---- a largeHeap app's maximum is dalvik.vm.heapsize ----
echo "    pkgFlags=[ DEBUGGABLE HAS_CODE ALLOW_CLEAR_USER_DATA LARGE_HEAP ]" >"$CFG/package"
curve "$(step 900 30 97000)" "$(step 900 31 97000)"
watch large --count 2
eq watch_large_heap "$(col large java_max_kb | head -1),$(col large java_max_from | head -1),$(dumps large)" \
  "204800,dalvik.vm.heapsize (largeHeap),0"
rm -f "$CFG/package"

# ---- a dump that fails leaves nothing ----
echo notdebuggable >"$CFG/dumpheap"
curve "$(step 1000 30 97000)" "$(step 1000 31 97000)"
watch fails --count 2
eq watch_dump_fails_exit "$(cat "$T/fails.rc")" 1
eq watch_dump_fails_clean "$(ls -A "$T/fails" | grep -v '^s\.csv')$(ls -A "$CFG/root/data/local/tmp")" ""
grep -q "dump-failed  tier 3 capture (94.7%): com.example.app is not debuggable\|dump-failed.*not debuggable" "$T/fails.err" \
  && pass watch_dump_fails_said || fail watch_dump_fails_said "$(grep dump "$T/fails.err")"
echo ok >"$CFG/dumpheap"

# ---- user errors: one line, nothing written ----
bad() { # NAME PATTERN ARGS...
  local n=$1 pat=$2; shift 2
  rm -rf "$T/bad"; mkdir -p "$T/bad"
  err "$n" "$pat" timeout 30 "$HK" watch -s "$S" com.example.app "$@"
  eq "${n}_one_line" "$(grep -c . "$T/err.err")/$(ls -A "$T/bad")" "1/"
  timeout 30 "$HK" watch -s "$S" com.example.app "$@" >/dev/null 2>&1
  eq "${n}_exit_2" "$?" 2
}
bad watch_bad_duration "--interval '2 sec' is not a duration \(say 500ms, 2s, 5m or 1h\)" --interval "2 sec"
bad watch_bad_cooldown "--cooldown '5x' is not a duration" --cooldown 5x
bad watch_bad_tiers "--tiers '90,80' must be increasing" --tiers 90,80
bad watch_bad_samples_ext "--samples '.*/bad/s.txt': the name must end in .csv or .jsonl" --samples "$T/bad/s.txt"
err watch_bad_process "'a;reboot' is not a process name or pid" timeout 30 "$HK" watch -s "$S" 'a;reboot'
bad watch_bad_count "--count needs a whole number" --count 1.5
bad watch_bad_dump_dir "--dump-dir .*/nodir is not a directory" --dump-dir "$T/bad/nodir"
rm -rf "$T/bad"; mkdir -p "$T/bad"
err watch_no_device "device nosuch:1 not found" timeout 30 "$HK" watch -s nosuch:1 com.example.app --samples "$T/bad/s.csv"
eq watch_no_device_no_samples "$(ls -A "$T/bad")" ""

# ---- the samples file read back (hk.watch_samples) draws the same chart ----
cat >"$T/redraw.lua" <<'EOF2'
local recs = hk.watch_samples(arg.dump)
local svg = hk.watch_chart(recs, { title = "x", tiers = { 70, 85, 92 } })
print(#recs, svg:match('data%-series="java_used_kb"[^>]-points="([^"]*)"'))
EOF2
a=$("$HK" run "$T/redraw.lua" "$T/tiers/s.csv" 2>&1)
b=$(sed 's/xmlns="[^"]*"//' "$T/tiers/s.csv.svg" | xmllint --xpath 'string(//polyline[@data-series="java_used_kb"]/@points)' -)
eq watch_samples_read_back "$a" "$(($(grep -c . "$T/tiers/s.csv") - 1))	$b"
a=$("$HK" run "$T/redraw.lua" "$T/int/s.jsonl" 2>&1 | cut -f1)
eq watch_samples_read_back_jsonl "$a" "$(grep -c . "$T/int/s.jsonl")"

# ---- the Lua primitives watch stands on ----
cat >"$T/prims.lua" <<'EOF2'
local a = hk.clock()
assert(hk.sleep(0.05) == true, "sleep")
local d = hk.clock() - a
assert(d >= 0.05 and d < 2, "clock " .. d)
assert(hk.interrupted() == false, "interrupted")
hk.write_file(arg.dump, "x\n")
assert(hk.read_file(arg.dump) == "x\n", "write_file")
local ok, e = pcall(hk.write_file, "/nonexistent/dir/f", "x")
assert(not ok and e:find("does the directory exist"), tostring(e))
assert(hk.watchers().tiers.source:find("watch.lua"), "tiers registered")
assert(hk.json_encode({ a = 1.5, b = { 1, 2 } }, { "a" }, { compact = true }) == '{"a":1.5,"b":[1,2]}', "compact")
assert(hk.csv_field('a,"b"') == '"a,""b"""', "csv_field")
print("ok")
EOF2
eq watch_lua_primitives "$("$HK" run "$T/prims.lua" "$T/prims.out" 2>&1)" ok
ls "$T" | grep -q 'prims.out.tmp' && fail watch_write_file_no_temp "a temporary file was left" || pass watch_write_file_no_temp
