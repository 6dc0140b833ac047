#!/usr/bin/env bash
# The browser tests' driver (tools/deps.sh --test runs this): node and npm (Debian's, when there
# is no node yet) and puppeteer-core at the version package-lock.json pins.  puppeteer-core brings
# no browser: the tests drive Debian's chromium.
set -eu
cd "$(dirname "$0")"
if ! command -v npm >/dev/null; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq nodejs npm >/dev/null
fi
pinned=$(node -p 'require("./package-lock.json").packages["node_modules/puppeteer-core"].version')
have=$(node -p 'try { require("./node_modules/puppeteer-core/package.json").version } catch (e) { "" }')
[ "$have" = "$pinned" ] && exit 0
echo "installing: puppeteer-core $pinned (npm ci in tests/browser)" >&2
npm ci --no-audit --no-fund --ignore-scripts >/dev/null
