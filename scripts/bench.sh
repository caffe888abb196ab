#!/usr/bin/env bash
# Every benchmark in bench/, one after another (they measure ratios within one run, so a noisy machine
# shifts both sides alike). Benches that start the app use the build, so build first. The swc loader
# keeps decorator metadata (Nest's DI needs it; tsx/esbuild drops it). Pass names to run a subset:
#   npm run bench -- core verify
set -euo pipefail
cd "$(dirname "$0")/.."
npx tsc -b tsconfig.build.json
export SWC_NODE_PROJECT=tsconfig.json
names=("$@")
if [ ${#names[@]} -eq 0 ]; then names=(core chain store http auth verify mcp); fi
for name in "${names[@]}"; do
  file="bench/${name}.bench.ts"
  [ -f "$file" ] || { echo "no such bench: $file" >&2; exit 2; }
  echo
  echo "=== ${name} (${file})"
  node --expose-gc --import @swc-node/register/esm-register "$file"
done
