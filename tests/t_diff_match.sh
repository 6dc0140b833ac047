# Heap diff matcher: the instances-by-class lists its pass over the records fills for the rest of
# the program (laid out from the index's per-class counts) against the lists built without it.
. "$SRC/tests/lib.sh"

cat > lists.lua <<'LUA'
-- every class's instances in list order: how many, and a running hash of their ids
local d = hk.open(arg.dump, { map = false })
if arg.base then d:diff(hk.open(arg.base, { map = false })) end
for _, c in ipairs(d:classes()) do
  local n, h = 0, 0
  for o in c:instances() do
    n = n + 1
    h = (h * 31 + o.id) % 1000000007
  end
  print(c.name, n, h)
end
LUA
same_lists() { # name base dump: the lists after a diff equal those built on their own
  "$HK" run lists.lua --dump "$3" > alone.txt 2> alone.err || { fail "$1" "$(head -c 300 alone.err)"; return; }
  "$HK" run lists.lua --base "$2" --dump "$3" > diffed.txt 2> diffed.err || { fail "$1" "$(head -c 300 diffed.err)"; return; }
  if [ "$(wc -l < alone.txt)" -gt 5 ] && cmp -s alone.txt diffed.txt; then pass "$1"; else
    fail "$1" "$(diff alone.txt diffed.txt | head -5)"; fi
}

"$GEN" --scenario demo --grow 0 -o g0.hprof >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
"$GEN" --scenario demo --grow 50 --seed 3 --id-size 8 -o g50.hprof >/dev/null 2>&1
same_lists lists-generated g0.hprof g50.hprof
same_lists lists-generated-base g50.hprof g0.hprof

A="$REALDATA/hprof/aosp-art-ahat-test-dump.hprof"
B="$REALDATA/hprof/aosp-art-ahat-test-dump-base.hprof"
if [ -f "$A" ] && [ -f "$B" ]; then
  same_lists lists-ahat "$B" "$A"
  same_lists lists-ahat-base "$A" "$B"
else
  skip lists-ahat "the ahat dumps are absent under $REALDATA/hprof"
fi
RI="$REALDATA/hprof/hotspot-ahat-RI.hprof"
if [ -f "$RI" ] && [ -f "$A" ]; then same_lists lists-hotspot "$A" "$RI"; else skip lists-hotspot "no HotSpot dump"; fi

# The matcher's per-object state as the graph's reference pass notes it equals what the
# matcher reads from the records itself when the references were built first.
NC="$BUILD/tests/graph/diff_notes_check"
same_notes() { # name base dump
  if [ ! -x "$NC" ]; then skip "$1" "$NC not built"; return; fi
  if out=$("$NC" "$2" "$3" 2>&1) && [ "${out%% *}" = same ]; then pass "$1"; else fail "$1" "$(echo "$out" | head -3)"; fi
}
same_notes notes-generated g0.hprof g50.hprof
if [ -f "$A" ] && [ -f "$B" ]; then same_notes notes-ahat "$B" "$A"; else skip notes-ahat "the ahat dumps are absent"; fi
if [ -f "$RI" ] && [ -f "$A" ]; then same_notes notes-hotspot "$A" "$RI"; else skip notes-hotspot "no HotSpot dump"; fi
