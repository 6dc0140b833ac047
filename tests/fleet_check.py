#!/usr/bin/env python3
"""Checks a fleet-report --json against what genhprof recorded it injected (--expect files).

usage: fleet_check.py REPORT.json EXPECT.json... [--by DIMS] [--facts-dir DIR]
DIMS: version, model, route, label:farm (the dump's directory) or a comma list of them.
The expected numbers are computed here from the generator's records alone: which dumps hold
which leak, their retained bytes, versions, devices, routes and timestamps (by route, the Java
heap's percentiles are computed here from each dump's facts file: beside its record, X.facts.json
for X.expect.json, or of the record's name in --facts-dir)."""
import json, math, os, sys, time

NAMES = {"Leaks.sHolder": "activity", "Leaks.sViewModel": "viewmodel",
         "NewFeature.sListener": "newfeature"}

def leak_name(group):
    d = group["description"] or ""
    if group["kind"] == "library" and d.startswith("InputMethodManager"):
        return "imm"
    return NAMES.get(d, "?" + d)

def rank(values, p):
    v = sorted(values)
    return v[max(1, math.ceil(p / 100 * len(v))) - 1]

def iso(ms):
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(ms // 1000))

def check_routes(report, records, key, dims, problems, facts_dir):
    want = {}
    for r in records:
        path = r["path"].replace(".expect.json", ".facts.json")
        if facts_dir: path = os.path.join(facts_dir, os.path.basename(r["path"]))
        facts = json.load(open(path))
        heap = [h["shallow_bytes"] for h in facts["totals"]["heaps"] if h["heap"] == "app"][0]
        w = want.setdefault(key(r), {"heap": [], "retained": [], "devices": set()})
        w["heap"].append(heap)
        w["retained"].append(sum(l["retained_bytes"] for l in r["leaks"] if l["kind"] == "application"))
        w["devices"].add((r["model"], r["fingerprint"]))
    got = {tuple(g[d] for d in dims): g for g in report["routes"] or []}
    if sorted(got) != sorted(want):
        problems.append("routes %s, want %s" % (sorted(got), sorted(want)))
    for name, w in want.items():
        g = got.get(name, {})
        exp = {"dumps": len(w["heap"]), "devices": len(w["devices"])}
        for p in (50, 75, 95):
            exp["java_heap_p%d" % p] = rank(w["heap"], p)
            exp["retained_p%d" % p] = rank(w["retained"], p)
        for f, v in exp.items():
            if g.get(f) != v: problems.append("route %s: %s is %s, want %s" % ("/".join(name), f, g.get(f), v))

def main():
    args = sys.argv[1:]
    by = "version"
    if "--by" in args:
        i = args.index("--by"); by = args[i + 1]; del args[i:i + 2]
    facts_dir = None
    if "--facts-dir" in args:
        i = args.index("--facts-dir"); facts_dir = args[i + 1]; del args[i:i + 2]
    report = json.load(open(args[0]))
    records = []
    for path in args[1:]:
        rec = json.load(open(path))["facts"]["fleet"]
        rec["path"] = path
        records.append(rec)
    dims = by.split(",")
    def value(r, d):
        if d == "version": return r["version_name"]
        if d == "model": return r["model"]
        if d == "route": return r["route"] or "(none)"
        return r["path"].split("/")[-2]           # label:farm = the dump's directory
    def key(r): return tuple(value(r, d) for d in dims)
    problems = []
    want = {}
    of = {}
    for r in records:
        of[key(r)] = of.get(key(r), 0) + 1
        for l in r["leaks"]:
            g = want.setdefault((key(r), l["name"]), {"bytes": [], "devices": set(), "ts": []})
            g["bytes"].append(l["retained_bytes"])
            g["devices"].add((r["model"], r["fingerprint"]))
            g["ts"].append(r["timestamp_ms"])
    got = {}
    for g in report["groups"]:
        got[(tuple(g[d] for d in dims), leak_name(g))] = g
    if set(got) != set(want):
        problems.append("groups: got %s, want %s" % (sorted(got), sorted(want)))
    for k, w in want.items():
        g = got.get(k)
        if not g: continue
        exp = {"dumps": len(w["bytes"]), "of_dumps": of[k[0]], "devices": len(w["devices"]),
               "retained_p50": rank(w["bytes"], 50), "retained_p75": rank(w["bytes"], 75),
               "retained_p95": rank(w["bytes"], 95), "retained_max": max(w["bytes"]),
               "first_seen": iso(min(w["ts"])), "last_seen": iso(max(w["ts"]))}
        for f, v in exp.items():
            if g[f] != v: problems.append("%s %s: %s is %s, want %s" % ("/".join(k[0]), k[1], f, g[f], v))
        if not g.get("example_trace"): problems.append("%s %s: no example trace" % ("/".join(k[0]), k[1]))
    if dims == ["version"]:
        order = sorted({(r["version_code"], r["version_name"]) for r in records})
        names = [n for _, n in order]
        if [v["version"] for v in report["versions"]] != names:
            problems.append("version order %s, want %s" % ([v["version"] for v in report["versions"]], names))
        for v in report["versions"]:
            if v["dumps"] != of.get((v["version"],)):
                problems.append("version %s: %s dumps, want %s" % (v["version"], v["dumps"], of.get((v["version"],))))
        # regressions by the rule, from the records: new against the previous version,
        # or P75 grown by more than 1.5x
        exp = set()
        for prev, cur in zip(names, names[1:]):
            for ((ver,), name), w in want.items():
                if ver != cur: continue
                p = want.get(((prev,), name))
                if not p: exp.add((cur, name, "new"))
                elif rank(w["bytes"], 75) > 1.5 * rank(p["bytes"], 75): exp.add((cur, name, "grown"))
        gotr = {(r["version"], leak_name(r), r["change"]) for r in report["regressions"]}
        if gotr != exp: problems.append("regressions %s, want %s" % (sorted(gotr), sorted(exp)))
    if "route" in dims:
        check_routes(report, records, key, dims, problems, facts_dir)
    for p in problems: print(p)
    sys.exit(1 if problems else 0)

main()
