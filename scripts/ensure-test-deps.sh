#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages, from Debian's packages: Chromium for the
# /docs browser test, nginx for the edge gateway test (docker/nginx) and redis-server for the
# STORE=redis adapters and fleet tests (each test starts its own, on a free port, without persistence).
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/sbin/nginx ] || [ -x /usr/bin/nginx ] || missing+=(nginx)
command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== installing Debian ${missing[*]} for the browser, edge gateway and Redis tests"
  apt-get update -qq >/dev/null
  # nginx and redis-server only as programs for the tests: their packages must not start system-wide servers.
  if [[ " ${missing[*]} " == *" nginx "* || " ${missing[*]} " == *" redis-server "* ]] && [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "missing: ${missing[*]}: install Debian's packages (sudo apt-get install ${missing[*]}), then run again" >&2
  exit 1
fi
