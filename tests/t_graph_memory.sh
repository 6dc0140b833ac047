#!/usr/bin/env bash
# What the graph's memory savings must not change.
# Retained sizes of 4 GiB and more: the graph keeps retained sizes in 4 bytes and the few that
# do not fit in a table of their own.  A tiny dump of primitive arrays recorded without their
# data (PRIMITIVE ARRAY NODATA: a length, no elements) holds an array of 6 GiB (a shallow size
# that does not fit) and, under a second holder, two of 3 GiB (sizes that fit but whose sum does
# not); the expected sizes are the writer's own arithmetic, for top, dominated and the
# histogram's per-class walk, on one thread and two.
source "$SRC/tests/lib.sh"

python3 - "$T/big.hprof" "$T/want.txt" <<'PY'
import struct, sys
def u1(v): return struct.pack(">B", v)
def u2(v): return struct.pack(">H", v)
def u4(v): return struct.pack(">I", v & 0xffffffff)
def rec(tag, body): return u1(tag) + u4(0) + u4(len(body)) + body
hdr = b"JAVA PROFILE 1.0.3\0" + u4(4) + u4(0) + u4(0)
names = rec(1, u4(1) + b"java.lang.Object") + rec(2, u4(1) + u4(0x100) + u4(0) + u4(1))
obj_class = u1(0x20) + u4(0x100) + u4(0) + u4(0) + u4(0) * 5 + u4(8) + u2(0) + u2(0) + u2(0)
def objarr(oid, elems): return u1(0x22) + u4(oid) + u4(0) + u4(len(elems)) + u4(0x100) + b"".join(u4(e) for e in elems)
def longs(oid, n): return u1(0xc3) + u4(oid) + u4(0) + u4(n) + u1(11)
big, half = 0x30000000, 0x18000000
seg = (obj_class + u1(0x01) + u4(0x500) + u4(1) + objarr(0x500, [0x600, 0x510]) + objarr(0x510, [0x601, 0x602])
       + longs(0x600, big) + longs(0x601, half) + longs(0x602, half))
open(sys.argv[1], "wb").write(hdr + names + rec(0x1c, seg) + rec(0x2c, b""))
# an object array: 4 bytes an element and its class's instance size; a long[]: 8 bytes a long
holder = 2 * 4 + 8
r = {0x600: big * 8, 0x601: half * 8, 0x602: half * 8}
r[0x510] = holder + r[0x601] + r[0x602]
r[0x500] = holder + r[0x600] + r[0x510]
open(sys.argv[2], "w").write("".join(f"0x{k:x} {r[k]}\n" for k in sorted(r, key=lambda k: -r[k])))
PY

for j in 1 2; do
  eq "retained_big_top_j$j" "$("$HK" -j "$j" top "$T/big.hprof" -n 10 --json | jq -r '.[] | "\(.id) \(.retained_bytes)"')" \
    "$(cat "$T/want.txt")"
  # the largest first: 0x510 retains 16 bytes more than the 6 GiB array beside it
  eq "retained_big_dominated_j$j" "$("$HK" -j "$j" dominated "$T/big.hprof" 0x500 --json | jq -r '.[] | "\(.id) \(.retained_bytes)"')" \
    "$(sed -n '2,3p' "$T/want.txt")"
  eq "retained_big_histogram_j$j" \
    "$("$HK" -j "$j" histogram "$T/big.hprof" --json | jq -r '.[] | select(.class == "java.lang.Object") | .retained_bytes')" \
    "$(sed -n '1s/.* //p' "$T/want.txt")"
done

# The per-class instance lists are dropped when the dominators start (and built again when
# asked): a Lua loop over a class's instances that has the dominators computed in its body
# goes on over the same objects (under ASan, a slice kept across the drop is a use after free)
"$GEN" --scenario big --size-mb 8 -o "$T/b8.hprof" >/dev/null 2>&1
cat > "$T/iter.lua" <<'LUA'
local dump = hk.open(arg.dump)
local best
for _, c in ipairs(dump:classes()) do
  if not best or c.instance_count > best.instance_count then best = c end
end
local first, n = {}, 0
for o in best:instances() do
  n = n + 1
  first[n] = o.id
  if n == 10 then assert(o:retained_size() > 0) end
end
local again, same = 0, 0
for o in best:instances() do
  again = again + 1
  if first[again] == o.id then same = same + 1 end
end
print(table.concat({ best.instance_count, n, again, same }, " "))
LUA
got=$("$HK" run "$T/iter.lua" "$T/b8.hprof" 2>&1)
read -r count _ <<<"$got"
eq lists_dropped_mid_loop "$got" "$count $count $count $count"

# Triage's order (the leak search and the whole path search before the dominators, which then
# free the forward references; the instance lists and the dominator tree's child lists freed
# and made again, the lists from the class walk's codes) against the lazy order on a second copy of the dump: the same paths from the
# roots (every object of the small heaps, weak ones too), leak traces, class retained bytes and
# children of the virtual root
"$GEN" --scenario graph -o "$T/graph.hprof" >/dev/null 2>&1
"$GEN" --scenario leaks -o "$T/leaks.hprof" >/dev/null 2>&1
for f in graph:1 leaks:1 b8:23; do
  got=$("$HK" run "$SRC/tests/graph/paths_first.lua" "$T/${f%:*}.hprof" --step "${f#*:}" 2>&1)
  case "$got" in
    "objects "*" leaks 0 paths 0 classes 0 kids 0 instances 0 "*) pass "paths_first_${f%:*}" ;;
    *) fail "paths_first_${f%:*}" "$got" ;;
  esac
done
