#!/usr/bin/env bash
# The golden check: every query a user runs on a dump, with its options and in each format, on
# the shared real dumps (skipped when ../shared/realdata is absent) and the genhprof scenarios the
# suite uses; each case's stdout and exit status must equal the stored golden, byte for byte.
# A change that moves code without meaning to change an output keeps every case passing.
#
# Goldens live in tests/data/golden/NAME.out: the whole output when it is small, else its
# size, line count and SHA-256 and its first 30 lines (so a failure still shows something).
# Failing cases (err.*) also keep stderr.  Paths of this checkout, the build and the scratch dir are written as @SRC@, @BUILD@, @T@.
# Not covered: `queries` and `QUERY --help` (listings that change with every query added), and
# the device commands (devices, processes, dump, watch, fetch-bitmaps: tests/t_device.sh).
#
# A change that alters an output on purpose regenerates the goldens in the same commit (and
# says why in its message), with one command from the checkout:
#     tests/t_golden.sh --update [BUILD_DIR]      # BUILD_DIR defaults to build/
# then `git diff tests/data/golden` shows what changed.
set -u
update=0
if [ "${1:-}" = "--update" ]; then
  update=1
  SRC=$(cd "$(dirname "$0")/.." && pwd)
  BUILD=$(cd "${2:-$SRC/build}" && pwd)
  HK="$BUILD/hprofkit" GEN="$BUILD/fixtures/genhprof"
  T=$(mktemp -d /tmp/hkgolden.XXXXXX)
  trap 'rm -rf "$T"' EXIT
  cd "$T" || exit 1
fi
. "$SRC/tests/lib.sh"
GOLD="$SRC/tests/data/golden"
OUT="$T/golden-out"
mkdir -p "$OUT"
have_real=0
[ -d "$REALDATA/hprof" ] && have_real=1

# the digest a golden stores: exit status, then the output (or its sums and head when big)
digest() { # OUTFILE RC
  local f=$1 rc=$2 bytes
  bytes=$(wc -c <"$f")
  if [ "$bytes" -le 6144 ]; then
    printf '# exit %d\n' "$rc"
    cat "$f"
  else
    printf '# exit %d; %d bytes, %d lines, sha256 %s; the first 30 lines:\n' "$rc" "$bytes" \
      "$(wc -l <"$f")" "$(sha256sum "$f" | cut -d' ' -f1)"
    head -n 30 "$f" | cut -c1-400
  fi
}

# one case: NAME ARGS... (run from $T, where the dumps are linked under short names)
cases=()
c() { cases+=("$(printf '%q ' "$@")"); }
run_case() { # NAME ARGS...
  local name=$1 rc
  shift
  "$HK" "$@" >"$OUT/$name.raw" 2>"$OUT/$name.err"
  rc=$?
  sed -e "s#$T#@T@#g" -e "s#$BUILD#@BUILD@#g" -e "s#$SRC#@SRC@#g" "$OUT/$name.raw" >"$OUT/$name.txt"
  digest "$OUT/$name.txt" "$rc" >"$OUT/$name.out"
  # a failure's one line on stderr is what the user sees of it
  case "$name" in err.*)
    echo "# stderr:" >>"$OUT/$name.out"
    sed -e "s#$T#@T@#g" -e "s#$BUILD#@BUILD@#g" -e "s#$SRC#@SRC@#g" "$OUT/$name.err" >>"$OUT/$name.out" ;;
  esac
}

