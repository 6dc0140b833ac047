#!/usr/bin/env bash
# The heap graph: references, reachability, dominators, retained and native sizes,
# paths, on generated graphs with known answers, real dumps and live HotSpot dumps.
source "$SRC/tests/lib.sh"
GC=${GRAPH_CHECK:-$BUILD/tests/graph/graph_check}
if [ ! -x "$GC" ]; then
  fail graph_check_built "$GC not built (tests/meson.build needs subdir('graph'))"
  exit 0
fi

# ---- the hand-built graph: every label's dominator, retained size and reachability ----
if "$GEN" --scenario graph -o "$T/g.hprof" --expect "$T/g.json" >/dev/null 2>&1; then
  ok graph_invariants "$GC" check "$T/g.hprof"
  mapfile -t names < <(jq -r '.labels | keys[]' "$T/g.json")
  ids=(); for n in "${names[@]}"; do ids+=("$(jq -r --arg n "$n" '.labels[$n]' "$T/g.json")"); done
  "$GC" show "$T/g.hprof" "${ids[@]}" > "$T/g.show"
  roots_class=$(jq -r '.labels.roots_class' "$T/g.json")
  bad_idom="" bad_ret="" bad_reach="" checked=0
  for k in "${!names[@]}"; do
    n=${names[$k]}
    read -r _ idom ret reach _ < <(sed -n "$((k + 1))p" "$T/g.show")
    # the generator follows ART in making FinalizerReference.zombie a strong field
    # says it is a finalizer edge, so zombieonly is finalizer-reachable here (see graph.h)
    case $n in
      zombieonly|zombieonly.payload) [ "$reach" = finalizer ] || bad_reach+=" $n=$reach"; continue ;;
      zombieref) [ "$ret" = "$(jq -r '.facts.shallow.zombieref' "$T/g.json")" ] || bad_ret+=" zombieref=$ret"; continue ;;
    esac
    want=$(jq -r --arg n "$n" '.facts.idom[$n] // "none"' "$T/g.json")
    if [ "$want" != none ]; then
      checked=$((checked + 1))
      # "root" in the expect file: held by a GC root; objects held by test.Roots' statics
      # are dominated by that class object, the root itself
      if [ "$want" = root ]; then
        [ "$idom" = root ] || [ "$idom" = "$roots_class" ] || bad_idom+=" $n=$idom"
      else
        [ "$idom" = "$(jq -r --arg n "$want" '.labels[$n]' "$T/g.json")" ] || bad_idom+=" $n=$idom(want $want)"
      fi
      wr=$(jq -r --arg n "$n" '.facts.retained[$n]' "$T/g.json")
      [ "$ret" = "$wr" ] || bad_ret+=" $n=$ret(want $wr)"
    fi
    wreach=$(jq -r --arg n "$n" '.facts.reachability[$n] // empty' "$T/g.json")
    [ -z "$wreach" ] || [ "$reach" = "$wreach" ] || bad_reach+=" $n=$reach(want $wreach)"
  done
  if [ -z "$bad_idom" ] && [ "$checked" -gt 20 ]; then pass graph_idoms; else fail graph_idoms "$bad_idom (checked $checked)"; fi
  if [ -z "$bad_ret" ]; then pass graph_retained; else fail graph_retained "$bad_ret"; fi
  if [ -z "$bad_reach" ]; then pass graph_reachability; else fail graph_reachability "$bad_reach"; fi
  # the BFS-breaking case by name: c and b are dominated by the root alone
  c=$(jq -r .labels.c "$T/g.json"); b=$(jq -r .labels.b "$T/g.json")
  eq graph_dom_c_root "$("$GC" show "$T/g.hprof" "$c" | cut -d' ' -f2)" root
  eq graph_dom_b_root "$("$GC" show "$T/g.hprof" "$b" | cut -d' ' -f2)" root

  # ---- CLI queries ----
  if "$HK" top "$T/g.hprof" -n 3 --json > "$T/top.json" 2>"$T/top.err"; then
    eq cli_top_count "$(jq length "$T/top.json")" 3
    eq cli_top_sorted "$(jq '[.[].retained_bytes] == ([.[].retained_bytes] | sort | reverse)' "$T/top.json")" true
    eq cli_top_columns "$(jq -c '.[0] | keys' "$T/top.json")" '["class","id","native_bytes","reachability","retained_bytes","retained_native_bytes","shallow_bytes"]'
  else fail cli_top "$(head -c 300 "$T/top.err")"; fi
  # live objects by default; --all adds garbage and weakly held objects
  "$HK" top "$T/g.hprof" -n 1000 --json > "$T/top_live.json" 2>/dev/null
  "$HK" top "$T/g.hprof" -n 1000 --all --json > "$T/top_all.json" 2>/dev/null
  eq cli_top_live_only "$(jq '[.[] | select(.reachability != "strong")] | length' "$T/top_live.json")" 0
  eq cli_top_live_count "$(jq length "$T/top_live.json")" "$("$HK" reachability "$T/g.hprof" --json | jq '.[] | select(.reachability == "strong") | .count')"
  eq cli_top_all_has_garbage "$(jq '[.[] | select(.reachability == "unreachable")] | length > 0' "$T/top_all.json")" true
  if "$HK" reachability "$T/g.hprof" --json > "$T/reach.json" 2>"$T/reach.err"; then
    eq cli_reachability_total "$(jq '[.[].count] | add' "$T/reach.json")" "$(jq .counts.objects "$T/g.json")"
    eq cli_reachability_unreachable "$(jq '.[] | select(.reachability=="unreachable") | .count' "$T/reach.json")" 6
  else fail cli_reachability "$(head -c 300 "$T/reach.err")"; fi
  if "$HK" path "$T/g.hprof" "$c" --json > "$T/path.json" 2>"$T/path.err"; then
    eq cli_path_ends "$(jq -r '.[-1].object' "$T/path.json")" "$c"
    eq cli_path_references "$(jq -r '[.[].reference | "\(.type) \(.name)"] | join(",")' "$T/path.json")" "root STICKY_CLASS,static held,field b"
  else fail cli_path "$(head -c 300 "$T/path.err")"; fi
  e=$(jq -r .labels.e "$T/g.json"); d=$(jq -r .labels.d "$T/g.json")
  if "$HK" dominators "$T/g.hprof" "$e" --json > "$T/dom.json" 2>"$T/dom.err"; then
    eq cli_dominators_chain "$(jq -r '[.[] | select(.relation=="dominator") | .id] | join(",")' "$T/dom.json")" "$d"
    eq cli_dominators_children "$(jq -r '[.[] | select(.relation=="dominated") | .id] | join(",")' "$T/dom.json")" \
      "$(jq -r '.labels["e.payload"]' "$T/g.json")"
  else fail cli_dominators "$(head -c 300 "$T/dom.err")"; fi
  if "$HK" histogram "$T/g.hprof" --json > "$T/hist.json" 2>"$T/hist.err"; then
    eq cli_histogram_retained "$(jq '.[] | select(.class=="byte[]") | .retained_bytes' "$T/hist.json")" 100
  else fail cli_histogram_retained "$(head -c 300 "$T/hist.err")"; fi
  err cli_path_unreachable "no GC root reaches" "$HK" path "$T/g.hprof" "$(jq -r .labels.u1 "$T/g.json")"
  err cli_path_no_object "no object" "$HK" path "$T/g.hprof" 0x7777
