# leaks: finders, inspectors and statuses, suspects, library leaks, signatures, user scripts.
. "$SRC/tests/lib.sh"
"$GEN" --scenario leaks -o leaks.hprof --expect L.json >/dev/null 2>&1 || { fail gen "genhprof leaks failed"; exit 0; }
"$HK" leaks leaks.hprof --json > l.json 2>l.err || fail leaks-runs "$(cat l.err)"
"$GEN" --scenario chain --objects 10 -o chain.hprof >/dev/null 2>&1
lab() { jq -r ".labels.$1" L.json; }
# tr FILE LABEL JQ: JQ applied to the trace of the object labelled LABEL (with its leak's kind,
# signature and pattern), "none" when it is not reported
tr() {
  jq -r --arg id "$(lab "$2")" "[.leaks[] as \$g | \$g.traces[] | select(.object == \$id)
    | . + {kind: \$g.kind, signature: \$g.signature, pattern: \$g.pattern, group: \$g}] | if length == 0 then \"none\" else (.[0] | $3) end" "$1"
}
sha1() { printf '%s' "$1" | sha1sum | cut -d' ' -f1; }

# ---- finders ----
eq finder-watched-2x "$(tr l.json watched_thing '[.key, .retained_for_ms, .steps[-1].reasons[0]] | join("|")')" \
  "k-worker|2500|ObjectWatcher was watching this because com.example.Thing#onDestroy"
eq finder-watched-1x "$(tr l.json queue_thing '[.key, .steps[-1].reasons[0]] | join("|")')" "k-1x|ObjectWatcher was watching this"
eq finder-watched-weakly-reachable "$(tr l.json gone_thing .)" "none"
eq finder-watched-retained-for "$(tr l.json main_thing '.retained_for_ms')" "1000"
eq finder-watched-not-retained-yet "$(tr l.json fresh_thing .)" "none"
eq finder-activity "$(tr l.json fragment_activity '.steps[-1].reasons[0]')" "Activity#mDestroyed is true"
# a leaking object under another one on its path is reported in the upper one's trace only
# (LeakCanary's deduplicateShortestPaths): the Activity the ContextWrapper wraps
eq leak-below-leak "$(tr l.json destroyed_activity .)" "none"
eq finder-activity-live "$(tr l.json live_activity .)" "none"
eq finder-fragments "$(for f in fragment_framework fragment_support fragment_androidx; do tr l.json $f '.steps[-1].reasons[0]'; done | sort -u)" \
  "Fragment#mFragmentManager is null"
eq finder-fragment-live "$(tr l.json live_fragment .)" "none"
eq finder-view-destroyed-context "$(tr l.json context_view '.steps[-1].reasons[0]')" "View.mContext references a destroyed activity"
eq finder-view-detached-decor "$(tr l.json detached_decor '.steps[-1].reasons[0]')" "View detached yet still part of window view hierarchy"
eq finder-viewmodel "$(tr l.json cleared_viewmodel '.steps[-1].reasons[0]')" "ViewModel#mCleared is true"
eq finder-lifecycle "$(tr l.json destroyed_lifecycle '.steps[-1].reasons | join("|")')" "LifecycleRegistry state is DESTROYED|mState = DESTROYED"
eq finder-dialog "$(tr l.json dismissed_dialog '.steps[-1].reasons | join("|")')" \
  "Dialog was dismissed (mCreated true, mShowing false, Dialog#mDecor is null)|mContext instance of com.example.App|Dialog#mDecor is null"
eq finder-service "$(tr l.json dead_service '.steps[-1].reasons[0]')" "Service not held by ActivityThread"
eq finder-service-alive "$(tr l.json alive_service .)" "none"
eq finder-window "$(tr l.json closed_window '.steps[-1].reasons[0]')" "Window#mDestroyed is true"
eq finder-viewrootimpl "$(tr l.json empty_viewrootimpl '.steps[-1].reasons | join("|")')" \
  'ViewRootImpl#mView is null|mWindowAttributes.mTitle = "Toast"|mWindowAttributes.type = 2005 (Toast)'

# ---- inspectors, statuses and their propagation, suspects ----
eq status-wrapper-chain "$(tr l.json wrapper '[.steps[] | .status] | join(",")')" "NOT_LEAKING,UNKNOWN,LEAKING"
eq inspector-class "$(tr l.json wrapper '.steps[0].reasons[0]')" "a class is never leaking"
eq inspector-context-wrapper "$(tr l.json wrapper '.steps[2].reasons[0]')" "ContextWrapper wraps an Activity with Activity.mDestroyed true"
eq inspector-context-field "$(tr l.json wrapper '.steps[1].reasons[0]')" \
  "ctx instance of android.content.ContextWrapper, wrapping activity com.example.MainActivity with mDestroyed = true"
