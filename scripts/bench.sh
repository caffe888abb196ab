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
# The benches drive the server with wrk (a C load generator), and the verify, auth and memory benches
# measure the redis store on a redis-server they start: both from Debian's packages.
missing=()
command -v wrk >/dev/null || missing+=(wrk)
command -v redis-server >/dev/null || [ -x /usr/bin/redis-server ] || missing+=(redis-server)
bash scripts/apt-install.sh "the benches" "${missing[@]}"
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
