# hprofkit serve's lists beside a baseline (diff mode) and native bytes per class row, over the
# JSON API: held to the CLI (--baseline, diff --json, diff --object) and to ahat's export of each
# dump.  The browser's view of them is t_serve_browser.sh.
. "$SRC/tests/lib.sh"
. "$SRC/tests/serve/server.sh"
AHAT="$SRC/../shared/peer/ahat/ahat.jar"
# native bytes per class row: the generated photo-gallery app (API 35, bitmaps registered with a
# NativeAllocationRegistry) over the API, per heap, against ahat's native size of each object
"$GEN" --scenario app -o app.hprof >/dev/null 2>&1 || fail gen-app "genhprof app failed"
if command -v java >/dev/null && [ -f "$AHAT" ] && [ -f app.hprof ] && start_server app "$PWD/app.hprof"; then
  java -Xmx1g -cp "$AHAT" com.android.ahat.heapdump.AhatExport app.hprof appahat strong 2>/dev/null ||
    fail ahat-export-app "AhatExport failed"
  python3 - "$URL" appahat.objects.tsv <<'PY'
import collections, json, sys, urllib.parse, urllib.request
url, tsv = sys.argv[1], sys.argv[2]
u = urllib.parse.urlparse(url)
base, tok = "%s://%s" % (u.scheme, u.netloc), urllib.parse.parse_qs(u.query)["token"][0]
def api(q, **p):
    p["token"] = tok
    return json.load(urllib.request.urlopen(base + "/api/query/%s?%s" % (q, urllib.parse.urlencode(p)), timeout=60))
want = collections.Counter()
for line in open(tsv):
    f = line.rstrip("\n").split("\t")
    if f[0] != "id" and f[1] != "class" and int(f[5]):
        want[(f[3], f[2])] += int(f[5])
        want[("", f[2])] += int(f[5])
got = collections.Counter()
for heap in ("", "app", "zygote", "image"):
    for r in api("histogram", heap=heap):
        if r["native_bytes"]:
            got[(heap, r["class"])] = r["native_bytes"]
ok = want and got == want
print(("PASS" if ok else "FAIL") + " class-native-equal-ahat (%s)" % dict(want) + ("" if ok else ": ours %s" % dict(got)))
c = api("class", name="android.graphics.Bitmap")
ok = c["native_bytes"] == want[("", "android.graphics.Bitmap")]
print(("PASS" if ok else "FAIL") + " class-api-native" + ("" if ok else ": %s" % c["native_bytes"]))
PY
  stop_server app
else
  skip class-native "java, ahat or the app dump is absent"
fi

# diff mode (--baseline): every list beside the baseline.  The API's answers are the CLI's with
# --baseline; the class rows' figures are diff --json's; each side's class counts are ahat's
# (AhatExport of each dump, with the map); the paired objects are diff --object's.
R="$REALDATA/hprof"
B="$R/aosp-art-ahat-test-dump-base.hprof" C="$R/aosp-art-ahat-test-dump.hprof" M="$R/aosp-art-ahat-test-dump.map"
if [ -f "$B" ] && [ -f "$C" ] && [ -f "$M" ] && start_server pair "$C" --map "$M" --baseline "$B" --base-map "$M"; then
  "$HK" diff "$B" "$C" --map "$M" --base-map "$M" -n 0 --no-leaks --json > pair.diff.json 2>/dev/null
  for side in base dump; do
    f=$([ $side = base ] && echo "$B" || echo "$C")
    if command -v java >/dev/null && [ -f "$AHAT" ]; then
      java -Xmx1g -Dahat.map="$M" -cp "$AHAT" com.android.ahat.heapdump.AhatExport "$f" "ahat-$side" strong 2>/dev/null ||
        fail "ahat-export-$side" "AhatExport failed"
    fi
  done
  python3 - "$URL" "$HK" "$C" "$B" "$M" <<'PY'
import collections, json, os, subprocess, sys, urllib.parse, urllib.request
url, hk, cur, base, m = sys.argv[1:6]
u = urllib.parse.urlparse(url)
host, tok = "%s://%s" % (u.scheme, u.netloc), urllib.parse.parse_qs(u.query)["token"][0]
def api(q, **p):
    p["token"] = tok
    return json.load(urllib.request.urlopen(host + "/api/query/%s?%s" % (q, urllib.parse.urlencode(p)), timeout=120))
def cli(*a):
    return json.loads(subprocess.run([hk] + list(a) + ["--map", m, "--json"], capture_output=True, check=True).stdout)
