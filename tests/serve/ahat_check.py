#!/usr/bin/env python3
"""referrers, instances and class over the explorer's API against ahat (../shared/peer/ahat, an
independent reader): ahat's incoming edges of a sample of objects, its instance counts per class
and heap, its superclasses.  Usage: ahat_check.py URL PREFIX (AhatExport's PREFIX.*.tsv)"""
import collections, json, sys, urllib.parse, urllib.request

url, prefix = sys.argv[1], sys.argv[2]
u = urllib.parse.urlparse(url)
base, token = "%s://%s" % (u.scheme, u.netloc), urllib.parse.parse_qs(u.query)["token"][0]


def api(query, **p):
    p["token"] = token
    return json.load(urllib.request.urlopen(base + "/api/query/%s?%s" % (query, urllib.parse.urlencode(p)), timeout=120))


def check(name, bad, total):
    print(("PASS " if not bad and total else "FAIL ") + name + ("" if not bad and total else ": %d of %d differ, e.g. %s" % (len(bad), total, bad[:3])))


objects = {}
for line in open(prefix + ".objects.tsv"):
    f = line.rstrip("\n").split("\t")
    if f[0] != "id":
        objects[f[0]] = f
# ahat's incoming edges, without the ones hprofkit does not have (an instance's edge to its class,
# ahat's pseudo-objects for static overhead)
incoming = collections.defaultdict(lambda: collections.defaultdict(set))
for line in open(prefix + ".edges.tsv"):
    src, dst, strength, field = line.rstrip("\n").split("\t")
    if field in (".shadow$_klass_", ".$staticOverhead") or src not in objects or dst not in objects:
        continue
    incoming[dst][src].add(field[1:] if field.startswith(".") else field)
sample = sorted(i for i in objects if int(i, 16) % 97 == 0 and objects[i][2] != "byte[]" or i in incoming and int(i, 16) % 13 == 0)[:400]
bad = []
for i in sample:
    ours = {}
    for r in api("referrers", id=i, n=100000):
        ours[r["id"]] = r["reference"]
    want = incoming.get(i, {})
    # hprofkit adds class -> superclass and class -> loader edges ahat does not have
    extra = [s for s in ours if s not in want and not (ours[s] is None or ours[s]["type"] == "superclass")]
    missing = [s for s in want if s not in ours]
    named = [s for s in want if s in ours and ours[s] and ours[s]["name"] not in want[s]]
    if extra or missing or named:
        bad.append((i, extra[:2], missing[:2], [(s, ours[s], sorted(want[s])) for s in named[:2]]))
check("referrers-equal-ahat-edges (%d objects)" % len(sample), bad, len(sample))

counts = collections.Counter((f[2], f[3]) for f in objects.values() if f[1] == "instance")
hist = api("histogram")
bad, n = [], 0
for row in hist[:40]:
    cls = row["class"]
    if cls.startswith("class ") or cls.endswith("]"):
        continue
    for heap in ("app", "zygote"):
        want = counts.get((cls, heap), 0)
        got = len(api("instances", **{"class": cls, "heap": heap, "n": 10 ** 7}))
        n += 1
        if got != want:
            bad.append((cls, heap, got, want))
check("instances-per-heap-equal-ahat (%d classes x heaps)" % n, bad, n)

supers, loaders = {}, {}
for line in open(prefix + ".meta.tsv"):
    f = line.rstrip("\n").split("\t")
    if f[2] not in ("-", "0x0"):
        supers[f[0]] = f[2]
    if f[3] not in ("-", "0x0"):
        loaders[f[0]] = f[3]
bad, n = [], 0
for row in hist[:60]:
    cls = row["class"]
    if cls.startswith("class "):
        continue
    c = api("class", name=cls)
    want = supers.get(c["id"])
    want_name = objects[want][2][len("class "):] if want in objects else None
    n += 1
    if c["super"] != want_name:
        bad.append((cls, c["super"], want_name))
check("class-super-equal-ahat (%d classes)" % n, bad, n)

# the class loader: ahat's, for every class of the app (a loader object) and the first of the rest
# (the boot loader, null)
app = [r["class"] for r in hist if r["class"].startswith("com.")]
bad, n, linked = [], 0, 0
for cls in app + [r["class"] for r in hist[:20] if not r["class"].startswith("class ")]:
    c = api("class", name=cls)
    want = loaders.get(c["id"])
    n += 1
    linked += c["loader"] is not None
    if c["loader"] != want or (want and c["loader_class"] != objects[want][2]):
        bad.append((cls, c["loader"], c["loader_class"], want))
check("class-loader-equal-ahat (%d classes, %d with a loader object)" % (n, linked), bad if linked else ["no loader"], n)

# an array's elements paged past the first hundred: each page's references are ahat's edges
# named [INDEX] (the array's element INDEX), so every index is reachable from the API
arrays = collections.defaultdict(dict)
for line in open(prefix + ".edges.tsv"):
    src, dst, strength, field = line.rstrip("\n").split("\t")
    if field.startswith("[") and field.endswith("]"):
        arrays[src][int(field[1:-1])] = dst
big = sorted((a for a in arrays if max(arrays[a]) >= 250), key=lambda a: -len(arrays[a]))[:3]
bad, pages = [], 0
for a in big:
    length = api("object", id=a, elements=0)["length"]
    for off in (0, 100, 200, length - 37):
        got = api("object", id=a, offset=off, elements=100)
        pages += 1
        want = [{"index": i, "value": arrays[a].get(i)} for i in range(off, min(length, off + 100))]
        if got["offset"] != off or [{"index": e["index"], "value": e["value"]} for e in got["elements"]] != want:
            bad.append((a, off, got["elements"][:2], want[:2]))
check("array-pages-equal-ahat-edges (%d arrays, %d pages)" % (len(big), pages), bad, pages)

# dominated: ahat's immediate dominators (strong), class objects left out (ahat's instance -> class
# edges move them)
children = collections.defaultdict(set)
for f in objects.values():
    if f[8] != "-" and f[9] == "strong" and f[1] != "class":
        children[f[8]].add(f[0])
parents = sorted(p for p in children if objects.get(p, ["", ""])[1] != "class")[::7][:150]
bad = []
for p in parents:
    ours = set(r["id"] for r in api("dominated", id=p, n=10 ** 6) if not r["class"].startswith("class "))
    if ours != children[p]:
        bad.append((p, sorted(ours - children[p])[:2], sorted(children[p] - ours)[:2]))
check("dominated-equal-ahat-idom (%d objects)" % len(parents), bad, len(parents))
