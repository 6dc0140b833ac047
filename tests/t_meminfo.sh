# Tests for the meminfo plugin's parsers: `dumpsys meminfo` text and
# /proc/PID/smaps, through meminfo_cli (and `hprofkit meminfo` once wired).
source "$SRC/tests/lib.sh"

MI="$BUILD/plugins/meminfo/meminfo_cli"
IN="$SRC/tests/meminfo"
if [ ! -x "$MI" ]; then
  fail meminfo_cli_built "$MI is missing: the meminfo plugin did not build"
  exit 0
fi

# jq NAME FILTER FILE WANT: the parse of FILE, filtered, must print WANT.
jqeq() {
  local n=$1 f=$2 file=$3 want=$4 got
  got=$("$MI" parse "$file" 2>"$T/stderr" | jq -c "$f" 2>&1) || { fail "$n" "parse/jq failed: $got $(head -c 300 "$T/stderr")"; return; }
  eq "$n" "$got" "$want"
}

# Every number printed in the text (from the MEMINFO line on, thousands
# separators removed) must appear somewhere among the JSON's numbers.
numbers_found() {
  local n=$1 file=$2
  "$MI" parse "$file" >"$T/j.json" 2>"$T/stderr" || { fail "$n" "parse failed: $(head -c 300 "$T/stderr")"; return; }
  awk '/MEMINFO in pid/ {on=1} on || /Uptime/ { for (i = 1; i <= NF; i++) if ($i ~ /^-?[0-9][0-9,]*$/) { gsub(",", "", $i); print $i + 0 } }' \
    "$file" | sort -u >"$T/text.nums"
  # Lines of unknown sections and unparsed lines are kept verbatim, as text.
  { jq '[.. | numbers] | unique | .[]' "$T/j.json"
    jq -r '(.sections[][], .unparsed[]) | scan("-?[0-9][0-9,]*") | gsub(","; "") | tonumber' "$T/j.json"
  } | sort -u >"$T/json.nums"
  local missing
  missing=$(comm -23 "$T/text.nums" "$T/json.nums" | tr '\n' ' ')
  local count
  count=$(wc -l <"$T/text.nums")
  if [ "$count" -lt 10 ]; then fail "$n" "only $count numbers extracted from $file: extraction broken"
  elif [ -n "$missing" ]; then fail "$n" "numbers in the text but not in the JSON: $missing"
  else pass "$n"; fi
}

# Each table row (main table and Dalvik Details) as "label|v1 v2 ..." must be
# exactly the JSON row: same name, same values in column order.
rows_exact() {
  local n=$1 file=$2
  "$MI" parse "$file" >"$T/j.json" 2>"$T/stderr" || { fail "$n" "parse failed: $(head -c 300 "$T/stderr")"; return; }
  awk '
    !on && /^[ -]+$/ && /------/ { on = 1; next }
    on && /^ ?(App Summary|Objects|SQL|DATABASES|Native Allocations|Asset Allocations)[ ]*$/ { exit }
    on {
      k = NF; while (k > 0 && $k ~ /^-?[0-9][0-9,.]*[KkMm]?$/) k--
      if (k == 0 || k == NF) next
      label = $1; for (i = 2; i <= k; i++) label = label " " $i
      vals = ""; for (i = k + 1; i <= NF; i++) { v = $i; gsub(",", "", v); vals = vals (i > k + 1 ? " " : "") v }
      print label "|" vals
    }' "$file" >"$T/text.rows"
  jq -r '. as $d | .rows[] | .name + "|" + ([$d.columns[] as $c | .values[$c] | select(. != null) | tostring] | join(" "))' \
    "$T/j.json" >"$T/json.rows"
  if [ ! -s "$T/text.rows" ]; then fail "$n" "no rows extracted from $file"
  elif diff "$T/text.rows" "$T/json.rows" >"$T/rows.diff"; then pass "$n"
  else fail "$n" "rows differ: $(head -c 400 "$T/rows.diff" | tr '\n' ' ')"; fi
}

