#!/usr/bin/env bash
# Runs the built API (`npm start` builds first). HOLA signatures are checked on libuv's thread pool;
# pool threads beyond the cores left beside the event loop compete with it for CPU: on a 2-core machine,
# alternating runs gave 0.65–0.69 of the raw verify rate with libuv's default pool of 4 and 0.81–0.82
# with a pool of 1 (`npm run bench -- verify`). So, unless UV_THREADPOOL_SIZE is set, the pool gets one thread less than
# the cores (at least 1). libuv reads the variable once, before any JavaScript runs, so it is set here.
# Arguments go to node (e.g. --cpu-prof). Relative paths in the environment (DATA_DIR, LEDGER_FILE, …)
# are the caller's: the working directory is left as it is (`npm start` runs from the repository root).
set -euo pipefail
# A stop asked for before the server runs ends here cleanly, as one during its start does (main.ts's
# EarlyStop), not by the signal (143); `exec` below hands the signals to node.
trap 'exit 0' TERM INT
root="$(cd "$(dirname "$0")/.." && pwd)"
if [ -z "${UV_THREADPOOL_SIZE:-}" ]; then
  UV_THREADPOOL_SIZE=$(node -p "Math.max(1, require('node:os').availableParallelism() - 1)")
  export UV_THREADPOOL_SIZE
fi
exec node "$@" "$root/apps/api/dist/main.js"
