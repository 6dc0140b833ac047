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
