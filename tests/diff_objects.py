#!/usr/bin/env python3
"""diff's added and removed objects held to ahat's baseline mode (tests/java/AhatOracle.java DUMP
MAP --baseline BASE), object by object and per class, on top of the class objects t_oracle.sh
already holds.  ahat and hprofkit pair objects by different rules (README, "Diff"), and every
object whose status differs must be explained by one of them, checked on ahat's own facts:
  key      ahat keys an array by its length and a String by its value as well as its class, so
           an array that grew or a String that changed is added and removed for ahat; hprofkit
           pairs them by their path and reports the growth.  Holds when ahat's key of the object
           differs from that of hprofkit's counterpart.
  not-strong  ahat's Diff walks the dominator tree of the strongly reachable objects and leaves
           the others unpaired ("?"); hprofkit pairs them by their path from a GC root where they
           have one (a weakly held object) and calls garbage added or removed.  Holds when ahat
           calls the object not strongly reachable.
  sibling  ahat pairs objects of one class under a matched parent by class alone; hprofkit by
           the reference that holds them (the field's name): both pair the counterpart, but to
           different objects of the same class, so no class's counts change.
  parent   ahat pairs an object only under the counterpart of its immediate dominator (its
           Diff goes down the two dominator trees together); hprofkit by path, whatever
           dominates it.  Holds when ahat did not pair the two objects' immediate dominators.
Then the per-class counts and bytes `diff --json -n 0` prints under added_by_class and
removed_by_class must equal the statuses (hprofkit's, by diff_status.lua) summed with ahat's
sizes, and for every class only siblings touch, ahat's own added and removed counts and bytes.
Prints "PASS NAME (figures)" or "FAIL NAME: why" lines.

usage: diff_objects.py NAME AHAT-PAIR.tsv OURS-PAIR.tsv DIFF.json
"""
import collections
import json
import sys


def rows(path):
    out = {}
    for line in open(path):
        c = line.rstrip("\n").split("\t")
        if c[0] == "status":
            out[(c[1], c[2])] = c[3:]
    return out


def main():
    name, ahat, ours, diff = sys.argv[1], rows(sys.argv[2]), rows(sys.argv[3]), json.load(open(sys.argv[4]))
    other = {"dump": "base", "base": "dump"}
    why = collections.Counter()
    touched, bad = set(), []
    for (side, i), (label, a_cp, shallow, reach, key, idom) in ahat.items():
        if (side, i) not in ours:
            bad.append("%s %s is not in hprofkit's rows" % (side, i))
            continue
        o_cp = ours[(side, i)][1]
        if a_cp == o_cp:
            continue
        ours_of_a = ours.get((other[side], a_cp), [None, "-"])[1]
        ahat_of_o = ahat.get((other[side], o_cp), [None, "-"])
        if a_cp == "?" and reach != "strong":
            why["not-strong"] += 1
            touched.add(label)
        elif a_cp == "-" and o_cp != "-" and ahat_of_o[4] != key:
            why["key"] += 1
            touched.add(label)
        elif a_cp not in ("-", "?") and o_cp != "-" and ahat[(other[side], a_cp)][0] == ahat_of_o[0] == label or \
                ours_of_a not in ("-", i) and ahat[(side, ours_of_a)][0] == label or \
                ahat_of_o[1] not in ("-", "?", i) and ahat[(side, ahat_of_o[1])][0] == label:
            why["sibling"] += 1
        elif a_cp == "-" and o_cp != "-" and idom != "-" and ahat.get((side, idom), [None, "-"])[1] != ahat_of_o[5]:
            why["parent"] += 1
            touched.add(label)
        else:
            bad.append("%s %s %s: ahat's counterpart %s, hprofkit's %s, unexplained" % (side, i, label, a_cp, o_cp))
    if bad:
        print("FAIL %s-objects: %d unexplained, e.g. %s" % (name, len(bad), bad[0]))
    else:
        print("PASS %s-objects (%d objects, statuses differ by convention: %s)" % (
            name, len(ahat), ", ".join("%s %d" % kv for kv in sorted(why.items())) or "none"))
    for side, col in (("dump", "added_by_class"), ("base", "removed_by_class")):
        mine = {r["class"]: (r["objects"], r["bytes"]) for r in diff[col]}
        from_ours, from_ahat = collections.Counter(), collections.Counter()
        n_ours, n_ahat = collections.Counter(), collections.Counter()
        for (s, i), (label, a_cp, shallow, _, _, _) in ahat.items():
            if s != side or label.startswith("class "):
                continue
            if ours[(s, i)][1] == "-":
                n_ours[label] += 1
                from_ours[label] += int(shallow)
            if a_cp == "-":
                n_ahat[label] += 1
                from_ahat[label] += int(shallow)
        want = {c: (n_ours[c], from_ours[c]) for c in n_ours}
        if mine != want:
            d = sorted(set(mine.items()) ^ set(want.items()))[:3]
            print("FAIL %s-%s: hprofkit's statuses with ahat's sizes give other rows: %s" % (name, col, d))
            continue
        same = [c for c in set(n_ahat) | set(n_ours) if c not in touched]
        off = [c for c in same if (n_ahat[c], from_ahat[c]) != (n_ours[c], from_ours[c])]
        if off:
            print("FAIL %s-%s-ahat: %s: ahat %s, hprofkit %s" % (
                name, col, off[0], (n_ahat[off[0]], from_ahat[off[0]]), mine.get(off[0])))
        else:
            print("PASS %s-%s (%d classes, %d objects, %d B; %d classes equal ahat's outright)" % (
                name, col, len(mine), sum(n for n, _ in mine.values()), sum(b for _, b in mine.values()), len(same)))


if __name__ == "__main__":
    main()
