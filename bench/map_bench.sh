#!/usr/bin/env bash
# Map loading benchmark: generate an R8-style mapping file of about SIZE_MB (default
# 50) and time reading and parsing it (hk.read_map: the same code --map runs, before it renames
# the dump's classes).  Usage: bench/map_bench.sh [SIZE_MB]
set -eu
cd "$(dirname "$0")/.."
size_mb=${1:-50}
. bench/lib.sh
bench_machine
# classes with R8 8.x's shape: sourceFile metadata, a few fields with residual signatures, methods
# with minified line ranges, and inlined frames (a qualified method sharing its caller's range)
awk -v target=$((size_mb * 1048576)) 'BEGIN {
  print "# compiler: R8"; print "# compiler_version: 8.10.9"
  print "# {\"id\":\"com.android.tools.r8.mapping\",\"version\":\"2.2\"}"; print "# pg_map_id: 0123456789abcdef"
  bytes = 0
  for (c = 0; bytes < target; c++) {
    line = sprintf("com.example.pkg%d.feature.SomeClass%d -> p%d.a%d:", c % 97, c, c % 97, c); print line; bytes += length(line) + 1
    line = sprintf("# {\"id\":\"sourceFile\",\"fileName\":\"SomeClass%d.java\"}", c); print line; bytes += length(line) + 1
    for (f = 0; f < 4; f++) {
      line = sprintf("    com.example.pkg%d.feature.SomeClass%d field%d -> %c", c % 97, c + f, f, 97 + f); print line; bytes += length(line) + 1
      line = sprintf("      # {\"id\":\"com.android.tools.r8.residualsignature\",\"signature\":\"Lp%d/a%d;\"}", c % 97, c + f); print line; bytes += length(line) + 1
    }
    for (m = 0; m < 8; m++) {
      line = sprintf("    %d:%d:void method%d(int,java.lang.String):%d:%d -> %c", m * 10 + 1, m * 10 + 9, m, 100 + m * 20, 108 + m * 20, 97 + m); print line; bytes += length(line) + 1
      if (m % 3 == 0) {
        line = sprintf("    %d:%d:void com.example.util.Helper%d.inlined():%d:%d -> %c", m * 10 + 1, m * 10 + 9, m, 10, 18, 97 + m); print line; bytes += length(line) + 1
      }
    }
  }
}' > "$work/big.map"
cat > "$work/map_load.lua" <<'LUA'
local t = os.clock()
local m = hk.read_map(arg.map_file)
print(string.format("classes %d, members %d, malformed %d, CPU %.3f s", m.classes, m.members, m.malformed, os.clock() - t))
LUA
cat "$work/big.map" > /dev/null   # page cache
echo "map: $(stat -c %s "$work/big.map") bytes, $(wc -l < "$work/big.map") lines"
for i in 1 2 3; do
  /usr/bin/time -f "wall %e s, peak RSS %M KB" $HK run "$work/map_load.lua" --map-file "$work/big.map"
done
