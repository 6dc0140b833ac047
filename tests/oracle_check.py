#!/usr/bin/env python3
"""Checks one listing hprofkit printed (--json on stdin) against ahat's numbers of the same dump
(tests/java/AhatOracle.java's rows), for the options it ran with: every row matches --class,
holds ahat's numbers, comes in the order --sort (or the query's default order) says, -n rows or
all that match, and no row ahat has that ranks above the last one shown is missing.  ahat's
numbers are left unchecked only where the README says the conventions differ: class objects'
sizes, and the retained bytes of a class with instances that are not strongly reachable.
Prints "ok N rows" or "FAIL: why" (one line) and exits 0 or 1.

usage: oracle_check.py AHAT.tsv QUERY [--heap H] [--class GLOB] [--sort COL] [-n N] < ours.json
       oracle_check.py DUMP-AHAT.tsv diff --base BASE-AHAT.tsv [--heap H] [-n N] < diff.json
       oracle_check.py AHAT.tsv dominators --id ID [--class GLOB] [--sort COL] [-n N] < ours.json
"""
import argparse
import collections
import fnmatch
import json
import sys

DEFAULT_SORT = {"histogram": "shallow_bytes", "top": "retained_bytes", "duplicate-arrays": "wasted_bytes",
                "duplicate-strings": "wasted_bytes"}


def read_ahat(path):
    rows = collections.defaultdict(list)
    with open(path) as f:
        for line in f:
            cells = line.rstrip("\n").split("\t")
            rows[cells[0]].append(cells[1:])
    return rows


def histogram_rows(ahat, heap):
    """class -> {count, shallow_bytes, retained_bytes (None: not comparable)}."""
    out = {}
    weak = collections.Counter()
    for h, cls, count, shallow, retained, nweak in ahat["heap"]:
        if heap and h != heap:
            continue
        r = out.setdefault(cls, {"class": cls, "count": 0, "shallow_bytes": 0, "retained_bytes": 0})
        r["count"] += int(count)
        r["shallow_bytes"] += int(shallow)
        r["retained_bytes"] += int(retained)
        weak[cls] += int(nweak)
    if not heap:
        whole = {cls: int(r) for cls, r in ahat["class"]}
        for cls, r in out.items():
            r["retained_bytes"] = whole.get(cls, 0)
    for cls, r in out.items():
        if weak[cls]:
            r["retained_bytes"] = None  # hprofkit adds the forest of what no root strongly reaches
    return out


def expected(args, ahat):
    """The rows ahat gives for the query (a list of dicts; None for a value left unchecked)."""
    if args.query == "histogram":
        rows = list(histogram_rows(ahat, args.heap).values())
        # class objects: ahat weighs them otherwise and lists them by the class they stand for
        return rows + [{"class": "java.lang.Class", "count": None, "shallow_bytes": None, "retained_bytes": None}]
    if args.query == "top":
        # class objects: ahat adds java.lang.Class's instance size to their own (README)
        return [{"id": i, "class": label, "shallow_bytes": None if label.startswith("class ") else int(s),
                 "retained_bytes": None if label.startswith("class ") else int(r)}
                for i, label, s, r, _ in ahat["obj"]]
    if args.query == "duplicate-arrays":
        return [{"class": c, "length": int(n), "count": int(k), "bytes": int(b), "wasted_bytes": (int(k) - 1) * int(b)}
                for c, n, k, b in ahat["duparray"]]
    if args.query == "duplicate-strings":
        return [{"count": int(k), "bytes": int(b), "length": int(n), "wasted_bytes": (int(k) - 1) * int(b)}
                for k, b, n in ahat["dupstring"]]
    raise SystemExit("FAIL: no oracle for " + args.query)


def check_dominators(args, ours, ahat):
    """dominators ID: the chain up to the root as ahat's immediate dominators give it, then the
    objects ID immediately dominates, checked as a listing (--class, --sort, -n)."""
    idom = {i: d for i, _, _, _, d in ahat["obj"]}
    label = {i: lab for i, lab, _, _, _ in ahat["obj"]}
    chain, x = [], args.id
    while x != "-":
        chain.append(x)
        x = idom[x]
    chain.reverse()
    if args.glob:
        chain = [c for c in chain if fnmatch.fnmatchcase(label[c], args.glob)]
    mine = [r["id"] for r in ours if r["relation"] != "dominated"]
    if sorted(mine) != sorted(chain):
        return "chain %s, ahat %s" % (mine, chain)
    args.query = "top"
    kids = [w for w in expected(args, ahat) if idom[w["id"]] == args.id]
    return check(args, [r for r in ours if r["relation"] == "dominated"], kids)