eq propagation-leaking-below "$(tr l.json disposed_activity '[.steps[2].status, .steps[2].reasons[0], .steps[3].reasons[0]] | join("|")')" \
  "LEAKING|CompositionImpl↑ is leaking|Activity#mDestroyed is true"
eq suspects-between "$(tr l.json wrapper '[.steps[] | .suspect] | join(",")')" "true,true,false"
eq signature-app "$(tr l.json wrapper .signature)" "$(sha1 'com.example.LeakssHoldercom.example.Holderctx')"
eq inspector-view-leaking "$(tr l.json context_view '[.steps[1].status, .steps[1].reasons[0], .group.count] | join("|")')" \
  "LEAKING|View.mContext references a destroyed activity|1"
eq inspector-fragment-live "$(tr l.json fragment_activity '[.steps[1].status, .steps[1].reasons[0]] | join("|")')" \
  "NOT_LEAKING|Fragment#mFragmentManager is not null"
eq inspector-context-impl "$(tr l.json context_impl '[.steps[1].status, .steps[1].reasons[0]] | join("|")')" \
  "LEAKING|ContextImpl.mOuterContext is an instance of com.example.MainActivity with Activity.mDestroyed true"
eq inspector-toast "$(tr l.json done_toast '[.steps[1].status, .steps[1].reasons[0]] | join("|")')" \
  "LEAKING|This toast is done showing (Toast.mTN.mWM != null && Toast.mTN.mView == null)"
# held by the main thread's THREAD_OBJECT root and by a static: Shark visits thread roots last
eq inspector-main-thread "$(tr l.json main_thing '[.root.type, .steps[1].class, .steps[1].status, .steps[1].reasons[0]] | join("|")')" \
  "STICKY_CLASS|java.lang.Thread|NOT_LEAKING|the main thread always runs"
eq inspector-message-queue "$(tr l.json queue_thing '[.steps[] | select(.class == "android.os.MessageQueue") | .status, .reasons[0]] | join("|")')" \
  "NOT_LEAKING|MessageQueue#mQuitting is false"
eq inspector-imm "$(tr l.json served_view '[.steps[1].status, .steps[1].reasons[0]] | join("|")')" "NOT_LEAKING|InputMethodManager is a singleton"
eq inspector-service-alive "$(tr l.json closed_window '[.steps[] | select(.class == "com.example.MyService") | .status, .reasons[0]] | join("|")')" \
  "NOT_LEAKING|Service held by ActivityThread"
eq inspector-activity-thread "$(tr l.json closed_window '[.steps[] | select(.class == "android.app.ActivityThread" and .kind == "instance") | .reasons[0]] | join("|")')" \
  "MyService↓ is not leaking and ActivityThread is a singleton"
eq propagation-not-leaking-above "$(tr l.json closed_window '[.steps[] | select(.class == "android.util.ArrayMap") | .status, .reasons[0]] | join("|")')" \
  "NOT_LEAKING|MyService↓ is not leaking"
eq suspects-only-last-not-leaking "$(tr l.json closed_window '[.steps[] | select(.suspect) | .class + "." + .reference.name] | join(",")')" \
  "com.example.MyService.mWindowCache"
# a chain of not-leaking objects: each inspector's reason, kept after the propagated one
eq inspectors-not-leaking-chain "$(tr l.json chain_thing '[.steps[1:5][] | .status + ":" + .reasons[0]] | join("|")')" \
  "NOT_LEAKING:Loader↓ is not leaking and mState is not DESTROYED|NOT_LEAKING:MainActivity↓ is not leaking and a ClassLoader is never leaking|NOT_LEAKING:ContextImpl↓ is not leaking and Activity#mDestroyed is false|NOT_LEAKING:ContextImpl.mOuterContext is an instance of com.example.App which extends android.app.Application"
eq inspector-lifecycle-label "$(tr l.json chain_thing '.steps[1].reasons[1]')" "mState = RESUMED"
eq inspector-anonymous "$(tr l.json chain_thing '[.steps[5].status, .steps[5].reasons[0]] | join("|")')" "UNKNOWN|Anonymous subclass of com.example.Holder"
eq suspects-after-last-not-leaking "$(tr l.json chain_thing '[.steps[] | select(.suspect) | .reference.name] | join(",")')" "mPackageInfo,ref"
eq inspectors-application-view "$(tr l.json animated_thing '[.steps[1:3][] | .status + ":" + .reasons[0]] | join("|")')" \
  "NOT_LEAKING:View↓ is not leaking and Application is a singleton|NOT_LEAKING:View attached"
