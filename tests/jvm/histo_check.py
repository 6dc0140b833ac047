#!/usr/bin/env python3
"""The JVM's own histogram (`jcmd PID GC.class_histogram`) against `hprofkit histogram -n 0 --json`:
every class whose instance count agrees must have the JVM's bytes exactly.  Prints one line per
class that disagrees on bytes, then `agree N bytes-equal M differ K`; exits 1 when any differ.
usage: histo_check.py JVM.histo HK.json"""
import json
import sys

PRIM = {"Z": "boolean", "B": "byte", "C": "char", "S": "short", "I": "int", "J": "long", "F": "float", "D": "double"}


def source_name(jvm):
    """[[Ljava.lang.String; -> java.lang.String[][]; [B -> byte[]"""
    dims = len(jvm) - len(jvm.lstrip("["))
    if not dims:
        return jvm
    elem = jvm[dims:]
    elem = elem[1:-1] if elem.startswith("L") else PRIM.get(elem, elem)
    return elem + "[]" * dims


def jvm_rows(path):
    rows = {}
    for line in open(path):
        f = line.split()
        if len(f) < 4 or not f[0].endswith(":") or not f[0][:-1].isdigit():
            continue
        name = source_name(f[3])
        n, b = int(f[1]), int(f[2])
        if name in rows:  # one name, two loaders: not comparable
            rows[name] = None
        else:
            rows[name] = (n, b)
    return rows


def main():
    jvm = jvm_rows(sys.argv[1])
    hk = {}
    for r in json.load(open(sys.argv[2])):
        hk.setdefault(r["class"], []).append(r)
    agree = same = 0
    bad = []
    for name, v in sorted(jvm.items()):
        if v is None or len(hk.get(name, [])) != 1:
            continue
        r = hk[name][0]
        if r["count"] != v[0]:
            continue
        agree += 1
        if r["shallow_bytes"] == v[1]:
            same += 1
        else:
            bad.append(f"{name}: count {v[0]} jvm {v[1]} B ({v[1] / v[0]:.1f} each) hprofkit {r['shallow_bytes']} B")
    for line in bad:
        print(line)
    print(f"agree {agree} bytes-equal {same} differ {len(bad)}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
