#!/usr/bin/env python3
"""Checks one answer hprofkit printed (on stdin) against ahat's graph of the same dump
(tests/java/AhatOracle.java DUMP MAP --graph: every object, root and reference as ahat reads
them) or Shark's leaks (../shared/peer/shark's harness), for the options it ran with.  The
numbers are recomputed here, in Python, from ahat's objects and references (a plain walk, not
hprofkit's model); then the listing's options are applied as the README defines them (--class
on the class column, --sort largest first, then -n).  Prints "ok ..." or "FAIL: why" (one line).

usage: oracle_pairs.py AHAT.tsv --batch MANIFEST    one PASS/FAIL line per manifest line
       oracle_pairs.py SHARK.txt --batch MANIFEST
       oracle_pairs.py AHAT.tsv deepest   (prints the strongly reachable object farthest from the roots)
A manifest line is NAME<TAB>ANSWER-FILE<TAB>CHECK, CHECK one of (ANSWER-FILE what hprofkit printed):
       reachability [--sort COL]                              (reachability --json)
       reachability-objects                                   (top --all -n 0 --json)
       path --id ID --full PATH.json [--class GLOB] [--sort COL] [-n N]
       top [--all] [--heap H] [--class GLOB] [--sort COL] [-n N]
       bitmaps [--min-pixels N] [--export DIR]
       leaks --status RC [--fail-on GATE[:BYTES]] [--csv]      (against SHARK.txt)
"""
import argparse
import collections
import csv
import fnmatch
import hashlib
import json
import os
import shlex
import struct
import sys
import zlib

from oracle_check import read_ahat  # ahat's export: kind -> rows of cells

# hprofkit's order of strengths (README: finalizer below weak; ahat ranks it above)
ORDER = ["strong", "soft", "weak", "finalizer", "phantom"]


class Graph:
    def __init__(self, rows):
        self.label, self.heap, self.shallow, self.ahat_reach = {}, {}, {}, {}
        for i, label, heap, shallow, reach in rows["any"]:
            self.label[i], self.heap[i], self.shallow[i], self.ahat_reach[i] = label, heap, int(shallow), reach
        self.retained = {r[0]: int(r[3]) for r in rows["obj"]}
        self.roots = [r[0] for r in rows["root"]]
        self.out = collections.defaultdict(list)
        for src, dst, field, strength in rows["ref"]:
            if dst in self.label:
                self.out[src].append((dst, field, ORDER.index(strength.lower())))
        self.bitmaps = rows["bitmap"]

    def reach(self):
        """Each object's strength: the best over the paths from the roots of the weakest reference
        on the path, levels taken strongest first (a widest-path walk over ahat's references)."""
        if hasattr(self, "strength"):
            return self.strength
        got = {}
        for level in range(len(ORDER)):
            todo = [r for r in self.roots if r in self.label] + [x for x in got]
            seen = set(got)
            while todo:
                x = todo.pop()
                if x not in got:
                    got[x] = ORDER[level]
                for y, _, s in self.out[x]:
                    if s <= level and y not in seen:
                        seen.add(y)
                        todo.append(y)
            for r in self.roots:
                seen.add(r)
        self.strength = {i: got.get(i, "unreachable") for i in self.label}
        return self.strength

    def distance_from(self, start, strongest):
        """Steps from start to every object over references no weaker than strongest."""
        dist, todo = {start: 1}, collections.deque([start])
        while todo:
            x = todo.popleft()
            for y, _, s in self.out[x]:
                if s <= strongest and y not in dist:
                    dist[y] = dist[x] + 1
                    todo.append(y)
        return dist


def listing(args, rows, key=lambda r: r):
    """The README's listing options over the full, checked rows: --class, then --sort, then -n."""
    if args.glob:
        rows = [r for r in rows if fnmatch.fnmatchcase(r["class"], args.glob)]
    if args.sort:
        rows = sorted(rows, key=lambda r: -r[args.sort])
    return rows[:args.n] if args.n > 0 else rows


