# tools/deps.sh without touching the system: its flags, --check, and what a user with neither
# root nor sudo is told (HPROFKIT_DEPS_EXTRA names a package no Debian has, so something is
# always missing).  As root the unprivileged runs switch to `nobody` with setpriv.
. "$SRC/tests/lib.sh"
ABSENT=hprofkit-test-absent-package

# a world-readable copy, so `nobody` can run it whatever the checkout's permissions
D=$(mktemp -d /tmp/hkdeps.XXXXXX)
trap 'rm -rf "$D"' EXIT
mkdir -p "$D/tools" "$D/nosudo" "$D/fakesudo"
cp "$SRC/tools/deps.sh" "$D/tools/"
# a sudo that works without a password and only writes down what it was asked to run
cat >"$D/fakesudo/sudo" <<EOF
#!/bin/sh
echo "\$*" >>"$D/sudo.log"
EOF
chmod -R a+rX "$D" && chmod 777 "$D" && chmod 755 "$D/fakesudo/sudo"
# not root: this user's own sudo may work, so the sudo found first is one that refuses
if [ "$(id -u)" -ne 0 ]; then printf '#!/bin/sh\necho "sudo: a password is required" >&2; exit 1\n' >"$D/nosudo/sudo"
  chmod 755 "$D/nosudo/sudo"; fi
deps() { "$D/tools/deps.sh" "$@"; }
# as an unprivileged user; PATH first: a directory to search before the system's
unpriv() {
  local pre=$1; shift
  as_user env -i PATH="$pre:/usr/sbin:/usr/bin:/sbin:/bin" HPROFKIT_DEPS_EXTRA=$ABSENT "$D/tools/deps.sh" "$@"
}
as_user() { # root becomes nobody; anyone else stays who they are
  if [ "$(id -u)" -eq 0 ]; then (cd "$D" && setpriv --reuid=nobody --regid=nogroup --clear-groups "$@" </dev/null)
  else (cd "$D" && "$@" </dev/null); fi
}

# ---- flags ----
out=$(deps --bogus 2>&1); rc=$?
eq unknown-flag-exit "$rc" 2
case $out in *"'--bogus'"*--test*--bench*--check*--help*) pass unknown-flag-names-valid ;;
  *) fail unknown-flag-names-valid "$out" ;; esac
out=$(deps --test --nope --bench 2>&1); rc=$?
eq unknown-flag-among-valid "$rc:$(grep -c "'--nope'" <<<"$out")" "2:1"
out=$(deps build 2>&1); rc=$?
eq internal-name-not-a-flag "$rc" 2
out=$(deps --help); rc=$?
eq help-exit "$rc" 0
for w in --test --bench --check meson clang-format visualvm; do
  grep -q -- "$w" <<<"$out" || fail "help-names-$w" "no '$w' in --help"
done
pass help-says-what-each-installs
# the version-bound names are chosen, never left as placeholders
if grep -E '^           ' <<<"$out" | grep -qwE 'JDK|CLANG_RT'; then fail help-resolves-versions "$out"; else pass help-resolves-versions; fi
jdk=$(grep -oE 'openjdk-(17|21)-jdk-headless' <<<"$out" | sort -u | wc -l)
eq help-one-jdk "$jdk" 1
rt=$(grep -oE 'libclang-rt-[0-9]+-dev' <<<"$out" | sort -u)
if command -v clang >/dev/null; then
  major=$(clang --version | sed -n 's/.*clang version \([0-9]*\).*/\1/p' | head -1)
  eq clang-rt-matches-clang "$rt" "libclang-rt-$major-dev"
else
  skip clang-rt-matches-clang "clang is not installed"
fi

# ---- --check: lists, installs nothing; flags combine ----
out=$(HPROFKIT_DEPS_EXTRA=$ABSENT deps --test --bench --check 2>&1); rc=$?
eq check-missing-exit "$rc" 1
case $out in *"missing:"*"$ABSENT"*) pass check-lists-missing ;; *) fail check-lists-missing "$out" ;; esac
out=$(HPROFKIT_DEPS_EXTRA=meson deps --check 2>&1); rc=$?
if [ "$rc" -eq 0 ]; then eq check-complete-says "$(grep -c 'packages installed' <<<"$out")" 1
elif [ "$rc" -eq 1 ]; then skip check-complete-says "this machine lacks a build package: $out"
else fail check-complete-says "exit $rc: $out"; fi
# the union: --bench's packages are checked with --test before it (the old script dropped them)
u=$(deps --test --bench --check 2>&1)
t=$(deps --test --check 2>&1)
b=$(deps --bench --check 2>&1)
for p in $(sed -n 's/.*missing: //p' <<<"$t $b"); do
  grep -qw -- "$p" <<<"$u" || fail check-union "$p missing alone but not with --test --bench: $u"
done
pass check-union

# ---- neither root nor sudo: the packages and the root command, exit 2, nothing changed ----
before=$(dpkg-query -W -f='${Package} ${Status}\n' 2>/dev/null | md5sum)
out=$(unpriv "$D/nosudo" --test --bench 2>&1); rc=$?
eq nonroot-exit "$rc" 2
case $out in *"missing Debian packages:"*"$ABSENT"*) pass nonroot-lists-missing ;;
  *) fail nonroot-lists-missing "$out" ;; esac
line=$(grep -E '^  apt-get update && apt-get install -y ' <<<"$out")
case $line in *" $ABSENT"*) pass nonroot-one-root-line ;; *) fail nonroot-one-root-line "$out" ;; esac
if grep -qi 'command not found' <<<"$out"; then fail nonroot-no-raw-error "$out"; else pass nonroot-no-raw-error; fi
after=$(dpkg-query -W -f='${Package} ${Status}\n' 2>/dev/null | md5sum)
eq nonroot-changes-nothing "$after" "$before"
# run.sh stops there too, with the same answer and status
if as_user test -r "$SRC/run.sh"; then
  out=$(as_user env -i PATH="$D/nosudo:/usr/bin:/bin" HPROFKIT_DEPS_EXTRA=$ABSENT bash -c 'cd "$1" && ./run.sh' _ "$SRC" 2>&1)
  rc=$?
  eq run-nonroot-exit "$rc" 2
  case $out in *"apt-get install -y"*"$ABSENT"*) pass run-nonroot-root-line ;; *) fail run-nonroot-root-line "$out" ;; esac
else
  skip run-nonroot "the checkout is not readable by an unprivileged user"
fi

# ---- a user with working sudo: said first, then apt-get through sudo ----
rm -f "$D/sudo.log"
out=$(unpriv "$D/fakesudo" --bench 2>&1); rc=$?
eq sudo-exit "$rc" 0
case $out in *"with sudo:"*"$ABSENT"*) pass sudo-said-first ;; *) fail sudo-said-first "$out" ;; esac
log=$(cat "$D/sudo.log" 2>/dev/null)
case $log in *"apt-get update"*"apt-get install -y -qq"*"$ABSENT"*) pass sudo-runs-apt ;;
  *) fail sudo-runs-apt "sudo was asked: $log" ;; esac
