# hprofkit's numbers held to ahat's (../shared/peer/ahat), read through our harness
# tests/java/AhatOracle.java compiled here against ahat.jar (one ahat start per dump), and checked
# by tests/oracle_check.py (Python: neither the tool that computed the numbers nor ours).
# - Per heap and class: for every heap and class of the real dumps, `histogram --heap H` has
#   ahat's count and shallow bytes, and ahat's retained bytes where every instance of the class
#   in that heap is strongly reachable (ahat gives the others retained 0; hprofkit counts them
#   over the forest of their own, README), and at least ahat's where some are not.  Class
#   objects are left out (README, "Why a number differs").  The ahat dumps are read with their
#   map, so the names compared are the deobfuscated ones.
# - Duplicate arrays: `duplicate-arrays -n 0` lists the groups ahat's arrays form (type, length,
#   count, bytes), String values, Bitmap pixel buffers and $staticOverhead arrays left out;
#   duplicate-strings the groups of ahat's Strings by text (count, bytes, length) on every dump.
# - Every listing with its options and the options in pairs (filters and sorts with -n, --heap
#   with --class, the maps with diff): each row matches, holds ahat's numbers, in order, as
#   many as asked, none that ranks above the last one shown missing; `dominators` (its chain
#   and the objects it dominates); `object` on the biggest objects; `diff`'s per-class counts, shallow and retained bytes of both dumps.
. "$SRC/tests/lib.sh"
AHAT="$SRC/../shared/peer/ahat/ahat.jar"
needs oracle-heap javac python3 || exit 0
CHECK="$SRC/tests/oracle_check.py"
# sizes as the dump records them, ahat's convention (a HotSpot dump's JVM layout is held to the
# JVM's own histogram by t_jvm_layout.sh)
hk() { "$HK" --jvm-layout dump "$@"; }
[ -f "$AHAT" ] || { skip oracle-heap "$AHAT is absent"; exit 0; }
ls "$REALDATA"/hprof/*.hprof >/dev/null 2>&1 || { skip oracle-heap "no real dumps under $REALDATA/hprof"; exit 0; }
if ! javac -nowarn -cp "$AHAT" -d "$T/hr" "$SRC/tests/java/AhatOracle.java" 2>"$T/javac.err"; then
  fail oracle-heap-javac "$(head -c 300 "$T/javac.err")"; exit 0
fi

# ours NAME DUMP [MAP]: heap, class, count, shallow, retained from histogram --heap per heap
# (the whole dump as ahat's one heap "default" when the dump names none)
ours() {
  local name=$1 dump=$2 map=${3:+--map $3} heaps h
  heaps=$(hk info "$dump" --json --no-map | jq -r '.heaps[]')
  for h in ${heaps:-default}; do
    # shellcheck disable=SC2086
    hk histogram "$dump" ${heaps:+--heap "$h"} ${map:---no-map} --json 2>>"$T/$name.err" |
      jq -r --arg h "$h" '.[] | [$h, .class, .count, .shallow_bytes, .retained_bytes] | @tsv'
  done
}

# check NAME DUMP MAP QUERY OPTION...: the listing with those options against ahat's rows
check() {
  local name=$1 f=$2 map=$3 q=$4; shift 4
  local got
  # shellcheck disable=SC2086
  got=$(hk "$q" "$f" "$@" ${map:+--map $map} --json 2>/dev/null | python3 "$CHECK" "$T/$name.ahat" "$q" "$@")
  case "$got" in ok*) pass "oracle-$q-$name $* ($got)" ;; *) fail "oracle-$q-$name $*" "$got" ;; esac
}

# options NAME DUMP MAP: each listing's options alone and in pairs
options() {
  local name=$1 f=$2 map=$3 heaps h
  heaps=$(hk info "$f" --json --no-map | jq -r '.heaps[]')
  check "$name" "$f" "$map" histogram
  check "$name" "$f" "$map" histogram -n 5
  check "$name" "$f" "$map" histogram --class 'java.*'
  check "$name" "$f" "$map" histogram --class 'java.*' -n 3
  check "$name" "$f" "$map" histogram --class '*[]' --sort count -n 3
  check "$name" "$f" "$map" histogram --sort retained_bytes -n 5
  for h in $heaps; do
    check "$name" "$f" "$map" histogram --heap "$h" --class 'android.*'
    check "$name" "$f" "$map" histogram --heap "$h" --class 'java.util.*' -n 2
    check "$name" "$f" "$map" histogram --heap "$h" --sort retained_bytes -n 4
  done
  check "$name" "$f" "$map" top -n 10
  check "$name" "$f" "$map" top --class 'java.*' -n 5
  check "$name" "$f" "$map" top --sort shallow_bytes -n 5
  check "$name" "$f" "$map" top --class '*[]' --sort shallow_bytes -n 3
  check "$name" "$f" "$map" duplicate-arrays -n 5
  check "$name" "$f" "$map" duplicate-arrays --class 'int*' -n 3
  check "$name" "$f" "$map" duplicate-arrays --sort count -n 4
  check "$name" "$f" "$map" duplicate-strings --sort count -n 3
  # dominators: the object that immediately dominates the most kinds of objects, its chain and
  # its dominated objects with --class, --sort and -n (-n counts the dominated ones)
  local top
  top=$(awk -F'\t' '$1 == "obj" && $6 != "-" { k[$6]++; c[$6 FS $3]++ }
    END { for (x in c) { split(x, a, FS); m[a[1]]++ } for (p in k) if (k[p] >= 6) print m[p], k[p], p }' "$T/$name.ahat" |
    sort -k1,1nr -k2,2nr -k3 | head -1 | cut -d' ' -f3)
  if [ -n "$top" ]; then
    local kid # the kind it dominates most often, as --class
    kid=$(awk -F'\t' -v p="$top" '$1 == "obj" && $6 == p { print $3 }' "$T/$name.ahat" | sort | uniq -c | sort -k1,1nr -k2 |
      head -1 | awk '{ print $2 }')
    for o in "-n 4" "--class $kid -n 2" "--sort shallow_bytes -n 3"; do
      # shellcheck disable=SC2086
      got=$(hk dominators "$f" "$top" $o ${map:+--map $map} --json 2>/dev/null |
        python3 "$CHECK" "$T/$name.ahat" dominators --id "$top" $o)
      case "$got" in ok*) pass "oracle-dominators-$name $top $o ($got)" ;; *) fail "oracle-dominators-$name $top $o" "$got" ;; esac
    done
  fi
  # object: the three biggest objects that are not class objects, as ahat sees them
  local id label shallow retained got
  grep '^obj' "$T/$name.ahat" | grep -v $'\tclass ' | sort -t$'\t' -k5,5nr | head -3 |
    while IFS=$'\t' read -r _ id label shallow retained _; do
      # shellcheck disable=SC2086
      got=$(hk object "$f" "$id" ${map:+--map $map} --json 2>/dev/null |
        jq -r '"\(.class) \(.shallow_bytes) \(.retained_bytes) \(.reachability)"')
      eq "oracle-object-$name-$id" "$got" "$label $shallow $retained strong"
    done
  # a class object names its class, in `object` and in Lua's tostring
  id=$(grep $'^obj\t[^\t]*\tclass ' "$T/$name.ahat" | sort -t$'\t' -k5,5nr | head -1 | cut -f2)
  label=$(grep $'^obj\t'"$id"$'\t' "$T/$name.ahat" | cut -f3)
  # shellcheck disable=SC2086
  eq "oracle-object-class-$name" "$(hk object "$f" "$id" ${map:+--map $map} --json 2>/dev/null | jq -r '"\(.class) \(.kind)"')" "$label class"
  eq "oracle-tostring-class-$name" "$(echo "print(tostring(hk.open(arg.dump, {map = arg.map}):object('$id')))" |
    hk run - "$f" ${map:+--map "$map"} 2>/dev/null)" "$label@$id"
  # dump:histogram(heap) rows carry the CLI's retained bytes
  local h
  h=$(hk info "$f" --json --no-map | jq -r '.heaps[0] // ""')
  # shellcheck disable=SC2086
  hk histogram "$f" ${h:+--heap $h} ${map:+--map $map} --json 2>/dev/null | jq -r '.[] | "\(.class) \(.retained_bytes)"' | sort > "$T/$name.cli.ret"
  echo "for _, r in ipairs(hk.open(arg.dump, {map = arg.map}):histogram('$h')) do print(r.class .. ' ' .. r.retained_bytes) end" |
    hk run - "$f" ${map:+--map "$map"} 2>/dev/null | sort > "$T/$name.lua.ret"
  if [ -s "$T/$name.lua.ret" ] && cmp -s "$T/$name.cli.ret" "$T/$name.lua.ret"; then pass "oracle-lua-histogram-$name"
  else fail "oracle-lua-histogram-$name" "$(diff "$T/$name.cli.ret" "$T/$name.lua.ret" | head -3 | tr '\n' ';')"; fi
}

for f in "$REALDATA"/hprof/*.hprof; do
  name=$(basename "$f" .hprof) map=""
  case $name in aosp-art-ahat-test-dump*) map="$REALDATA/hprof/aosp-art-ahat-test-dump.map" ;; esac
  [ -n "$map" ] && [ ! -f "$map" ] && map=""
  if ! java -Xmx512m -cp "$AHAT:$T/hr" com.android.ahat.heapdump.AhatOracle "$f" $map >"$T/$name.ahat" 2>"$T/$name.ahat.err"; then
    fail "oracle-heap-$name" "ahat failed: $(tail -c 300 "$T/$name.ahat.err")"; continue
  fi
  ours "$name" "$f" "$map" > "$T/$name.ours"
  grep '^heap' "$T/$name.ahat" | cut -f2- > "$T/$name.ahat.heap"
  got=$(awk -F'\t' '
    NR == FNR { k = $1 "\t" $2; c[k] = $3; s[k] = $4; r[k] = $5; next }
    function bad(what, k, a, o) { n[what]++; if (n[what] <= 3) ex = ex " " what " " k " (ahat " a ", ours " o ");" }
    $2 == "java.lang.Class" { next }
    {
      k = $1 "\t" $2; rows++
      if (!(k in c)) { bad("missing", k, $3, "-"); next }
      if (c[k] != $3) bad("count", k, $3, c[k])
      if (s[k] != $4) bad("shallow", k, $4, s[k])
      if ($6 > 0) { left++; if (r[k] < $5) bad("retained-below-ahat", k, $5, r[k]); next }
      compared++
      if (r[k] != $5) bad("retained", k, $5, r[k])
    }
    END { printf "rows %d retained %d left %d differ %d%s\n", rows, compared, left, n["missing"] + n["count"] + n["shallow"] + n["retained"] + n["retained-below-ahat"], ex }
  ' "$T/$name.ours" "$T/$name.ahat.heap")
  case "$got" in
    "rows "*" differ 0") [ "$(echo "$got" | cut -d' ' -f4)" -gt 0 ] && pass "oracle-heap-$name ($got)" || fail "oracle-heap-$name" "nothing compared: $got" ;;
    *) fail "oracle-heap-$name" "$got" ;;
  esac
  check "$name" "$f" "$map" duplicate-strings -n 0
  # duplicate arrays: the same groups
  grep '^duparray' "$T/$name.ahat" | cut -f2- | sort > "$T/$name.ahat.dup"
  # shellcheck disable=SC2086
  hk duplicate-arrays "$f" -n 0 --json ${map:+--map $map} 2>/dev/null |
    jq -r '.[] | [.class, .length, .count, .bytes] | @tsv' | sort > "$T/$name.ours.dup"
  if [ -s "$T/$name.ahat.dup" ] && cmp -s "$T/$name.ahat.dup" "$T/$name.ours.dup"; then
    pass "oracle-duparrays-$name ($(wc -l < "$T/$name.ours.dup") groups, wasting $(awk -F'\t' '{w += ($3 - 1) * $4} END {print w}' "$T/$name.ours.dup") B)"
  else
    fail "oracle-duparrays-$name" "groups differ (< ahat, > ours): $(diff "$T/$name.ahat.dup" "$T/$name.ours.dup" | grep '^[<>]' | head -5 | tr '\n' ';')"
  fi
  # the options on the two Android dumps (heaps, a map, a 2015 device's dump)
  case $name in aosp-art-ahat-test-dump|leakcanary-leak_service_binder) options "$name" "$f" "$map" ;; esac
done

# the pair, diffed: per-class numbers of both sides, with the maps given every way
B="$REALDATA/hprof/aosp-art-ahat-test-dump-base" A="$REALDATA/hprof/aosp-art-ahat-test-dump"
if [ -s "$T/aosp-art-ahat-test-dump.ahat" ] && [ -s "$T/aosp-art-ahat-test-dump-base.ahat" ]; then
  M="$REALDATA/hprof/aosp-art-ahat-test-dump.map"
  for opts in "-n 0" "-n 0 --map $M" "-n 0 --map $M --base-map $M" "-n 5 --heap app" "-n 0 --heap app --base-map $M"; do
    # shellcheck disable=SC2086
    got=$(hk diff "$B.hprof" "$A.hprof" $opts --no-leaks --no-bitmaps --json 2>/dev/null |
      python3 "$CHECK" "$T/aosp-art-ahat-test-dump.ahat" diff --base "$T/aosp-art-ahat-test-dump-base.ahat" \
        $(echo "$opts" | grep -oE -- '(-n [0-9]+|--heap [a-z]+)'))
    case "$got" in ok*) pass "oracle-diff $opts ($got)" ;; *) fail "oracle-diff $opts" "$got" ;; esac
  done
fi

# ahat's baseline mode (its Diff of instances) beside ours: both match class objects by class
# name, so every class object has the same counterpart; instances they pair by different rules
# (README, "Diff": ahat by the place in the dominator tree, hprofkit by the path from the roots),
# and the figures of agreement are in the PASS line.
if [ -f "$B.hprof" ] && [ -f "$A.hprof" ]; then
  M="$REALDATA/hprof/aosp-art-ahat-test-dump.map"
  java -Xmx512m -cp "$AHAT:$T/hr" com.android.ahat.heapdump.AhatOracle "$A.hprof" "$M" --baseline "$B.hprof" \
    > "$T/pair.ahat" 2> "$T/pair.ahat.err" || fail oracle-diff-status "ahat failed: $(tail -c 300 "$T/pair.ahat.err")"
  hk run "$SRC/tests/lua/diff_status.lua" "$A.hprof" --base "$B.hprof" --map "$M" > "$T/pair.ours" 2>/dev/null
  got=$(awk -F'\t' '
    NR == FNR { cp[$2 " " $3] = $5; next }
    {
      k = $2 " " $3; kind = $4 ~ /^class / ? "class" : "inst"
      if (!(k in cp)) { n["missing"]++; next }
      if ($5 == cp[k]) n[kind " same"]++; else n[kind " differ"]++
    }
    END { printf "classes same %d differ %d missing %d; instances same %d differ %d\n", n["class same"], n["class differ"], n["missing"], n["inst same"], n["inst differ"] }
  ' "$T/pair.ours" "$T/pair.ahat")
  case "$got" in
    "classes same "*" differ 0 missing 0;"*) [ "$(echo "$got" | cut -d' ' -f3)" -gt 0 ] && pass "oracle-diff-status ($got)" || fail oracle-diff-status "$got" ;;
    *) fail oracle-diff-status "$got" ;;
  esac
fi

# the issue's case: on the 2015 LeakCanary dump, byte[] in heap app retains only itself
f="$REALDATA/hprof/leakcanary-leak_service_binder.hprof"
if [ -f "$f" ]; then
  eq oracle-heap-bytearray-app "$(hk histogram "$f" --heap app --json | jq '.[] | select(.class == "byte[]") | .retained_bytes == .shallow_bytes')" true
fi
