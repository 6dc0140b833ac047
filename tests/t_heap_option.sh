#!/usr/bin/env bash
# --heap on top and triage (and the report's class table): the objects of one heap, filtered
# before -n, held to a plain walk of every object written for the test; the report's class
# table opens on the app heap of an Android dump.
source "$SRC/tests/lib.sh"
D="$REALDATA/hprof/leakcanary-leak_service_binder.hprof"
if [ ! -f "$D" ]; then skip heap-option "needs $D"; exit 0; fi
walk() { # HEAP GLOB N: the walk's top N live objects of HEAP whose label matches GLOB (Lua pattern)
  "$HK" run - "$D" <<EOT
local d, rows = hk.open(arg.dump), {}
for o in d:objects() do
  if o.heap == "$1" and o.reachability == "strong" and o.label:match("$2") then
    rows[#rows + 1] = { o.id, o:retained_size() }
  end
end
table.sort(rows, function(a, b) if a[2] ~= b[2] then return a[2] > b[2] end return tonumber(a[1]) < tonumber(b[1]) end)
for i = 1, math.min($3, #rows) do print(rows[i][1], rows[i][2]) end
EOT
}
top() { "$HK" top "$D" --json "$@" | jq -r '.[] | "\(.id)\t\(.retained_bytes)"'; }
eq top-heap-app "$(top --heap app -n 15)" "$(walk app '' 15)"
eq top-heap-zygote-class-n "$(top --heap zygote --class 'android.*' -n 7)" "$(walk zygote '^android%.' 7)"
eq top-heap-all "$(top --heap all -n 5)" "$(top -n 5)"
"$HK" top "$D" --heap nope >/dev/null 2>"$T/e"; eq top-heap-unknown "$? $(grep -c "no heap 'nope'" "$T/e")" "2 1"

"$HK" triage "$D" --heap app --json -o "$T/f.json" --report "$T/r.html" 2>/dev/null
eq triage-heap "$(jq -r .heap "$T/f.json")" app
eq triage-heap-top "$(jq -r '.top[] | "\(.id)\t\(.retained_bytes)"' "$T/f.json" | head -10)" "$(walk app '' 10)"
eq triage-heap-classes "$(jq -c '[.histogram[] | [.class, .count, .shallow_bytes]] | .[:20]' "$T/f.json")" \
  "$("$HK" histogram "$D" --heap app --json | jq -c '[.[] | [.class, .count, .shallow_bytes]] | .[:20]')"
eq triage-heap-report "$(grep -c '<h2>Classes <small>(heap app)</small>' "$T/r.html")" 1
"$HK" triage "$D" --json -o "$T/all.json" --report "$T/rall.html" 2>/dev/null
eq triage-default-every-heap "$(jq -c '.heap, ([.histogram[] | [.class, .count, .shallow_bytes]] | .[:20])' "$T/all.json")" \
  "$(echo null; "$HK" histogram "$D" --json | jq -c '[.[] | [.class, .count, .shallow_bytes]] | .[:20]')"
eq report-opens-on-app-heap "$(grep -c '<h2>Classes <small>(heap app)</small>' "$T/rall.html")" 1
"$HK" triage "$D" --heap bogus >/dev/null 2>"$T/e"; eq triage-heap-unknown "$? $(grep -c "no heap 'bogus' in this dump; its heaps: zygote, app" "$T/e")" "2 1"
