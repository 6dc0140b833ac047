# The index walked on several threads (-j N) gives what one thread gives: the same objects, counts,
# roots, heaps and graph, and the same error for a truncated or corrupt dump.  Generated dumps in
# several heap record layouts (the generator's ~1 MB segments, one huge segment that the threads
# cut at guessed sub-record starts, one HEAP_DUMP record, many 4 KB segments), both id sizes, and
# the real shared dumps.  The ff layout puts a byte[] of 0xff bytes (which reads as a chain of
# root sub-records) where the threads cut: the guess is wrong and the part is walked again.
. "$SRC/tests/lib.sh"

# same NAME FILE: info, histogram and top on FILE are byte-identical with -j 1, -j 2 and -j 5
same() {
  local name=$1 f=$2 j c bad=""
  for c in info histogram top; do
    "$HK" -j 1 "$c" --json "$f" >"$T/j1.out" 2>&1; echo "exit $?" >>"$T/j1.out"
    for j in 2 5; do
      "$HK" -j "$j" "$c" --json "$f" >"$T/jn.out" 2>&1; echo "exit $?" >>"$T/jn.out"
      cmp -s "$T/j1.out" "$T/jn.out" || bad="$bad $c/-j$j"
    done
  done
  if [ -n "$bad" ]; then fail "$name" "differs from -j 1:$bad"; else pass "$name"; fi
}

for ids in 4 8; do
  g="$T/big$ids.hprof"
  "$GEN" --scenario big --size-mb 3 --id-size "$ids" -o "$g" >/dev/null
  same "jobs-ids$ids-segments" "$g"
  for layout in one dump small:4096 ff:4000000; do
    l="$T/big$ids-${layout%%:*}.hprof"
    python3 "$SRC/tests/hprof/resegment.py" "$layout" "$g" "$l"
    same "jobs-ids$ids-${layout%%:*}" "$l"
  done
done

# truncated inside the huge segment, and a byte of its second half made an unknown tag: the
# error of the part that meets it, or of an earlier one, exactly as one thread says it
one="$T/big4-one.hprof"
size=$(stat -c %s "$one")
head -c $((size * 3 / 4)) "$one" >"$T/cut.hprof"
same jobs-truncated-one-segment "$T/cut.hprof"
cp "$one" "$T/flip.hprof"
printf '\x77' | dd of="$T/flip.hprof" bs=1 seek="$(python3 "$SRC/tests/hprof/resegment.py" at:0.7 "$one")" \
  conv=notrunc status=none
same jobs-corrupt-one-segment "$T/flip.hprof"
err jobs-corrupt-fails "unknown heap sub-record tag 0x77" "$HK" -j 2 info "$T/flip.hprof"

found=0
for f in "$REALDATA"/hprof/*.hprof; do
  [ -f "$f" ] || continue
  found=1
  same "jobs-real-$(basename "$f" .hprof)" "$f"
done
[ $found = 1 ] || skip jobs-real "$REALDATA/hprof has no dumps"
