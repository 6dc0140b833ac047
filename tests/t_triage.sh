# triage: the facts (schema, the single queries' numbers, the same bytes twice, gates) and the
# HTML report in a real browser (headless Chromium: rendered DOM, console, a screenshot).
. "$SRC/tests/lib.sh"
SCHEMA="$SRC/docs/triage-facts.schema.json"
python3 -c 'import jsonschema' 2>/dev/null || { skip triage "python3-jsonschema is not installed (tools/deps.sh --test)"; exit 0; }
for s in demo bitmaps-pre26 bitmaps-api35; do
  "$GEN" --scenario $s -o $s.hprof --expect $s.json >/dev/null 2>&1 || { fail gen "genhprof $s failed"; exit 0; }
done
dumps="demo.hprof bitmaps-pre26.hprof bitmaps-api35.hprof"
for f in leakcanary-leak_service_binder aosp-art-ahat-test-dump hotspot-ahat-RI haha-sun_jdk5_64bit; do
  [ -f "$REALDATA/hprof/$f.hprof" ] && dumps="$dumps $REALDATA/hprof/$f.hprof"
done
[ -d "$REALDATA" ] || skip triage-realdata "$REALDATA is absent: generated dumps only"

# the facts of one dump against the single queries' --json
check_facts() {  # NAME DUMP FACTS
  local n=$1 d=$2 f=$3 q=$n.q
  mkdir -p "$q"
  "$HK" info "$d" --json > "$q/info.json"
  "$HK" histogram "$d" --json > "$q/histogram.json"
  "$HK" histogram "$d" -n 20 --json > "$q/histogram20.json"
  for h in $(jq -r '.heaps[]' "$q/info.json"); do "$HK" histogram "$d" --heap "$h" --json > "$q/heap-$h.json"; done
  "$HK" reachability "$d" --json > "$q/reachability.json"
  "$HK" top "$d" -n 20 --json > "$q/top.json"
  for id in $(jq -r '.top[].id' "$f"); do "$HK" dominators "$d" "$id" -n 0 --json > "$q/dom-$id.json"; done
  "$HK" bitmaps "$d" --json > "$q/bitmaps.json"
  "$HK" duplicate-bitmaps "$d" --json > "$q/dupbitmaps.json"
  "$HK" duplicate-strings "$d" -n 20 --json > "$q/dupstrings.json"
  "$HK" duplicate-arrays "$d" -n 20 --json > "$q/duparrays.json"
  sha256sum "$d" | cut -d' ' -f1 > "$q/sha256"
  python3 - "$f" "$q" "$SCHEMA" > "$q/check.out" 2>&1 <<'PY'
import json, sys, os, jsonschema
facts, q, schema = json.load(open(sys.argv[1])), sys.argv[2], json.load(open(sys.argv[3]))
jsonschema.validate(facts, schema)
L = lambda name: json.load(open(os.path.join(q, name)))
def pick(r, *names):  # queries renamed some keys (retained -> retained_bytes): either
    for k in names:
        if r.get(k) is not None: return r[k]
def same(what, got, want):
    if got != want: raise SystemExit("%s: facts %r, query %r" % (what, got, want))
info = L("info.json")
for k in ["format", "id_size", "sdk", "fingerprint", "manufacturer", "model", "process", "timestamp", "file_bytes"]:
    same("origin." + k, facts["origin"][k], info.get(k))
for k in ["objects", "classes", "instances", "object_arrays", "primitive_arrays", "gc_roots"]:
    same("totals." + k, facts["totals"][k], info[k])
hist = L("histogram.json")
same("totals.count", facts["totals"]["count"], sum(r["count"] for r in hist))
same("totals.shallow_bytes", facts["totals"]["shallow_bytes"], sum(r["shallow_bytes"] for r in hist))
for h in facts["totals"]["heaps"]:
    rows = L("heap-%s.json" % h["heap"])
    same("heap " + h["heap"], [h["count"], h["shallow_bytes"]], [sum(r["count"] for r in rows), sum(r["shallow_bytes"] for r in rows)])
same("heaps", sorted(h["heap"] for h in facts["totals"]["heaps"]), sorted(info["heaps"]))
same("reachability", [[r["reachability"], r["count"], r["shallow_bytes"]] for r in facts["totals"]["reachability"]],
     [[r["reachability"], r["count"], pick(r, "shallow_bytes", "bytes")] for r in L("reachability.json")])
same("histogram", [[r["class"], r["count"], r["shallow_bytes"], r["retained_bytes"]] for r in facts["histogram"]],
     [[r["class"], r["count"], r["shallow_bytes"], r.get("retained_bytes")] for r in L("histogram20.json")])
top = L("top.json")
same("top", [[t["id"], t["class"], t["shallow_bytes"], t["retained_bytes"], t["native_bytes"], t["retained_native_bytes"]] for t in facts["top"]],
     [[t["id"], t["class"], pick(t, "shallow_bytes", "shallow"), pick(t, "retained_bytes", "retained"),
       pick(t, "native_bytes", "native"), pick(t, "retained_native_bytes", "retained_native")] for t in top])
for t in facts["top"]:
    rows = L("dom-%s.json" % t["id"])
    chain = [[r["id"], r["class"], pick(r, "retained_bytes", "retained")] for r in rows if r["relation"] == "dominator"]
    chain.reverse()  # the query lists the root first, the facts the nearest dominator first
    same("dominators of " + t["id"], [[c["id"], c["class"], c["retained_bytes"]] for c in t["dominators"]], chain)
bm = L("bitmaps.json")
B = facts["bitmaps"]
same("bitmaps.count", B["count"], len(bm["bitmaps"]))
same("bitmaps.bytes", B["bytes"], sum(b["bytes"] for b in bm["bitmaps"]))
same("bitmaps.with_pixels", B["with_pixels"], bm["summary"]["with_image"])
same("bitmaps.list", [[b["id"], b["width"], b["height"], b["bytes"], b["source"], b["pixels_sha256"]] for b in B["bitmaps"]],
     [[b["id"], b["width"], b["height"], b["bytes"], b.get("source"), b.get("pixels_sha256")] for b in bm["bitmaps"]])
dup = L("dupbitmaps.json")
same("bitmaps.groups", [[g["count"], g["wasted_bytes"], g["ids"]] for g in B["groups"]], [[g["count"], g["wasted_bytes"], g["ids"]] for g in dup])
same("bitmaps.wasted_bytes", B["wasted_bytes"], sum(g["wasted_bytes"] for g in dup))
for key, name in [("duplicate_strings", "dupstrings.json"), ("duplicate_arrays", "duparrays.json")]:
    rows = L(name)
    same(key, facts[key]["groups"], rows)
    same(key + ".wasted_bytes", facts[key]["wasted_bytes"], sum(r["wasted_bytes"] for r in rows))
same("dump_sha256", facts["dump_sha256"], open(os.path.join(q, "sha256")).read().strip())
print("ok")
PY
  if [ "$(tail -1 "$q/check.out")" = ok ]; then pass "facts-$n"; else fail "facts-$n" "$(tail -3 "$q/check.out")"; fi
}

