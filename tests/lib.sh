# Helpers for tests/t_*.sh.  Environment from tests/run: SRC, BUILD, HK, GEN, T (scratch dir).
REALDATA="$SRC/../shared/realdata"
pass() { echo "PASS $1"; }
fail() { echo "FAIL $1: $2"; }
skip() { echo "SKIP $1: $2"; }
# needs NAME WHAT... || exit 0: whether every tool and file the test needs is there.  The first
# one missing gives one line: a SKIP for a command (WHAT without a slash) or a file from outside
# the build (a peer's jar, a JDK's), a FAIL for a file the build should have made (under $BUILD).
needs() {
  local name=$1 w; shift
  for w in "$@"; do
    case $w in
    "$BUILD"/*) [ -e "$w" ] || { fail "${name}_build" "missing $w"; return 1; } ;;
    */*) [ -e "$w" ] || { skip "$name" "$w is absent (tools/deps.sh --test)"; return 1; } ;;
    *) command -v "$w" >/dev/null || { skip "$name" "$w is not installed (tools/deps.sh --test)"; return 1; } ;;
    esac
  done
}
# eq NAME GOT WANT
eq() { if [ "$2" == "$3" ]; then pass "$1"; else fail "$1" "got '$2', want '$3'"; fi; }
# ok NAME CMD... : passes when CMD exits 0
ok() { local n=$1; shift; if "$@" >"$T/ok.out" 2>&1; then pass "$n"; else fail "$n" "command failed: $* :: $(head -c 400 "$T/ok.out")"; fi; }
# err NAME PATTERN CMD... : passes when CMD exits non-zero, does not crash (<128) and stderr matches PATTERN
err() {
  local n=$1 pat=$2; shift 2
  "$@" >"$T/err.out" 2>"$T/err.err"; local rc=$?
  if [ $rc -eq 0 ]; then fail "$n" "expected failure, exit 0"; 
  elif [ $rc -ge 124 ]; then fail "$n" "crashed or hung (status $rc): $(head -c 300 "$T/err.err")";
  elif grep -qE -- "$pat" "$T/err.err"; then pass "$n";
  else fail "$n" "stderr does not match /$pat/: $(head -c 300 "$T/err.err")"; fi
}


# release_tree: the release build beside the checkout (build-release, as run.sh makes it) in REL,
# set up when missing and brought up to date by one test file at a time (files run side by side:
# a lock on its folder); on failure the build's output is in $T/release.log
release_tree() {
  REL="$SRC/build-release"
  mkdir -p "$REL"
  flock "$REL" bash -c '{ [ -f "$1/build.ninja" ] || meson setup --buildtype=release "$1" "$2"; } && nice ninja -C "$1"' \
    _ "$REL" "$SRC" >"$T/release.log" 2>&1
}
