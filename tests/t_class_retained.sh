#!/usr/bin/env bash
# Per-class retained bytes cut into tasks below the virtual root (a big node's children handed
# out in runs, with the classes open above them): the same sums as a one-thread walk by the
# definition, for several -j, on a wide heap, a chain a million deep, a HotSpot chain with wide
# arrays at depth and the real dumps; and within one heap, against a walk by ahat's definition.
source "$SRC/tests/lib.sh"
WALK="$SRC/tests/graph/class_retained_walk.lua"

# the demo heap with filler: big nodes whose children are handed out as tasks at depth
if "$GEN" --scenario big --size-mb 8 -o "$T/wide.hprof" >/dev/null 2>&1; then
  for j in 1 2 3; do
    got=$("$HK" -j "$j" run "$WALK" "$T/wide.hprof" 2>&1)
    case "$got" in "classes "*" differ 0 "*) pass "class_retained_wide_j$j" ;; *) fail "class_retained_wide_j$j" "$got" ;; esac
  done
  got=$("$HK" -j 2 run "$WALK" "$T/wide.hprof" --lists 1 2>&1)
  case "$got" in "classes "*" differ 0 "*) pass class_retained_wide_lists ;; *) fail class_retained_wide_lists "$got" ;; esac
  got=$("$HK" -j 2 run "$WALK" "$T/wide.hprof" --plan 1 2>&1)
  case "$got" in "classes "*" differ 0 "*) pass class_retained_wide_plan ;; *) fail class_retained_wide_plan "$got" ;; esac
  # before the dominators: they hand their memory to the walk
  for lists in "" 1; do
    got=$("$HK" -j 2 run "$WALK" "$T/wide.hprof" --early 1 ${lists:+--lists 1} 2>&1)
    case "$got" in
      "classes "*" differ 0 "*) pass "class_retained_wide_early${lists:+_lists}" ;;
      *) fail "class_retained_wide_early${lists:+_lists}" "$got" ;;
    esac
  done
  # within one heap (ahat's figure): each object's shallow bytes from the retained sizes and
  # its heap from a bit, against a walk adding the records' sizes of the heap's objects
  for j in 1 2 3; do
    got=$("$HK" -j "$j" run "$WALK" "$T/wide.hprof" --heap app 2>&1)
    case "$got" in "classes "*" differ 0 "*) pass "heap_retained_wide_j$j" ;; *) fail "heap_retained_wide_j$j" "$got" ;; esac
  done
  got=$("$HK" -j 2 run "$WALK" "$T/wide.hprof" --heap zygote --lists 1 2>&1)
  case "$got" in "classes "*" differ 0 "*) pass heap_retained_wide_lists ;; *) fail heap_retained_wide_lists "$got" ;; esac
  # the whole dump's figures as the walk within a heap finds them on its way, kept for the query
  got=$("$HK" -j 2 run "$WALK" "$T/wide.hprof" --heap_first app 2>&1)
  case "$got" in "classes "*" differ 0 "*) pass class_retained_wide_heap_first ;; *) fail class_retained_wide_heap_first "$got" ;; esac
else
  fail class_retained_wide_fixture "genhprof --scenario big failed"
fi

# a chain a million deep: the top walk descends it without recursion; the chain's head
# retains every link
if "$GEN" --scenario chain --objects 1000000 -o "$T/chain.hprof" --expect "$T/chain.json" >/dev/null 2>&1; then
  want=$(jq .facts.retained_head "$T/chain.json")
  for j in 1 2 3; do
    eq "class_retained_chain_j$j" "$("$HK" -j "$j" histogram "$T/chain.hprof" --json |
      jq '.[] | select(.class == "test.Link") | .retained_bytes')" "$want"
  done
  eq heap_retained_chain "$("$HK" -j 2 histogram "$T/chain.hprof" --heap app --json |
    jq '.[] | select(.class == "test.Link") | .retained_bytes')" "$want"
else
  fail class_retained_chain_fixture "genhprof --scenario chain failed"
fi

# a HotSpot dump of a chain 50000 deep with wide arrays at depth, through an Item halfway: the
# tasks below the root must start with the classes open above them
if command -v javac >/dev/null && command -v jcmd >/dev/null; then
  mkdir -p "$T/java"
  if javac -nowarn -d "$T/java" "$SRC/tests/java/ChainWide.java" 2>"$T/javac.err"; then
    java -Xint -cp "$T/java" ChainWide 50000 10000 > "$T/java/out.txt" 2>&1 &
    pid=$!
    for _ in $(seq 100); do grep -q ready "$T/java/out.txt" && break; sleep 0.1; done
    timeout 60 jcmd "$pid" GC.heap_dump -all "$T/cw.hprof" >/dev/null 2>&1
    kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null
    for j in 1 2 3; do
      got=$("$HK" -j "$j" run "$WALK" "$T/cw.hprof" 2>&1)
      case "$got" in "classes "*" differ 0 "*) pass "class_retained_chain_wide_j$j" ;; *) fail "class_retained_chain_wide_j$j" "$got" ;; esac
    done
  else
    fail class_retained_chain_wide_javac "$(head -c 300 "$T/javac.err")"
  fi
else
  skip class_retained_chain_wide "no JDK (javac, jcmd)"
fi

for f in "$REALDATA"/hprof/*.hprof; do
  [ -f "$f" ] || { skip class_retained_realdata "no real dumps in $REALDATA/hprof"; break; }
  name="class_retained_$(basename "$f" .hprof)"
  got=$("$HK" -j 3 run "$WALK" "$f" 2>&1 | grep '^classes ')
  case "$got" in "classes "*" differ 0 "*) pass "$name" ;; *) fail "$name" "$got" ;; esac
  got=$("$HK" -j 2 run "$WALK" "$f" --lists 1 2>&1 | grep '^classes ')
  case "$got" in "classes "*" differ 0 "*) pass "${name}_lists" ;; *) fail "${name}_lists" "$got" ;; esac
  got=$("$HK" -j 2 run "$WALK" "$f" --early 1 --lists 1 2>&1 | grep '^classes ')
  case "$got" in "classes "*" differ 0 "*) pass "${name}_early" ;; *) fail "${name}_early" "$got" ;; esac
  got=$("$HK" -j 2 run "$WALK" "$f" --plan 1 2>&1 | grep '^classes ')
  case "$got" in "classes "*" differ 0 "*) pass "${name}_plan" ;; *) fail "${name}_plan" "$got" ;; esac
  for h in $("$HK" info "$f" --json --no-map | jq -r '.heaps[]?'); do
    got=$("$HK" -j 3 run "$WALK" "$f" --heap "$h" 2>&1 | grep '^classes ')
    case "$got" in "classes "*" differ 0 "*) pass "${name}_heap_$h" ;; *) fail "${name}_heap_$h" "$got" ;; esac
    got=$("$HK" -j 2 run "$WALK" "$f" --heap_first "$h" --lists 1 2>&1 | grep '^classes ')
    case "$got" in "classes "*" differ 0 "*) pass "${name}_heap_first_$h" ;; *) fail "${name}_heap_first_$h" "$got" ;; esac
  done
done