i=0
for d in $dumps; do
  i=$((i + 1)); n=$(basename "$d" .hprof)
  if ! "$HK" triage "$d" --json -o "$n.facts.json" 2> "$n.err"; then fail "triage-runs-$n" "$(head -c 300 "$n.err")"; continue; fi
  check_facts "$n" "$d" "$n.facts.json"
  # the same dump gives the same bytes: another run, from another directory, through another path
  mkdir -p "again$i" && cp "$d" "again$i/copy.hprof"
  # a map beside the dump is part of its input: it goes along under the copy's name
  [ -f "${d%.hprof}.map" ] && cp "${d%.hprof}.map" "again$i/copy.map"
  (cd "again$i" && "$HK" triage copy.hprof --json > facts.json 2>/dev/null)
  if cmp -s "$n.facts.json" "again$i/facts.json"; then pass "same-bytes-$n"; else fail "same-bytes-$n" "$(diff "$n.facts.json" "again$i/facts.json" | head -5)"; fi
done

# duplicate-strings and duplicate-arrays against a plain Lua grouping of the same dump
cat > dups.lua <<'LUA'
local d = hk.open(arg.dump)
local out, n = {}, 0
local values = {}
local sc = d:class("java.lang.String")
if sc then
  local texts = {}
  for s in sc:instances() do
    local v = s.value or ""
    texts[v] = (texts[v] or 0) + 1
    local arr = s:field("value")
    if type(arr) == "userdata" then values[arr.id] = true end
  end
  for v, c in pairs(texts) do
    if c > 1 and (utf8.len(v) or #v) <= 200 then out[#out + 1] = string.format("S %d %q", c, v) end
  end
end
-- arrays other reports count: Bitmaps' pixel buffers, class objects' $staticOverhead
for o in d:objects() do
  if o.kind == "class" then
    local v = o.as_class:static("$staticOverhead")
    if type(v) == "userdata" then values[v.id] = true end
  elseif o.kind == "instance" and o:is_instance_of("android.graphics.Bitmap") then
    local v = o:field("mBuffer")
    if type(v) == "userdata" then values[v.id] = true end
  end
end
local arrays = {}
for o in d:objects() do
  if o.kind == "primitive_array" and not values[o.id] then
    local ok, bytes = pcall(o.bytes, o)
    if ok and bytes then
      local k = o.class_name .. ":" .. o.length .. ":" .. bytes
      arrays[k] = (arrays[k] or 0) + 1
    end
  end
end
for k, c in pairs(arrays) do
  if c > 1 then out[#out + 1] = string.format("A %s %d %d", k:match("^([^:]+)"), tonumber(k:match("^[^:]+:(%d+)")), c) end
end
table.sort(out)
for _, l in ipairs(out) do print(l) end
LUA
for d in demo.hprof $REALDATA/hprof/aosp-art-ahat-test-dump.hprof $REALDATA/hprof/leakcanary-leak_service_binder.hprof; do
  [ -f "$d" ] || continue
  n=$(basename "$d" .hprof)
  "$HK" run dups.lua "$d" > "$n.dups.want"
  { "$HK" duplicate-strings "$d" -n 0 --json | jq -r '.[] | select(.length <= 200) | "S \(.count) \(.value | @json)"'
    "$HK" duplicate-arrays "$d" -n 0 --json | jq -r '.[] | "A \(.class) \(.length) \(.count)"'; } | LC_ALL=C sort > "$n.dups.got"
  LC_ALL=C sort -o "$n.dups.want" "$n.dups.want"
  if cmp -s "$n.dups.got" "$n.dups.want"; then pass "duplicates-$n ($(wc -l < "$n.dups.got") groups)"
  else fail "duplicates-$n" "$(diff "$n.dups.got" "$n.dups.want" | head -4)"; fi
done
"$HK" duplicate-arrays demo.hprof --json | jq -e 'type == "array"' >/dev/null && pass duplicates-empty-json || fail duplicates-empty-json "not an array"

# labels, and that nothing of the run (path, host) is in the facts
"$HK" triage demo.hprof --label build=1234 --json > labels.json
eq labels "$(jq -c .labels labels.json)" '{"build":"1234"}'
grep -q -e "$PWD" -e "$(hostname)" labels.json && fail facts-no-run-details "the path or host name is in the facts" || pass facts-no-run-details
err label-needs-key-value "KEY=VALUE" "$HK" triage demo.hprof --label nokey --json

# meminfo's App Summary against the dump
mi="$REALDATA/meminfo/droidmonitor_api23_android6.0_appsummary.txt"
if [ -f "$mi" ]; then
  "$HK" triage bitmaps-pre26.hprof --meminfo "$mi" --json > mi.json
  "$HK" meminfo "$mi" --json > mi-query.json
  eq meminfo-summary "$(jq -c .meminfo.summary mi.json)" "$(jq -c -S .summary mi-query.json)"
  eq meminfo-java-heap "$(jq -c '.meminfo.joins[] | select(.name == "Java Heap") | [.meminfo_kb, .dump_bytes, .gap_bytes]' mi.json)" \
     "$(jq -c --slurpfile f mi.json '($f[0].totals.heaps[] | select(.heap == "app") | .shallow_bytes) as $app | [.summary.java_heap, $app, .summary.java_heap * 1024 - $app]' mi-query.json)"
  eq meminfo-graphics "$(jq -c '.meminfo.joins[] | select(.name == "Graphics") | [.meminfo_kb, .dump_bytes]' mi.json)" \
     "$(jq -c --slurpfile f mi.json '[.summary.graphics, $f[0].bitmaps.bytes]' mi-query.json)"
  eq meminfo-sentences "$(jq '[.meminfo.joins[] | select(.sentence | length > 40)] | length' mi.json)" 3
  python3 -c "import json,jsonschema,sys; jsonschema.validate(json.load(open('mi.json')), json.load(open(sys.argv[1])))" "$SCHEMA" \
    && pass meminfo-schema || fail meminfo-schema "mi.json does not validate"
else
  skip meminfo "$mi is absent"
fi
err meminfo-missing-file "meminfo" "$HK" triage demo.hprof --meminfo nosuch.txt --json

# gates: each one's check on facts that trip it and on facts that do not
cat > gates.lua <<'LUA'
local g = hk.queries().triage.gates
local function facts(app, lib, retained, waste)
  return { leaks = { application = app, library = lib, application_retained_bytes = retained },
           bitmaps = { wasted_bytes = waste } }
end
local cases = {
  { "leaks", nil, facts(1, 0, 10, 0), true }, { "leaks", nil, facts(0, 3, 0, 0), false },
  { "library-leaks", nil, facts(0, 1, 0, 0), true }, { "library-leaks", nil, facts(2, 0, 5, 0), false },
  { "leak-retained", "100", facts(1, 0, 101, 0), true }, { "leak-retained", "100", facts(1, 0, 100, 0), false },
  { "bitmap-waste", "1000", facts(0, 0, 0, 1001), true }, { "bitmap-waste", "1000", facts(0, 0, 0, 1000), false },
}
for _, c in ipairs(cases) do
  local tripped, msg = g[c[1]].check(c[3], c[2])
  print(c[1], tostring(c[4]), tostring(tripped), type(msg))
end
LUA
"$HK" run gates.lua > gates.out 2>&1
bad=$(awk '$2 != $3 || $4 != "string"' gates.out)
[ -z "$bad" ] && [ "$(wc -l < gates.out)" = 8 ] && pass gates-check-functions || fail gates-check-functions "$(head -c 300 gates.out)"
# the report's panels cut long text at a character's start, never inside a UTF-8 sequence
cat > clip.lua <<LUA
local clip = require("report.html").parts.clip
local function valid(s) return utf8.len(s) ~= nil end
local long = string.rep("é", 150) .. string.rep("日本", 80)
for _, n in ipairs({ 120, 121, 200, 201, 202 }) do
  local c = clip(long, n)
  print(n, tostring(valid(c)), tostring(#c <= n + #"…"), tostring(c:sub(-3) == "…"))
end
print("short", tostring(clip("abc", 120) == "abc"))
LUA
"$HK" run clip.lua > clip.out 2>&1
bad=$(awk '$1 != "short" && ($2 != "true" || $3 != "true" || $4 != "true")' clip.out)
[ -z "$bad" ] && [ "$(wc -l < clip.out)" = 6 ] && grep -q "^short	true" clip.out && pass report-clip-utf8 \
  || fail report-clip-utf8 "$(head -c 300 clip.out)"
lc="$REALDATA/hprof/leakcanary-leak_service_binder.hprof"
if [ -f "$lc" ]; then
  waste=$(jq .bitmaps.wasted_bytes leakcanary-leak_service_binder.facts.json)
  "$HK" triage "$lc" --fail-on "bitmap-waste:$((waste - 1))" --json > g1.json 2> g1.err; rc=$?
  eq gate-bitmap-waste-trips "$rc $(jq -c .gates_tripped g1.json)" '3 ["bitmap-waste"]'
  grep -q "gate bitmap-waste tripped" g1.err && pass gate-message || fail gate-message "$(cat g1.err)"
  "$HK" triage "$lc" --fail-on "bitmap-waste:$waste" --json > g2.json 2>/dev/null; rc=$?
  eq gate-bitmap-waste-holds "$rc $(jq -c .gates_tripped g2.json)" '0 []'
else
  skip gates-cli "$lc is absent"
fi
"$HK" triage demo.hprof --fail-on leaks,leak-retained:0 --json > g3.json 2>/dev/null; rc=$?
if [ "$(jq -r .leaks.application g3.json)" = 0 ]; then want='0 []'; else want='3 ["leaks","leak-retained"]'; fi
eq gates-leaks-cli "$rc $(jq -c .gates_tripped g3.json)" "$want"
err gate-unknown "unknown gate|gate" "$HK" triage demo.hprof --fail-on nosuch --json
err gate-needs-bytes "BYTES|number" "$HK" triage demo.hprof --fail-on bitmap-waste:lots --json

# --baseline: a diff summary (or the note that this build has none); --samples: the chart
"$HK" triage demo.hprof --baseline demo.hprof --json > base.json
[ "$(jq -r '.diff | type' base.json)" = object ] && pass baseline-diff || fail baseline-diff "$(jq -c .diff base.json)"
# both keys are hashed on threads of their own beside the work (dump:sha256_start): each equals
# sha256sum's, the baseline's too when it is a .gz (the data inside it)
gzip -c bitmaps-pre26.hprof > base-pre26.hprof.gz
"$HK" triage demo.hprof --baseline base-pre26.hprof.gz --json > base2.json 2>/dev/null
eq baseline-sha256 "$(jq -r '.dump_sha256 + " " + .diff.baseline_sha256' base2.json)" \
  "$(sha256sum demo.hprof | cut -d' ' -f1) $(sha256sum bitmaps-pre26.hprof | cut -d' ' -f1)"
# the thread hashes 64 MB at a time: a dump over one piece, its hash started and the dump closed
# (the thread stopped midway, nothing left behind under ASan), then started again and read twice
"$GEN" --scenario big --size-mb 70 -o big70.hprof >/dev/null 2>&1
printf '%s\n' 'local d = hk.open("big70.hprof") d:sha256_start() d:close()' \
  'd = hk.open("big70.hprof") d:sha256_start() print(d:sha256()) print(d:sha256())' > sha_pieces.lua
want=$(sha256sum big70.hprof | cut -d' ' -f1)
eq sha256-pieces "$("$HK" run sha_pieces.lua 2>&1 | paste -sd' ')" "$want $want"
printf 't,time,state,pid,uptime_s,java_used_kb,java_max_kb,java_pct,native_kb,pss_kb,rss_kb,tier,java_max_from,event\n0,x,ok,1,1,1000,4000,25,500,3000,4000,,,\n2,x,ok,1,3,2000,4000,50,800,3600,4400,,,\n4,x,ok,1,5,3500,4000,87,900,4200,5000,85,,\n' > samples.csv
printf '{"t":0,"java_used_kb":1000,"pss_kb":3000}\n{"t":5,"java_used_kb":1500,"pss_kb":3100}\n' > samples.jsonl

# a dominator chain thousands deep (a linked list in this dump): the report is written in
# seconds (its treemap data was once encoded in time cubic in the depth)
deep="$REALDATA/hprof/aosp-art-ahat-test-dump-base.hprof"
if [ -f "$deep" ]; then
  timeout 120 "$HK" triage "$deep" --report deep.html > /dev/null 2>deep.err
  rc=$?
  [ "$rc" = 0 ] && grep -q '"tree":{' deep.html && pass report-deep-chain || fail report-deep-chain "exit $rc (124: timed out) $(head -c 300 deep.err)"
else
  skip report-deep-chain "$deep is absent"
fi

# the report in a real browser
if ! command -v chromium >/dev/null; then skip report-browser "chromium is not installed (tools/deps.sh --test)"; exit 0; fi
browse() {  # HTML OUT_PREFIX: the DOM after the page's script, the console, a screenshot
  local args=(--headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run
              --user-data-dir="$T/chromium" --host-resolver-rules="MAP * ~NOTFOUND" --virtual-time-budget=5000)
  timeout 60 chromium "${args[@]}" --enable-logging=stderr --v=0 --dump-dom "file://$1" > "$2.dom" 2> "$2.console"
  timeout 60 chromium "${args[@]}" --window-size=1280,3000 --screenshot="$2.png" "file://$1" >/dev/null 2>&1
}
for d in demo.hprof bitmaps-pre26.hprof ${lc:+$( [ -f "$lc" ] && echo "$lc")}; do
  n=$(basename "$d" .hprof)
  extra=()
  [ "$n" = demo ] && extra=(--samples samples.csv)
  [ "$n" = bitmaps-pre26 ] && [ -f "$mi" ] && extra=(--meminfo "$mi" --samples samples.jsonl)
  "$HK" triage "$d" --report "$T/$n.html" --json "${extra[@]}" > "$n.rfacts.json" 2> "$n.rerr" || { fail "report-$n" "$(head -c 300 "$n.rerr")"; continue; }
  bytes=$(stat -c %s "$n.html")
  [ "$bytes" -lt 10485760 ] && pass "report-size-$n" || fail "report-size-$n" "$bytes bytes"
  grep -qiE '(src|href)="(https?:)?//' "$n.html" && fail "report-offline-$n" "an external resource" || pass "report-offline-$n"
  browse "$T/$n.html" "$n"
  eq "report-script-done-$n" "$(grep -o 'data-ready="[a-z]*"' "$n.dom")" 'data-ready="done"'
  grep -q 'data-errors=' "$n.dom" && fail "report-no-js-errors-$n" "$(grep -o 'data-errors="[^"]*"' "$n.dom")" || pass "report-no-js-errors-$n"
  cons=$(grep -E 'CONSOLE|Uncaught|Refused' "$n.console" | head -3)
  [ -z "$cons" ] && pass "report-console-clean-$n" || fail "report-console-clean-$n" "$cons"
  python3 - "$n.dom" "$n.rfacts.json" > "$n.domcheck" 2>&1 <<'PY'
import json, re, sys
dom, facts = open(sys.argv[1]).read(), json.load(open(sys.argv[2]))
rects = set(re.findall(r'<div class="tm[^"]*"[^>]*data-id="(0x[0-9a-f]+)"', dom))
if not rects: raise SystemExit("no treemap rectangles")
# the top retainers directly under the root are rectangles of the first view; so are those
# whose dominator is one (drawn inside it) when the first view is big enough to show them
for t in facts["top"]:
    if len(t["dominators"]) == 0 and t["id"] not in rects:
        raise SystemExit("top retainer %s (%s) has no treemap rectangle" % (t["id"], t["class"]))
tips = re.findall(r'<div class="tm[^"]*" title="([^"]*)"', dom)
if not any(t["class"] in tip for t in facts["top"] for tip in tips): raise SystemExit("no class name on hover")
if '<section id="leaks">' not in dom: raise SystemExit("no leaks section")
for l in facts["leaks"]["leaks"]:
    if l["signature"] not in dom: raise SystemExit("leak %s is not shown" % l["signature"])
for b in facts["bitmaps"]["bitmaps"]:
    if ('<figure class="bitmap" data-id="%s"' % b["id"]) not in dom: raise SystemExit("bitmap %s not in the gallery" % b["id"])
    if b["source"] and not re.search(r'data-id="%s"[^>]*><img alt="[^"]*" src="data:image/png;base64,' % b["id"], dom):
        raise SystemExit("bitmap %s has pixels but no thumbnail" % b["id"])
rows = re.findall(r'<tbody><tr><td>', dom)
if 'id="hist"' not in dom or not re.search(r'id="hist".*?<tbody><tr><td>', dom, re.S): raise SystemExit("empty class table")
if facts["meminfo"] and 'id="meminfo"' not in dom: raise SystemExit("no meminfo section")
print("ok", len(rects))
PY
  if head -1 "$n.domcheck" | grep -q '^ok'; then pass "report-dom-$n"; else fail "report-dom-$n" "$(tail -2 "$n.domcheck")"; fi
  [ -s "$n.png" ] && pass "report-screenshot-$n" || fail "report-screenshot-$n" "no $n.png"
  # clicks: into a treemap node (a breadcrumb of two), back, an object's panel, the class filter
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$T/chromium" --host-resolver-rules="MAP * ~NOTFOUND" --virtual-time-budget=5000 \
    --dump-dom "file://$T/$n.html#selftest" > "$n.self.dom" 2>/dev/null
  self=$(grep -o 'data-selftest-[a-z]*="[^"]*"' "$n.self.dom" | tr '\n' ' ')
  top1=$(jq -r '.top[0].class' "$n.rfacts.json")
  if echo "$self" | grep -qE 'descend="2 [1-9]' && echo "$self" | grep -q 'back="1"' &&
     echo "$self" | grep -qF "panel=\"shown 3 $top1\"" && echo "$self" | grep -q 'filter="0"'; then
    pass "report-clicks-$n"
  else
    fail "report-clicks-$n" "$self"
  fi
done
grep -q '<section id="samples"><h2>watch samples</h2><svg' demo.html && grep -q '<polyline' demo.html \
  && pass report-samples-chart || fail report-samples-chart "no chart of samples.csv"
grep -q 'id="meminfo"' bitmaps-pre26.html 2>/dev/null || [ ! -f "$mi" ] && pass report-meminfo || fail report-meminfo "no meminfo section"
"$HK" triage bitmaps-pre26.hprof --report again.html > /dev/null 2>&1 && "$HK" triage bitmaps-pre26.hprof --report again2.html > /dev/null 2>&1
cmp -s again.html again2.html && pass report-same-bytes || fail report-same-bytes "two reports of one dump differ"
# the thumbnails are capped (400 images, 8 MB of data URIs) with a note of what was left out
"$GEN" --scenario bitmaps-many --objects 405 --width 4 --height 4 -o cap.hprof >/dev/null 2>&1
"$HK" triage cap.hprof --report cap.html > /dev/null 2>&1
eq report-thumbnail-cap "$(grep -o '<img alt' cap.html | wc -l) $(grep -o '[0-9]* thumbnails left out' cap.html)" "400 5 thumbnails left out"
# a report that cannot be written leaves nothing behind and says why
err report-bad-path "report" "$HK" triage demo.hprof --report /nonexistent/dir/r.html --json
# the gates that tripped: a banner first on the page, the same names as the facts' gates_tripped;
# no banner when the gates were checked and none tripped
if [ "$(jq -r .leaks.application demo.rfacts.json)" -gt 0 ] && [ "$(jq -r .leaks.library demo.rfacts.json)" = 0 ]; then
  "$HK" triage demo.hprof --fail-on leaks,library-leaks --report "$T/gated.html" --json > gated.json 2>/dev/null; rc=$?
  "$HK" triage demo.hprof --fail-on library-leaks --report "$T/ungated.html" --json > ungated.json 2>/dev/null; rc2=$?
  browse "$T/gated.html" gated
  browse "$T/ungated.html" ungated
  python3 - gated.dom gated.json ungated.dom ungated.json > gates-dom.out 2>&1 <<'PY'
import json, re, sys
def banner(dom):
    m = re.search(r'<body[^>]*>\s*<div id="gates" class="gates" role="alert">(.*?)</div>', dom, re.S)
    return m and re.findall(r'<li data-gate="([^"]+)"', m.group(1))
for dom, facts, want in ((sys.argv[1], sys.argv[2], ["leaks"]), (sys.argv[3], sys.argv[4], [])):
    dom, facts = open(dom).read(), json.load(open(facts))
    if 'data-ready="done"' not in dom: raise SystemExit("the page's script did not finish")
    if facts["gates_tripped"] != want: raise SystemExit("facts: %r, want %r" % (facts["gates_tripped"], want))
    got = banner(dom)
    if want and got != want: raise SystemExit("banner %r, facts %r" % (got, want))
    if not want and ('id="gates"' in dom): raise SystemExit("a gates banner though none tripped")
print("ok")
PY
  if [ "$rc $rc2" = "3 0" ] && grep -q '^ok' gates-dom.out; then pass report-gates-banner
  else fail report-gates-banner "exit $rc $rc2: $(tail -2 gates-dom.out)"; fi
  [ -s gated.png ] && pass report-gates-screenshot || fail report-gates-screenshot "no gated.png"
else
  skip report-gates-banner "demo.hprof has no application leak, or has library leaks"
fi
# dump:graph_plan: declared first, the forward references and the referrers outlive the
# dominators; without it both are freed then; an unknown phase is an error
cat > plan.lua <<'LUA'
local a = hk.open(arg.dump)
a:class_retained()
local b = hk.open(arg.dump)
b:graph_plan{ "dominators", "paths", "referrers" }
b:class_retained()
local ok, err = pcall(b.graph_plan, b, { "nosuch" })
print(table.concat(a:graph_plan(), " ") .. "|" .. table.concat(b:graph_plan(), " ") .. "|" .. tostring(ok))
LUA
eq graph-plan-keeps-references "$("$HK" run plan.lua demo.hprof 2>&1)" "native dominators|references referrers native dominators|false"
"$HK" triage demo.hprof --report same1.html > /dev/null 2>&1 && "$HK" triage demo.hprof --report same2.html > /dev/null 2>&1
cmp -s same1.html same2.html && pass report-same-bytes-leaks || fail report-same-bytes-leaks "two reports of a dump with a leak differ"