def same_listing(args, ours, want, key):
    """ours equals want row for row, rows tied under --sort in any order."""
    if len(ours) != len(want):
        return "%d rows, want %d" % (len(ours), len(want))
    if not args.sort:
        bad = [(r, w) for r, w in zip(ours, want) if r != w]
        return "row %s, want %s" % bad[0] if bad else None
    vs, ws = [r[args.sort] for r in ours], [w[args.sort] for w in want]
    if vs != ws:
        return "%s %s, want %s" % (args.sort, vs[:8], ws[:8])
    def by_value(rows):
        groups = collections.defaultdict(list)
        for r in rows:
            groups[r[args.sort]].append(json.dumps(r, sort_keys=True))
        return {v: sorted(g) for v, g in groups.items()}
    a, b = by_value(ours), by_value(want)
    bad = [v for v in a if a[v] != b.get(v)]
    return "the rows with %s %s differ" % (args.sort, bad[0]) if bad else None


def deepest(g):
    """The strongly reachable object farthest from every root (ties: the lowest id)."""
    dist, todo = {}, collections.deque()
    for r in g.roots:
        if r in g.label and r not in dist:
            dist[r] = 1
            todo.append(r)
    while todo:
        x = todo.popleft()
        for y, _, s in g.out[x]:
            if s == 0 and y not in dist:
                dist[y] = dist[x] + 1
                todo.append(y)
    return min(dist, key=lambda i: (-dist[i], int(i, 16)))


def check_reachability(args, g, ours):
    reach = g.reach()
    want = []
    for k in ORDER + ["unreachable"]:
        ids = [i for i in reach if reach[i] == k]
        want.append({"reachability": k, "count": len(ids), "shallow_bytes": sum(g.shallow[i] for i in ids)})
    # ahat's own strengths where the order of the two conventions cannot matter
    for k in ("strong", "soft", "unreachable"):
        if sum(1 for i in reach if reach[i] == k) != sum(1 for i in g.ahat_reach if g.ahat_reach[i] == k):
            return "the walk's %s differs from ahat's own" % k
    mine = [{c: r[c] for c in ("reachability", "count", "shallow_bytes")} for r in ours]
    return same_listing(args, mine, listing(args, want), lambda r: r["reachability"])


def check_reach_objects(g, ours):
    reach = g.reach()
    mine = {r["id"]: r["reachability"] for r in ours}
    if set(mine) != set(reach):
        return "objects differ: ahat only %s, ours only %s" % (sorted(set(reach) - set(mine))[:3], sorted(set(mine) - set(reach))[:3])
    bad = [i for i in reach if mine[i] != reach[i]]
    return "%d objects differ, e.g. %s ours %s, walk %s" % (len(bad), bad[0], mine[bad[0]], reach[bad[0]]) if bad else None


def check_path(args, g, ours):
    """The whole path (no options) must be a chain of ahat's references from an object a GC root
    holds, as short as any from that root, strong unless nothing strong reaches the object."""
    full = json.load(open(args.full))
    ids = [s["object"] for s in full]
    if not ids or ids[-1] != args.id or ids[0] not in set(g.roots):
        return "path %s does not run from a root to %s" % (ids[:2], args.id)
    weak = g.reach()[args.id] != "strong"
    for a, b, step in zip(ids, ids[1:], full[1:]):
        refs = [(f, s) for y, f, s in g.out[a] if y == b]
        name = step["reference"]["name"]
        if not any(f.lstrip(".") == name or f == "[%s]" % name.strip("[]") for f, _ in refs):
            return "ahat has no reference %s.%s -> %s" % (a, name, b)
        if not weak and min(s for _, s in refs) != 0:
            return "step %s is not strong" % b
    if bool(full[-1]["weak"]) != weak:
        return "weak %s, the walk says %s" % (full[-1]["weak"], g.reach()[args.id])
    if not weak and g.distance_from(ids[0], 0).get(args.id) != len(ids):
        return "%d steps, %d from that root" % (len(ids), g.distance_from(ids[0], 0).get(args.id))
    rows = []
    for s in full:
        if s["class"] != g.label[s["object"]] or s["shallow_bytes"] != g.shallow[s["object"]]:
            return "step %s: %s %s, ahat %s %s" % (s["object"], s["class"], s["shallow_bytes"], g.label[s["object"]], g.shallow[s["object"]])
        r = g.retained.get(s["object"])
        if r is not None and not weak and s["retained_bytes"] != r:
            return "step %s retains %s, ahat %s" % (s["object"], s["retained_bytes"], r)
        rows.append(s)
    return same_listing(args, ours, listing(args, rows), lambda r: r["object"])