eq inspector-animator "$(tr l.json animated_thing '[.steps[3].reasons[] | select(startswith("mPropertyName") or startswith("mListeners"))] | join("|")')" \
  "mListeners = null|mPropertyName = alpha"
eq finder-fragment-destroyed-lifecycle "$(tr l.json destroyed_fragment '.steps[-1].reasons[0]')" \
  "Fragment#mLifecycleRegistry is DESTROYED. Conflicts with Fragment#mFragmentManager is not null"
eq inspector-editor "$(tr l.json editor_thing '[.steps[2].status, .steps[2].reasons[0]] | join("|")')" "NOT_LEAKING|Editor#mTextView: View attached"
eq inspector-window-open "$(tr l.json window_thing '[.steps[2].status, .steps[2].reasons[0]] | join("|")')" "UNKNOWN|Window#mDestroyed is false"
eq inspector-queue-quitting "$(tr l.json quitting_queue '[.steps[2].status, .steps[2].reasons[0]] | join("|")')" "LEAKING|MessageQueue#mQuitting is true"
eq inspector-viewmodel-live "$(tr l.json viewmodel_thing '[.steps[2].status, .steps[2].reasons[0]] | join("|")')" "UNKNOWN|ViewModel#mCleared is false"
eq inspector-composition "$(tr l.json composition_thing '[.steps[2].status, .steps[2].reasons[0]] | join("|")')" "NOT_LEAKING|Composition not disposed"
eq java-local "$(tr l.json watched_thing '[.root.type, .root.thread, .steps[0].class, .steps[0].reference.type, .steps[0].reference.name] | join("|")')" \
  "JAVA_FRAME|worker|java.lang.Thread|local|<Java Local>"

# ---- signatures: [x] for array elements, stable across dumps with other ids and counts ----
eq signature-array-any-index "$(tr l.json fragment_androidx '[.signature, .group.count] | join("|")')" \
  "$(sha1 'com.example.LeakssFragmentsjava.lang.Object[][x]')|3"
"$GEN" --scenario leaks --objects 300 -o leaks2.hprof --expect L2.json >/dev/null 2>&1
"$HK" leaks leaks2.hprof --json > l2.json
ids_differ=$([ "$(jq -r .labels.destroyed_activity L.json)" != "$(jq -r .labels.destroyed_activity L2.json)" ] && echo yes)
counts_differ=$([ "$("$HK" info leaks.hprof --json | jq .objects)" != "$("$HK" info leaks2.hprof --json | jq .objects)" ] && echo yes)
eq signature-other-dump-differs "$ids_differ,$counts_differ" "yes,yes"
eq signature-stable-across-dumps "$(jq -c '[.leaks[] | [.signature, .count]] | sort' l2.json)" "$(jq -c '[.leaks[] | [.signature, .count]] | sort' l.json)"
"$GEN" --scenario leaks --id-size 8 -o leaks8.hprof >/dev/null 2>&1
"$HK" leaks leaks8.hprof --json > l8.json
eq signature-stable-8-byte-ids "$(jq -c '[.leaks[] | [.signature, .count]] | sort' l8.json)" "$(jq -c '[.leaks[] | [.signature, .count]] | sort' l.json)"
eq signature-distinct-leaks "$(jq '[.leaks[].signature] | unique | length' l.json)" "$(jq '.leaks | length' l.json)"

# ---- library leaks ----
eq library-field "$(tr l.json queue_thing '[.kind, .pattern] | join("|")')" "library|instance field android.os.Message#obj"
eq library-signature "$(tr l.json queue_thing .signature)" "$(sha1 'instance field android.os.Message#obj')"
# both_thing is also held by Message.obj and by a Java local (a root, no path at all): both last
eq library-and-local-avoided "$(tr l.json both_thing '[.kind, .root.type, (.steps | length), .steps[0].reference.name] | join("|")')" \
  "application|STICKY_CLASS|6|sBoth"
eq library-grouped "$(tr l.json served_view '[.kind, .group.count, .pattern] | join("|")')" \
  "library|1|instance field android.view.inputmethod.InputMethodManager#mNextServedView"
"$GEN" --scenario leaks-api31 -o leaks31.hprof >/dev/null 2>&1
"$HK" leaks leaks31.hprof --json > l31.json
eq library-by-sdk "$(tr l31.json queue_thing .kind)" "application"