# ---- inputs: generated scenarios, the real dumps linked beside their maps ----
gen() { "$GEN" --scenario "$@" >/dev/null 2>&1 || fail "golden_gen_$1" "genhprof --scenario $* failed"; }
gen demo -o demo.hprof
gen demo --grow 0 -o g0.hprof
gen graph -o graph.hprof
gen chain --objects 200 -o chain.hprof
gen leaks -o leaks.hprof
gen leaks-api31 -o leaks31.hprof
gen bitmaps-pre26 -o bm23.hprof
gen bitmaps-api29 -o bm29.hprof
gen bitmaps-api35 -o bm35.hprof
gen obfuscated -o obf.hprof
gen noorigin -o noorigin.hprof
gen fleet --index 3 -o fleet3.hprof
gen fleet --index 4 -o fleet4.hprof
cp "$SRC/tests/data/r8-obfuscated.map" r8.map
R=aosp-art-ahat-test-dump
if [ $have_real = 1 ]; then
  for f in "$REALDATA"/hprof/*; do ln -sf "$f" .; done
fi

# ---- cases on every dump: the listings in each format and with the shared options ----
every() { # SHORT DUMP
  local s=$1 d=$2
  c "$s.info" info "$d"
  c "$s.info.json" info "$d" --json
  c "$s.histogram" histogram "$d"
  c "$s.histogram.json" histogram "$d" --json -n 25
  c "$s.histogram.opts" histogram "$d" --class 'java.*' --sort count --bytes -n 15
  c "$s.histogram.csv" histogram "$d" --format csv -n 15
  c "$s.top" top "$d"
  c "$s.top.all.json" top "$d" --all -n 30 --json
  c "$s.reach" reachability "$d"
  c "$s.reach.json" reachability "$d" --json
  c "$s.leaks" leaks "$d"
  c "$s.leaks.json" leaks "$d" --json
  c "$s.dupstr" duplicate-strings "$d" -n 10
  c "$s.dupstr.json" duplicate-strings "$d" --json -n 0
  c "$s.duparr" duplicate-arrays "$d"
  c "$s.duparr.json" duplicate-arrays "$d" --json -n 0 --bytes
  c "$s.bitmaps" bitmaps "$d" --json
  c "$s.dupbm" duplicate-bitmaps "$d"
  c "$s.triage.json" triage "$d" --json --label run=golden
  c "$s.triage" triage "$d"
}
ids() { # SHORT DUMP ID...: object, path, dominators of each
  local s=$1 d=$2 i=0
  shift 2
  for id in "$@"; do
    i=$((i + 1))
    c "$s.object$i" object "$d" "$id"
    c "$s.object$i.json" object "$d" "$id" --json --elements 3
    c "$s.path$i" path "$d" "$id"
    c "$s.path$i.json" path "$d" "$id" --json
    c "$s.dom$i" dominators "$d" "$id"
    c "$s.dom$i.json" dominators "$d" "$id" -n 5 --json
  done
}
every demo demo.hprof
ids demo demo.hprof 0x12c00018 0x700012c0 0x12c00450
every graph graph.hprof
every chain chain.hprof
every leaks leaks.hprof
c leaks.failon leaks leaks.hprof --fail-on leaks,library-leaks
c leaks.triage.failon triage leaks.hprof --json --fail-on leaks,library-leaks,leak-retained:1,bitmap-waste:1
c leaks31.leaks leaks leaks31.hprof --json
c leaks31.triage triage leaks31.hprof --json
for s in bm23 bm29 bm35; do
  c "$s.info" info "$s.hprof" --json
  c "$s.bitmaps" bitmaps "$s.hprof"
  c "$s.bitmaps.json" bitmaps "$s.hprof" --json --min-pixels 100
  c "$s.dupbm.json" duplicate-bitmaps "$s.hprof" --json --fail-on duplicates
  c "$s.top" top "$s.hprof" --json -n 10
  c "$s.triage" triage "$s.hprof" --json
done
c obf.histogram histogram obf.hprof --json
c obf.histogram.map histogram obf.hprof --map r8.map --json
c obf.histogram.map.csv --map r8.map histogram obf.hprof --format csv
c obf.top.map top obf.hprof --map r8.map -n 10
c obf.leaks.map leaks obf.hprof --map r8.map --json
c obf.info info obf.hprof --json
c noorigin.info info noorigin.hprof --json
c noorigin.triage triage noorigin.hprof --json
c fleet3.triage triage fleet3.hprof --json --label farm=a --label k=v
c demo.diff diff g0.hprof demo.hprof
c demo.diff.json diff g0.hprof demo.hprof --json -n 0
c demo.diff.opts diff g0.hprof demo.hprof --min-growth 2 --min-bytes 100 --heap app --no-bitmaps
c demo.diff.object diff g0.hprof demo.hprof --object 0x12c00018 --no-leaks --json
c fleet.diff diff fleet3.hprof fleet4.hprof --json
c demo.triage.baseline triage demo.hprof --baseline g0.hprof --json
c demo.jobs1 -j 1 top demo.hprof --json
c demo.csv.dom dominators demo.hprof 0x12c00018 --format csv

# ---- Perfetto traces written from dumps, then read back like dumps ----
pf() { # SHORT DUMP
  local s=$1 d=$2
  c "$s.convert.hg" convert "$d" --to perfetto-heapgraph --trace "$s.hg.pftrace" --pid 42
  c "$s.convert.emb" convert "$d" --to perfetto-embedded --trace "$s.emb.pftrace" --chunk-kb 64
}
pf_read() { # SHORT ID
  local s=$1
  c "$s.hg.info" info "$s.hg.pftrace" --json
  c "$s.hg.histogram" histogram "$s.hg.pftrace" --json
  c "$s.hg.top" --trace-pid 42 top "$s.hg.pftrace" --json
  c "$s.hg.object" object "$s.hg.pftrace" "$2" --json
  c "$s.emb.info" info "$s.emb.pftrace" --json
  c "$s.emb.histogram" histogram "$s.emb.pftrace"
  c "$s.emb.bitmaps" bitmaps "$s.emb.pftrace" --json
}

# ---- the meminfo and smaps parsers, plugins ----
for f in modern_android14_d android9_swappss android2_transposed; do
  c "meminfo.$f" meminfo "$SRC/tests/meminfo/$f.txt"
  c "meminfo.$f.json" meminfo "$SRC/tests/meminfo/$f.txt" --json
done
c meminfo.truncated meminfo "$SRC/tests/meminfo/truncated.txt" --json --fail-on checks
c smaps.hand smaps "$SRC/tests/meminfo/smaps_hand.txt"
c smaps.hand.json smaps "$SRC/tests/meminfo/smaps_hand.txt" --json --top 5
c demo.triage.meminfo triage demo.hprof --meminfo "$SRC/tests/meminfo/modern_android14_d.txt" --json
c plugins.json plugins --json

# ---- what a user gets wrong, and dumps that are not dumps ----
head -c 4000 demo.hprof >trunc.hprof
printf 'not a heap dump\n' >garbage.hprof
c err.missing info nosuch.hprof
c err.trunc histogram trunc.hprof
c err.garbage info garbage.hprof
c err.option top demo.hprof --nosuch
c err.id object demo.hprof 0x1

# ---- the real dumps (ahat's test dumps with their map, a desktop JVM's, LeakCanary's) ----
if [ $have_real = 1 ]; then
  every ahat $R.hprof
  ids ahat $R.hprof 0x26000000 0x60f0200
  every ahatbase $R-base.hprof
  every haha haha-sun_jdk5_64bit.hprof
  ids haha haha-sun_jdk5_64bit.hprof 0x17c2f970
  every ri hotspot-ahat-RI.hprof
  ids ri hotspot-ahat-RI.hprof 0x50000495
  every lc leakcanary-leak_service_binder.hprof
  ids lc leakcanary-leak_service_binder.hprof 0xb0e6ef78 0xb0ea6938
  c ahat.nomap.histogram --no-map histogram $R.hprof -n 20
  c ahat.heap.histogram histogram $R.hprof --heap app --json
  # top --sort ranks in C, keeping the n best: these outputs are the old whole-list sort's
  c ahat.top.sort top $R.hprof --sort shallow_bytes -n 7 --json
  c ri.top.sort.class top hotspot-ahat-RI.hprof --sort shallow_bytes --class 'java.*' -n 5 --json
  c lc.top.sort.heap top leakcanary-leak_service_binder.hprof --heap app --sort shallow_bytes -n 4 --json
  c ahat.diff diff $R-base.hprof $R.hprof
  c ahat.diff.json diff $R-base.hprof $R.hprof --json -n 0
  c ahat.diff.opts diff $R-base.hprof $R.hprof --heap app --min-growth 1 --no-leaks -n 5
  c ahat.diff.basemap diff $R-base.hprof $R.hprof --base-map $R.map --json
  c ahat.diff.object diff $R-base.hprof $R.hprof --object 0x26000000 --json
  c ahat.triage.baseline triage $R.hprof --baseline $R-base.hprof --json
  c cross.diff diff haha-sun_jdk5_64bit.hprof hotspot-ahat-RI.hprof --json
  c cross.diff.text diff haha-sun_jdk5_64bit.hprof hotspot-ahat-RI.hprof -n 5
  for m in "$REALDATA"/meminfo/*.txt; do
    c "meminfo.real.$(basename "$m" .txt)" meminfo "$m" --json
  done
  pf lc leakcanary-leak_service_binder.hprof
else
  skip golden_realdata "no $REALDATA (the real-dump cases are skipped)"
fi
pf demo demo.hprof
pf bm35 bm35.hprof

# ---- run: converts first (their traces are read after), the rest two at a time ----
run_line() { eval "run_case $1"; }
for l in "${cases[@]}"; do case "$l" in *'.convert.'*) run_line "$l" ;; esac; done
pf_read demo 0x12c00018
pf_read bm35 0x12c00018
[ $have_real = 1 ] && pf_read lc 0xb0e6ef78
n=0
for l in "${cases[@]}"; do
  case "$l" in *'.convert.'*) continue ;; esac
  run_line "$l" &
  n=$((n + 1))
  [ $((n % 2)) = 0 ] && wait
done
wait

# ---- compare (or store) ----
names=()
for l in "${cases[@]}"; do
  eval "set -- $l"
  names+=("$1")
done
if [ $update = 1 ]; then
  mkdir -p "$GOLD"
  [ $have_real = 1 ] && rm -f "$GOLD"/*.out
  for n in "${names[@]}"; do cp "$OUT/$n.out" "$GOLD/$n.out"; done
  echo "golden: wrote ${#names[@]} goldens to $GOLD ($(du -sh "$GOLD" | cut -f1))"
  exit 0
fi
bad=0
for n in "${names[@]}"; do
  if [ ! -f "$GOLD/$n.out" ]; then
    fail "golden_$n" "no stored golden (tests/t_golden.sh --update writes it)"
    bad=$((bad + 1))
  elif ! cmp -s "$GOLD/$n.out" "$OUT/$n.out"; then
    fail "golden_$n" "stdout differs from tests/data/golden/$n.out: $(diff "$GOLD/$n.out" "$OUT/$n.out" |
      head -n 8 | tr '\n' '|' | cut -c1-600) (stderr: $(head -c 200 "$OUT/$n.err"))"
    bad=$((bad + 1))
  fi
done
[ $bad = 0 ] && pass "golden_all_${#names[@]}_cases"
# the check itself must be able to fail: a changed output is caught
printf 'x' >>"$OUT/${names[0]}.out"
if cmp -s "$GOLD/${names[0]}.out" "$OUT/${names[0]}.out"; then
  fail golden_detects_change "a changed output compared equal"
else
  pass golden_detects_change
fi
