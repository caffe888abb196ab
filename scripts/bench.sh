#!/usr/bin/env bash
# Every benchmark in bench/, one after another (they measure ratios within one run, so a noisy machine
# shifts both sides alike). Benches that start the app use the build, so build first. The swc loader
# keeps decorator metadata (Nest's DI needs it; tsx/esbuild drops it). Pass names to run a subset:
#   npm run bench -- core verify
# The verify, http, auth, memory and soak suites write their figures into bench/results/latest.json
# (a suite not run keeps its earlier section); `npm run bench:history` then appends a row to
# docs/benchmarks.md and refreshes the README's table. The soak (10 minutes; SOAK_SECONDS to shorten)
# runs only when named: npm run bench -- soak
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -b tsconfig.build.json
# The verify bench drives the server with wrk (a C load generator) from Debian's packages.
if ! command -v wrk >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    apt-get update -qq >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null
  else
    echo "wrk is missing: install Debian's 'wrk' package (sudo apt-get install wrk)" >&2
    exit 1
  fi
fi
export SWC_NODE_PROJECT=tsconfig.json
names=("$@")
if [ ${#names[@]} -eq 0 ]; then names=(core chain store http auth verify mcp memory); fi
for name in "${names[@]}"; do
  file="bench/${name}.bench.ts"
  [ -f "$file" ] || { echo "no such bench: $file" >&2; exit 2; }
  echo
  echo "=== ${name} (${file})"
  node --expose-gc --import @swc-node/register/esm-register "$file"
done
