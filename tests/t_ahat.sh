# hprofkit against an independent implementation: AOSP's ahat (../shared/peer/ahat, its own
# dominator code, run with retained sizes over strong references).  For every instance and array
# ahat calls strongly reachable, the retained and shallow sizes must be equal, and both tools
# must agree on which instances and arrays are strongly reachable (only strong vs not: ahat ranks
# finalizer above weak, we below).  Class objects are left out: ahat adds java.lang.Class's
# instance size to each (README, "Why a number differs from another tool's").
. "$SRC/tests/lib.sh"
AHAT="$SRC/../shared/peer/ahat/ahat.jar"
needs ahat java "$AHAT" || exit 0

# compare NAME: $T/NAME.hk (ours) against $T/NAME.objects.tsv (ahat).  Prints one line,
#   compared N retained R shallow S reach C missing M classsize K byclass B
# then up to 5 examples of each kind of difference.  K is what ahat adds to every class object
# (java.lang.Class's instance size, README "Why a number differs"); B counts the retained
# differences that are exactly K per class object in ahat's dominator subtree of the object.
compare() {
  awk -F'\t' '
    NR == FNR { kind[$1] = $2; reach[$1] = $3; sh[$1] = $4; ret[$1] = $5; next }
    FNR == 1 { next }
    function note(what, id, a, b) { n[what]++; if (n[what] <= 5) ex[what] = ex[what] " " id "(ahat " a ", ours " b ")" }
    {
      id = $1; idom[id] = $9
      if ($2 == "class") { cls[++ncls] = id; if (id in sh) csz[$5 - sh[id]]++; next }
      if (!(id in kind)) { note("missing", id, $2, "-"); next }
      strong = $10 == "strong"
      if (strong != (reach[id] == "strong")) note("reach", id, $10, reach[id])
      if (sh[id] != $5) note("shallow", id, $5, sh[id])
      if (strong) { compared++; if (ret[id] != $7) { diff[id] = $7 - ret[id]; note("retained", id, $7, ret[id]) } }
    }
    END {
      k = 0; for (d in csz) if (csz[d] > csz[k]) k = d
      for (i = 1; i <= ncls; i++)    # class objects under each object in ahat tree
        for (x = idom[cls[i]]; x != "-" && x != "" && steps[i]++ < 100000; x = idom[x]) under[x]++
      for (id in diff)
        if (diff[id] == k * under[id] && k > 0) byclass++
        else note("unexplained", id, ret[id] + diff[id], ret[id])
      printf "compared %d retained %d shallow %d reach %d missing %d classsize %d byclass %d\n", compared, n["retained"], n["shallow"], n["reach"], n["missing"], k, byclass
      for (w in ex) printf "%s:%s\n", w, ex[w]
    }' "$T/$1.hk" "$T/$1.objects.tsv"
}

# export NAME: both tools' per-object views of the dump into $T; 0 or a FAIL line
export_both() {
  local name=$1 dump="$REALDATA/hprof/$1.hprof"
  if ! java -Xmx1g -cp "$AHAT" com.android.ahat.heapdump.AhatExport "$dump" "$T/$name" strong >"$T/$name.ahat.log" 2>&1; then
    fail "ahat-$name" "ahat's export failed: $(tail -c 300 "$T/$name.ahat.log")"; return 1
  fi
  # HotSpot dumps: ahat counts the dump's field bytes, so ours are held to it in that convention
  # (--jvm-layout dump); t_jvm_layout holds the JVM's own sizes to the JVM's histogram
  local layout=auto
  case $name in hotspot-* | haha-sun_*) layout=dump ;; esac
  if ! "$HK" run "$SRC/tests/lua/objects_tsv.lua" "$dump" --jvm-layout $layout >"$T/$name.hk" 2>"$T/$name.hk.err"; then
    fail "ahat-$name" "hprofkit failed: $(head -c 300 "$T/$name.hk.err")"; return 1
  fi
}

for name in aosp-art-ahat-test-dump aosp-art-ahat-test-dump-base leakcanary-leak_service_binder hotspot-ahat-RI; do
  [ -f "$REALDATA/hprof/$name.hprof" ] || { skip "ahat-$name" "$REALDATA/hprof/$name.hprof is absent"; continue; }
  export_both "$name" || continue
  compare "$name" > "$T/$name.cmp"
  read -r _ n _ r _ s _ c _ m _ k _ b < "$T/$name.cmp"
  if [ "$n" -gt 0 ] && [ "$r$s$c$m" = 0000 ]; then
    pass "ahat-$name ($n strongly reachable instances and arrays: retained, shallow and reachability equal)"
  else
    fail "ahat-$name" "$n compared; differ: retained $r ($b of them by ahat's $k B per class object), shallow $s, strong-or-not $c, missing $m; $(tail -n +2 "$T/$name.cmp" | tr '\n' ';')"
  fi
done

# The JDK 5 dump: retained sizes differ by convention, and the figures are recorded in the PASS
# line: ahat counts java.lang.Class's instance size in each class object, and on this dump
# instances dominate class objects through their fields (an AppClassLoader's Vector of classes,
# ObjectStreamField.type).  Only a difference that convention does not explain fails.
name=haha-sun_jdk5_64bit
if [ ! -f "$REALDATA/hprof/$name.hprof" ]; then skip "ahat-$name" "$REALDATA/hprof/$name.hprof is absent"
elif export_both "$name"; then
  compare "$name" > "$T/$name.cmp"
  read -r _ n _ r _ s _ c _ m _ k _ b < "$T/$name.cmp"
  figures="$n compared; retained differs for $r, $b of them by exactly ahat's $k B per class object it dominates; shallow $s, strong-or-not $c, missing $m"
  if [ "$n" -gt 0 ] && [ "$r" = "$b" ] && [ "$s$c$m" = 000 ]; then pass "ahat-$name-conventions ($figures)"
  else fail "ahat-$name-conventions" "$figures; $(tail -n +2 "$T/$name.cmp" | tr '\n' ';')"; fi
fi
