# LeakCanary's own analysis (Shark 2.7, ../shared/peer/shark) runs on the generator's leak
# scenarios (genhprof leaks and leaks-api31, with filler as bench/peers_bench.sh uses them, and
# two fleet dumps: API 30 and API 33, a destroyed Activity, a View held by InputMethodManager) and
# finds the leaking objects hprofkit finds: tests/shark_compare.py's candidates and
# leaking-objects checks, and per leaking object its root and retained size.  Trace texts are
# not held here: hprofkit's inspectors know objects LeakCanary 2.7 did not (Compose, ViewModel,
# Lifecycle), so some statuses and reasons differ by design (t_shark holds texts where 2.7 agrees).
. "$SRC/tests/lib.sh"
SHARK="$SRC/../shared/peer/shark"
CP="$SHARK/shark27-all.jar:$SHARK/harness27.jar:/usr/share/java/kotlin-stdlib.jar:/usr/share/java/okio.jar"
needs shark-scenarios java "$SHARK/harness27.jar" /usr/share/java/kotlin-stdlib.jar /usr/share/java/okio.jar || exit 0

for args in "leaks --objects 20000" "leaks-api31 --objects 20000" "fleet --index 0" "fleet --index 3"; do
  s=$(echo "$args" | sed 's/ --objects.*//; s/ --index /-/')
  d="$T/$s.hprof"
  # shellcheck disable=SC2086
  "$GEN" --scenario $args -o "$d" --expect "$T/$s.json" >/dev/null 2>&1 || { fail "shark-$s" "genhprof failed"; continue; }
  if ! java -Xmx1g -cp "$CP" SharkOracleKt "$d" filter >"$T/$s.shark" 2>&1 || grep -q '^FAILURE' "$T/$s.shark"; then
    fail "shark-$s-runs" "Shark failed: $(grep -m3 -E 'FAILURE|Exception|at shark' "$T/$s.shark" | paste -sd' ')"
    continue
  fi
  pass "shark-$s-runs"
  "$HK" run "$SRC/tests/lua/leak_side.lua" "$d" >"$T/$s.hk" 2>"$T/$s.err" || { fail "shark-$s" "hprofkit failed"; continue; }
  python3 "$SRC/tests/shark_compare.py" "$T/$s.shark" "$T/$s.hk" \
    | grep -E '^(PASS|FAIL) (candidates|leaking-objects|0x[0-9a-f]+-(root|retained))\b' | sed "s/^\(PASS\|FAIL\) /\1 shark-$s-/"
  # Shark found the scenario's planted leaks, not filler: each leaking object is a labelled one
  got=$(grep -o 'leakingObject=0x[0-9a-f]*' "$T/$s.shark" | sed 's/leakingObject=0x\(ffffffff\)\?/0x/' | sort -u)
  labelled=$(jq -r '.labels[]' "$T/$s.json" | sort -u)
  eq "shark-$s-leaks-are-planted" "$(comm -23 <(echo "$got") <(echo "$labelled") | paste -sd' ')" ""
  eq "shark-$s-found-some" "$([ "$(echo "$got" | grep -c .)" -ge "$([ "${s%%-*}" = fleet ] && echo 1 || echo 20)" ] && echo yes)" "yes"
done