def check_top(args, g, ours):
    reach = g.reach()
    want = []
    for i in g.label:
        if (not args.all and reach[i] != "strong") or (args.heap and g.heap[i] != args.heap):
            continue
        if args.glob and not fnmatch.fnmatchcase(g.label[i], args.glob):
            continue
        want.append({"id": i, "class": g.label[i], "reachability": reach[i], "shallow_bytes": g.shallow[i],
                     "retained_bytes": g.retained.get(i) if reach[i] == "strong" else None})
    pool = {w["id"]: w for w in want}
    for r in ours:
        w = pool.get(r["id"])
        if not w:
            return "row %s (%s) is not an object the options keep" % (r["id"], r["class"])
        for c, v in w.items():
            if v is not None and r[c] != v:
                return "%s %s %s, ahat %s" % (r["id"], c, r[c], v)
    col = args.sort or "retained_bytes"
    vs = [r[col] for r in ours]
    if any(a < b for a, b in zip(vs, vs[1:])):
        return "not in %s order" % col
    n = args.n if args.n > 0 else len(want)
    if len(ours) != min(n, len(want)):
        return "%d rows, want %d of %d" % (len(ours), min(n, len(want)), len(want))
    shown = {r["id"] for r in ours}
    for w in want:
        if w[col] is not None and ours and w[col] > vs[-1] and w["id"] not in shown:
            return "%s (%s %s) ranks above the last row but is missing" % (w["id"], col, w[col])
    return None


