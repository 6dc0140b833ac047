# triage for a person: its text prints each leak trace as `leaks` does (one step a line) and
# the dump's time as ISO 8601; the report's sections in the order a reader looks at them, each
# leak's leaking object listed once.
. "$SRC/tests/lib.sh"
"$GEN" --scenario leaks -o leaks.hprof >/dev/null 2>&1 || { fail gen "genhprof leaks failed"; exit 0; }
printf 't,time,state,pid,uptime_s,java_used_kb,java_max_kb,java_pct,native_kb,pss_kb,rss_kb,tier,java_max_from,event\n0,x,ok,1,1,1000,4000,25,500,3000,4000,,,\n' > samples.csv
mi="$REALDATA/meminfo/droidmonitor_api23_android6.0_appsummary.txt"
extra=(--samples samples.csv)
[ -f "$mi" ] && extra+=(--meminfo "$mi")
"$HK" triage leaks.hprof --report r.html "${extra[@]}" > t.txt 2>t.err || fail triage-runs "$(head -c 300 t.err)"
"$HK" leaks leaks.hprof > l.txt

# the text: the leaks query's traces, line for line, under the counts
sed -n '/^leaks:$/,/^[a-z_]*:/p' t.txt | sed '1,2d;$d' > t.leaks
eq triage-text-traces "$(diff <(sed '/^$/d' t.leaks) <(sed '/^$/d' l.txt) >/dev/null && echo same)" "same"
eq triage-text-trace-lines "$(grep -c '^├─ \|^╰→ ' t.leaks)" "$(grep -c '^├─ \|^╰→ ' l.txt)"
eq triage-text-counts "$(sed -n '/^leaks:$/{n;p}' t.txt)" \
  "  $("$HK" triage leaks.hprof --json 2>/dev/null | jq -r '.leaks | "\(.application) application leak traces retaining \(.application_retained_bytes) B, \(.library) library leak traces"')"
eq triage-text-iso-time "$(grep -m1 '^  timestamp:' t.txt | awk '{print $2}')" \
  "$(jq -rn '1767225600000 / 1000 | strftime("%Y-%m-%dT%H:%M:%S.000Z")')"

grep -q '<b>timestamp</b> 2026-01-01T00:00:00.000Z<' r.html && pass report-iso-time || fail report-iso-time "$(grep -o '<b>timestamp</b>[^<]*' r.html)"

# the report: leaks, top retainers with the treemap, bitmaps, duplicates, meminfo and the
# watch chart when given, then the class table; the nav in the same order
want="leaks top treemap bitmaps duplicates"
[ -f "$mi" ] && want="$want meminfo"
want="$want samples classes"
eq report-section-order "$(grep -o '<section id="[a-z]*"' r.html | sed 's/.*id="\(.*\)"/\1/' | paste -sd' ')" "$want"
eq report-nav-order "$(grep -o '<nav>.*</nav>' r.html | grep -o 'href="#[a-z]*"' | sed 's/.*#\(.*\)"/\1/' | paste -sd' ')" "$want"
# each trace lists its leaking object once, as its last step (it was also repeated after it)
cat > once.py <<'PY'
import re, sys
html = open(sys.argv[1], encoding="utf-8").read()
traces = re.findall(r'<ol class="trace">(.*?)</ol>', html)
if not traces: sys.exit("no traces")
for t in traces:
    ids = re.findall(r'<li class="[^"]*"><a class="oid" href="#" data-id="(0x[0-9a-f]+)"', t)
    if not ids or ids.count(ids[-1]) != 1: sys.exit("a leaking object listed %d times" % ids.count(ids[-1]))
    if not re.search(r'<li class="LEAKING[^"]*leaking"', t): sys.exit("a last step is not the leaking one")
PY
if msg=$(python3 once.py r.html 2>&1); then pass report-last-step-once; else fail report-last-step-once "$msg"; fi
