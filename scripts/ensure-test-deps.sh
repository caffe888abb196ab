#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages, from Debian's packages: Chromium for the
# /docs browser test, nginx for the edge gateway test (docker/nginx) and redis-server for the
# STORE=redis adapters and fleet tests (each test starts its own, on a free port, without persistence).
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/sbin/nginx ] || [ -x /usr/bin/nginx ] || missing+=(nginx)
command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
bash "$(dirname "$0")/apt-install.sh" "the browser, edge gateway and Redis tests" "${missing[@]}"
