# Leak traces held to LeakCanary's own analysis: Shark 2.7 (../shared/peer/shark, its harness
# prints every leak, trace and object id) and hprofkit side by side, one Shark start per dump.
# tests/shark_compare.py holds the finders' candidates, the leaking objects, roots, steps,
# statuses, reasons, labels and suspects (the whole trace text as LeakCanary prints it, ids
# aside), retained bytes and object counts, groups and signatures to Shark's.  Where hprofkit
# is right and Shark 2.7 is not, the check says so (signatures keep each byte's leading zero).
. "$SRC/tests/lib.sh"
SHARK="$SRC/../shared/peer/shark"
CP="$SHARK/shark27-all.jar:$SHARK/harness27.jar:/usr/share/java/kotlin-stdlib.jar:/usr/share/java/okio.jar"
needs shark java "$SHARK/harness27.jar" /usr/share/java/kotlin-stdlib.jar /usr/share/java/okio.jar || exit 0

# side NAME DUMP: Shark's and hprofkit's analyses of DUMP compared, one line per check
side() {
  local name=$1 dump=$2
  if ! java -Xmx1g -cp "$CP" SharkOracleKt "$dump" filter >"$T/$name.shark" 2>&1 || grep -q '^FAILURE' "$T/$name.shark"; then
    fail "shark-$name" "Shark failed: $(grep -m3 -E 'FAILURE|Exception' "$T/$name.shark")"; return 1
  fi
  if ! "$HK" run "$SRC/tests/lua/leak_side.lua" "$dump" >"$T/$name.hk" 2>"$T/$name.hk.err"; then
    fail "shark-$name" "hprofkit failed: $(head -c 300 "$T/$name.hk.err")"; return 1
  fi
  python3 "$SRC/tests/shark_compare.py" "$T/$name.shark" "$T/$name.hk" | sed "s/^\(PASS\|FAIL\) /\1 shark-$name-/"
}

for name in leakcanary-leak_service_binder aosp-art-ahat-test-dump aosp-art-ahat-test-dump-base hotspot-ahat-RI \
            haha-sun_jdk5_64bit; do
  dump="$REALDATA/hprof/$name.hprof"
  [ -f "$dump" ] || { skip "shark-$name" "$dump is absent"; continue; }
  side "$name" "$dump"
done

# Every root that holds a leaking object: the second LeakyService is held by a JNI global (its Binder, Shark's
# 1-step trace) and through the static leakAllTheBinders (Shark's other trace reaches the
# Binder at Object[].[1]): hprofkit's trace lists both roots.
lc="$T/leakcanary-leak_service_binder"
if [ -f "$lc.shark" ] && [ -f "$lc.hk" ]; then
  jni=$(grep -m1 'root=JNI_GLOBAL' "$lc.shark" | sed 's/.*rootObject=0xffffffff\(\w*\).*/0x\1/')
  sticky=$(grep -m1 'root=STICKY_CLASS' "$lc.shark" | sed 's/.*rootObject=0xffffffff\(\w*\).*/0x\1/')
  arr=$(grep -A3 'root=STICKY_CLASS' "$lc.shark" | grep -m1 'java.lang.Object\[\]' | awk '{print $3}' | sed 's/0xffffffff/0x/')
  eq shark-static-list-holds-binder "$("$HK" object "$REALDATA/hprof/leakcanary-leak_service_binder.hprof" "$arr" --json 2>/dev/null \
    | jq -r '[.elements[].value] | index("'"$jni"'") != null')" "true"
  eq shark-every-root-of-leak "$(grep '^TRACE ' "$lc.hk" | sed 's/^TRACE //' \
    | jq -r --arg j "$jni" 'select(.trace.root.type == "JNI_GLOBAL" and .trace.steps[0].object == $j)
      | [.trace.roots[] | .type + "@" + .object] | sort | join(",")')" \
    "$(printf 'JNI_GLOBAL@%s\nSTICKY_CLASS@%s\n' "$jni" "$sticky" | sort | paste -sd,)"
fi

# The finders LeakCanary's appLeakingObjectFilters have beyond the leaks scenario's, each on a
# generated dump of its own (fixtures/scen_finders.c): held to Shark, which reads these dumps,
# and to the generator's record (the object labelled `leak`, found by that finder).
for s in message-queue editor context-wrapper context-impl package-manager mortar-scope toast; do
  "$GEN" --scenario "finder-$s" -o "$T/f-$s.hprof" --expect "$T/f-$s.json" >/dev/null 2>&1 \
    || { fail "shark-finder-$s" "genhprof failed"; continue; }
  finder=$(jq -r .facts.finder "$T/f-$s.json") leak=$(jq -r .labels.leak "$T/f-$s.json")
  if [ "$s" = package-manager ]; then
    # Shark 2.7 looks for android.app.ApplicationContextManager, a class Android does not have
    # (Android's is android.app.ApplicationPackageManager): it reports the ContextImpl below the
    # manager, which it judges UNKNOWN.  hprofkit is right: the manager is the leaking object.
    side "finder-$s" "$T/f-$s.hprof" | grep -v -e '-leaking-objects$' -e '-leaking-objects:' -e "$(jq -r .labels.impl "$T/f-$s.json")-"
    eq "shark-finder-$s-shark-misses-it" "$(grep -c "^FINDER $leak " "$T/finder-$s.shark")|$(grep "^  STEP 1 $leak " \
      "$T/finder-$s.shark" | grep -o 'status=[A-Z_]*')" "0|status=UNKNOWN"
  else
    side "finder-$s" "$T/f-$s.hprof"
  fi
  eq "shark-finder-$s-record" "$(grep '^TRACE ' "$T/finder-$s.hk" | sed 's/^TRACE //' \
    | jq -r --arg f "$finder" '.trace | .object + ":" + ([.found_by[] | select(. == $f)] | join(","))' | paste -sd' ')" "$leak:$finder"
