#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages, from Debian's packages: Chromium for the
# /docs browser test and nginx for the edge gateway test (docker/nginx).
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/sbin/nginx ] || [ -x /usr/bin/nginx ] || missing+=(nginx)
if [ ${#missing[@]} -eq 0 ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== installing Debian ${missing[*]} for the browser and edge gateway tests"
  apt-get update -qq >/dev/null
  # nginx only as a program for the test: its package must not start a system-wide server.
  if [[ " ${missing[*]} " == *" nginx "* ]] && [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    trap 'rm -f /usr/sbin/policy-rc.d' EXIT
  fi
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "missing: ${missing[*]}: install Debian's packages (sudo apt-get install ${missing[*]}), then run again" >&2
  exit 1
fi