# ---- the Binder root (LeakCanary's leak_service_binder_ignored case) and user scripts ----
eq binder-default "$(tr l.json binder_service '[.kind, .root.type] | join("|")')" "application|JNI_GLOBAL"
mkdir -p user/leak_rules   # a leak_rules/ folder of a script directory is loaded too
cat > user/leak_rules/binder.lua <<'EOF'
hk.reference_matcher{ kind = "library", class = "android.os.Binder", root = "jni-global",
  description = "a service binding outlives the service" }
EOF
HPROFKIT_SCRIPTS="$PWD/user" "$HK" leaks leaks.hprof --json > lb.json 2>lb.err
eq binder-matcher "$(tr lb.json binder_service '[.kind, .pattern, .group.description] | join("|")')" \
  "library|native global variable referencing android.os.Binder|a service binding outlives the service"
mkdir -p user2/leak_rules
cat > user2/leak_rules/mine.lua <<'EOF'
hk.inspector{ class = "com.example.Holder", inspect = function(obj, r) r:not_leaking("Holder lives as long as the app") end }
hk.reference_matcher{ kind = "ignore", class = "com.example.Leaks", static = "sService" }
EOF
HPROFKIT_SCRIPTS="$PWD/user2" "$HK" leaks leaks.hprof --json > lu.json 2>lu.err
eq user-inspector "$(tr lu.json wrapper '[.steps[1].status, .steps[1].reasons[0], ([.steps[] | .suspect] | join(","))] | join("|")')" \
  "NOT_LEAKING|Holder lives as long as the app|false,true,false"
eq user-inspector-signature "$(tr lu.json wrapper .signature)" "$(sha1 'com.example.Holderctx')"
eq user-ignore-matcher "$(tr lu.json dead_service .)|$(tr l.json dead_service .kind)" "none|application"

mkdir -p user3/leak_rules
echo 'hk.reference_matcher{ kind = "library", thread = "worker", description = "the worker locals" }' > user3/leak_rules/local.lua
HPROFKIT_SCRIPTS="$PWD/user3" "$HK" leaks leaks.hprof --json > ll.json
eq user-thread-matcher "$(tr ll.json watched_thing '[.kind, .pattern] | join("|")')" "library|local variable on thread worker"
mkdir -p bad/leak_rules
echo 'hk.reference_matcher{ kind = "maybe", class = "a.B", field = "c" }' > bad/leak_rules/bad.lua
HPROFKIT_SCRIPTS="$PWD/bad" "$HK" leaks chain.hprof --json >/dev/null 2>bad.err
grep -q "bad.lua.*'kind' must be" bad.err && pass user-matcher-bad-kind || fail user-matcher-bad-kind "$(head -c 300 bad.err)"

# ---- gates, dump:leaks(), text ----
cat > gates.lua <<'EOF'
local d = hk.open(arg.dump)
local r = d:leaks()
local g = hk.queries().leaks.gates
local a, am = g.leaks.check(r)
local b, bm = g["library-leaks"].check(r)
print(tostring(a) .. "|" .. am .. "|" .. tostring(b) .. "|" .. bm)
EOF
napp=$(jq '[.leaks[] | select(.kind == "application") | .count] | add' l.json)
nlib=$(jq '[.leaks[] | select(.kind == "library") | .count] | add' l.json)
eq gates-tripped "$("$HK" run gates.lua leaks.hprof)" "true|$napp application leak traces|true|$nlib library leak traces"
eq gates-clear "$("$HK" run gates.lua chain.hprof)" "false|0 application leak traces|false|0 library leak traces"
eq leaks-none "$("$HK" leaks chain.hprof --json | jq -c .)" '{"leaks":[]}'
# the query's gates through the CLI's --fail-on: exit 3 when one trips
"$HK" leaks leaks.hprof --fail-on leaks >/dev/null 2>fo.err; eq fail-on-leaks "$?" 3
"$HK" leaks leaks31.hprof --fail-on library-leaks >/dev/null 2>&1; eq fail-on-library-leaks "$?" 3
"$HK" leaks chain.hprof --fail-on leaks >/dev/null 2>&1; eq fail-on-clear "$?" 0
"$HK" leaks leaks.hprof --format csv | sed 's/\r$//' > l.csv
eq leaks-csv "$(($(wc -l < l.csv) - 1))|$(grep -c ',k-worker,JAVA_FRAME,~Thread.<Java Local>~,' l.csv)" "$((napp + nlib))|1"
# the roots as the leak search reads them (columns, objects on demand) agree with dump:roots()
cat > cols.lua <<'EOF'
local d = hk.open(arg.dump)
local types, serials = d:root_columns()
local bad, objs = 0, 0
for k, r in ipairs(d:roots()) do
  local o = d:root_object(k)
  if types[k] ~= r.type or (serials[k] or nil) ~= r.thread or (o and o.id) ~= (r.object and r.object.id) then bad = bad + 1 end
  if o then objs = objs + 1 end
