# Corrupt dumps: a clean result or a one-line error, never a crash or an out-of-bounds read (the
# build under test runs with ASan and UBSan): inputs the fuzzer found, and real dumps with one
# byte flipped.
. "$SRC/tests/lib.sh"

# survive NAME FILE QUERY: QUERY on FILE exits 0, or 1 with a one-line error, with no sanitizer report
survive() {
  local name=$1 f=$2 query=$3
  "$HK" "$query" "$f" >"$T/$name.out" 2>"$T/$name.err"; local rc=$?
  if grep -qE 'Sanitizer|runtime error' "$T/$name.err"; then
    fail "$name" "sanitizer report: $(grep -m2 -E 'ERROR|SUMMARY|runtime error' "$T/$name.err" | tr '\n' ' ')"
  elif [ $rc -eq 0 ]; then pass "$name (exit 0)"
  elif [ $rc -eq 1 ] && [ "$(wc -l < "$T/$name.err")" -eq 1 ]; then pass "$name (error: $(head -c 120 "$T/$name.err"))"
  else fail "$name" "exit $rc: $(head -c 300 "$T/$name.err")"; fi
}

# found by tests/fuzz: a Bitmap class without instances (qsort of a NULL list)
survive corrupt-bitmap-class-no-instances "$SRC/tests/fuzz/corpus/bitmap-class-no-instances.hprof" bitmaps
# found by review: object arrays whose class id is String's, filed under String beside its two
# instances (more list entries than the dump has instances): the duplicates' parts wrote past
# their buffer; the two equal Strings are still found
sca="$SRC/tests/fuzz/corpus/string-class-object-arrays.hprof"
survive corrupt-string-class-object-arrays "$sca" duplicate-strings
survive corrupt-string-class-object-arrays-triage "$sca" triage
eq corrupt-string-class-object-arrays-group "$("$HK" duplicate-strings "$sca" --json 2>/dev/null | jq -c '[.[] | [.count, .value]]')" '[[2,"abc"]]'

src_dump="$REALDATA/hprof/aosp-art-ahat-test-dump.hprof"
[ -f "$src_dump" ] || { skip corrupt-flip "$src_dump is absent"; exit 0; }
# flip NAME OFFSET QUERY: byte OFFSET ^= 0xff in a copy of the real dump, then QUERY on it
flip() {
  local f="$T/$1.hprof"
  cp "$src_dump" "$f"
  local b; b=$(od -An -tu1 -j "$2" -N1 "$f" | tr -d ' ')
  printf "$(printf '\\%03o' $((b ^ 0xff)))" | dd of="$f" bs=1 seek="$2" conv=notrunc status=none
  survive "$1" "$f" "$3"
}
# an id in the last id range whose bucket bound was never set: SEGV in hkg_find
flip corrupt-top-last-id-range 1516586 top
flip corrupt-reachability-last-id-range 1516586 reachability
