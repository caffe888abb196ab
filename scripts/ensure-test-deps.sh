#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages: Debian's Chromium for the /docs browser test.
set -euo pipefail
if [ -x /usr/bin/chromium ]; then exit 0; fi
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
  echo "== installing Debian chromium for the browser test"
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
else
  echo "chromium is missing: install Debian's 'chromium' package (sudo apt-get install chromium), then run again" >&2
  exit 1
fi
