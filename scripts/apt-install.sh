#!/usr/bin/env bash
# Installs the named Debian packages (as root, with apt-get), for the scripts that need programs beyond
# npm packages. Server packages (nginx, redis-server) are installed as programs only: a policy-rc.d
# keeps their packages from starting system-wide servers; the tests and benches start their own.
#   bash scripts/apt-install.sh "<why>" pkg...
set -euo pipefail
why=$1
shift
[ $# -gt 0 ] || exit 0
if [ "$(id -u)" != 0 ] || ! command -v apt-get >/dev/null; then
  echo "missing: $*: install Debian's packages (sudo apt-get install $*), then run again" >&2
  exit 1
fi
echo "== installing Debian $* for $why"
apt-get update -qq >/dev/null
if [ ! -e /usr/sbin/policy-rc.d ]; then
  printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
  trap 'rm -f /usr/sbin/policy-rc.d' EXIT
fi
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
