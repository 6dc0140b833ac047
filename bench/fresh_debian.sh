#!/usr/bin/env bash
# The README's two commands on a fresh Debian, as a new user meets them: debootstraps SUITE
# (bookworm = Debian 12, trixie = Debian 13) into DIR (kept: a second run reuses it as it is),
# clones this checkout's HEAD into it with a copy of ../shared beside it, and times `./run.sh`
# then `./test.sh` as root inside.  Needs root and debootstrap (tools/deps.sh does not install
# it); not part of CI.  Logs: DIR.run.log, DIR.test.log; the last lines say the times.
# Usage: bench/fresh_debian.sh SUITE DIR
set -eu
[ $# -eq 2 ] || { echo "usage: bench/fresh_debian.sh bookworm|trixie DIR" >&2; exit 2; }
suite=$1 dir=$(realpath -m "$2")
src=$(cd "$(dirname "$0")/.." && pwd)
[ "$(id -u)" -eq 0 ] || { echo "fresh_debian.sh: needs root (debootstrap, chroot)" >&2; exit 2; }
if [ ! -x "$dir/usr/bin/apt-get" ]; then
  start=$SECONDS
  debootstrap --variant=minbase --include=git,ca-certificates "$suite" "$dir" >"$dir.debootstrap.log" 2>&1
  echo "debootstrap $suite: $((SECONDS - start)) s"
fi
# The system's own /proc and /sys, and a /dev of its own (device nodes made here, a private
# devpts and shm): nothing run inside can replace the host's /dev/null, nor the other way round.
mounts=(proc sys dev dev/pts dev/shm)
cleanup() { for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do umount "$dir/${mounts[i]}" 2>/dev/null || true; done; }
trap cleanup EXIT
trap 'exit 143' TERM INT
mountpoint -q "$dir/proc" || mount -t proc proc "$dir/proc"
mountpoint -q "$dir/sys" || mount -t sysfs sysfs "$dir/sys"
if ! mountpoint -q "$dir/dev"; then
  mount -t tmpfs -o mode=755,size=16m hkdev "$dir/dev"
  for n in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
    IFS=: read -r name major minor <<<"$n"
    mknod -m 666 "$dir/dev/$name" c "$major" "$minor"
  done
  mkdir -p "$dir/dev/pts" "$dir/dev/shm"
  ln -s /proc/self/fd "$dir/dev/fd"
  ln -s pts/ptmx "$dir/dev/ptmx"
  for i in 0 1 2; do ln -s "/proc/self/fd/$i" "$dir/dev/$(echo stdin stdout stderr | cut -d' ' -f$((i + 1)))"; done
fi
mountpoint -q "$dir/dev/pts" || mount -t devpts -o newinstance,ptmxmode=0666,mode=620 devpts "$dir/dev/pts"
mountpoint -q "$dir/dev/shm" || mount -t tmpfs -o mode=1777,size=1g shm "$dir/dev/shm"
cp /etc/resolv.conf "$dir/etc/resolv.conf"
# the host's own CA certificates too: where the way out re-signs TLS (a proxy), npm inside
# trusts what the host trusts (apt fetches over plain HTTP and checks signatures itself)
if ls /usr/local/share/ca-certificates/*.crt >/dev/null 2>&1; then
  mkdir -p "$dir/usr/local/share/ca-certificates"
  cp /usr/local/share/ca-certificates/*.crt "$dir/usr/local/share/ca-certificates/"
fi
rm -rf "$dir/usr/src/hprofkit" "$dir/usr/src/shared"
git clone -q "$src" "$dir/usr/src/hprofkit"
[ -d "$src/../shared" ] && cp -r "$src/../shared" "$dir/usr/src/shared"
# HK_TEST_TIMEOUT (tests/run's per-file limit) passes through, for a machine busy with other work
inside() { env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LANG=C.UTF-8 ${HK_TEST_TIMEOUT:+HK_TEST_TIMEOUT=$HK_TEST_TIMEOUT} \
  chroot "$dir" bash -c "cd /usr/src/hprofkit && $1"; }
echo "$suite: $(inside 'cat /etc/debian_version') at $(git -C "$src" rev-parse --short HEAD), $(nproc) cores"
inside 'update-ca-certificates >/dev/null 2>&1 || true' # the bundle takes the host's certificates in
for cmd in run test; do
  start=$SECONDS rc=0
  inside "./$cmd.sh" >"$dir.$cmd.log" 2>&1 || rc=$?
  echo "./$cmd.sh: exit $rc, $((SECONDS - start)) s; last line: $(tail -n 1 "$dir.$cmd.log")"
done
