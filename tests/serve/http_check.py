#!/usr/bin/env python3
"""The explorer's server from outside, as a browser or a script would talk to it (plain sockets
and http.client, nothing of ours): the security model, the API against the CLI's --json, the
console's limits, and faults.  Prints PASS/FAIL lines.  Usage: http_check.py URL HK DUMP"""
import http.client
import json
import socket
import subprocess
import sys
import time
import urllib.parse

url, hk, dump = sys.argv[1], sys.argv[2], sys.argv[3]
u = urllib.parse.urlparse(url)
host, port = u.hostname, u.port
token = urllib.parse.parse_qs(u.query)["token"][0]


def check(name, cond, why=""):
    print(("PASS " if cond else "FAIL ") + name + ("" if cond else ": " + why), flush=True)


def req(path, method="GET", headers=None, body=None, addr=None):
    c = http.client.HTTPConnection(addr or host, port, timeout=60)
    h = {"Host": "%s:%d" % (host, port)}
    h.update(headers or {})
    c.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
    for k, v in h.items():
        c.putheader(k, v)
    data = body.encode() if isinstance(body, str) else body
    if data is not None:
        c.putheader("Content-Length", str(len(data)))
    c.endheaders(data)
    r = c.getresponse()
    out = (r.status, dict((k.lower(), v) for k, v in r.getheaders()), r.read())
    c.close()
    return out


def api(path, **params):
    params["token"] = token
    s, h, b = req("/api/" + path + "?" + urllib.parse.urlencode(params, doseq=True))
    return s, json.loads(b) if h.get("content-type", "").startswith("application/json") else b


def cli(*args):
    return json.loads(subprocess.run([hk] + list(args) + ["--json"], capture_output=True, check=True).stdout)


# ---- who may talk to it ----
s, h, b = req("/")
check("no-token-403", s == 403, "status %d" % s)
s, h, b = req("/?token=" + "0" * len(token))
check("wrong-token-403", s == 403, "status %d" % s)
s, h, b = req("/?token=" + token)
cookie = h.get("set-cookie", "")
check("token-200", s == 200 and b"explorer.js" in b, "status %d" % s)
check("cookie-port-httponly-samesite", cookie.startswith("hprofkit_token_%d=%s;" % (port, token)) and
      "HttpOnly" in cookie and "SameSite=Strict" in cookie, cookie)
jar = {"Cookie": "hprofkit_token_%d=%s" % (port, token)}
s, h, b = req("/explorer.js", headers=jar)
check("cookie-alone-200", s == 200, "status %d" % s)
s, h, b = req("/explorer.js", headers={"Cookie": "hprofkit_token_%d=%s" % (port + 1, token)})
check("other-ports-cookie-403", s == 403, "status %d" % s)
s, h, b = req("/?token=" + token, headers={"Host": "evil.example:%d" % port})
check("foreign-host-403", s == 403, "status %d" % s)
s, h, b = req("/?token=" + token, headers={"Host": "127.0.0.1:%d" % (port + 1)})
check("host-wrong-port-403", s == 403, "status %d" % s)
s, h, b = req("/?token=" + token, headers={"Host": "localhost:%d" % port})
check("host-localhost-200", s == 200, "status %d" % s)
lua = "/api/lua?token=" + token
s, h, b = req(lua, "POST", {"Origin": "http://evil.example"}, "return 1")
check("cross-origin-post-403", s == 403, "status %d" % s)
s, h, b = req(lua, "POST", {"Origin": "http://127.0.0.1:%d" % (port + 1)}, "return 1")
check("other-port-origin-post-403", s == 403, "status %d" % s)
s, h, b = req(lua, "POST", {"Origin": "http://%s:%d" % (host, port)}, "return 1")
check("same-origin-post-200", s == 200, "status %d %s" % (s, b[:200]))
for p in ["/../../../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/..%2f..%2fetc%2fpasswd", "/report/ui.js",
          "/scripts/report/ui.js", "//etc/passwd", "/api/../../etc/passwd"]:
    s, h, b = req(p + "?token=" + token)
    check("no-file-outside-assets " + p, s in (400, 403, 404) and b"root:" not in b and b"HK" not in b,
          "status %d %s" % (s, b[:80]))