end
print(#types == #d:roots() and #serials == #types, bad, objs > 0, (pcall(d.root_object, d, #types + 1)))
EOF
eq lua-root-columns "$("$HK" run cols.lua leaks.hprof)" "true	0	true	false"
echo 'print(hk.json_encode(hk.open(arg.dump):leaks()))' > same.lua
eq lua-same-as-json "$("$HK" run same.lua leaks.hprof | jq -S -c .)" "$(jq -S -c . l.json)"
# {roots = false} (the diff's leak signatures): the same leaks less each trace's holding roots
echo 'print(hk.json_encode(hk.open(arg.dump):leaks{ roots = false }))' > noroots.lua
eq lua-leaks-without-roots "$("$HK" run noroots.lua leaks.hprof | jq -S -c .)" "$(jq -S -c 'del(.leaks[].traces[].roots)' l.json)"
eq lua-leaks-with-roots "$(jq '[.leaks[].traces[] | select((.roots | length) > 0)] | length > 0' l.json)" true
"$HK" leaks leaks.hprof > l.txt
grep -q "^├─ com.example.Holder instance" l.txt && grep -q "│    ↓ Holder.ctx" l.txt && grep -q "Leaking: YES (Activity#mDestroyed is true)" l.txt \
  && pass leaks-text || fail leaks-text "$(head -c 400 l.txt)"

# ---- the demo heap (the recipe's first cases) ----
"$GEN" --scenario demo -o demo.hprof --expect demo.json >/dev/null 2>&1
"$HK" leaks demo.hprof --json > d.json
leaked=$(jq -r .labels.leaked_activity demo.json)
eq demo-finds-destroyed-activity "$(jq -r '[.leaks[].traces[].object] | join(",")' d.json)" "$leaked"
eq demo-root "$(jq -r '.leaks[0].traces[0] | [.root.type, .steps[0].class, .steps[0].reference.name] | join("|")' d.json)" \
  "STICKY_CLASS|com.example.demo.Leaky|leaks"
eq demo-retained "$(jq '.leaks[0].traces[0].retained_bytes' d.json)" \
  "$("$HK" top demo.hprof -n 1000 --json | jq --arg id "$leaked" '.[] | select(.id == $id) | .retained_bytes')"

# ---- LeakCanary's 2015 dump ----
lc="$REALDATA/hprof/leakcanary-leak_service_binder.hprof"
if [ -f "$lc" ]; then
  "$HK" leaks "$lc" --json > lc.json
  key=b3abfae6-2c53-42e1-b8c1-96b0558dbeae
  # the second LeakyService is held by a JNI global (its Binder) and by the static list: the
  # JNI global's path is shorter, so it is a leak of its own, as Shark reports it (t_shark.sh)
  eq lc-two-application-leaks "$(jq -r '[.leaks[] | .kind] | join(",")' lc.json)" "application,application"
  kt() { jq -r --arg k "$key" "[.leaks[].traces[] | select(.key == \$k)][0] | $1" lc.json; }
  eq lc-watched "$(kt '[.class, .steps[-1].status] | join("|")')" "com.example.leakcanary.LeakyService|LEAKING"
  eq lc-jni-root "$(kt '[.root.type, .steps[0].class, .steps[0].reference.type, .steps[0].reference.name] | join("|")')" \
    "JNI_GLOBAL|com.example.leakcanary.LeakyService\$MyBinder|field|service"
  eq lc-suspects "$(kt '[.steps[] | .status + ":" + (.suspect | tostring)] | join(",")')" "UNKNOWN:true,LEAKING:false"
  eq lc-signature "$(jq -r '.leaks[0].signature' lc.json)" \
    "$(sha1 'com.example.leakcanary.LeakyServiceleakAllTheBindersjava.util.ArrayListarrayjava.lang.Object[][x]com.example.leakcanary.LeakyService$MyBinderservice')"
  # with the Binder root matched as a library leak, the static path is still the one found
  HPROFKIT_SCRIPTS="$PWD/user" "$HK" leaks "$lc" --json > lcb.json
  eq lc-binder-matcher-static-path "$(jq -r --arg k "$key" '[.leaks[] as $g | $g.traces[] | select(.key == $k) | $g.kind + "|" + .steps[0].reference.name][0]' lcb.json)" \
    "application|leakAllTheBinders"
else
  skip lc "$lc is absent"
fi
