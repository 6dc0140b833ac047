# hprofkit serve: the security model, the JSON API against the CLI, the console's limits, a
# client that goes away, Ctrl-C, a port in use, a dump truncated under the server (SIGBUS).
# The browser walk through the pages is t_serve_browser.sh; the MCP server is t_serve_mcp.sh.
. "$SRC/tests/lib.sh"
D="$REALDATA/hprof/leakcanary-leak_service_binder.hprof"
if [ ! -f "$D" ]; then
  "$GEN" --scenario demo -o demo.hprof >/dev/null 2>&1 || { fail gen "genhprof demo failed"; exit 0; }
  D=$PWD/demo.hprof
fi

. "$SRC/tests/serve/server.sh"

if start_server main "$D" --time-limit 2; then
  case "$URL" in http://127.0.0.1:[0-9]*/\?token=[0-9a-f]*) pass address-line ;; *) fail address-line "$URL" ;; esac
  python3 "$SRC/tests/serve/http_check.py" "$URL" "$HK" "$D"
  # referrers, instances and class against ahat, an independent reader
  AHAT="$SRC/../shared/peer/ahat/ahat.jar"
  if command -v java >/dev/null && [ -f "$AHAT" ]; then
    java -Xmx2g -cp "$AHAT" com.android.ahat.heapdump.AhatExport "$D" ahat strong edges 2>/dev/null &&
      python3 "$SRC/tests/serve/ahat_check.py" "$URL" ahat || fail ahat-export "AhatExport failed"
  else
    skip ahat "java or $AHAT is absent"
  fi
  port=${URL#http://127.0.0.1:}; port=${port%%/*}
  # a second server on the same port: one line, exit 2
  "$HK" serve "$D" --port "$port" > busy.out 2> busy.err; rc=$?
  eq port-in-use-exit-2 "$rc" 2
  eq port-in-use-one-line "$(wc -l < busy.err) $(grep -c "port $port on 127.0.0.1 is in use" busy.err)" "1 1"
  stop_server main
  grep -q 'stopping' main.err && pass ctrl-c-says-stopping || fail ctrl-c-says-stopping "$(tail -2 main.err)"
fi

# --native TRACE: the Overview's facts carry the heapprofd profile as `triage --native` gives it
PF="$SRC/../shared/reference/perfetto"
if command -v protoc >/dev/null && [ -d "$PF/tests" ]; then
  (cd "$PF" && protoc --proto_path=. --encode=perfetto.protos.Trace protos/perfetto/trace/trace.proto) \
    < "$PF/tests/heap_profile_dump_max.textproto" > np.pftrace
  if start_server native "$D" --native np.pftrace; then
    tok=${URL#*token=}
    curl -s -H "Authorization: Bearer $tok" "${URL%%/\?*}/api/query/triage" > native_facts.json
    eq serve-native-facts "$(jq -c '[.native.unreleased_bytes, .native.hotspots[0].fingerprint]' native_facts.json)" \
      "$("$HK" triage "$D" --native np.pftrace --json | jq -c '[.native.unreleased_bytes, .native.hotspots[0].fingerprint]')"
    eq serve-native-info "$(curl -s -H "Authorization: Bearer $tok" "${URL%%/\?*}/api/info" | jq .native)" true
    eq serve-native-not-settable "$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $tok" "${URL%%/\?*}/api/query/triage?native=/etc/passwd")" 400
    stop_server native
  fi
  err usage-bad-native "--native" "$HK" serve "$D" --native /nonexistent.pftrace
else
  skip serve-native "needs protoc and $PF"
fi

# usage errors
err usage-no-dump "missing DUMP" "$HK" serve
err usage-bad-port "--port needs a number" "$HK" serve "$D" --port 70000
err usage-bad-baseline "--baseline" "$HK" serve "$D" --baseline /nonexistent.hprof
"$HK" serve "$D" --bogus >/dev/null 2>&1; eq usage-unknown-option-exit-2 $? 2

# --bind: the wider address is said on stderr
if start_server wide "$D" --bind 0.0.0.0 --allow-host hk.test; then
  grep -q 'warning: listening on 0.0.0.0' wide.err && pass wide-bind-warning || fail wide-bind-warning "$(cat wide.err)"
  port=${URL#http://0.0.0.0:}; port=${port%%/*}; tok=${URL##*token=}
  code=$(python3 -c "
import http.client,sys
c=http.client.HTTPConnection('127.0.0.1',$port); c.putrequest('GET','/?token=$tok',skip_host=True); c.putheader('Host','hk.test:$port'); c.endheaders()
print(c.getresponse().status)")
  eq allow-host-200 "$code" 200
  stop_server wide
fi

# --open without a display says so, and serves all the same
if DISPLAY= WAYLAND_DISPLAY= start_server noopen "$D" --open; then
  grep -q -- '--open: no display' noopen.err && pass open-without-display || fail open-without-display "$(cat noopen.err)"
  stop_server noopen
fi

# a dump truncated under the server: the request fails with a message, later ones are refused
# the same way, the server goes on.  cut_server NAME QUERY...: a copy of the dump served (with 4
# worker threads whatever the machine's cores), cut short, then each QUERY asked.  The
# duplicates hash on the workers, and triage hashes the file on a thread of its own: a fault
# there comes back to the request's thread (without that, the server dies of SIGBUS)
cut_server() {
  local name=$1
  shift
  cp "$D" "$name.hprof"
  start_server "$name" "$PWD/$name.hprof" -j 4 || return
  tok=${URL##*token=}; base=${URL%%/\?*}
  truncate -s 4096 "$name.hprof"
  python3 - "$base" "$tok" "$name" "$@" <<'PY'
import sys, urllib.request, urllib.error
base, tok, name, queries = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4:]
def get(p):
    try:
        r = urllib.request.urlopen(base + p + ("&" if "?" in p else "?") + "token=" + tok, timeout=60)
        return r.status, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.read()
for q in queries:
    s, b = get("/api/query/" + q)
    ok = s == 500 and b"changed on disk" in b
    print(("PASS" if ok else "FAIL") + " sigbus-%s-%s" % (name, q) + ("" if ok else ": %d %s" % (s, b[:200])))
s, b = get("/")
print(("PASS" if s == 200 else "FAIL") + " sigbus-%s-server-goes-on" % name + ("" if s == 200 else ": %d" % s))
PY
  stop_server "$name"
}
cut_server cut duplicate-strings histogram
cut_server cut2 triage histogram

# the triage report shares ui.js with the explorer; its panels show reference fields as ids and
# a panel's links open panels (one hop beyond the objects the page lists)
if "$HK" triage "$D" --report report.html > /dev/null 2>&1; then
  python3 - report.html <<'PY'
import json, re, sys
s = open(sys.argv[1]).read()
d = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', s, re.S).group(1).replace("<\\/", "</"))
objs = d["objects"]
refs = [f for o in objs.values() for f in o["fields"] if f[1] == "object" and f[3]]
blank = [f for f in refs if not f[2].startswith(f[3])]
print(("PASS" if refs and not blank else "FAIL") + " report-reference-fields-shown" + ("" if refs and not blank else ": %d refs, blank %s" % (len(refs), blank[:3])))
listed = set(re.findall(r'data-id="(0x[0-9a-f]+)"', s))
linked = set(f[3] for i in listed if i in objs for f in objs[i]["fields"] if f[3])
missing = linked - set(objs)
print(("PASS" if linked and not missing else "FAIL") + " report-panel-links-open-panels" + ("" if not missing else ": %d of %d missing" % (len(missing), len(linked))))
print(("PASS" if "var HK" in s else "FAIL") + " report-inlines-ui-js")
PY
else
  fail report "triage --report failed"
fi

# instances: the selection in C (cls:ranked_instances) and the Lua walk (--subclasses: String has
# none) give the same page, in the same order, and paging is a slice of it
c_ids=$("$HK" instances "$D" java.lang.String -n 40 --json | jq -c '[.[].id]')
lua_ids=$("$HK" instances "$D" java.lang.String -n 40 --subclasses --json | jq -c '[.[].id]')
eq instances-c-equals-lua "$c_ids" "$lua_ids"
eq instances-page-is-slice "$("$HK" instances "$D" java.lang.String -n 5 --offset 10 --json | jq -c '[.[].id]')" \
  "$(echo "$c_ids" | jq -c '.[10:15]')"
eq instances-shallow-c-equals-lua "$("$HK" instances "$D" java.lang.String --sort shallow_bytes -n 40 --json | jq -c '[.[].id]')" \
  "$("$HK" instances "$D" java.lang.String --sort shallow_bytes -n 40 --subclasses --json | jq -c '[.[].id]')"
err instances-bad-sort "--sort takes" "$HK" instances "$D" java.lang.String --sort nope
err instances-unknown-class "no class named" "$HK" instances "$D" no.such.Class

