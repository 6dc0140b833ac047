#!/usr/bin/env python3
"""tests/t_shark.sh: hprofkit's leak traces held to LeakCanary's own analysis (Shark 2.7).

shark_compare.py SHARK_OUT HK_OUT prints one line per check: PASS NAME / FAIL NAME: why.
SHARK_OUT is ../shared/peer/shark's harness output (FINDER, LEAK, trace, STEP lines and each
trace as LeakCanary prints it); HK_OUT is tests/lua/leak_side.lua's (CAND, TRACE json, text).
Checked, leaking object by leaking object: the finders' candidates, which of them leak, the
GC root, every step's object, reference and suspect flag, statuses, reasons and labels (the
whole trace text, object ids aside), retained bytes and object counts, grouping and signatures.
"""
import json, re, sys

def norm_id(x):
    v = int(x, 16)
    return hex(v & 0xffffffff) if x.lower().startswith("0xffffffff") and len(x) == 18 else hex(v)

def read_shark(path):
    finder, traces, cur, text = set(), {}, None, None
    for line in open(path, encoding="utf-8").read().split("\n"):
        m = re.match(r"FINDER (0x[0-9a-f]+) ", line)
        if m: finder.add(norm_id(m.group(1))); continue
        m = re.match(r"LEAK kind=(\w+) signature=(\w+) traces=(\d+) totalRetainedBytes=(\d+) totalRetainedObjects=(\d+)", line)
        if m: leak = m.groups(); continue
        m = re.match(r"-- trace #\d+ leakingObject=(0x[0-9a-f]+) \S+ root=(\w+) rootObject=(0x[0-9a-f]+) "
                     r"retainedBytes=(\d+) retainedObjects=(\d+)", line)
        if m:
            cur = {"leak": leak, "object": norm_id(m.group(1)), "root": m.group(2), "root_object": norm_id(m.group(3)),
                   "retained_bytes": int(m.group(4)), "retained_objects": int(m.group(5)), "steps": [], "text": []}
            traces[cur["object"]] = cur; text = None; continue
        m = re.match(r"  STEP \d+ (0x[0-9a-f]+) (\S+) \[\w+\] --(\w+):(.*)--> suspect=(\w+)", line)
        if m and cur: cur["steps"].append((norm_id(m.group(1)), m.group(3), m.group(4), m.group(5) == "true")); continue
        if line.startswith("┬───") and cur: text = cur["text"]
        if text is not None:
            if line.startswith("=" * 20) or line.startswith("-- trace") or line.startswith("real"): text = None
            else: text.append(line)
    for t in traces.values():
        while t["text"] and t["text"][-1] == "": t["text"].pop()
    return finder, traces

def read_hk(path):
    cands, traces, cur = set(), {}, None
    for line in open(path, encoding="utf-8").read().split("\n"):
        if line.startswith("CAND "): cands.add(norm_id(line.split()[1])); continue
        if line.startswith("TRACE "):
            cur = json.loads(line[6:]); cur["text"] = []; traces[norm_id(cur["trace"]["object"])] = cur; continue
        if line == "END": cur = None; continue
        if cur is not None: cur["text"].append(line)
    return cands, traces

def our_text(lines):
    """Our trace text as LeakCanary's: the object ids off the object lines, the other roots off."""
    out = []
    for l in lines:
        if l.startswith("Also held by") or l.startswith("  GC Root: "): continue
        out.append(re.sub(r" 0x[0-9a-f]+$", "", l) if l[:3] in ("├─ ", "╰→ ") else l)
    return out

def shark_signature(hexsig):
    """Shark 2.7 writes each byte of the SHA-1 without its leading zero (fixed in 2.8)."""
    return "".join("%x" % b for b in bytes.fromhex(hexsig))

REF = {"STATIC_FIELD": "static", "INSTANCE_FIELD": "field", "ARRAY_ENTRY": "array", "LOCAL": "local"}

def main(shark_path, hk_path):
    results = []
    def check(name, ok, why=""):
        results.append(("PASS " + name) if ok else ("FAIL %s: %s" % (name, why)))
    sfind, strs = read_shark(shark_path)
    hcands, htrs = read_hk(hk_path)
    # Shark's finder is the union of its leaking-object filters; ours may find more (hprofkit's
    # own finders: dismissed Dialogs, cleared ViewModels, destroyed Lifecycles)
    check("candidates", sfind <= hcands, "Shark finds %s, hprofkit does not" % sorted(sfind - hcands))
    check("leaking-objects", set(strs) == set(htrs) or (set(strs) <= set(htrs) and not (set(htrs) - set(strs)) & sfind),
          "Shark %s, hprofkit %s" % (sorted(strs), sorted(htrs)))
    for oid in sorted(set(strs) & set(htrs)):
        s, h = strs[oid], htrs[oid]
        t, g = h["trace"], h["group"]
        check(oid + "-root", s["root"] == t["root"]["type"], "Shark %s, hprofkit %s" % (s["root"], t["root"]["type"]))
        ours = [(norm_id(x["object"]), x["reference"]["type"], x["reference"]["name"], x["suspect"])
                for x in t["steps"][:-1]]
        theirs = [(i, REF[k], ("[%s]" % n if k == "ARRAY_ENTRY" else "<Java Local>" if k == "LOCAL" else n), sus)
                  for i, k, n, sus in s["steps"]]
        check(oid + "-steps", ours == theirs, "Shark %s, hprofkit %s" % (theirs, ours))
        check(oid + "-text", our_text(h["text"]) == s["text"],
              "Shark:\n" + "\n".join(s["text"]) + "\nhprofkit:\n" + "\n".join(our_text(h["text"])))
        check(oid + "-retained", (t["retained_bytes"], t["retained_objects"]) == (s["retained_bytes"], s["retained_objects"]),
              "Shark %d B in %d, hprofkit %d B in %d" % (s["retained_bytes"], s["retained_objects"], t["retained_bytes"], t["retained_objects"]))
        kind, sig, ntr, gbytes, gobjs = s["leak"]
        check(oid + "-group", (g["kind"], g["group_count"], g["group_retained_bytes"], g["group_retained_objects"]) ==
              (kind.lower(), int(ntr), int(gbytes), int(gobjs)), "Shark %s, hprofkit %s" % (s["leak"], g))
        # hprofkit is right where Shark 2.7 is not: its signature keeps every byte's leading zero
        check(oid + "-signature", shark_signature(g["signature"]) == sig, "Shark %s, hprofkit %s" % (sig, g["signature"]))
        roots = {(r["type"], norm_id(r["object"])) for r in t["roots"]}
        check(oid + "-roots-include-shark-root", (s["root"], s["root_object"]) in roots or s["root"] == "JAVA_FRAME",
              "Shark's root %s %s not in %s" % (s["root"], s["root_object"], sorted(roots)))
    print("\n".join(results))

if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
