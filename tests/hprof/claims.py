# Writes small dumps and traces whose counts and lengths claim more than the file holds
# (tests/t_claims.sh): python3 claims.py DIR
import struct, sys, os
def u1(v): return struct.pack(">B", v)
def u2(v): return struct.pack(">H", v)
def u4(v): return struct.pack(">I", v & 0xffffffff)
def rec(tag, body, length=None): return u1(tag) + u4(0) + u4(len(body) if length is None else length) + body
HDR = b"JAVA PROFILE 1.0.3\0" + u4(4) + u4(0) + u4(0)
def strings(): return rec(1, u4(1) + b"java.lang.Object") + rec(2, u4(1) + u4(0x100) + u4(0) + u4(1))
def cls(): return u1(0x20) + u4(0x100) + u4(0) + u4(0) + u4(0)*5 + u4(8) + u2(0) + u2(0) + u2(0)
END = rec(0x2c, b"")
out = {}
# a primitive array of 4 G longs inside a 30-byte segment
out["prim-4g"] = HDR + strings() + rec(0x1c, cls() + u1(0x23) + u4(0x200) + u4(0) + u4(0xffffffff) + u1(11) + b"\0" * 16) + END
# an object array of 1 G elements
out["objarr-1g"] = HDR + strings() + rec(0x1c, cls() + u1(0x22) + u4(0x300) + u4(0) + u4(0x40000000) + u4(0x100) + b"\0" * 16) + END
# a string record longer than the file
out["string-past-eof"] = HDR + u1(1) + u4(0) + u4(0xfffffff0) + u4(5) + b"abc"
# a heap dump segment past the end
out["segment-past-eof"] = HDR + strings() + u1(0x1c) + u4(0) + u4(0x7fffffff) + cls()
# a class with 65535 instance fields and 65535 statics in a tiny segment
out["class-65535-fields"] = HDR + strings() + rec(0x1c, u1(0x20) + u4(0x100) + u4(0) + u4(0) + u4(0)*5 + u4(8) + u2(0) + u2(0xffff) + u4(1) + u1(10)) + END
# an instance claiming 4 GB of field bytes
out["instance-4g"] = HDR + strings() + rec(0x1c, cls() + u1(0x21) + u4(0x400) + u4(0) + u4(0x100) + u4(0xfffffff0) + b"\0"*8) + END
# a Perfetto trace whose first packet declares 1 GB
def v(n):
    b = b""
    while True:
        b += bytes([(n & 0x7f) | (0x80 if n > 0x7f else 0)]); n >>= 7
        if not n: return b
out["trace-packet-1g"] = b"\x0a" + v(1 << 30) + b"\x08\x01" * 8
# a HEAP SUMMARY claiming 2^31 instances stays advisory
out["heap-summary-2g"] = HDR + strings() + rec(7, u4(1 << 30) + u4(0x7fffffff) + struct.pack(">Q", 1 << 40) + struct.pack(">Q", 1 << 31)) + rec(0x1c, cls()) + END
for k, b in out.items(): open(sys.argv[1] + "/" + k + (".pftrace" if k.startswith("trace") else ".hprof"), "wb").write(b)
# decompression bombs: 90 gzip members of 8 MiB of zeros each (720 MiB from ~0.7 MiB; zlib
# reads concatenated members as one stream), and a trace whose zlib block expands 80 MiB
import zlib
c = zlib.compressobj(9, zlib.DEFLATED, 31)
member = c.compress(b"\0" * (8 << 20)) + c.flush()
open(sys.argv[1] + "/bomb.hprof.gz", "wb").write(member * 90)
z = zlib.compress(b"\0" * (80 << 20), 9)
inner = v(50 << 3 | 2) + v(len(z)) + z
open(sys.argv[1] + "/trace-zlib-bomb.pftrace", "wb").write(b"\x0a" + v(len(inner)) + inner)
