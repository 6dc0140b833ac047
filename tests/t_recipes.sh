# Triage recipes (scripts/recipes/): leaks.
. "$SRC/tests/lib.sh"
"$GEN" --scenario demo -o demo.hprof --expect demo.json >/dev/null 2>&1 || { fail gen "genhprof failed"; exit 0; }
"$HK" leaks demo.hprof --json > leaks.json 2>leaks.err || fail leaks-runs "$(cat leaks.err)"
eq leaks-finds-destroyed-activity "$(jq -r '.[].id' leaks.json)" "$(jq -r .labels.leaked_activity demo.json)"
eq leaks-root "$(jq -r '.[0].root' leaks.json)" STICKY_CLASS
eq leaks-held-by "$(jq -r '.[0].held_by' leaks.json)" "class com.example.demo.Leaky .static leaks"
eq leaks-retained "$(jq -r '.[0].retained' leaks.json)" "$("$HK" top demo.hprof -n 1000 --json | jq --arg id "$(jq -r .labels.leaked_activity demo.json)" '.[] | select(.id == $id) | .retained_bytes')"
# the live MainActivity (not destroyed) is not reported
eq leaks-not-live-activity "$(jq --arg id "$(jq -r .labels.main_activity demo.json)" '[.[] | select(.id == $id)] | length' leaks.json)" 0
"$GEN" --scenario chain --objects 10 -o chain.hprof >/dev/null 2>&1
eq leaks-none "$("$HK" leaks chain.hprof --json)" "[]"
lc="$REALDATA/hprof/leakcanary-leak_service_binder.hprof"
if [ -f "$lc" ]; then
  "$HK" leaks "$lc" --json > lc.json
  eq leaks-leakcanary-watched "$(jq -r '.[0].class' lc.json)" com.example.leakcanary.LeakyService
  grep -q "b3abfae6-2c53-42e1-b8c1-96b0558dbeae" lc.json && pass leaks-leakcanary-key || fail leaks-leakcanary-key "$(head -c 300 lc.json)"
  # LeakCanary 1.x's own test: the leak's chain starts at a static field of LeakyService
  eq leaks-leakcanary-static-field "$(jq -r '.[0].held_by' lc.json)" "class com.example.leakcanary.LeakyService .static leakAllTheBinders"
else
  skip leaks-leakcanary "$lc is absent"
fi