def png_rgba(path):
    """The pixels of an 8-bit RGBA, non-interlaced PNG (what --export writes), as bytes."""
    data = open(path, "rb").read()
    pos, idat, w, h = 8, b"", 0, 0
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, ctype, _, _, inter = struct.unpack(">IIBBBBB", body)
            if (depth, ctype, inter) != (8, 6, 0):
                raise ValueError("not 8-bit RGBA")
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, out, prev, stride = zlib.decompress(idat), bytearray(), bytearray(w * 4), w * 4
    for y in range(h):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for x in range(stride):
            a = line[x - 4] if x >= 4 else 0
            b, c = prev[x], prev[x - 4] if x >= 4 else 0
            if f == 1:
                line[x] = (line[x] + a) & 255
            elif f == 2:
                line[x] = (line[x] + b) & 255
            elif f == 3:
                line[x] = (line[x] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[x] = (line[x] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        out += line
        prev = line
    return w, h, bytes(out)


def check_bitmaps(args, g, rec):
    want = []
    for i, w, h, ptr, buf, sha in g.bitmaps:
        w, h = int(w), int(h)
        if w * h < args.min_pixels:
            continue
        want.append({"id": i, "width": w, "height": h, "native_ptr": None if ptr == "-" else ptr,
                     "bytes": int(buf) if int(buf) >= 0 else w * h * 4, "pixels_sha256": None if sha == "-" else sha})
    want.sort(key=lambda r: (-r["bytes"], -r["width"] * r["height"], r["id"]))
    mine = [{c: r[c] for c in ("id", "width", "height", "native_ptr", "bytes", "pixels_sha256")} for r in rec["bitmaps"]]
    if mine != want:
        diff = [(a, b) for a, b in zip(mine, want) if a != b]
        return "%d bitmaps, want %d; first difference %s" % (len(mine), len(want), diff[:1])
    if args.export:
        files = sorted(os.listdir(args.export))
        with_image = sorted(w["id"] + ".png" for w in want if w["pixels_sha256"])
        if files != with_image or rec["summary"]["exported"] != len(files):
            return "exported %s, want %s" % (files[:3], with_image[:3])
        for w in want:
            if w["pixels_sha256"]:
                pw, ph, px = png_rgba(os.path.join(args.export, w["id"] + ".png"))
                if (pw, ph) != (w["width"], w["height"]) or hashlib.sha256(px).hexdigest() != w["pixels_sha256"]:
                    return "%s.png holds other pixels than ahat's mBuffer" % w["id"]
    return None


def shark_traces(path):
    """(kind, leaking object, retained bytes) per trace Shark printed."""
    out, kind = [], None
    for line in open(path):
        if line.startswith("LEAK kind="):
            kind = line.split()[1].split("=")[1].lower()
        elif line.startswith("-- trace #"):
            f = dict(x.split("=", 1) for x in line.split() if "=" in x)
            out.append((kind, "0x" + f["leakingObject"][2:].lstrip("f").lstrip("0"), int(f["retainedBytes"])))
    return sorted(out)


def check_leaks(shark, args, text):
    want = shark_traces(shark)
    if args.csv:
        mine = sorted((r["kind"], r["object"], int(r["retained_bytes"])) for r in csv.DictReader(text.splitlines()))
    else:
        rec = json.loads(text)
        mine = sorted((g["kind"], t["object"], t["retained_bytes"]) for g in rec["leaks"] for t in g["traces"])
    if mine != want:
        return "traces %s, Shark %s" % (mine, want)
    status = 0
    if args.fail_on:
        gate, _, b = args.fail_on.partition(":")
        kind = "application" if gate == "leaks" else "library"
        status = 3 if any(k == kind and r >= int(b or 0) for k, _, r in want) else 0
    return None if args.status == status else "exit %d, want %d" % (args.status, status)


def parser():
    p = argparse.ArgumentParser()
    p.add_argument("query")
    p.add_argument("--heap", default="")
    p.add_argument("--class", dest="glob", default="")
    p.add_argument("--sort", default="")
    p.add_argument("-n", type=int, default=0)
    p.add_argument("--all", action="store_true")
    p.add_argument("--id", default="")
    p.add_argument("--full", default="", help="path: the whole path, as path --json printed it")
    p.add_argument("--min-pixels", type=int, default=0)
    p.add_argument("--export", default="")
    p.add_argument("--status", type=int, default=0)
    p.add_argument("--fail-on", default="")
    p.add_argument("--csv", action="store_true")
    return p


CHECKS = {"reachability": check_reachability, "path": check_path, "top": check_top, "bitmaps": check_bitmaps,
          "reachability-objects": lambda a, g, o: check_reach_objects(g, o)}


def one(oracle, args, text):
    """(why it fails or None, what was checked) for one answer."""
    if args.query == "leaks":
        return check_leaks(oracle, args, text), "traces"
    try:
        ours = json.loads(text)
    except ValueError:
        return "not JSON: %r" % text[:100], ""
    return CHECKS[args.query](args, oracle, ours), "%d rows" % len(ours if isinstance(ours, list) else ours["bitmaps"])


def main():
    """ORACLE deepest | ORACLE --batch MANIFEST (lines: NAME<TAB>ANSWER-FILE<TAB>QUERY OPTION...)"""
    oracle_path, rest = sys.argv[1], sys.argv[2:]
    oracle = oracle_path if rest[0] != "deepest" and open(oracle_path).read(5) == "# dum" else Graph(read_ahat(oracle_path))
    if rest[0] == "deepest":
        print(deepest(oracle))
        return 0
    failed = 0
    for line in open(rest[1]):
        name, answer, argv = line.rstrip("\n").split("\t", 2)
        args = parser().parse_args(shlex.split(argv))
        why, what = one(oracle, args, open(answer).read())
        failed += why is not None
        print("FAIL %s: %s" % (name, why) if why else "PASS %s (ok %s)" % (name, what))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