checks_pass() {
  local n=$1 file=$2 min=$3 bad cnt
  "$MI" parse "$file" >"$T/j.json" 2>"$T/stderr" || { fail "$n" "parse failed: $(head -c 300 "$T/stderr")"; return; }
  cnt=$(jq '.checks | length' "$T/j.json")
  bad=$(jq -c '[.checks[] | select(.ok | not)]' "$T/j.json")
  if [ "$bad" != "[]" ]; then fail "$n" "checks failed: $bad"
  elif [ "$cnt" -lt "$min" ]; then fail "$n" "only $cnt checks ran, expected at least $min"
  else pass "$n"; fi
}

# ---- real captures (../shared/realdata; absent in a fresh clone) ----
real="$REALDATA/meminfo"
if [ -d "$real" ] && ls "$real"/*.txt >/dev/null 2>&1; then
  for f in "$real"/*.txt; do
    b=$(basename "$f" .txt)
    numbers_found "real_${b}_numbers_found" "$f"
    rows_exact "real_${b}_rows_exact" "$f"
    checks_pass "real_${b}_checks_pass" "$f" 6
    pid=$(sed -n 's/.*MEMINFO in pid \([0-9]*\) \[\(.*\)\] .*/\1 \2/p' "$f" | head -1)
    jqeq "real_${b}_pid_process" '"\(.pid) \(.process)"' "$f" "\"$pid\""
  done
  f=$(ls "$real"/*android6.0* 2>/dev/null | head -1)
  if [ -n "$f" ]; then
    jqeq real_android6_summary '.summary | [.java_heap, .native_heap, .code, .stack, .graphics, .private_other, .system, .total_pss, .total_rss, .total_swap]' \
      "$f" '[17976,24240,33748,1316,40829,17932,9950,145991,null,22236]'
    jqeq real_android6_objects_sql '[.objects["Parcel count"], .objects["OpenSSL Sockets"], .sql.MEMORY_USED, (.databases | length), .databases[1].cache]' \
      "$f" '[46,10,468,4,"17/26/8"]'
  else skip real_android6_summary "no android6.0 capture in $real"; fi
  f=$(ls "$real"/*old5col* 2>/dev/null | head -1)
  if [ -n "$f" ]; then
    jqeq real_android43_columns '.columns' "$f" '["Pss","Shared Dirty","Private Dirty","Heap Size","Heap Alloc","Heap Free"]'
  else skip real_android43_columns "no 4.3 capture in $real"; fi
else
  skip real_captures "no real captures in $real (a fresh clone has no ../shared)"
fi

# ---- hand-made: modern layout (Rss Total, SwapPss Dirty, Dalvik Details, App Summary Pss+Rss) ----
f="$IN/modern_android14_d.txt"
numbers_found modern_numbers_found "$f"
rows_exact modern_rows_exact "$f"
checks_pass modern_checks_pass "$f" 24
jqeq modern_columns '.columns' "$f" '["Pss Total","Private Dirty","Private Clean","SwapPss Dirty","Rss Total","Heap Size","Heap Alloc","Heap Free"]'
jqeq modern_header '[.pid, .process, .uptime]' "$f" '[12345,"com.example.app",5169210]'
jqeq modern_subrows '[.rows[] | select(.parent != null) | .parent] | group_by(.) | map([.[0], length])' "$f" \
  '[[".art mmap",2],[".dex mmap",3],["Dalvik Heap",4],["Dalvik Other",6]]'
jqeq modern_top_rows '[.rows[] | select(.parent == null)] | length' "$f" '19'
jqeq modern_compiler_metadata '.rows[] | select(.name == ".CompilerMetadata") | .values' "$f" \
  '{"Pss Total":40,"Private Dirty":20,"Private Clean":0,"SwapPss Dirty":0,"Rss Total":80}'
jqeq modern_summary '.summary' "$f" \
  '{"java_heap":4360,"native_heap":10408,"code":596,"stack":588,"graphics":8568,"private_other":1152,"system":5891,"total_pss":31563,"total_rss":132060,"total_swap":160}'
jqeq modern_summary_rss '.summary_rss' "$f" \
  '{"java_heap":23932,"native_heap":12232,"code":81364,"stack":600,"graphics":8568,"unknown":5364}'
jqeq modern_total_pss_rule '.checks[] | select(.name == "TOTAL Pss Total") | .detail' "$f" \
  '"31563 = sum of 18 rows 31403 + TOTAL SwapPss Dirty 160"'
jqeq modern_objects '.objects' "$f" \
  '{"Views":18,"ViewRootImpl":1,"AppContexts":5,"Activities":1,"Assets":12,"AssetManagers":0,"Local Binders":13,"Proxy Binders":36,"Parcel memory":5,"Parcel count":21,"Death Recipients":1,"WebViews":0}'
jqeq modern_sql '.sql' "$f" '{"MEMORY_USED":211,"PAGECACHE_OVERFLOW":43,"MALLOC_SIZE":117}'
jqeq modern_databases '[.databases[] | [.group, .name, .values["cache hits"], .values["cache misses"], .values["cache size"], .values.pgsz]]' "$f" \
  '[["PER CONNECTION STATS","/data/user/0/com.example.app/databases/app.db",11,22,4,4],["PER CONNECTION STATS","/data/user/0/com.example.app/databases/app.db (2)",7,3,1,4],["POOL STATS","/data/user/0/com.example.app/databases/app.db",18,25,5,null]]'
jqeq modern_native_allocations '.native_allocations' "$f" \
  '[{"name":"Bitmap (malloced)","values":{"Count":3,"Total(kB)":138}},{"name":"Bitmap (nonmalloced)","values":{"Count":1,"Total(kB)":1584}}]'
jqeq modern_no_warnings '[.warnings, .unparsed]' "$f" '[[],[]]'

# ---- Android 7-9 layout: SwapPss Dirty without Rss, Pss-only App Summary ----
f="$IN/android9_swappss.txt"
numbers_found android9_numbers_found "$f"
rows_exact android9_rows_exact "$f"
checks_pass android9_checks_pass "$f" 15
jqeq android9_swap_present '[.summary.total_swap, .summary.total_rss, (.rows[] | select(.name == "TOTAL") | .values["SwapPss Dirty"])]' "$f" '[160,null,160]'
jqeq android9_process_with_colon '.process' "$f" '"com.example.nine:remote"'
# Without Dalvik Details the JIT part of Code cannot be seen; the check says so.
jqeq android9_code_check '.checks[] | select(.name == "App Summary Code") | .ok' "$f" 'true'

# ---- Android 2.x: the transposed 4-column table (native dalvik other total) ----
f="$IN/android2_transposed.txt"
numbers_found android2_numbers_found "$f"
checks_pass android2_checks_pass "$f" 6
jqeq android2_columns_rows '[.columns, [.rows[].name]]' "$f" \
  '[["native","dalvik","other","total"],["size","allocated","free","(Pss)","(shared dirty)","(priv dirty)"]]'
jqeq android2_na_absent '.rows[0].values' "$f" '{"native":3904,"dalvik":3079,"total":6983}'
jqeq android2_sections '[.objects.ViewRoots, .sql.heap, .databases[0].name, .databases[0].values.dbsz, .assets[0].kb]' "$f" '[1,86,"notes.db",12,2]'
sed 's/    3823$/    3833/' "$f" >"$T/android2_broken.txt"
jqeq android2_broken_total_flagged '.checks[] | select(.name == "(Pss) total") | [.ok, (.detail | test("off by 10"))]' "$T/android2_broken.txt" '[false,true]'

# ---- missing columns and no swap ----
f="$IN/missing_columns_noswap.txt"
numbers_found missing_numbers_found "$f"
checks_pass missing_checks_pass "$f" 10
jqeq missing_columns '.columns' "$f" '["Pss Total","Private Dirty","Private Clean"]'
jqeq missing_swap_absent '[.summary.total_swap, ([.checks[].name] | index("App Summary TOTAL SWAP"))]' "$f" '[null,null]'

# ---- extra unknown rows, columns, sections, labels ----
f="$IN/extra_unknown.txt"
numbers_found extra_numbers_found "$f"
rows_exact extra_rows_exact "$f"
checks_pass extra_checks_pass "$f" 10
jqeq extra_columns_kept '.columns[-2:]' "$f" '["Extra Col","col9"]'
jqeq extra_rows_kept '[.rows[] | select(.name == "Mystery Row" or .name == "Other mtrack" or .name == "Odd") | .name]' "$f" '["Other mtrack","Mystery Row","Odd"]'
jqeq extra_summary_other '.summary_other' "$f" '{"Mystery":42}'
jqeq extra_section_kept '.sections["Unreachable memory"] | length' "$f" '2'
jqeq extra_object_kept '.objects.Gadgets' "$f" '9'
jqeq extra_warned '[.warnings[] | select(test("col9|Mystery|Unreachable"))] | length' "$f" '3'

# ---- a row longer than the header when the next extra column's name is taken (fuzz target meminfo
# found it: the columns stopped growing while the values went on, past the 32 a row holds) ----
f="$IN/header_col_name_taken.txt"
jqeq col_name_taken_columns '.columns' "$f" '["Pss","col5","Rss","col4"]'
jqeq col_name_taken_values '.rows[0].values' "$f" '{"Pss":1000,"col5":900,"Rss":1200,"col4":1}'
jqeq col_name_taken_warned '[.warnings[] | select(test("extra ones are dropped .*col5.* is taken"))] | length' "$f" '1'

# ---- a deliberately broken TOTAL (and App Summary) ----
f="$IN/broken_total.txt"
jqeq broken_total_pss_flagged '.checks[] | select(.name == "TOTAL Pss Total") | [.ok, (.detail | test("off by 100"))]' "$f" '[false,true]'
jqeq broken_total_pd_flagged '.checks[] | select(.name == "TOTAL Private Dirty") | [.ok, (.detail | test("off by -7"))]' "$f" '[false,true]'
jqeq broken_system_flagged '.checks[] | select(.name == "App Summary System") | .ok' "$f" 'false'
jqeq broken_others_ok '[.checks[] | select(.name == "TOTAL Private Clean" or .name == "TOTAL Heap Size" or .name == "App Summary Java Heap") | .ok]' "$f" '[true,true,true]'

# ---- thousands separators and unit suffixes: same values as android9, with warnings ----
f="$IN/thousands_suffix.txt"
got=$("$MI" parse "$f" | jq -c '[.rows, .summary]'); want=$("$MI" parse "$IN/android9_swappss.txt" | jq -c '[.rows, .summary]')
eq thousands_same_values "$got" "$want"
jqeq thousands_warned '[.warnings[] | select(test("thousands separators|unit suffix"))] | length' "$f" '2'
checks_pass thousands_checks_pass "$f" 15

# ---- truncated input ----
f="$IN/truncated.txt"
jqeq truncated_parsed_with_warning '[(.rows | length), (.warnings | map(select(test("no TOTAL"))) | length), (.checks[] | select(.name == "TOTAL present") | .ok)]' \
  "$f" '[12,1,false]'
err truncated_header_error 'truncated' "$MI" parse "$IN/truncated_header.txt"

# ---- not meminfo at all ----
err garbage_error 'not dumpsys meminfo output' "$MI" parse "$IN/garbage.txt"
err system_wide_error 'system-wide' "$MI" parse "$IN/system_wide.txt"
err no_process_error 'no such process' "$MI" parse "$IN/no_process.txt"
: >"$T/empty.txt"
err empty_error 'empty input' "$MI" parse "$T/empty.txt"
head -c 65536 /dev/urandom >"$T/random.bin"
err random_bytes_error 'not dumpsys meminfo output' "$MI" parse "$T/random.bin"
err random_bytes_smaps_error 'not /proc/PID/smaps' "$MI" smaps "$T/random.bin"
err missing_file_error 'cannot open' "$MI" parse "$T/does-not-exist.txt"

# Strings that need escaping (quote, backslash, tab, invalid UTF-8) come out as valid JSON.
{ printf '** MEMINFO in pid 5 [com.ex"a\\mp\tle\377] **\n'; sed -n '/^ *Pss/,$p' "$IN/android9_swappss.txt"; } >"$T/escape.txt"
got=$("$MI" parse "$T/escape.txt" | jq -r '.process' 2>&1)
eq json_escaping "$got" "$(printf 'com.ex"a\\mp\tle\357\277\275')"

# Two processes in one text: the first is parsed, the rest is named in a warning.
cat "$IN/android9_swappss.txt" "$IN/modern_android14_d.txt" >"$T/two.txt"
jqeq two_processes_first_parsed '[.pid, (.warnings | map(select(test("1 more process"))) | length)]' "$T/two.txt" '[4711,1]'

# ---- smaps: expected sums computed by hand from tests/meminfo/smaps_hand.txt ----
f="$IN/smaps_hand.txt"
if "$MI" smaps "$f" >"$T/s.json" 2>"$T/stderr"; then
  jq -r '.categories[] | [.name, (.parent // "-"), .pss, .rss, .private_clean, .private_dirty, .shared_clean, .shared_dirty, .swap, .swap_pss, .mappings] | join(",")' \
    "$T/s.json" >"$T/s.got"
  # name,parent,pss,rss,private_clean,private_dirty,shared_clean,shared_dirty,swap,swap_pss,mappings
  cat >"$T/s.want" <<'EOF'
Native Heap,-,1492,1512,0,1472,0,40,110,108,3
Dalvik Heap,-,1320,1550,0,1260,0,290,34,27,4
.Heap,Dalvik Heap,790,800,0,780,0,20,30,25,1
.LOS,Dalvik Heap,400,400,0,400,0,0,0,0,1
.Zygote,Dalvik Heap,100,300,0,60,0,240,0,0,1
.NonMoving,Dalvik Heap,30,50,0,20,0,30,4,2,1
Dalvik Other,-,236,280,4,208,48,20,0,0,6
.LinearAlloc,Dalvik Other,110,120,0,100,0,20,0,0,1
.GC,Dalvik Other,16,16,0,16,0,0,0,0,1
.ZygoteJIT,Dalvik Other,10,40,0,0,40,0,0,0,1
.AppJIT,Dalvik Other,92,96,4,84,8,0,0,0,2
.CompilerMetadata,Dalvik Other,0,0,0,0,0,0,0,0,0
.IndirectRef,Dalvik Other,8,8,0,8,0,0,0,0,1
Stack,-,168,168,0,168,0,0,0,0,2
Cursor,-,16,16,0,16,0,0,0,0,1
Ashmem,-,6,12,0,0,0,12,0,0,1
Gfx dev,-,256,256,0,256,0,0,0,0,1
Other dev,-,4,4,4,0,0,0,0,0,1
.so mmap,-,158,608,40,8,560,0,0,0,2
.jar mmap,-,70,700,0,0,700,0,0,0,1
.apk mmap,-,45,90,30,0,60,0,0,0,1
.ttf mmap,-,20,80,0,0,80,0,0,0,1
.dex mmap,-,228,360,170,0,190,0,0,0,3
.Boot vdex,.dex mmap,8,40,0,0,40,0,0,0,1
.App dex,.dex mmap,200,300,150,0,150,0,0,0,1
.App vdex,.dex mmap,20,20,20,0,0,0,0,0,1
.oat mmap,-,40,200,0,0,200,0,0,0,1
.art mmap,-,384,984,0,184,0,800,0,0,3
.App art,.art mmap,24,24,0,24,0,0,0,0,1
.Boot art,.art mmap,360,960,0,160,0,800,0,0,2
Other mmap,-,20,100,0,0,100,0,0,0,1
Unknown,-,100,100,0,100,0,0,0,0,4
EOF
  if diff "$T/s.want" "$T/s.got" >"$T/s.diff"; then pass smaps_categories_by_hand
  else fail smaps_categories_by_hand "$(head -c 500 "$T/s.diff" | tr '\n' ' ')"; fi
  eq smaps_total "$(jq -c '.total' "$T/s.json")" \
    '{"pss":4563,"rss":7020,"private_clean":248,"private_dirty":3672,"shared_clean":1938,"shared_dirty":1162,"swap":144,"swap_pss":135,"mappings":36,"pss_with_swap_pss":4698}'
  eq smaps_unknown_by_name "$(jq -c '[.unknown[] | [.name, .pss, .mappings]]' "$T/s.json")" \
    '[["[anon:.bss]",60,2],["[anon:linker_alloc]",24,1],["(no name)",16,1]]'
  eq smaps_other_mmap_by_name "$(jq -c '[.other_mmap[] | [.name, .pss]]' "$T/s.json")" \
    '[["/data/misc/shared_relro/libwebviewchromium64.relro",20]]'
else
  fail smaps_parse "$(head -c 300 "$T/stderr")"
fi
err smaps_garbage_error 'not /proc/PID/smaps' "$MI" smaps "$IN/garbage.txt"
printf '00400000-ffffffffff601000 ---p 00000000 00:00 0                          [rollup]\nRss:  100 kB\nPss:  50 kB\n' >"$T/rollup.txt"
jqs=$("$MI" smaps "$T/rollup.txt" | jq -c '[(.warnings | map(select(test("smaps_rollup"))) | length), .total.pss]')
eq smaps_rollup_warned "$jqs" '[1,50]'

# ---- the plugin and the CLI ----
so="$BUILD/plugins/meminfo/meminfo.so"
if [ -f "$so" ]; then
  # Sanitizer builds add their own __odr_asan.* markers; only our names count.
  syms=$(nm -D --defined-only "$so" | awk '$3 !~ /^__/ {print $3}' | sort | tr '\n' ' ')
  eq plugin_exports "$syms" "hk_plugin_abi hk_plugin_init hk_plugin_sdk_minor "
else
  fail plugin_built "$so is missing"
fi
# The CLI: the Lua queries over the plugin, loaded through an ini of our own so the
# test does not depend on plugins.ini's contents.
printf '[meminfo]\npath = %s\nenabled = yes\n' "$so" >"$T/plugins.ini"
HKP=("$HK" --plugins "$T/plugins.ini")
if [ ! -x "$HK" ]; then
  skip cli_meminfo "no $HK"
elif ! "${HKP[@]}" queries >"$T/q.out" 2>"$T/q.err" || ! grep -qw meminfo "$T/q.out"; then
  skip cli_meminfo "hprofkit does not list the meminfo query: $(head -c 200 "$T/q.err")"
else
  f="$IN/modern_android14_d.txt"
  keys='{pid, process, columns, rows, summary, summary_rss, objects, sql, databases, native_allocations, checks, warnings}'
  if "${HKP[@]}" meminfo "$f" --json >"$T/cli.json" 2>"$T/cli.err"; then
    eq cli_meminfo_json_same_document "$(jq -S -c "$keys" "$T/cli.json")" "$("$MI" parse "$f" | jq -S -c "$keys")"
  else
    fail cli_meminfo_json_same_document "$(head -c 300 "$T/cli.err")"
  fi
  if "${HKP[@]}" meminfo "$f" >"$T/cli.txt" 2>"$T/cli.err" && grep -q '24 checks, 0 failed' "$T/cli.txt" &&
     grep -qE '^ +\.AppJIT +200 +180 +4 +2 +400' "$T/cli.txt"; then
    pass cli_meminfo_table
  else
    fail cli_meminfo_table "$(head -c 300 "$T/cli.err") $(head -c 300 "$T/cli.txt")"
  fi
  err cli_meminfo_garbage 'not dumpsys meminfo output' "${HKP[@]}" meminfo "$IN/garbage.txt"
  err cli_meminfo_missing_file 'cannot open' "${HKP[@]}" meminfo "$T/nope.txt"
  f="$IN/smaps_hand.txt"
  if "${HKP[@]}" smaps "$f" --json --top 0 >"$T/clis.json" 2>"$T/cli.err"; then
    eq cli_smaps_json_same_document "$(jq -S -c '{categories, total, unknown, other_mmap}' "$T/clis.json")" \
      "$("$MI" smaps "$f" | jq -S -c '{categories, total, unknown, other_mmap}')"
  else
    fail cli_smaps_json_same_document "$(head -c 300 "$T/cli.err")"
  fi
  eq cli_smaps_top "$("${HKP[@]}" smaps "$f" --json --top 1 2>"$T/cli.err" | jq -c '[.unknown[].name]')" '["[anon:.bss]"]'
fi

# The Lua API a triage recipe uses: hk.meminfo.parse/smaps return tables (nulls as hk.null).
if grep -qw meminfo "$T/q.out" 2>/dev/null; then
  cat >"$T/api.lua" <<'LUA'
local t = hk.meminfo.parse(hk.read_file(arg.file))
local s = hk.meminfo.smaps(hk.read_file(arg.smaps))
print(t.pid, t.summary.graphics, t.summary.total_rss == hk.null, #t.checks,
      t.rows[1].values["Pss Total"], s.total.pss, s.unknown[1].name)
LUA
  got=$("${HKP[@]}" run "$T/api.lua" --file "$IN/android9_swappss.txt" --smaps "$IN/smaps_hand.txt" 2>"$T/api.err")
  eq lua_api_tables "$got" "$(printf '4711\t7592\ttrue\t16\t10468\t4563\t[anon:.bss]')"
  err lua_api_error_is_lua_error 'not dumpsys meminfo output' "${HKP[@]}" run "$T/api.lua" --file "$IN/garbage.txt" --smaps "$IN/smaps_hand.txt"
else
  skip lua_api_tables "hprofkit does not list the meminfo query"
fi

# ---- live: `hprofkit meminfo -s SERIAL PROCESS` through the real adb server and the
# scripted test device (tests/adbd), whose `dumpsys meminfo` prints our modern capture ----
ADBD="$BUILD/core/device/hk-adbd"
if [ ! -x "$ADBD" ] || ! command -v adb >/dev/null; then
  skip cli_meminfo_device "hk-adbd or adb missing"
elif ! grep -qw meminfo "$T/q.out" 2>/dev/null; then
  skip cli_meminfo_device "hprofkit does not list the meminfo query"
else
  unset ADB_SERVER_SOCKET ANDROID_HOME ANDROID_SDK_ROOT
  export HOME="$T/home" HK_ADB_TIMEOUT=10
  mkdir -p "$HOME" "$T/cfg"
  cp "$IN/modern_android14_d.txt" "$T/cfg/meminfo"
  printf 'ro.build.version.sdk=34\n' >"$T/cfg/props"
  "$ADBD" -c "$T/cfg" -P "$T/adbd.port" 2>"$T/adbd.err" &
  ADBD_PID=$!
  APORT=$("$ADBD" --free-port)
  cleanup_device() { timeout 5 adb -P "$APORT" kill-server >/dev/null 2>&1; kill "$ADBD_PID" 2>/dev/null; wait "$ADBD_PID" 2>/dev/null; }
  trap cleanup_device EXIT
  for _ in $(seq 100); do [ -s "$T/adbd.port" ] && break; sleep 0.1; done
  SERIAL=127.0.0.1:$(cat "$T/adbd.port")
  export ANDROID_ADB_SERVER_PORT=$APORT
  timeout 30 adb -P "$APORT" start-server >/dev/null 2>&1
  timeout 10 adb -P "$APORT" connect "$SERIAL" >/dev/null 2>&1
  if timeout 60 "${HKP[@]}" meminfo -s "$SERIAL" com.example.app --json >"$T/dev.json" 2>"$T/dev.err"; then
    keys='{pid, process, rows, summary, checks}'
    eq cli_meminfo_device "$(jq -S -c "$keys" "$T/dev.json")" "$("$MI" parse "$IN/modern_android14_d.txt" | jq -S -c "$keys")"
  else
    fail cli_meminfo_device "$(head -c 300 "$T/dev.err")"
  fi
  err cli_meminfo_device_bad_name 'must be a pid or a package name' timeout 60 "${HKP[@]}" meminfo -s "$SERIAL" 'x;reboot'
  cleanup_device
  trap - EXIT
fi
