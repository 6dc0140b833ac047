#!/usr/bin/env bash
# Installs the Debian packages hprofkit needs (Debian 12 or 13): the build's always, the test
# suite's with --test, the benchmarks' with --bench (flags combine).  As root it installs; as a
# user with working sudo it says so and uses sudo; with neither it installs nothing, prints the
# missing packages and the one line to run as root, and exits 2.  --check only lists what is
# missing.  See --help.
set -eu

# ---- What each flag installs: one `want` per flag, its help, then its packages.  JDK and
# CLANG_RT stand for the version-bound packages this machine's Debian offers (chosen below);
# PKG@CMD is needed only when the command CMD is not on PATH (a node from elsewhere will do).
# `then FLAG SCRIPT` runs SCRIPT (from the checkout's root) once the flag's packages are in.
# To add a package, put it on the list of the flag that needs it; a new flag is one more `want`.
flags=() ; declare -A help pkgs after
want() { flags+=("$1"); help[$1]=$2; shift 2; pkgs[${flags[-1]}]="$*"; }
then_run() { after[$1]=$2; }

want build "the compiler, meson and ninja, and the libraries hprofkit links" \
  meson ninja-build pkg-config gcc \
  liblua5.4-dev libpng-dev zlib1g-dev libzstd-dev libinih-dev libssl-dev libsqlite3-dev \
  libprotobuf-c-dev protobuf-c-compiler libmicrohttpd-dev
want --test "the test suite's tools: adb, a JDK, jq, clang and its sanitizer runtime, valgrind, Chromium, clang-format, ctags, ssh and Slurm (fleet), node and npm (browser tests)" \
  adb JDK jq zstd clang CLANG_RT valgrind libxml2-utils protobuf-compiler python3-jsonschema \
  chromium parallel clang-format universal-ctags \
  openssh-server openssh-client rsync slurm-wlm munge sqlite3 kotlin libokio-java curl \
  nodejs@node npm@npm
then_run --test tests/browser/install.sh
want --bench "what the benchmarks compare against: a JDK, jq and VisualVM (its heap library)" \
  JDK jq visualvm

# ---- the rest reads the lists above ----
me=deps.sh
valid="${flags[*]:1} --check --help"

usage() {
  echo "usage: tools/deps.sh$(printf ' [%s]' "${flags[@]:1}") [--check] [--help]"
  echo "Installs the Debian packages hprofkit needs that are missing (needs root or sudo)."
  for f in "${flags[@]}"; do
    printf '  %-9s%s:\n           %s\n' "$([ "$f" = build ] && echo "(always)" || echo "$f")" "${help[$f]}" \
      "$(resolve ${pkgs[$f]} | sed 's/@[^ ]*//g')"
  done
  echo "  --check  list what is missing, install nothing (exit 0: complete, 1: something missing)"
  echo "Flags combine (--test --bench: the union).  Without root or sudo nothing is installed:"
  echo "the missing packages and the command to run as root are printed (exit 2)."
}

installed() { dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q "install ok installed"; }
# the installed ones among the names given, one dpkg-query for all
installed_of() { dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null | awk '/ install ok installed$/ { print $1 }'; }
offered() { [ -n "$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p' | grep -v '(none)')" ]; }
debian_major() { sed -n 's/^VERSION_ID="\{0,1\}\([0-9]*\).*/\1/p' /etc/os-release 2>/dev/null; }

# The JDK: one already installed, else the one default-jdk-headless pulls in, else the newest
# of 21 and 17 this Debian offers, else the one of its release.
jdk() {
  local p d
  for p in openjdk-21-jdk-headless openjdk-17-jdk-headless; do installed "$p" && { echo "$p"; return; }; done
  d=$(apt-cache depends default-jdk-headless 2>/dev/null | sed -n 's/^ *Depends: *\(openjdk-[0-9]*-jdk-headless\).*/\1/p' | head -1)
  [ -n "$d" ] && { echo "$d"; return; }
  for p in openjdk-21-jdk-headless openjdk-17-jdk-headless; do offered "$p" && { echo "$p"; return; }; done
  case $(debian_major) in 12) echo openjdk-17-jdk-headless ;; *) echo openjdk-21-jdk-headless ;; esac
}