def check(name, ok, why=""):
    print(("PASS " if ok else "FAIL ") + name + ("" if ok else ": " + str(why)[:300]))

# every list over the API is the CLI's with --baseline
for q, args in [("histogram", []), ("histogram", ["--heap", "app"]), ("top", ["-n", "15"]), ("dominated", ["-n", "30"]),
                ("instances", ["DumpedStuff$StackSmasher", "-n", "20"]), ("duplicate-strings", []), ("duplicate-arrays", []),
                ("bitmaps", [])]:
    p = {"n": args[args.index("-n") + 1]} if "-n" in args else {}
    if "--heap" in args: p["heap"] = "app"
    pos = [a for a in args if not a.startswith("-") and a not in p.values()]
    if pos: p["class"] = pos[0]
    got = api(q, **p)
    want = cli(q, cur, *args, "--baseline", base)
    check("diff-mode-api-equals-cli %s %s" % (q, " ".join(args)), got == want, (str(got)[:150], str(want)[:150]))

# the class rows hold diff --json's per-class figures, and the mark follows them
d = json.load(open("pair.diff.json"))
want = {c["class"]: c for c in d["classes"]}
rows = api("histogram")
bad = []
for r in rows:
    w = want.get(r["class"])
    figs = (r["base_count"], r["count"], r["base_shallow_bytes"], r["shallow_bytes"], r["base_retained_bytes"], r["retained_bytes"])
    if not w or figs != (w["count_base"], w["count_dump"], w["shallow_base"], w["shallow_dump"], w["retained_base"], w["retained_dump"]):
        bad.append((r["class"], figs, w and (w["count_base"], w["count_dump"])))
    mark = "NEW" if not r["base_count"] else "REMOVED" if not r["count"] else \
        "GREW" if r["delta_retained_bytes"] > 0 else "SHRANK" if r["delta_retained_bytes"] < 0 else \
        "GREW" if r["delta_count"] > 0 else "SHRANK" if r["delta_count"] < 0 else "SAME"
    if r["change"] != mark:
        bad.append((r["class"], r["change"], mark))
marks = collections.Counter(r["change"] for r in rows)
check("diff-mode-classes-equal-diff-json (%s)" % dict(marks), not bad and len(rows) == len(want) and marks["NEW"] and marks["REMOVED"] and marks["GREW"], bad[:3])

# each side's instance count per class is ahat's
if os.path.exists("ahat-dump.objects.tsv"):
    sides = {}
    for side in ("base", "dump"):
        n = collections.Counter()
        for line in open("ahat-%s.objects.tsv" % side):
            f = line.rstrip("\n").split("\t")
            if f[0] != "id":
                n["java.lang.Class" if f[1] == "class" else f[2]] += 1
        sides[side] = n
    bad = [(r["class"], r["base_count"], sides["base"][r["class"]], r["count"], sides["dump"][r["class"]]) for r in rows
           if (r["base_count"], r["count"]) != (sides["base"][r["class"]], sides["dump"][r["class"]])]
    check("diff-mode-class-counts-equal-ahat (%d classes)" % len(rows), not bad, bad[:3])
else:
    print("SKIP diff-mode-class-counts-equal-ahat: java or ahat absent")

# a paired object's counterpart is diff --object's, its figures the baseline's own object's
top = api("top", n=6)
bad = []
for r in top:
    o = cli("diff", base, cur, "--base-map", m, "--object", r["id"], "--no-leaks", "--no-bitmaps")["object"]
    if (r["baseline_id"], r["change"] == "NEW") != (o["counterpart"], o["status"] == "added"):
        bad.append((r["id"], r["baseline_id"], o["counterpart"], o["status"]))
    elif r["baseline_id"]:
        b = cli("object", base, r["baseline_id"])
        if (b["retained_bytes"], b["shallow_bytes"]) != (r["base_retained_bytes"], r["base_shallow_bytes"]):
            bad.append((r["id"], "figures", b["retained_bytes"], r["base_retained_bytes"]))
check("diff-mode-top-paired-as-diff-object (%s)" % collections.Counter(r["change"] for r in top), not bad, bad)

# the Overview's facts carry both sides' totals
f = api("triage")
tb = f["diff"]["totals_base"] if f.get("diff") else {}
check("diff-mode-overview-totals-base", tb.get("objects") == cli("info", base)["objects"] and f["totals"]["objects"] == cli("info", cur)["objects"],
      (tb.get("objects"), f["totals"]["objects"]))
PY
  stop_server pair
else
  skip diff-mode "ahat's dump pair is absent"
fi
