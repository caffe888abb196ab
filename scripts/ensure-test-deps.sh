#!/usr/bin/env bash
# Installs what the test suite needs beyond npm packages, from Debian's packages: Chromium for the
# /docs browser test, nginx for the edge gateway test (docker/nginx) and redis-server for the
# STORE=redis adapters and fleet tests (each test starts its own, on a free port, without persistence),
# and openssl for the self-signed certificate of the https webhook receiver test.
set -euo pipefail
missing=()
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -x /usr/sbin/nginx ] || [ -x /usr/bin/nginx ] || missing+=(nginx)
command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
command -v openssl >/dev/null || missing+=(openssl)
bash "$(dirname "$0")/apt-install.sh" "the browser, edge gateway, Redis and https webhook tests" "${missing[@]}"
