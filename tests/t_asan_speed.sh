#!/usr/bin/env bash
# The sanitizer build stays within 10x the release build on the commands that read the most of a
# dump (info, top, leaks, triage: index, graph, paths, every analysis) on the real dumps and on
# their heap-graph traces.  A per-object realloc once made reading a heap graph
# quadratic under ASan (51 s for `info` against 0.08 s in release) and nothing failed: this test
# is what fails now.  CPU time (user + system), so the other core's load does not count; a run
# shorter than 0.2 s in release is held to 10 x 0.2 s (ASan's start-up alone is tens of ms).
source "$SRC/tests/lib.sh"
REAL="$REALDATA/hprof"
if [ ! -d "$REAL" ]; then skip asan-speed "needs $REAL"; exit 0; fi
case "$(meson introspect "$BUILD" --buildoptions 2>/dev/null | jq -r '.[] | select(.name == "b_sanitize") | .value')" in
  none | "") skip asan-speed "$BUILD is not a sanitizer build"; exit 0 ;;
esac

# the whole tree, as run.sh builds it (a command without its plugins warns at every start)
release_tree || { fail release-build "$(tail -3 "$T/release.log")"; exit 0; }

# cpu BIN ARGS...: user+system seconds of one run
cpu() {
  local TIMEFORMAT='%3U %3S'
  { time "$@" >/dev/null 2>&1; } 2>"$T/time.out"
  awk '{ print $1 + $2 }' "$T/time.out"
}

inputs=()
for d in "$REAL"/*.hprof; do
  b=$(basename "$d" .hprof)
  "$REL/hprofkit" convert "$d" --to perfetto-heapgraph --trace "$T/$b.pftrace" >/dev/null 2>&1 || { fail "convert-$b" "release convert failed"; continue; }
  inputs+=("$d" "$T/$b.pftrace")
done

slow=""
for d in "${inputs[@]}"; do
  for q in info top leaks triage; do
    r=$(cpu "$REL/hprofkit" "$q" "$d")
    a=$(cpu "$HK" "$q" "$d")
    if awk -v r="$r" -v a="$a" 'BEGIN { exit !(a > 10 * (r > 0.2 ? r : 0.2)) }'; then
      slow="$slow $q:$(basename "$d")=${a}s/${r}s"
    fi
  done
done
eq asan-within-10x-release "${slow:-none}" none