# The sanitizer runtime of the clang that is (or will be) installed: clang-N's libclang-rt-N-dev.
clang_rt() {
  local v
  v=$(dpkg-query -W -f='${Depends}' clang 2>/dev/null | grep -o 'clang-[0-9]*' | head -1)
  [ -n "$v" ] || v=$(apt-cache depends clang 2>/dev/null | grep -o 'clang-[0-9]*' | head -1)
  [ -n "$v" ] || case $(debian_major) in 12) v=clang-14 ;; *) v=clang-19 ;; esac
  echo "libclang-rt-${v#clang-}-dev"
}

resolve() { # the names with JDK and CLANG_RT chosen, each once, in order
  local out=" " p
  for p in "$@"; do
    case $p in JDK) p=$JDK ;; CLANG_RT) p=$CLANG_RT ;; esac
    [[ "$out" == *" $p "* ]] || out="$out$p "
  done
  out=${out# }; echo "${out% }"
}

chosen=(build) check=0 show_help=0
for a in "$@"; do
  case $a in
    --help | -h) show_help=1 ;;
    --check) check=1 ;;
    build) echo "$me: unknown flag '$a'; valid: $valid" >&2; exit 2 ;;
    *) if [ -n "${pkgs[$a]+x}" ]; then chosen+=("$a")
       else echo "$me: unknown flag '$a'; valid: $valid" >&2; exit 2; fi ;;
  esac
done

# with no package lists yet (a fresh system), root reads them first so the choices above can be made
if [ "$(id -u)" -eq 0 ] && [ "$check$show_help" = 00 ] && ! ls /var/lib/apt/lists/*_Packages >/dev/null 2>&1; then apt-get update -qq; fi

JDK=$(jdk) CLANG_RT=$(clang_rt)
[ "$show_help" -eq 1 ] && { usage; exit 0; }
list=""
for f in "${chosen[@]}"; do list="$list ${pkgs[$f]}"; done
# HPROFKIT_DEPS_EXTRA: more package names, for tests of this script
list=$(resolve $list ${HPROFKIT_DEPS_EXTRA:-})
have=" $(installed_of $(sed 's/@[^ ]*//g' <<<"$list") | tr '\n' ' ')"
missing=""
for e in $list; do
  p=${e%@*}
  [[ "$e" == *@* ]] && command -v "${e#*@}" >/dev/null 2>&1 && continue
  [[ "$have" == *" $p "* ]] || missing="$missing $p"
done
missing=${missing# }

if [ "$check" -eq 1 ]; then
  if [ -z "$missing" ]; then echo "$me: all $(wc -w <<<"$list") packages installed"; exit 0; fi
  echo "$me: missing: $missing"
  exit 1
fi
# what a flag runs once its packages are in
run_after() {
  local f
  for f in "${chosen[@]}"; do [ -z "${after[$f]:-}" ] || "$(dirname "$0")/../${after[$f]}"; done
}
[ -z "$missing" ] && { run_after; exit 0; }

as_root() { # the one line a person can run as root
  echo "$me: as root, run:" >&2
  echo "  apt-get update && apt-get install -y $missing" >&2
}
run_as=""
if [ "$(id -u)" -ne 0 ]; then
  # working sudo: without a password, or with one asked for now on the terminal
  if command -v sudo >/dev/null 2>&1 && { sudo -n true 2>/dev/null || { [ -t 0 ] && sudo -v; }; }; then
    run_as=sudo
    echo "$me: installing as root with sudo: $missing" >&2
  else
    echo "$me: missing Debian packages: $missing" >&2
    echo "$me: installing them needs root, and sudo is not available to you (uid $(id -u))" >&2
    as_root
    exit 2
  fi
else
  echo "$me: installing: $missing" >&2
fi
if ! $run_as apt-get update -qq; then
  echo "$me: apt-get update failed (see above); nothing was installed" >&2
  exit 1
fi
if ! $run_as env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing >/dev/null; then
  echo "$me: apt-get could not install: $missing (see its message above)" >&2
  exit 1
fi
run_after