check("security-headers", "frame-ancestors 'none'" in req("/", headers=jar)[1].get("content-security-policy", ""))
try:
    s, h, b = req("/", headers=dict(jar, Host="[::1]:%d" % port), addr="::1")
    check("ipv6-loopback", s == 200, "status %d" % s)
except OSError as e:
    print("SKIP ipv6-loopback: no IPv6 loopback here (%s)" % e)

# ---- the API is the CLI ----
s, got = api("query/histogram", n=7)
check("api-histogram-equals-cli", s == 200 and got == cli("histogram", dump, "-n", "7"), str(got)[:200])
s, got = api("query/top", n=3, all="")
check("api-flag-equals-cli", s == 200 and got == cli("top", dump, "-n", "3", "--all"), str(got)[:200])
top = cli("top", dump, "-n", "1")[0]["id"]
s, got = api("query/path", id=top)
check("api-path-equals-cli", s == 200 and got == cli("path", dump, top), str(got)[:200])
s, got = api("query/histogram", heap="app", sort="count", n=5)
check("api-options-combined", s == 200 and got == cli("histogram", dump, "--heap", "app", "--sort", "count", "-n", "5"))
# a char[]'s text is its elements (UTF-16 code units, decoded here by Python) over any window
strs = api("query/instances", **{"class": "java.lang.String", "n": 60})[1]
arrs = [f["value"] for r in strs for f in api("query/object", id=r["id"])[1]["fields"] if f["name"] == "value" and f["value"]]
bad = []
for a in arrs:
    full = api("query/object", id=a, elements=0)[1]
    for off, k in ((0, full["length"]), (full["length"] // 3, 50)):
        s, o = api("query/object", id=a, offset=off, elements=k)
        units = [e["value"] for e in o["elements"]]
        want = b"".join(u.to_bytes(2, "big") for u in units).decode("utf-16-be", "replace") if o["class"] == "char[]" \
            else bytes(u & 0xff for u in units).decode("latin-1")
        if s != 200 or o["text"] != want or len(units) != min(k, full["length"] - off):
            bad.append((a, off, o.get("text", "")[:20], want[:20]))
check("array-text-is-its-elements (%d arrays)" % len(arrs), arrs and not bad, str(bad[:2]))
s, got = api("query/object", id=arrs[0], offset=-1)
check("array-negative-offset-400", s == 400, "%d %s" % (s, got))
s, got = api("query/object", id="0x1")
check("unknown-id-404", s == 404 and "no object with id 0x1" in got["error"], "%d %s" % (s, got))
s, got = api("query/histogram", n="many")
check("bad-arg-400-one-line", s == 400 and "needs a number" in got["error"] and "\n" not in got["error"], str(got))
s, got = api("query/histogram", nonsense="1")
check("unknown-option-400", s == 400 and "unknown option" in got["error"], str(got))
for q, k in [("bitmaps", "export"), ("triage", "report"), ("histogram", "o"), ("histogram", "output"),
             ("bitmaps-from-dir", "dir"), ("histogram", "map")]:
    s, got = api("query/" + q, **{k: "/tmp/hk-serve-should-not-exist"})
    check("refused-400 %s --%s" % (q, k), s == 400 and "not offered" in got["error"], "%d %s" % (s, got))
for q, k in [("bitmaps", "export=/tmp/hk-serve-should-not-exist"), ("histogram", "-o"), ("histogram", "1n"),
             ("histogram", "n n")]:
    s, got = api("query/" + q, **{k: "x"})
    check("bad-name-400 %r" % k, s == 400 and "not an argument name" in got["error"], "%d %s" % (s, got))
check("nothing-written", not __import__("os").path.exists("/tmp/hk-serve-should-not-exist=x"))
for q in ["devices", "processes", "dump", "watch", "fetch-bitmaps", "convert", "fleet-ingest", "fleet-report", "diff"]:
    s, got = api("query/" + q)
    check("not-offered " + q, s == 404, "%d %s" % (s, got))
s, offered = api("queries")
names = set(x["name"] for x in offered)
every = set(x["name"] for x in json.loads(subprocess.run([hk, "queries", "--json"], capture_output=True).stdout))
expect = every - {"devices", "processes", "dump", "watch", "fetch-bitmaps", "convert", "fleet-ingest", "fleet-report",
                  "diff", "meminfo", "smaps", "plugins", "native", "native-diff", "profile-native", "exits"}  # the last ones read files they name or talk to a device
check("queries-offered", names == expect, "extra %s missing %s" % (names - expect, expect - names))
check("queries-have-schema", all(x["input_schema"]["type"] == "object" for x in offered))

# the overview's triage is kept once given (same bytes, said in a header); a listing is not
q = "/api/query/triage?token=" + token
s1, h1, b1 = req(q)
s2, h2, b2 = req(q)
check("triage-kept", s1 == 200 and s2 == 200 and b1 == b2 and h2.get("x-hprofkit-cached") == "1" and
      json.loads(b1) == cli("triage", dump), "%d %d %s" % (s1, s2, h2.get("x-hprofkit-cached")))
s4, h4, b4 = req("/api/query/leaks?token=" + token)
s5, h5, b5 = req("/api/query/leaks?fail_on=leaks&token=" + token)  # a longer key with the same start
check("kept-by-all-arguments", s4 == 200 and s5 == 200 and "x-hprofkit-cached" not in h5 and
      "gates_tripped" in json.loads(b5) and "gates_tripped" not in json.loads(b4),
      "%d %d %s" % (s4, s5, h5.get("x-hprofkit-cached")))
s3, h3, b3 = req("/api/query/histogram?n=3&token=" + token)
check("listing-not-kept", "x-hprofkit-cached" not in h3)

# ---- the console ----
s, got = api("lua")
check("console-needs-post", s == 405, str(s))
def post_lua(code):
    s, h, b = req(lua, "POST", {"Origin": "http://%s:%d" % (host, port)}, code)
    return s, json.loads(b)
s, got = post_lua("print('n', dump:info().objects) return dump:info().objects")
objects = cli("info", dump)["objects"]
check("console-lua", s == 200 and got["result"] == objects and got["output"] == "n\t%d" % objects, str(got))
s, got = post_lua("return nil + 1")
check("console-error-one-line", s == 400 and "\n" not in got["error"] and "arithmetic" in got["error"], str(got))
t0 = time.time()
s, got = post_lua("while true do end")
dt = time.time() - t0
check("console-time-limit", s == 400 and "time limit" in got["error"] and dt < 10, "%d %s %.1fs" % (s, got, dt))
# the scripts' one limit (lua_limit.c): a snippet that swallows the error with pcall is stopped too
t0 = time.time()
s, got = post_lua("while true do pcall(function() while true do end end) end")
dt = time.time() - t0
check("console-time-limit-through-pcall", s == 400 and "serve --time-limit" in got["error"] and dt < 10,
      "%d %s %.1fs" % (s, got, dt))
s, got = post_lua("return 6 * 7")
check("console-after-time-limit", s == 200 and got["result"] == 42, str(got))
s, got = post_lua("os.exit(3)")
check("console-no-exit", s == 400, str(got))
s, got = post_lua("dump:close() return 1")
check("console-close-is-its-own", s == 200, str(got))
s, got = api("query/info")
check("alive-after-console", s == 200 and got["objects"] == objects, str(got)[:100])

# ---- faults ----
for i in range(5):  # clients that go away mid-request and mid-response
    k = socket.create_connection((host, port))
    k.sendall(("GET /api/query/histogram?token=%s HTTP/1.1\r\nHost: %s:%d\r\n\r\n" % (token, host, port)).encode())
    if i % 2:
        k.recv(10)
    k.close()
k = socket.create_connection((host, port))
k.sendall(b"GET /api/query/histo")
k.close()
s, got = api("query/histogram", n=7)
check("alive-after-disconnects", s == 200 and got == cli("histogram", dump, "-n", "7"))
s, h, b = req("/api/lua?token=" + token, "POST", {"Origin": "http://%s:%d" % (host, port)}, "x" * (2 << 20))
check("body-over-1mib-413", s == 413, str(s))
