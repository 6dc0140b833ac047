#!/usr/bin/env python3
"""Rewrites a Perfetto trace without one TracePacket field: drop_field.py NUMBER < IN > OUT.
The tests use it to make a trace hprofkit converted look like a device's (without hprofkit's own
heap_graph_from_hprof mark, field 897)."""
import sys


def varint(b, i):
    r = s = 0
    while True:
        c = b[i]
        i += 1
        r |= (c & 0x7F) << s
        s += 7
        if not c & 0x80:
            return r, i


def enc(n):
    out = bytearray()
    while True:
        out.append((n & 0x7F) | (0x80 if n > 0x7F else 0))
        n >>= 7
        if not n:
            return bytes(out)


def fields(b):
    i = 0
    while i < len(b):
        start = i
        key, i = varint(b, i)
        wt = key & 7
        if wt == 0:
            _, i = varint(b, i)
        elif wt == 1:
            i += 8
        elif wt == 5:
            i += 4
        elif wt == 2:
            n, i = varint(b, i)
            i += n
        else:
            raise SystemExit("unsupported wire type %d" % wt)
        yield key >> 3, wt, b[start:i]


drop = int(sys.argv[1])
trace = sys.stdin.buffer.read()
out = bytearray()
for num, wt, raw in fields(trace):
    if num != 1 or wt != 2:
        out += raw
        continue
    _, body_at = varint(raw, 0)
    n, body_at = varint(raw, body_at)
    body = raw[body_at:body_at + n]
    kept = b"".join(r for f, _, r in fields(body) if f != drop)
    out += b"\x0a" + enc(len(kept)) + kept
sys.stdout.buffer.write(out)