else
  fail graph_fixture "genhprof --scenario graph failed"
fi

# ---- a chain a million deep: no recursion anywhere ----
if "$GEN" --scenario chain --objects 1000000 -o "$T/chain.hprof" --expect "$T/chain.json" >/dev/null 2>&1; then
  ok chain_invariants "$GC" check "$T/chain.hprof" --slow-max 0
  head=$(jq -r .labels.head "$T/chain.json"); tail=$(jq -r .labels.tail "$T/chain.json")
  eq chain_retained_head "$("$GC" show "$T/chain.hprof" "$head" | cut -d' ' -f3)" "$(jq .facts.retained_head "$T/chain.json")"
  eq chain_path_depth "$("$GC" path "$T/chain.hprof" "$tail" | tail -n +2 | wc -l)" "$(jq .facts.depth_tail "$T/chain.json")"
else
  fail chain_fixture "genhprof --scenario chain failed"
fi

# ---- native sizes: NativeAllocationRegistry through sun.misc.Cleaner (API 26+ bitmaps) ----
if "$GEN" --scenario bitmaps-api29 -o "$T/b29.hprof" --expect "$T/b29.json" >/dev/null 2>&1; then
  bad=""
  while read -r id want; do
    got=$("$GC" show "$T/b29.hprof" "$id" | cut -d' ' -f5)
    [ "$got" = "$want" ] || bad+=" $id=$got(want $want)"
  done < <(jq -r '.facts.bitmaps[] | "\(.id) \(.native_size // 0)"' "$T/b29.json")
  if [ -z "$bad" ]; then pass native_sizes; else fail native_sizes "$bad"; fi
  ok native_invariants "$GC" check "$T/b29.hprof"
