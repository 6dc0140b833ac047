# The queries t_oracle.sh does not hold (reachability, path, top --all / --heap, bitmaps, leaks),
# each with its options alone and in pairs (--class, --sort and -n, --heap with --all, --json,
# --format csv, --map, --min-pixels with --export, --fail-on), every answer checked against an
# implementation that is not ours: ahat's objects, roots and references (tests/java/AhatOracle.java
# --graph, one ahat start per dump) walked again in Python (tests/oracle_pairs.py: strengths by
# a widest-path walk, paths as chains of ahat's references, bitmaps' pixels from their mBuffer),
# and Shark's leak traces (../shared/peer/shark, one start per dump).
. "$SRC/tests/lib.sh"
AHAT="$SRC/../shared/peer/ahat/ahat.jar"
SHARK="$SRC/../shared/peer/shark"
needs oracle-pairs javac python3 "$AHAT" || exit 0
CHECK="$SRC/tests/oracle_pairs.py"
if ! javac -nowarn -cp "$AHAT" -d "$T/hr" "$SRC/tests/java/AhatOracle.java" 2>"$T/javac.err"; then
  fail oracle-pairs-javac "$(head -c 300 "$T/javac.err")"; exit 0
fi
hk() { "$HK" --jvm-layout dump "$@"; }

