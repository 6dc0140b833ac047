# Which map each side of a diff is read with (README, "Diff"): two dumps of one app share one
# map.  On ART's obfuscated pair (the map sits beside DUMP only), every way of naming the map
# reads both sides with it: no class is "added", and the top grower has its source name.
. "$SRC/tests/lib.sh"
R="$REALDATA/hprof"
B="$R/aosp-art-ahat-test-dump-base.hprof" A="$R/aosp-art-ahat-test-dump.hprof" M="$R/aosp-art-ahat-test-dump.map"
[ -f "$B" ] && [ -f "$A" ] && [ -f "$M" ] || { skip diff-maps "the ahat pair or its map is absent under $R"; exit 0; }
want="0 Main.stuff > DumpedStuff.bigArray (+600000 elements)"
summary() { jq -r '"\(.summary.classes_added) \(.summary.top_grower)"' "$1"; }
run() { local out=$1; shift; "$HK" diff "$@" --no-leaks --no-bitmaps --json -n 3 > "$T/$out.json" 2> "$T/$out.err"; }

run plain "$B" "$A"
eq diff-map-beside-dump "$(summary "$T/plain.json")" "$want"
grep -q 'BASE is read with the map .*beside DUMP' "$T/plain.err" && pass diff-map-beside-dump-noted || fail diff-map-beside-dump-noted "$(cat "$T/plain.err")"
run global "$B" "$A" --map "$M"
eq diff-map-global-both "$(summary "$T/global.json")" "$want"
HPROFKIT_MAP="$M" run env "$B" "$A" --no-map
eq diff-no-map "$(summary "$T/env.json")" "0 Main.a > DumpedStuff.v (+600000 elements)"
HPROFKIT_MAP="$M" run env2 "$B" "$A"
eq diff-map-env-both "$(summary "$T/env2.json")" "$want"
run basemap "$B" "$A" --no-map --base-map "$M"
grep -q 'warning: BASE is read with the map .* and DUMP with none' "$T/basemap.err" && pass diff-map-one-side-warns ||
  fail diff-map-one-side-warns "$(cat "$T/basemap.err")"
# ... and the names say so too: DUMP has R8's short names where BASE has its map's
grep -q 'warning: DUMP looks obfuscated (28 of its 1126 class names' "$T/basemap.err" && pass diff-map-obfuscated-warns ||
  fail diff-map-obfuscated-warns "$(cat "$T/basemap.err")"
grep -q 'looks obfuscated' "$T/plain.err" "$T/env.err" && fail diff-map-obfuscated-quiet "$(cat "$T/plain.err" "$T/env.err")" ||
  pass diff-map-obfuscated-quiet

# the map beside BASE only: DUMP takes it too; a map given for DUMP wins over BASE's (here one
# that renames nothing, so BASE's source-named classes are "removed")
mkdir -p "$T/pair"
ln -s "$B" "$T/pair/base.hprof"; ln -s "$A" "$T/pair/dump.hprof"; ln -s "$M" "$T/pair/base.map"
run besidebase "$T/pair/base.hprof" "$T/pair/dump.hprof"
eq diff-map-beside-base "$(summary "$T/besidebase.json")" "$want"
grep -q 'DUMP is read with the map .*base.map (beside BASE)' "$T/besidebase.err" && pass diff-map-beside-base-noted ||
  fail diff-map-beside-base-noted "$(cat "$T/besidebase.err")"
printf 'x -> y:\n' > "$T/pair/other.map"
run own "$T/pair/base.hprof" "$T/pair/dump.hprof" --map "$T/pair/other.map"
eq diff-map-given-wins "$(jq -r .summary.classes_removed "$T/own.json")" 17

# triage --baseline: the baseline takes the dump's map when none sits beside it
"$HK" triage "$A" --baseline "$B" --json > "$T/triage.json" 2>/dev/null
eq diff-map-triage-baseline "$(jq -r '"\(.diff.summary.classes_added) \(.diff.summary.top_grower)"' "$T/triage.json")" "$want"