done

# LeakCanary's root order, on dead Mortar scopes each held by two roots (fixtures/scen_finders.c,
# leak-roots): held to Shark (above: which root each trace starts from, its steps and text), and
# every root that holds each scope to the generator's record.
"$GEN" --scenario leak-roots -o "$T/roots.hprof" --expect "$T/roots.json" >/dev/null 2>&1 \
  || fail shark-leak-roots "genhprof failed"
if [ -f "$T/roots.hprof" ]; then
  side leak-roots "$T/roots.hprof"
  l() { jq -r ".labels.$1" "$T/roots.json"; }
  for c in "a:JNI_GLOBAL@$(l holder_a2) STICKY_CLASS@com.example.Leaks" "e:JNI_GLOBAL@$(l holder_e3) STICKY_CLASS@com.example.Leaks" \
           "b:JAVA_FRAME@$(l scope_b) STICKY_CLASS@com.example.Leaks" "c:JNI_LOCAL@$(l scope_c) STICKY_CLASS@com.example.Leaks" \
           "d:MONITOR_USED@$(l holder_d) THREAD_OBJECT@$(l sleeper)"; do
    s=${c%%:*}
    eq "shark-leak-roots-$s-every-root" "$(grep '^TRACE ' "$T/leak-roots.hk" | sed 's/^TRACE //' \
      | jq -r --arg id "$(l "scope_$s")" 'select(.trace.object == $id) | [.trace.roots[]
        | .type + "@" + (if .type == "STICKY_CLASS" then .class else .object end)] | sort | join(" ")')" "${c#*:}"
  done
fi

# A library leak (InputMethodManager.mNextServedView, API 26): its kind, pattern signature and the
# "Library leak match" label held to Shark's; the leaking object to the generator's record.
if "$GEN" --scenario leak-library -o "$T/lib.hprof" --expect "$T/lib.json" >/dev/null 2>&1; then
  side leak-library "$T/lib.hprof"
  eq shark-leak-library-record "$(grep '^TRACE ' "$T/leak-library.hk" | sed 's/^TRACE //' | jq -r '.group.kind + ":" + .trace.object')" \
    "library:$(jq -r .labels.leak "$T/lib.json")"
else
  fail shark-leak-library "genhprof failed"
fi

# Where hprofkit is right and Shark 2.7 is not: Shark does not index INTERNED_STRING roots, so a
# String the VM interned counts in the retained size of what else holds it; freeing the dead scope
# would not free its interned name.  Shark's figure is hprofkit's plus the String and its value
# array (one object for Shark); the rest of the trace text is the same.
if "$GEN" --scenario leak-interned -o "$T/int.hprof" --expect "$T/int.json" >/dev/null 2>&1; then
  side leak-interned "$T/int.hprof" | grep -v -e '-retained' -e '-text' -e '-group'
  name=$(jq -r .labels.scope_name "$T/int.json")
  str=$("$HK" object "$T/int.hprof" "$name" --json | jq -r '.shallow_bytes')
  arr=$("$HK" object "$T/int.hprof" "$name" --json | jq -r '.fields[] | select(.name == "value") | .value')
  arrb=$("$HK" object "$T/int.hprof" "$arr" --json | jq -r '.shallow_bytes')
  ours=$(grep '^TRACE ' "$T/leak-interned.hk" | sed 's/^TRACE //' | jq -r '"\(.trace.retained_bytes) \(.trace.retained_objects)"')
  theirs=$(grep -o 'retainedBytes=[0-9]* retainedObjects=[0-9]*' "$T/leak-interned.shark" | head -1 | tr -dc '0-9 ' | sed 's/  */ /g')
  eq shark-leak-interned-hprofkit-right "$theirs" "$(( ${ours% *} + str + arrb )) $(( ${ours#* } + 1 ))"
  eq shark-leak-interned-text "$(grep -v 'Retaining' "$T/leak-interned.shark" | sed -n '/^┬───/,$p' | sed '/^real/,$d')" \
    "$(sed -n '/^TRACE /,/^END/p' "$T/leak-interned.hk" | sed '1d;$d' | grep -v Retaining | sed 's/ 0x[0-9a-f]*$//')"
else
  fail shark-leak-interned "genhprof failed"
fi