def key_of(query, row):
    if query == "top":
        return row["id"]
    if query == "histogram":
        return row["class"]
    if query == "duplicate-strings":
        return (row["length"], row["count"], row["bytes"])
    return (row["class"], row["length"], row["count"], row["bytes"])


def check(args, ours, want):
    sort = args.sort or DEFAULT_SORT[args.query]
    if not any(r.get("class") == "java.lang.Class" for r in ours):  # a dump with no class objects' row
        want = [w for w in want if w.get("class") != "java.lang.Class" or w["count"] is not None]
    if args.glob:
        want = [w for w in want if fnmatch.fnmatchcase(w["class"], args.glob)]
    pool = collections.defaultdict(list)
    for w in want:
        pool[key_of(args.query, w)].append(w)
    for r in ours:
        if args.glob and not fnmatch.fnmatchcase(r["class"], args.glob):
            return "row %s does not match --class %s" % (r["class"], args.glob)
        cands = pool.get(key_of(args.query, r))
        if not cands:
            return "row %s is not in ahat's answer" % (key_of(args.query, r),)
        w = cands.pop()
        for col, v in w.items():
            if v is not None and r.get(col) != v and col != "class":
                return "%s %s: %s %s, ahat %s" % (key_of(args.query, r), col, col, r.get(col), v)
    values = [r[sort] for r in ours]
    if any(a < b for a, b in zip(values, values[1:])):
        return "not in %s order: %s" % (sort, values[:10])
    n = args.n if args.n > 0 else len(want)
    if len(ours) != min(n, len(want)):
        return "%d rows, want %d (of %d that match)" % (len(ours), min(n, len(want)), len(want))
    if ours and len(ours) < len(want):
        last = values[-1]
        shown = collections.Counter(key_of(args.query, r) for r in ours)
        for w in want:
            k = key_of(args.query, w)
            if w[sort] is not None and w[sort] > last and not shown[k]:
                return "ahat's %s (%s %s) ranks above the last row shown (%s) but is missing" % (k, sort, w[sort], last)
            shown[k] -= 1
    return None


def check_diff(args, diff):
    """The diff's per-class rows against ahat's rows of BASE (--base) and DUMP."""
    base = histogram_rows(read_ahat(args.base), args.heap)
    dump = histogram_rows(read_ahat(args.ahat), args.heap)
    rows = diff["classes"]
    for r in rows:
        if r["class"] == "java.lang.Class":
            continue
        for side, h in (("base", base), ("dump", dump)):
            w = h.get(r["class"], {"count": 0, "shallow_bytes": 0, "retained_bytes": 0})
            for col, mine in (("count", "count_"), ("shallow_bytes", "shallow_"), ("retained_bytes", "retained_")):
                if w[col] is not None and r[mine + side] != w[col]:
                    return "%s %s%s %s, ahat %s" % (r["class"], mine, side, r[mine + side], w[col])
    if args.n > 0 and len(rows) > args.n:
        return "%d class rows, -n %d" % (len(rows), args.n)
    if args.n == 0:
        names = {c for c in set(base) | set(dump) if c != "java.lang.Class"}
        mine = {r["class"] for r in rows if r["class"] != "java.lang.Class"}
        if names != mine:
            return "classes differ: ahat only %s, ours only %s" % (sorted(names - mine)[:3], sorted(mine - names)[:3])
    return None


def main():
    p = argparse.ArgumentParser()
    p.add_argument("ahat")
    p.add_argument("query")
    p.add_argument("--heap", default="")
    p.add_argument("--class", dest="glob", default="")
    p.add_argument("--sort", default="")
    p.add_argument("-n", type=int, default=0)
    p.add_argument("--base", default="", help="diff: ahat's rows of BASE (AHAT.tsv is DUMP's)")
    p.add_argument("--id", default="", help="dominators: the object")
    args = p.parse_args()
    ours = json.load(sys.stdin)
    if args.query == "diff":
        why, count = check_diff(args, ours), len(ours["classes"])
    elif args.query == "dominators":
        why, count = check_dominators(args, ours, read_ahat(args.ahat)), len(ours)
    else:
        why, count = check(args, ours, expected(args, read_ahat(args.ahat))), len(ours)
    print("FAIL: " + why if why else "ok %d rows" % count)
    return 1 if why else 0


if __name__ == "__main__":
    sys.exit(main())