# check NAME QUERY [OPTION...] [-- CHECK-OPTION...]: runs the query's --json with those options
# (and the dump's map) and adds its answer to the manifest the oracle checks in one run
check() {
  local name=$1 q=$2; shift 2
  local opts=() more=()
  while [ $# -gt 0 ] && [ "$1" != -- ]; do opts+=("$1"); shift; done
  [ "${1:-}" = -- ] && shift && more=("$@")
  N=$((N + 1))
  # shellcheck disable=SC2086
  hk "$q" "$D" ${ID:+"$ID"} "${opts[@]}" ${M:+--map "$M"} --json >"$T/a.$N" 2>/dev/null
  printf 'oracle-pairs-%s-%s%s %s\t%s\t%s %s\n' "$q" "$name" "${ID:+-$ID}" "${opts[*]}" "$T/a.$N" "$q" "${opts[*]@Q} ${more[*]@Q}" >>"$T/$name.manifest"
}
N=0

# pairs NAME DUMP MAP: every query's options alone and in pairs on one dump
pairs() {
  local name=$1 D=$2 M=$3 ID="" heaps h id
  java -Xmx512m -cp "$AHAT:$T/hr" com.android.ahat.heapdump.AhatOracle "$D" "${M:--}" --graph >"$T/$name.ahat" 2>"$T/$name.err" ||
    { fail "oracle-pairs-$name" "ahat failed: $(tail -c 300 "$T/$name.err")"; return; }
  heaps=$(hk info "$D" --json --no-map | jq -r '.heaps[]')
  # reachability: per strength, then per object (top --all -n 0 lists every object)
  check "$name" reachability
  check "$name" reachability --sort count
  check "$name" reachability --sort shallow_bytes
  hk top "$D" --all -n 0 ${M:+--map "$M"} --json >"$T/$name.every" 2>/dev/null
  printf 'oracle-pairs-reach-objects-%s\t%s\treachability-objects\n' "$name" "$T/$name.every" >>"$T/$name.manifest"
  eq "oracle-pairs-reachability-class-$name" "$(hk reachability "$D" --class 'java.*' >/dev/null 2>&1; echo $?)" 2
  # top --all and --heap, with --class, --sort and -n
  check "$name" top --all -n 10 -- --all
  check "$name" top --all --class 'java.lang.ref.*' -n 5 -- --all
  check "$name" top --all --sort shallow_bytes -n 6 -- --all
  check "$name" top --all --class '*[]' --sort shallow_bytes -n 4 -- --all
  for h in $heaps; do
    check "$name" top --heap "$h" -n 8
    check "$name" top --heap "$h" --all -n 8 -- --all
    check "$name" top --heap "$h" --class 'java.*' -n 3
    check "$name" top --heap "$h" --sort shallow_bytes -n 5
    check "$name" top --heap "$h" --all --class '*[]' --sort shallow_bytes -n 3 -- --all
  done
  # path: the biggest object that is not a class object, the object farthest from every root
  # over ahat's strong references, and a weakly held one; each whole, then with options
  local ids
  ids=$(grep '^obj' "$T/$name.ahat" | grep -v $'\tclass ' | sort -t$'\t' -k5,5nr | head -1 | cut -f2)
  ids="$ids $(python3 "$CHECK" "$T/$name.ahat" deepest)"
  ids="$ids $(awk -F'\t' '$1 == "any" && ($6 == "weak" || $6 == "soft" || $6 == "finalizer") { print $2; exit }' "$T/$name.ahat")"
  for id in $ids; do
    ID=$id
    hk path "$D" "$id" ${M:+--map "$M"} --json >"$T/path.$id.json" 2>/dev/null
    check "$name" path -- --id "$id" --full "$T/path.$id.json"
    check "$name" path --class 'java.*' -- --id "$id" --full "$T/path.$id.json"
    check "$name" path --sort retained_bytes -- --id "$id" --full "$T/path.$id.json"
    check "$name" path --sort shallow_bytes --class 'java.*' -- --id "$id" --full "$T/path.$id.json"
  done
  ID=""
  # bitmaps: every Bitmap, with --min-pixels, and with --export (the PNGs decoded here)
  check "$name" bitmaps
  check "$name" bitmaps --min-pixels 3000
  rm -rf "$T/png"
  check "$name" bitmaps --min-pixels 2500 --export "$T/png" -- --export "$T/png"
  eq "oracle-pairs-bitmaps-sort-$name" "$(hk bitmaps "$D" --sort bytes >/dev/null 2>&1; echo $?)" 2
  python3 "$CHECK" "$T/$name.ahat" --batch "$T/$name.manifest" 2>&1 | grep -E '^(PASS|FAIL)' ||
    fail "oracle-pairs-$name" "the checker failed: $(python3 "$CHECK" "$T/$name.ahat" --batch "$T/$name.manifest" 2>&1 | tail -1)"
}

R="$REALDATA/hprof"
[ -f "$R/leakcanary-leak_service_binder.hprof" ] && pairs leakcanary "$R/leakcanary-leak_service_binder.hprof" ""
[ -f "$R/aosp-art-ahat-test-dump.hprof" ] && pairs art "$R/aosp-art-ahat-test-dump.hprof" "$R/aosp-art-ahat-test-dump.map"

# leaks: the traces Shark finds (kind, leaking object, retained bytes) with each gate, threshold
# and format; the gate trips exactly when one of Shark's traces of its kind retains that much
CP="$SHARK/shark27-all.jar:$SHARK/harness27.jar:/usr/share/java/kotlin-stdlib.jar:/usr/share/java/okio.jar"
D="$R/leakcanary-leak_service_binder.hprof"
if [ -f "$SHARK/harness27.jar" ] && [ -f /usr/share/java/okio.jar ] && [ -f "$D" ]; then
  java -Xmx1g -cp "$CP" SharkOracleKt "$D" filter >"$T/lc.shark" 2>&1 || fail oracle-pairs-shark "Shark failed"
  max=$(grep -o 'retainedBytes=[0-9]*' "$T/lc.shark" | cut -d= -f2 | sort -n | tail -1)
  for opts in "" "--fail-on leaks" "--fail-on leaks:$max" "--fail-on leaks:$((max + 1))" "--fail-on library-leaks" \
    "--fail-on library-leaks:1,leaks:$max"; do
    for fmt in json csv; do
      N=$((N + 1))
      # shellcheck disable=SC2086
      hk leaks "$D" $opts --format "$fmt" >"$T/a.$N" 2>/dev/null
      rc=$? gate=${opts#--fail-on }
      gate=${gate#library-leaks:1,}
      printf 'oracle-pairs-leaks %s %s\t%s\tleaks --status %d %s %s\n' "$opts" "$fmt" "$T/a.$N" "$rc" \
        "${gate:+--fail-on $gate}" "$([ "$fmt" = csv ] && echo --csv)" >>"$T/leaks.manifest"
    done
  done
  python3 "$CHECK" "$T/lc.shark" --batch "$T/leaks.manifest" 2>&1 | grep -E '^(PASS|FAIL)' ||
    fail oracle-pairs-leaks "the checker failed: $(python3 "$CHECK" "$T/lc.shark" --batch "$T/leaks.manifest" 2>&1 | tail -1)"
else
  skip oracle-pairs-leaks "Shark (../shared/peer/shark, tools/deps.sh --test) or the dump is absent"
fi
