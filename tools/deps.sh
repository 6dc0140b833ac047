#!/usr/bin/env bash
# Installs what is missing on Debian 12: build deps always, test deps with --test, and with
# --bench also what the benchmarks compare against (VisualVM's heap library).
set -eu
pkgs="meson ninja-build pkg-config gcc liblua5.4-dev libpng-dev zlib1g-dev libzstd-dev libinih-dev libssl-dev libprotobuf-c-dev protobuf-c-compiler libsqlite3-dev libmicrohttpd-dev"
[ "${1:-}" = "--bench" ] && pkgs="$pkgs openjdk-17-jdk-headless jq visualvm"
[ "${1:-}" = "--test" ] && pkgs="$pkgs adb openjdk-17-jdk-headless jq zstd clang libclang-rt-14-dev valgrind libxml2-utils protobuf-compiler python3-jsonschema chromium parallel clang-format universal-ctags openssh-server openssh-client rsync slurm-wlm munge sqlite3 kotlin libokio-java"
missing=""
for p in $pkgs; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done
if [ "${1:-}" = "--test" ]; then "$(dirname "$0")/../tests/browser/install.sh"; fi
[ -z "$missing" ] && exit 0
echo "installing:$missing" >&2
SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
$SUDO apt-get update -qq
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $missing >/dev/null
