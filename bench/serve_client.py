#!/usr/bin/env python3
"""serve_bench.sh's scripted client: latency per page's API call (p50/p95 over varied ids), the
overview's time, and the server's RSS over many requests.  Usage: serve_client.py URL PID N"""
import http.client, json, sys, time, urllib.parse

url, pid, total = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
u = urllib.parse.urlparse(url)
token = urllib.parse.parse_qs(u.query)["token"][0]
conn = http.client.HTTPConnection(u.hostname, u.port, timeout=600)


def get(query, **p):
    p["token"] = token
    t = time.perf_counter()
    conn.request("GET", "/api/query/%s?%s" % (query, urllib.parse.urlencode(p)), headers={"Host": "%s:%d" % (u.hostname, u.port)})
    r = conn.getresponse()
    body = r.read()
    dt = time.perf_counter() - t
    if r.status != 200:
        raise SystemExit("%s %s: %d %s" % (query, p, r.status, body[:200]))
    return dt, json.loads(body)


def rss_mb():
    for line in open("/proc/%d/status" % pid):
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] * 1000


_, top = get("top", n=50)
_, hist = get("histogram", n=30)
ids = [t["id"] for t in top]
classes = [h["class"] for h in hist if not h["class"].startswith("class ")]
pages = {
    "object": lambda i: get("object", id=ids[i % len(ids)]),
    "class": lambda i: get("class", name=classes[i % len(classes)]),
    "instances (first page)": lambda i: get("instances", **{"class": classes[i % len(classes)], "n": 50}),
    "referrers (first page)": lambda i: get("referrers", id=ids[i % len(ids)], n=50),
    "path": lambda i: get("path", id=ids[i % len(ids)]),
    "dominators": lambda i: get("dominators", id=ids[i % len(ids)], n=50),
}
for name, fn in pages.items():
    fn(0)  # the first of each kind builds what it keeps
    lat = [fn(i)[0] for i in range(60)]
    print("%-24s p50 %7.1f ms  p95 %7.1f ms  max %7.1f ms  (60 requests, %d distinct arguments)" %
          (name, pct(lat, .5), pct(lat, .95), max(lat) * 1000, min(60, len(ids))))
dt, _ = get("triage")
print("overview (/api/query/triage): %.2f s" % dt)
cheap = [pages["object"], pages["referrers (first page)"], pages["path"], pages["class"], pages["dominators"]]
for i in range(1000):
    cheap[i % len(cheap)](i)
before = rss_mb()
t0 = time.time()
for i in range(total):
    cheap[i % len(cheap)](i)
after = rss_mb()
print("RSS after 1,000 warm-up requests %.0f MB, after %d more %.0f MB (%+.1f %%), %.0f requests/s" %
      (before, total, after, 100 * (after - before) / before, total / (time.time() - t0)))
