# ./run.sh as a newcomer meets it (packages in, so it builds and triages; pointed at this build
# tree): the summary names the leak, a bitmap and a report; the report renders in Chromium with
# the leak and the bitmap thumbnails; what it found is what the app scenario planted (genhprof's
# --expect labels, written as the dump is); the commands it suggests run.
. "$SRC/tests/lib.sh"
out=$(cd "$SRC" && HPROFKIT_BUILD="$BUILD" ./run.sh 2>"$T/run.err")
eq run-exit "$?" 0
echo "$out" >"$T/run.out"
"$GEN" --scenario app --grow 200 -o "$T/app.hprof" --expect "$T/app.json" >/dev/null 2>&1
ok run-dump-is-the-scenario cmp "$T/app.hprof" "$BUILD/app.hprof"
facts="$BUILD/app-triage.json"
label() { jq -r ".labels[\"$1\"]" "$T/app.json"; }

# the leak: the planted activity, its path, its signature as the facts give it
case $out in *"PhotoActivity leaked through ImageLoader.sListeners"*) pass run-names-leak ;;
  *) fail run-names-leak "$(head -c 400 <<<"$out")" ;; esac
eq run-leak-is-planted "$(jq -r '.leaks.leaks[0].traces[0].object' "$facts")" "$(label leaked_activity)"
sig=$(jq -r '.leaks.leaks[0].signature' "$facts")
if [[ "$sig" =~ ^[0-9a-f]{40}$ ]] && grep -q "signature $sig" <<<"$out"; then pass run-leak-signature
else fail run-leak-signature "facts $sig"; fi
grep -q 'ImageLoader.sListeners > ArrayList.elementData > Object\[\]\[0\] > PhotoActivity (leaking)' <<<"$out" \
  && pass run-leak-path || fail run-leak-path "no path line"

# bitmaps: every one decoded, the planted pair found, and named with its ids
grep -q '^Bitmaps: 5 (5 with pixels)' <<<"$out" && pass run-names-bitmaps || fail run-names-bitmaps "no Bitmaps line"
eq run-duplicate-pair "$(jq -r '.bitmaps.groups[0].ids | sort | join(" ")' "$facts")" \
  "$(printf '%s\n' "$(label avatar)" "$(label avatar_copy)" | sort | tr '\n' ' ' | sed 's/ $//')"
grep -q "2 x 96x96 with the same pixels: .*$(label avatar_copy)" <<<"$out" && pass run-names-pair || fail run-names-pair "-"
# duplicate strings: the counts the scenario planted
for v in Camera image/jpeg; do
  eq "run-dup-string-$v" "$(jq -r --arg v "$v" '.duplicate_strings.groups[] | select(.value == $v) | .count' "$facts")" \
    "$(jq -r --arg v "$v" '.facts.duplicate_strings[$v]' "$T/app.json")"
done
# the growing list and the gates
grep -q 'FeedRepository.sEvents: 40 -> 240 elements' <<<"$out" && pass run-names-growth || fail run-names-growth "-"
grep -q '^CI gates tripped: leaks, bitmap-waste' <<<"$out" && pass run-names-gates || fail run-names-gates "-"

# the report: an HTML file; in Chromium the leak and 5 bitmap thumbnails
report=$(sed -n 's/^Report: \([^ ]*\).*/\1/p' <<<"$out")
if [ -f "$report" ] && [ "$(head -c 15 "$report")" = "<!DOCTYPE html>" ]; then pass run-report-html
else fail run-report-html "no HTML report at '$report'"; fi
if command -v chromium >/dev/null; then
  timeout 60 chromium --headless --no-sandbox --disable-gpu --disable-dev-shm-usage --no-first-run \
    --user-data-dir="$T/chromium" --host-resolver-rules="MAP * ~NOTFOUND" --virtual-time-budget=5000 \
    --dump-dom "file://$report" >"$T/report.dom" 2>/dev/null
  leaks=$(sed -n '/<section id="leaks">/,/<\/section>/p' "$T/report.dom")
  grep -q 'com.example.gallery.PhotoActivity' <<<"$leaks" && grep -q 'LEAKING' <<<"$leaks" \
    && pass report-shows-leak || fail report-shows-leak "the rendered leaks section lacks the activity"
  imgs=$(sed -n '/<section id="bitmaps">/,/<\/section>/p' "$T/report.dom" | grep -o '<img[^>]*src="data:image/png;base64,' | wc -l)
  eq report-shows-thumbnails "$imgs" 5
else
  skip report-browser "chromium is not installed (tools/deps.sh --test)"
fi

# the suggested commands run (comment lines aside)
sed -n '/^Try next:/,$p' <<<"$out" | sed -n 's/^  \([^ #].*[^ ]\) *#.*/\1/p; t; s/^  \([^ #].*[^ ]\)$/\1/p' >"$T/next"
n=0
while read -r cmd; do
  n=$((n + 1))
  case $cmd in
    *" serve "*) # serves until stopped: it must say where within 30 s, then it is stopped
      (cd "$SRC" && exec timeout 60 bash -c "exec $cmd") >"$T/next.$n.out" 2>&1 &
      server=$!
      for _ in $(seq 60); do grep -q '^serving ' "$T/next.$n.out" && break; sleep 0.5; done
      kill "$server" 2>/dev/null; wait "$server" 2>/dev/null
      grep -q '^serving .* at http://127.0.0.1:[0-9]*/?token=' "$T/next.$n.out" && pass "next-$n-serves" ||
        fail "next-$n-serves" "$cmd: $(head -c 300 "$T/next.$n.out")" ;;
    *) (cd "$SRC" && bash -c "$cmd") >"$T/next.$n.out" 2>&1 && pass "next-$n-runs" ||
        fail "next-$n-runs" "$cmd: $(head -c 300 "$T/next.$n.out")" ;;
  esac
done <"$T/next"
ok next-commands-listed test "$n" -ge 3

# the summary script on a file that is not triage facts: one line, exit 2
err summary-not-facts "is not a triage facts file" "$HK" run "$SRC/scripts/commands/triage_summary.lua" "$SRC/README.md"