else
  fail native_fixture "genhprof --scenario bitmaps-api29 failed"
fi

# ---- real dumps nobody on this project wrote: the slow computation agrees everywhere ----
for f in "$REALDATA"/hprof/*.hprof; do
  [ -f "$f" ] || { skip realdata_graph "no real dumps in $REALDATA/hprof"; break; }
  ok "realdata_$(basename "$f" .hprof)" "$GC" check "$f"
done

# ---- path and reachability agree on every object (one rule for which edges are strong) ----
"$GEN" --scenario graph -o "$T/pr.hprof" >/dev/null 2>&1
for f in "$T/pr.hprof" "$REALDATA"/hprof/leakcanary-leak_service_binder.hprof; do
  name="path_reach_agree_$(basename "$f" .hprof)"
  [ -f "$f" ] || { skip "$name" "no $f"; continue; }
  got=$("$HK" run "$SRC/tests/graph/path_reach_check.lua" "$f" 2>&1)
  case "$got" in "objects "*" disagree 0 "*) pass "$name" ;; *) fail "$name" "$got" ;; esac
done

# ---- a path is the same from the whole search and from the search stopped early, weak part
# first or over the object's ancestors only (what triage's report asks, knowing reachability) ----
for f in "$T/pr.hprof" "$REALDATA"/hprof/leakcanary-leak_service_binder.hprof; do
  name="path_ways_agree_$(basename "$f" .hprof)"
  [ -f "$f" ] || { skip "$name" "no $f"; continue; }
  got=$("$HK" run "$SRC/tests/graph/path_ways_check.lua" "$f" --max 4000 2>&1)
  case "$got" in "objects "*" differ 0 "*) pass "$name" ;; *) fail "$name" "$got" ;; esac
done

# ---- dominators before paths and after: the same answers (dominators drop the forward edges) ----
for f in "$T/pr.hprof" "$REALDATA"/hprof/aosp-art-ahat-test-dump.hprof; do
  name="phase_order_$(basename "$f" .hprof)"
  [ -f "$f" ] || { skip "$name" "no $f"; continue; }
  a=$("$HK" run "$SRC/tests/graph/order_check.lua" "$f" --order dom-first 2>&1)
  b=$("$HK" run "$SRC/tests/graph/order_check.lua" "$f" --order paths-first 2>&1)
  if [ "$a" == "$b" ] && [ "$(grep -c '^P 0x' <<<"$a")" -ge 4 ]; then pass "$name"; else fail "$name" "$(diff <(echo "$a") <(echo "$b") | head -c 300) :: $(head -c 200 <<<"$a")"; fi
done

# ---- -j: the parallel phases give the same answers on 1 and 2 threads ----
"$GEN" --scenario big --size-mb 8 -o "$T/jobs.hprof" >/dev/null 2>&1
for f in "$T/pr.hprof" "$T/jobs.hprof" "$REALDATA"/hprof/*.hprof; do
  name="jobs_1_2_$(basename "$f" .hprof)"
  [ -f "$f" ] || { skip "$name" "no $f"; continue; }
  "$HK" -j 1 run "$SRC/tests/graph/jobs_check.lua" "$f" > "$T/j1.txt" 2>&1
  "$HK" -j 2 run "$SRC/tests/graph/jobs_check.lua" "$f" > "$T/j2.txt" 2>&1
  if cmp -s "$T/j1.txt" "$T/j2.txt" && [ "$(grep -c '^0x' "$T/j1.txt")" -gt 20 ] && grep -q '^class ' "$T/j1.txt"; then pass "$name"
  else fail "$name" "$(diff "$T/j1.txt" "$T/j2.txt" | head -c 300)"; fi
  # reachability on its own (a BFS from the roots) or from the dominators' search: the same
  "$HK" -j 2 run "$SRC/tests/graph/jobs_check.lua" "$f" --order reach-first > "$T/j2r.txt" 2>&1
  if cmp -s "$T/j1.txt" "$T/j2r.txt"; then pass "${name}_reach_first"
  else fail "${name}_reach_first" "$(diff "$T/j1.txt" "$T/j2r.txt" | head -c 300)"; fi
  "$HK" -j 2 run "$SRC/tests/graph/jobs_check.lua" "$f" --order referrers-first > "$T/j2f.txt" 2>&1
  if cmp -s "$T/j1.txt" "$T/j2f.txt"; then pass "${name}_referrers_first"
  else fail "${name}_referrers_first" "$(diff "$T/j1.txt" "$T/j2f.txt" | head -c 300)"; fi
done

# ---- per-class retained bytes: the retained size of the set of a class's instances, held
# against ahat's dominator tree (an independent implementation) ----
AHAT="$SRC/../shared/peer/ahat/ahat.jar"
lc="$REALDATA/hprof/leakcanary-leak_service_binder.hprof"
if [ ! -f "$AHAT" ] || ! command -v java >/dev/null; then skip class_retained_ahat "no ahat.jar or no java"
elif [ ! -f "$lc" ]; then skip class_retained_ahat "no $lc"
elif java -Xmx2g -cp "$AHAT" com.android.ahat.heapdump.AhatExport "$lc" "$T/lc" strong >"$T/ahat.out" 2>&1; then
  got=$("$HK" run "$SRC/tests/graph/class_retained_check.lua" "$lc" --ahat "$T/lc.objects.tsv" --class java.util.LinkedHashMap 2>&1)
  case "$got" in "classes "*" differ 0 "*) pass class_retained_ahat ;; *) fail class_retained_ahat "$got" ;; esac
  # the case that was counted twice: a LinkedHashMap dominated through another class's object
  eq class_retained_linkedhashmap "$(echo "$got" | tail -n 1 | awk '{print ($2 == $3) ? "equal" : $2 " vs ahat " $3}')" equal
else
  fail class_retained_ahat "ahat export failed: $(tail -c 300 "$T/ahat.out")"
fi

# ---- a live HotSpot heap ----
if command -v javac >/dev/null && command -v jcmd >/dev/null; then
  mkdir -p "$T/java"
  if javac -nowarn -d "$T/java" "$SRC/tests/java/GraphApp.java" 2>"$T/javac.err"; then
    java -Xint -cp "$T/java" GraphApp 200000 > "$T/java/out.txt" 2>&1 &
    pid=$!
    for _ in $(seq 100); do grep -q ready "$T/java/out.txt" && break; sleep 0.1; done
    timeout 60 jcmd "$pid" GC.heap_dump -all "$T/hs.hprof" >/dev/null 2>&1
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    if [ -s "$T/hs.hprof" ]; then
      ok hotspot_invariants "$GC" check "$T/hs.hprof"
      "$HK" run "$SRC/tests/graph/hotspot_check.lua" "$T/hs.hprof" > "$T/hs.out" 2>"$T/hs.err"
      grep -E '^(PASS|FAIL|SKIP) ' "$T/hs.out"
      [ "$(grep -c '^PASS ' "$T/hs.out")" -ge 20 ] || fail hotspot_lua "$(head -c 300 "$T/hs.err")"
    else
      fail hotspot_dump "jcmd GC.heap_dump wrote nothing"
    fi
  else
    fail hotspot_javac "$(head -c 300 "$T/javac.err")"
  fi
else
  skip hotspot "no JDK (javac, jcmd)"
fi
