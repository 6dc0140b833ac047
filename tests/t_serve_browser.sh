# The explorer in a real headless Chromium (Debian's chromium, driven by puppeteer-core from
# tests/browser/, pinned by its package-lock.json): on the 2015 LeakCanary dump, the overview,
# the top retainer, its referrers, the back button, the path from a root, a field, its class, an
# instance, the leak's static step, real bitmap pictures, the console; in diff mode on ahat's pair,
# the top grower.  Each step is held to the CLI's --json; a failing step saves a screenshot.
. "$SRC/tests/lib.sh"
command -v chromium >/dev/null || { skip browser "chromium is not installed (tools/deps.sh --test)"; exit 0; }
command -v node >/dev/null || { skip browser "node is not installed (tools/deps.sh --test)"; exit 0; }
[ -d "$SRC/tests/browser/node_modules/puppeteer-core" ] ||
  { skip browser "puppeteer-core is not installed (tools/deps.sh --test runs npm ci in tests/browser)"; exit 0; }
R="$REALDATA/hprof"
D="$R/leakcanary-leak_service_binder.hprof"
[ -f "$D" ] || { skip browser "$D is absent"; exit 0; }

. "$SRC/tests/serve/server.sh"
walk() {  # MODE EXPECT
  timeout 120 node "$SRC/tests/browser/walk.js" "$URL" "$1" "$2" "$T" "$T/profile-$1" 2>"$1.walk.err"
  [ -s "$1.walk.err" ] && grep -v '^$' "$1.walk.err" | head -5 >&2
}

top=$("$HK" top "$D" -n 1 --json | jq -r '.[0].id')
# the first of the overview's top retainers that something refers to (the very top is often a
# class object, held by a root alone)
for id in $("$HK" top "$D" -n 10 --json | jq -r '.[].id'); do
  [ "$("$HK" referrers "$D" "$id" --json | jq length)" -gt 0 ] && { held=$id; break; }
done
leak=$("$HK" leaks "$D" --json | jq -r '.leaks[0].traces[0].object')
cls=$("$HK" object "$D" "$leak" --json | jq -r .class)
# the value array of the longest String: pages of 100 elements, any index one jump away
str=$("$HK" instances "$D" java.lang.String -n 1 --json | jq -r '.[0].id')
arr=$("$HK" object "$D" "$str" --json | jq -r '.fields[] | select(.name == "value") | .value')
alen=$("$HK" object "$D" "$arr" --elements 0 --json | jq .length)
jump=$((alen - 41))
# an object held by more than 50: its second page of referrers
many=$("$HK" run "$SRC/tests/serve/most_referred.lua" "$D")
bm=$("$HK" instances "$D" android.graphics.Bitmap -n 1 --json | jq -r '.[0].id')
jq -n --arg top "$top" --arg held "$held" --arg leak "$leak" --arg cls "$cls" \
  --argjson refs "$("$HK" referrers "$D" "$held" -n 50 --json | jq length)" \
  --argjson path "$("$HK" path "$D" "$held" --json | jq '[.[].object]')" \
  --argjson inst "$("$HK" instances "$D" "$cls" -n 50 --json | jq length)" \
  --argjson bitmaps "$("$HK" bitmaps "$D" --json | jq '[.bitmaps[] | [.width, .height]]')" \
  --argjson hist "$("$HK" histogram "$D" -n 5 --json | jq '[.[].class]')" \
  --argjson objects "$("$HK" info "$D" --json | jq .objects)" \
  --argjson refpage "$(jq -n --arg id "$many" --argjson second "$("$HK" referrers "$D" "$many" --offset 50 -n 50 --json | jq '[.[].id]')" '{id: $id, second: $second}')" \
  --argjson bitmap "$("$HK" object "$D" "$bm" --json | jq '{id, w: (.fields[] | select(.name == "mWidth") | .value), h: (.fields[] | select(.name == "mHeight") | .value)}')" \
  --argjson array "$(jq -n --arg id "$arr" --argjson length "$alen" --argjson jump "$jump" \
    --argjson page2 "$("$HK" object "$D" "$arr" --offset 100 --elements 100 --json | jq '[.elements[].value]')" \
    --argjson last "$("$HK" object "$D" "$arr" --offset "$jump" --elements 100 --json | jq '{text, values: [.elements[].value]}')" \
    '{id: $id, length: $length, jump: $jump, page2: $page2, last: $last}')" \
  --argjson dom "$("$HK" dominated "$D" -n 200 --json | jq '[.[].id]')" \
  --argjson kids "$("$HK" dominated "$D" "$("$HK" dominated "$D" -n 1 --json | jq -r '.[0].id')" -n 100 --json | jq '[.[].id]')" \
  '{top: $top, held: $held, top_referrers: $refs, top_path: $path, leak_object: $leak, leak_class: $cls,
    leak_class_instances: $inst, bitmaps: $bitmaps, histogram5: $hist, objects: $objects, array: $array,
    refpage: $refpage, bitmap: $bitmap,
    dominated: $dom, dominated_count: ($dom | length), dominated_kids: $kids}' > expect.json
if start_server main "$D"; then
  walk main expect.json
  kill -INT $PID; wait $PID
fi

B="$R/aosp-art-ahat-test-dump-base.hprof" C="$R/aosp-art-ahat-test-dump.hprof" M="$R/aosp-art-ahat-test-dump.map"
if [ -f "$B" ] && [ -f "$C" ] && [ -f "$M" ]; then
  "$HK" diff "$B" "$C" --map "$M" --base-map "$M" --json | jq '{top_grower: .growers[0].path, grower_base: .growers[0].id_base,
    class_row: (.classes | map(select(.count_delta > 0 and .count_base > 0 and .retained_delta > 0)) | .[0] | {class, count_base, count_delta, mark: "GREW"})}' > diff-part.json
  # each list beside the baseline as the CLI's --baseline gives it
  jq -n --slurpfile d diff-part.json \
    --argjson dom "$("$HK" dominated "$C" -n 200 --map "$M" --baseline "$B" --json 2>/dev/null | jq '[.[].change]')" \
    --argjson inst "$("$HK" instances "$C" 'DumpedStuff$StackSmasher' -n 50 --map "$M" --baseline "$B" --json 2>/dev/null | jq '[.[].change]')" \
    --argjson strs "$("$HK" duplicate-strings "$C" -n 100 --map "$M" --baseline "$B" --json 2>/dev/null | jq '[.[].change]')" \
    --argjson objs "[$("$HK" info "$B" --json | jq .objects), $("$HK" info "$C" --json | jq .objects)]" \
    '$d[0] + {dominated_marks: $dom, instance_marks: $inst, string_marks: $strs, objects_base_dump: $objs}' > expect-diff.json
  if start_server diff "$C" --map "$M" --baseline "$B" --base-map "$M"; then
    walk diff expect-diff.json
    kill -INT $PID; wait $PID
  fi
else
  skip browser-diff "ahat's dump pair is absent"
fi
