# Shared setup for the benchmarks: a release build, the scratch folder, and the machine line.
# Sourced from the project's root by bench/*.sh; sets HK and work.
[ -d build-release ] || meson setup build-release --buildtype=release >/dev/null
ninja -C build-release >/dev/null
HK=build-release/hprofkit
work=${BENCH_DIR:-/tmp/hprofkit-bench}
mkdir -p "$work"
bench_machine() {
  echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'), $(free -g | awk '/Mem:/ {print $2}') GiB; load $(cut -d' ' -f1-3 /proc/loadavg); date: $(date -u +%F)"
}

# The benchmarks' two dumps, made once in $work; each prints its path.
bench_generated_dump() {  # SIZE_MB: genhprof's big scenario (the 1 GB one has 23.5 M objects)
  local f=$work/big-$1.hprof
  [ -s "$f" ] || build-release/fixtures/genhprof --scenario big --size-mb "$1" -o "$f" >/dev/null
  echo "$f"
}
# bench_jvm_dump FILE HEAP_MB CLASS ARGS...: runs bench/CLASS.java (its sources beside it and the
# Bitmap stand-in of tests/java/pre26) until it writes its pid, then takes the JVM's own class
# histogram (FILE.histo) and `jcmd GC.heap_dump` into FILE; once: a FILE already made is kept.
bench_jvm_dump() {
  local f=$1 mb=$2 cls=$3 jp
  shift 3
  if [ ! -s "$f" ] && command -v jcmd >/dev/null; then
    javac -d "$work" -sourcepath tests/java/pre26 "bench/$cls.java" >&2
    rm -f "$work/pid"
    java "-Xmx${mb}m" -cp "$work" "$cls" "$work/pid" "$@" >/dev/null & jp=$!
    for _ in $(seq 1200); do [ -s "$work/pid" ] && break; sleep 0.1; done
    jcmd $jp GC.class_histogram > "$f.histo"
    jcmd $jp GC.heap_dump "$f" >/dev/null
    kill $jp; wait $jp 2>/dev/null || true
    rm -f "$work/pid"
  fi
  echo "$f"
}
bench_hotspot_dump() {  # N: bench/IndexBig.java's N (5 objects per N: 3 M gives 15 M objects)
  bench_jvm_dump "$work/hotspot-$1.hprof" 4096 IndexBig "$1"
}
bench_slurp_dump() {  # N: bench/SlurpHeap.java's N (6 M: 15 M objects, ~690 MB: hprof-slurp's p-big)
  bench_jvm_dump "$work/slurp-$1.hprof" 3072 SlurpHeap "$1"
}
bench_app_dump() {  # N: bench/AppHeap.java's N (3 M: 15.0 M objects, 662 MB, 3,000 Bitmaps)
  bench_jvm_dump "$work/app-$1.hprof" 3072 AppHeap "$1"
}
