#!/usr/bin/env python3
"""Rewrites a heap dump's heap records in another layout, sub-records unchanged and in order:
  one       every HEAP_DUMP_SEGMENT body in a single segment (then HEAP_DUMP_END)
  dump      the same as a single HEAP_DUMP record (no HEAP_DUMP_END)
  small:N   segments of about N bytes, cut at sub-record starts
  ff:N      one segment with a byte[] of N bytes 0xff added amid the sub-records: its bytes look
            like a chain of ROOT_UNKNOWN sub-records to a reader guessing where one starts
Usage: resegment.py LAYOUT IN OUT
       resegment.py at:F IN   prints the file offset of the first sub-record at or past fraction F
                              of the heap records' bytes (for corrupting one)"""
import struct
import sys

ROOT_BODY = {0xff: 1, 0x05: 1, 0x07: 1, 0x89: 1, 0x8a: 1, 0x8b: 1, 0x8c: 1, 0x8d: 1, 0x90: 1}  # in ids
TYPE_SIZE = {4: 1, 8: 1, 5: 2, 9: 2, 6: 4, 10: 4, 7: 8, 11: 8}


def sub_size(b, p, idsz):
    """Size of the sub-record at p (the formats of the HPROF heap dump sub-records)."""
    tag = b[p]
    ts = lambda t: idsz if t == 2 else TYPE_SIZE[t]
    if tag == 0x21:
        return 1 + 2 * idsz + 8 + struct.unpack_from('>I', b, p + 1 + 2 * idsz + 4)[0]
    if tag == 0x22:
        return 1 + 2 * idsz + 8 + struct.unpack_from('>I', b, p + 1 + idsz + 4)[0] * idsz
    if tag in (0x23, 0xc3):
        n = struct.unpack_from('>I', b, p + 1 + idsz + 4)[0]
        return 1 + idsz + 9 + (n * TYPE_SIZE[b[p + 1 + idsz + 8]] if tag == 0x23 else 0)
    if tag == 0x20:
        q = p + 1 + idsz + 4 + 6 * idsz + 4
        n = struct.unpack_from('>H', b, q)[0]
        q += 2
        for _ in range(n):
            q += 3 + ts(b[q + 2])
        n = struct.unpack_from('>H', b, q)[0]
        q += 2
        for _ in range(n):
            q += idsz + 1 + ts(b[q + idsz])
        n = struct.unpack_from('>H', b, q)[0]
        return q + 2 + n * (idsz + 1) - p
    if tag == 0xfe:
        return 5 + idsz
    if tag in ROOT_BODY:
        return 1 + idsz
    if tag == 0x01:
        return 1 + 2 * idsz
    if tag in (0x02, 0x03, 0x8e, 0x08):
        return 1 + idsz + 8
    if tag in (0x04, 0x06):
        return 1 + idsz + 4
    raise ValueError('unknown sub-record tag 0x%02x at %d' % (tag, p))


def record(tag, body):
    return struct.pack('>BII', tag, 0, len(body)) + body


def sub_record_at(b, h, idsz, frac):
    off, bodies = h + 12, []
    while off < len(b):
        tag, ln = b[off], struct.unpack_from('>I', b, off + 5)[0]
        if tag in (0x0c, 0x1c):
            bodies.append((off + 9, off + 9 + ln))
        off += 9 + ln
    want = sum(e - s for s, e in bodies) * frac
    for s, e in bodies:
        p = s
        while p < e:
            if want <= 0:
                return p
            n = sub_size(b, p, idsz)
            p += n
            want -= n
    return None


def main():
    layout, src = sys.argv[1:3]
    b = open(src, 'rb').read()
    if layout.startswith('at:'):
        h = b.index(b'\0') + 1
        print(sub_record_at(b, h, struct.unpack_from('>I', b, h)[0], float(layout[3:])))
        return
    dst = sys.argv[3]
    h = b.index(b'\0') + 1
    idsz = struct.unpack_from('>I', b, h)[0]
    off = h + 12
    before, heap, after = [], bytearray(), []
    while off < len(b):
        tag, ln = b[off], struct.unpack_from('>I', b, off + 5)[0]
        rec = b[off:off + 9 + ln]
        if tag in (0x0c, 0x1c):
            heap += rec[9:]
        elif tag != 0x2c:
            (after if heap else before).append(rec)
        off += 9 + ln
    out = [b[:h + 12]] + before
    if layout.startswith('ff:'):
        n, p = int(layout[3:]), 0
        while p < len(heap) // 2:
            p += sub_size(heap, p, idsz)
        arr = struct.pack('>B', 0x23) + (0x7ffffff0).to_bytes(idsz, 'big') + struct.pack('>IIB', 0, n, 8)
        heap = heap[:p] + arr + b'\xff' * n + heap[p:]
        layout = 'one'
    if layout == 'one':
        out += [record(0x1c, bytes(heap)), record(0x2c, b'')]
    elif layout == 'dump':
        out += [record(0x0c, bytes(heap))]
    else:
        n, p, start = int(layout.split(':')[1]), 0, 0
        while p < len(heap):
            p += sub_size(heap, p, idsz)
            if p - start >= n or p == len(heap):
                out.append(record(0x1c, bytes(heap[start:p])))
                start = p
        out.append(record(0x2c, b''))
    out += after
    open(dst, 'wb').write(b''.join(out))


main()
