# diff's added and removed objects held to ahat's baseline mode (its Diff of instances, through
# tests/java/AhatOracle.java --baseline), instances and arrays as well as class objects, on ART's
# test pair with its map and on a generated pair (the app scenario before and after 30 more
# events): tests/diff_objects.py explains every object the two tools pair otherwise by one of
# the conventions the README names (ahat's key of an array's length and a String's text, its
# walk down the dominator trees, siblings of one class, objects not strongly reachable), and holds
# `diff --json`'s added_by_class and removed_by_class to the objects and ahat's sizes.
. "$SRC/tests/lib.sh"
AHAT="$SRC/../shared/peer/ahat/ahat.jar"
needs oracle-diff javac python3 "$AHAT" || exit 0
if ! javac -nowarn -cp "$AHAT" -d "$T/hr" "$SRC/tests/java/AhatOracle.java" 2>"$T/javac.err"; then
  fail oracle-diff-javac "$(head -c 300 "$T/javac.err")"; exit 0
fi

# pair NAME BASE DUMP [MAP]: both tools' statuses of every object, and diff's rows, compared
pair() {
  local name=$1 base=$2 dump=$3 map=${4:-}
  if ! java -Xmx512m -cp "$AHAT:$T/hr" com.android.ahat.heapdump.AhatOracle "$dump" "${map:--}" --baseline "$base" \
    >"$T/$name.ahat" 2>"$T/$name.err"; then
    fail "oracle-diff-$name" "ahat failed: $(tail -c 300 "$T/$name.err")"; return
  fi
  "$HK" run "$SRC/tests/lua/diff_status.lua" "$dump" --base "$base" ${map:+--map "$map"} >"$T/$name.ours" 2>"$T/$name.err" ||
    { fail "oracle-diff-$name" "diff_status.lua failed: $(tail -c 300 "$T/$name.err")"; return; }
  "$HK" diff "$base" "$dump" -n 0 --no-leaks --no-bitmaps ${map:+--map "$map"} --json >"$T/$name.json" 2>"$T/$name.err" ||
    { fail "oracle-diff-$name" "diff failed: $(tail -c 300 "$T/$name.err")"; return; }
  python3 "$SRC/tests/diff_objects.py" "oracle-diff-$name" "$T/$name.ahat" "$T/$name.ours" "$T/$name.json" 2>&1 |
    grep -E '^(PASS|FAIL)' || fail "oracle-diff-$name" "the checker failed"
}

R="$REALDATA/hprof"
if [ -f "$R/aosp-art-ahat-test-dump.hprof" ] && [ -f "$R/aosp-art-ahat-test-dump-base.hprof" ]; then
  pair art "$R/aosp-art-ahat-test-dump-base.hprof" "$R/aosp-art-ahat-test-dump.hprof" "$R/aosp-art-ahat-test-dump.map"
else
  skip oracle-diff-art "ART's test pair is absent under $R"
fi
"$GEN" --scenario app --grow 0 --seed 1 -o "$T/g0.hprof" >/dev/null 2>&1 &&
  "$GEN" --scenario app --grow 30 --seed 1 -o "$T/g30.hprof" >/dev/null 2>&1 || fail oracle-diff-gen "genhprof failed"
pair gen "$T/g0.hprof" "$T/g30.hprof"
# the generated pair's own record: 30 events added, each with its payload array, nothing removed
eq oracle-diff-gen-added "$(jq -c '[.added_by_class[] | [.class, .objects]], [.removed_by_class[]]' "$T/gen.json" | paste -sd' ')" \
  '[["byte[]",30],["com.example.gallery.FeedEvent",30]] []'
